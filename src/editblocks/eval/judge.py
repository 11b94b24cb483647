"""The verdict on one case: apply its answer to its `before/` files, in memory or on disk, and compare with `after/`.

Judging the files, not the block statuses, is what makes a corpus worth
keeping: it catches an edit that "applied" to the wrong place as surely as
one that was missed, and keeps scoring any future parser or matcher without
rewriting a single expectation. Both backends run the same service
(`EditSession`, the engine behind every door): in memory on a `MemoryStore`
layered over the case's files, on disk in a fresh folder with the journal and
fsync of a real apply. They give the same verdicts; memory is the fast one.
"""

from __future__ import annotations

import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from editblocks.errors import CaseError
from editblocks.eval.calls import run_calls
from editblocks.eval.case_files import CaseDataError, CaseTree, DataFolder
from editblocks.eval.cases import Case, CaseOptions, Expect
from editblocks.eval.diffs import tree_difference
from editblocks.eval.tree_store import TreeStore
from editblocks.model import ApplyResult, ParseResult, Status, counted
from editblocks.service.session import EditSession
from editblocks.service.tool_handler import ToolHandler
from editblocks.workspace.memory import MemoryStore
from editblocks.workspace.paths import JOURNAL_DIR
from editblocks.workspace.reading import FileSnapshot

CALLS_FORMAT = "tool-calls"
"""The `format` of a case answered with tool calls."""


class Backend(StrEnum):
    """Where a case's files live while its answer is applied."""

    MEMORY = "memory"  # a MemoryStore over the case's files: no copies, no fsync, no journal
    DISK = "disk"  # a temporary folder, written and journaled as `editblocks apply` would


class Verdict(StrEnum):
    """How a case's resulting files compare with its ``after/`` folder."""

    CORRECT = "correct"  # a change was expected and the tree equals after/
    REFUSED_OK = "refused-ok"  # the answer had to be refused and nothing changed
    MISSED = "missed"  # a change was expected, nothing was written, and no block was even parsed
    FALSE_REFUSAL = "false-refusal"  # a change was expected, blocks were parsed, but all were refused
    WRONG = "wrong"  # something was written and the tree differs from after/: the worst outcome
    MISREPORTED = "misreported"  # the tree is right but the block statuses contradict case.json `expect`
    ERROR = "error"  # the case itself is broken (bad case.json) or editblocks raised


PASSING = frozenset({Verdict.CORRECT, Verdict.REFUSED_OK})
_UNCODED = {Verdict.WRONG: "files-differ", Verdict.MISREPORTED: "statuses-contradict-expect"}
"""The reason of a failure no block result names (every block applied, yet the files are not as expected)."""


@dataclass(frozen=True)
class CaseOutcome:
    """The verdict on one case; ``detail`` sums up what editblocks did, ``difference`` what is off.

    ``model`` and ``metadata`` are the case's own labels; ``format`` is the edit format the answer was read in
    (`tool-calls` for calls); ``code`` the stable reason of the first thing that went wrong, for ranking.
    """

    name: str
    verdict: Verdict
    detail: str
    seconds: float
    difference: tuple[str, ...] = ()
    why: str = ""  # the case's own account of what it tests, from case.json
    model: str = ""
    format: str = ""
    code: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.verdict in PASSING


@dataclass(frozen=True)
class _Applied:
    """What applying an answer did: the files it left, and what its results said."""

    actual: dict[str, bytes]
    detail: str
    blocks_parsed: bool
    said: Expect
    format: str
    code: str
    escaped: tuple[str, ...] = ()


def judge(case: Case, overrides: CaseOptions = CaseOptions(), backend: Backend = Backend.MEMORY,
          scratch: str | None = None) -> CaseOutcome:
    """The verdict on ``case``; never raises (an exception escaping editblocks is an ``error`` verdict)."""
    started = time.perf_counter()
    try:
        applied = _apply(case, overrides, backend, scratch)
    except (CaseError, CaseDataError) as error:
        return failed(case.name, f"broken case: {error}", started, why=case.spec.why, model=case.model,
                      metadata=case.metadata)
    except Exception as error:  # an exception escaping editblocks is itself a finding worth reporting
        return failed(case.name, raised(error), started, code=f"raised-{type(error).__name__}", why=case.spec.why,
                      model=case.model, metadata=case.metadata)
    verdict, detail, difference = _verdict(case, applied)
    code = "" if verdict in PASSING else applied.code or _UNCODED.get(verdict, verdict.value)
    return CaseOutcome(case.name, verdict, detail, time.perf_counter() - started, difference, case.spec.why,
                       case.model, applied.format, code, case.metadata)


def failed(name: str, detail: str, started: float, *, code: str = "broken-case", why: str = "", model: str = "",
           metadata: Mapping[str, Any] | None = None) -> CaseOutcome:
    """An ``error`` outcome: the case could not be read or run."""
    return CaseOutcome(name, Verdict.ERROR, detail, time.perf_counter() - started, why=why, model=model, code=code,
                       metadata=metadata or {})


def raised(error: Exception) -> str:
    """An exception as a verdict's detail: its type, message and where it was raised."""
    where = traceback.extract_tb(error.__traceback__)[-1]
    return f"editblocks raised {type(error).__name__}: {error} ({Path(where.filename).name}:{where.lineno})"


def _verdict(case: Case, applied: _Applied) -> tuple[Verdict, str, tuple[str, ...]]:
    if applied.escaped:
        return Verdict.WRONG, applied.detail, tuple(f"! wrote outside the root: {name}" for name in applied.escaped)
    before, expected = compared(case.before.files), compared(case.after.files)
    verdict = classify(before, expected, applied.actual, blocks_parsed=applied.blocks_parsed)
    if verdict in PASSING and case.spec.expect is not None and applied.said is not case.spec.expect:
        by = "calls" if case.calls is not None else "results"
        note = f"case.json expects {case.spec.expect.value}, the {by} say {applied.said.value}"
        return Verdict.MISREPORTED, f"{applied.detail} ({note})", ()
    difference = () if verdict in PASSING else tree_difference(expected, applied.actual)
    return verdict, applied.detail, difference


def compared(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """The files a verdict compares: all but editblocks' journal."""
    return {rel: data for rel, data in files.items() if not rel.startswith(f"{JOURNAL_DIR}/")}


def classify(before: Mapping[str, bytes], expected: Mapping[str, bytes], actual: Mapping[str, bytes], *,
             blocks_parsed: bool) -> Verdict:
    """The verdict from three trees; a tree is path → bytes."""
    if actual == expected:
        return Verdict.REFUSED_OK if expected == before else Verdict.CORRECT
    if actual != before:
        return Verdict.WRONG
    return Verdict.FALSE_REFUSAL if blocks_parsed else Verdict.MISSED


def statuses_say(result: ApplyResult) -> Expect:
    """Which `Expect` value the block statuses of ``result`` amount to."""
    applied = sum(1 for r in result.results if r.status is Status.APPLIED)
    if applied and applied == len(result.results):
        return Expect.APPLIED
    return Expect.PARTIAL if applied else Expect.REFUSED


def summarize(parsed: ParseResult, result: ApplyResult) -> str:
    """One line: how many blocks did what, and the first thing that went wrong."""
    if not result.results:
        first_error = next(iter(parsed.errors), None)
        return "no edit blocks parsed" + (f"; {first_error}" if first_error else "")
    counts = Counter(r.status for r in result.results)
    shown = ", ".join(f"{counts[status]} {status.value}" for status in Status if counts[status])
    total = len(result.results)
    text = f"{counted(total, 'block')}: {shown}"
    problem = next((r for r in result.results if r.status is not Status.APPLIED), None)
    if problem is not None:
        text += f"; line {problem.block.line}: {problem.reason}"
    elif parsed.errors:
        text += f"; {parsed.errors[0]}"
    return text


def _first_code(parsed: ParseResult, result: ApplyResult) -> str:
    """The stable reason of the first block that did not apply (`no-blocks` when none was parsed)."""
    if not result.results:
        return "no-blocks"
    problem = next((r for r in result.results if r.status is not Status.APPLIED), None)
    return problem.code.value if problem is not None else ""


# --- the two backends -------------------------------------------------------------------------------------------


def _apply(case: Case, overrides: CaseOptions, backend: Backend, scratch: str | None) -> _Applied:
    options = case.spec.options.overridden_by(overrides)
    if case.calls is None and case.answer is None:
        raise CaseError("the case holds neither an answer nor tool calls")
    known = tuple(sorted(compared(case.before.files))) if case.spec.known_files is True else case.spec.known_files
    apply_options = options.apply_options(known if case.calls is None else None)
    if backend is Backend.MEMORY:
        layer = MemoryStore(base=TreeStore(case.before))
        return _with_actual(_run(case, EditSession(layer, apply_options)), _layered(case.before, layer))
    # The root is a child of the sandbox, so a path that escapes the root lands where it can be seen.
    with _sandbox(case.before, scratch) as (root, escaped):
        applied = _run(case, EditSession.on_disk(root, apply_options))
        actual = read_tree(root)
    return _with_actual(applied, actual, tuple(escaped))


def _run(case: Case, session: EditSession) -> _Applied:
    if case.calls is not None:
        outcome = run_calls(case.calls, ToolHandler(store=session.store, options=session.options))
        said = (Expect.APPLIED if outcome.calls and outcome.succeeded == outcome.calls
                else Expect.PARTIAL if outcome.succeeded else Expect.REFUSED)
        code = "" if outcome.succeeded == outcome.calls else "call-failed"
        return _Applied({}, outcome.detail, bool(case.calls), said, CALLS_FORMAT, code)
    assert case.answer is not None
    parsed = session.parse(case.answer)
    result = session.apply(parsed)
    return _Applied({}, summarize(parsed, result), bool(parsed.blocks), statuses_say(result), parsed.format,
                    _first_code(parsed, result))


def _with_actual(applied: _Applied, actual: dict[str, bytes], escaped: tuple[str, ...] = ()) -> _Applied:
    return _Applied(compared(actual), applied.detail, applied.blocks_parsed, applied.said, applied.format,
                    applied.code, escaped)


def _layered(before: CaseTree, layer: MemoryStore) -> dict[str, bytes]:
    """The files after the run: ``before`` with every file the layer wrote or removed."""
    files = dict(before.files)
    for rel in layer.changed():
        read = layer.read(rel)
        data = read.data() if isinstance(read, FileSnapshot) else None
        if data is None:
            files.pop(rel, None)
        else:
            files[rel] = data
    return files


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by POSIX relative path (a missing folder is an empty tree).

    editblocks' own ``.editblocks/`` journal is left out: it is bookkeeping,
    not a result. A link or a special file below ``folder`` is a CaseError.
    """
    try:
        with DataFolder(folder.parent) as parent:
            return compared(parent.tree(folder.name).files)
    except CaseDataError as error:
        raise CaseError(str(error)) from None


@contextmanager
def _sandbox(before: CaseTree, scratch: str | None) -> Iterator[tuple[Path, list[str]]]:
    """The files of the case's `before/` (as read) written as the root, inside a sandbox folder; on leaving, the
    list it yielded holds the names written beside the root (a path that escapes the root lands where it can be
    seen)."""
    escaped: list[str] = []
    with tempfile.TemporaryDirectory(prefix="editblocks-eval-", dir=scratch) as sandbox:
        root = Path(sandbox) / "root"
        before.write(root)
        yield root, escaped
        escaped.extend(sorted(entry.name for entry in Path(sandbox).iterdir() if entry.name != "root"))
