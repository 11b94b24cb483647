"""Score editblocks against a corpus of recorded answers: does each one leave exactly the expected files?

A *case* is a folder holding ``response.md`` (what a model answered),
``before/`` (the files it saw), ``after/`` (the files that must result; equal
to ``before/`` when the answer must be refused) and an optional ``case.json``
(options and a note on what it tests). docs/eval.md describes the layout.

Each case runs for real: ``before/`` is copied into a fresh temporary folder,
the response is parsed and applied through the service (`EditSession`, the
engine behind every door), and the folder is then compared with ``after/``
byte for byte. Judging the files, not the block
statuses, is what makes a corpus worth keeping: it catches an edit that
"applied" to the wrong place as surely as one that was missed, and it keeps
scoring any future parser or matcher without rewriting a single expectation.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from editblocks.errors import CaseError
from editblocks.eval.calls import CALLS_FILE, CallsError, read_calls, run_calls
from editblocks.eval.case_files import CaseDataError, CaseTree, DataFolder
from editblocks.model import ApplyResult, Format, ParseResult, Policy, Status, counted
from editblocks.service.options import ApplyOptions
from editblocks.service.session import EditSession
from editblocks.workspace.paths import JOURNAL_DIR

RESPONSE_FILE = "response.md"
BEFORE_DIR = "before"
AFTER_DIR = "after"
CASE_FILE = "case.json"

PARALLEL_THRESHOLD = 50
"""Below this many cases, starting worker processes costs more than it saves."""
DIFFERENCE_LINES = 40
"""Tree-difference lines kept per case (the report shows the first of them)."""
_LINES_PER_FILE = 14


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


class Expect(StrEnum):
    """The optional case.json `expect`: what the block statuses must say, beyond the files."""

    APPLIED = "applied"  # every block applied
    REFUSED = "refused"  # no block applied
    PARTIAL = "partial"  # some blocks applied, some not


@dataclass(frozen=True)
class CaseOptions:
    """Parsing and applying options for one case; ``None`` means the library default."""

    format: str | None = None
    on_failure: str | None = None
    strict: bool | None = None
    first_match: bool | None = None
    fuzzy: bool | None = None

    def overridden_by(self, other: CaseOptions) -> CaseOptions:
        """These options with every value ``other`` sets taking precedence (command-line overrides)."""
        return replace(self, **{name: value for name in _OPTION_NAMES if (value := getattr(other, name)) is not None})

    def apply_options(self, known_files: tuple[str, ...] | None = None) -> ApplyOptions:
        """The service's options for the case: the same names and meanings as `editblocks apply`'s."""
        return ApplyOptions.from_mapping({name: getattr(self, name) for name in _OPTION_NAMES}) \
            .with_known_files(known_files)


_OPTION_NAMES = ("format", "on_failure", "strict", "first_match", "fuzzy")
_CASE_KEYS = frozenset({*_OPTION_NAMES, "known_files", "why", "expect"})


@dataclass(frozen=True)
class CaseSpec:
    """What case.json says (every key optional)."""

    options: CaseOptions = CaseOptions()
    known_files: tuple[str, ...] | Literal[True] | None = None  # True: every file in before/
    why: str = ""
    expect: Expect | None = None


@dataclass(frozen=True)
class CaseOutcome:
    """The verdict on one case; ``detail`` sums up what editblocks did, ``difference`` what is off."""

    name: str
    verdict: Verdict
    detail: str
    seconds: float
    difference: tuple[str, ...] = ()
    why: str = ""  # the case's own account of what it tests, from case.json

    @property
    def passed(self) -> bool:
        return self.verdict in PASSING


@dataclass(frozen=True)
class EvalReport:
    outcomes: tuple[CaseOutcome, ...]
    seconds: float
    jobs: int

    @property
    def totals(self) -> dict[str, int]:
        """Count per verdict, every verdict present, in the order of `Verdict`."""
        counts = Counter(outcome.verdict for outcome in self.outcomes)
        return {verdict.value: counts[verdict] for verdict in Verdict}

    @property
    def ok(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)

    @property
    def failures(self) -> tuple[CaseOutcome, ...]:
        return tuple(outcome for outcome in self.outcomes if not outcome.passed)


@dataclass(frozen=True)
class _Task:
    """One case to run; picklable, so it can go to a worker process."""

    path: str
    name: str
    overrides: CaseOptions = CaseOptions()
    scratch: str | None = None


# --- finding and reading cases ----------------------------------------------------------


def find_cases(folders: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, str]]:
    """Every case folder under ``folders`` with its display name, sorted by name.

    A folder holding ``response.md`` is a case; nothing inside a case is
    searched further (its ``before/`` may well contain a ``response.md`` of its
    own). Hidden folders are skipped. Names are paths relative to the common
    parent of the folders given, so they read the same however the run is split.
    """
    roots = [Path(folder).resolve() for folder in folders]
    if not roots:
        return []
    base = Path(os.path.commonpath(roots))
    if _is_case(base):
        base = base.parent
    found: dict[Path, str] = {}
    for root in roots:
        for case in _walk(root):
            found.setdefault(case, case.relative_to(base).as_posix())
    return sorted(found.items(), key=lambda item: item[1])


def _is_case(folder: Path) -> bool:
    """A case answers with text (`response.md`) or with tool calls (`calls.json`); whatever is there by that name
    makes it one, so a link or a pipe in its place becomes an `error` verdict rather than going unnoticed."""
    return os.path.lexists(folder / RESPONSE_FILE) or os.path.lexists(folder / CALLS_FILE)


def _walk(folder: Path) -> Iterable[Path]:
    """Case folders below ``folder``; links to folders are not followed (two links to `.` would branch forever)."""
    if _is_case(folder):
        yield folder
        return
    try:
        with os.scandir(folder) as entries:
            children = sorted(folder / entry.name for entry in entries
                              if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."))
    except OSError:
        return
    for child in children:
        yield from _walk(child)


def read_case_spec(case: Path) -> CaseSpec:
    """The case's case.json, checked: unknown keys and wrong types are errors, so a typo never goes unnoticed."""
    try:
        with DataFolder(case) as folder:
            raw = folder.read(CASE_FILE)
    except CaseDataError as error:
        raise CaseError(str(error)) from None
    if raw is None:
        return CaseSpec()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CaseError(f"{CASE_FILE} cannot be read: {error}") from None
    if not isinstance(data, dict):
        raise CaseError(f"{CASE_FILE} must hold a JSON object")
    unknown = sorted(set(data) - _CASE_KEYS)
    if unknown:
        raise CaseError(f"{CASE_FILE} has unknown keys {unknown}; allowed: {sorted(_CASE_KEYS)}")
    return CaseSpec(
        options=CaseOptions(
            format=_choice(data, "format", [fmt.value for fmt in Format]),
            on_failure=_choice(data, "on_failure", [policy.value for policy in Policy]),
            strict=_flag(data, "strict"),
            first_match=_flag(data, "first_match"),
            fuzzy=_flag(data, "fuzzy"),
        ),
        known_files=_known_files(data.get("known_files")),
        why=_text(data, "why"),
        expect=Expect(value) if (value := _choice(data, "expect", [e.value for e in Expect])) else None,
    )


def _choice(data: Mapping[str, Any], key: str, allowed: list[str]) -> str | None:
    value = data.get(key)
    if value is not None and value not in allowed:
        raise CaseError(f"{CASE_FILE}: {key} must be one of {allowed}, not {value!r}")
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise CaseError(f"{CASE_FILE}: {key} must be true or false, not {value!r}")
    return value


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise CaseError(f"{CASE_FILE}: {key} must be a string")
    return value


def _known_files(value: Any) -> tuple[str, ...] | Literal[True] | None:
    if value is None or value is True:
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise CaseError(f"{CASE_FILE}: known_files must be a list of paths or true")


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by POSIX relative path (a missing folder is an empty tree).

    editblocks' own ``.editblocks/`` journal is left out: it is bookkeeping,
    not a result. A link or a special file below ``folder`` is a CaseError.
    """
    try:
        with DataFolder(folder.parent) as parent:
            return _compared(parent.tree(folder.name))
    except CaseDataError as error:
        raise CaseError(str(error)) from None


def _compared(tree: CaseTree) -> dict[str, bytes]:
    """The files of ``tree`` that a verdict compares: all but editblocks' journal."""
    return {rel: data for rel, data in tree.files.items() if not rel.startswith(f"{JOURNAL_DIR}/")}


# --- running one case ---------------------------------------------------------------------


def _run_case(task: _Task) -> CaseOutcome:
    """Run one case in its own temporary folder; never raises (a broken case is an ``error`` verdict)."""
    started = time.perf_counter()
    case = Path(task.path)
    why = ""
    try:
        spec = read_case_spec(case)
        why = spec.why
        verdict, detail, difference = _judge(case, spec, task.overrides, task.scratch)
    except (CaseError, CaseDataError) as error:
        verdict, detail, difference = Verdict.ERROR, f"broken case: {error}", ()
    except Exception as error:  # an exception escaping editblocks is itself a finding worth reporting
        where = traceback.extract_tb(error.__traceback__)[-1]
        detail = f"editblocks raised {type(error).__name__}: {error} ({Path(where.filename).name}:{where.lineno})"
        verdict, difference = Verdict.ERROR, ()
    return CaseOutcome(task.name, verdict, detail, time.perf_counter() - started, difference, why)


def _judge(case: Path, spec: CaseSpec, overrides: CaseOptions,
           scratch: str | None) -> tuple[Verdict, str, tuple[str, ...]]:
    with DataFolder(case) as folder:
        if folder.has(CALLS_FILE):
            return _judge_calls(folder, spec, overrides, scratch)
        raw = folder.read(RESPONSE_FILE)
        before, after = folder.tree(BEFORE_DIR), folder.tree(AFTER_DIR)
    if raw is None:
        raise CaseError(f"{RESPONSE_FILE} vanished while the case was being read")
    try:
        response = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CaseError(f"{RESPONSE_FILE} cannot be read as UTF-8: {error}") from None
    options = spec.options.overridden_by(overrides)
    expected = _compared(after)
    known = tuple(sorted(_compared(before))) if spec.known_files is True else spec.known_files
    # The root is a child of the sandbox, so a path that escapes the root lands where it can be seen.
    with _sandbox(before, scratch) as (root, escaped):
        session = EditSession.on_disk(root, options.apply_options(known))
        parsed = session.parse(response)
        result = session.apply(parsed)
        actual = read_tree(root)
    detail = summarize(parsed, result)
    if escaped:
        return Verdict.WRONG, detail, tuple(f"! wrote outside the root: {name}" for name in escaped)
    verdict = classify(_compared(before), expected, actual, blocks_parsed=bool(parsed.blocks))
    if verdict in PASSING and spec.expect is not None:
        said = statuses_say(result)
        if said is not spec.expect:
            note = f"case.json expects {spec.expect.value}, the results say {said.value}"
            return Verdict.MISREPORTED, f"{detail} ({note})", ()
    difference = () if verdict in PASSING else tree_difference(expected, actual)
    return verdict, detail, difference


def _judge_calls(folder: DataFolder, spec: CaseSpec, overrides: CaseOptions,
                 scratch: str | None) -> tuple[Verdict, str, tuple[str, ...]]:
    """A case whose answer is tool calls: run them with `ToolHandler`, then judge the files as for any case."""
    if folder.has(RESPONSE_FILE):
        raise CaseError(f"a case holds {RESPONSE_FILE} or {CALLS_FILE}, not both")
    try:
        calls = read_calls(folder.read(CALLS_FILE) or b"")
    except CallsError as error:
        raise CaseError(str(error)) from None
    before, after = folder.tree(BEFORE_DIR), folder.tree(AFTER_DIR)
    options = spec.options.overridden_by(overrides)
    expected = _compared(after)
    with _sandbox(before, scratch) as (root, escaped):
        outcome = run_calls(calls, root, options.apply_options())
        actual = read_tree(root)
    if escaped:
        return Verdict.WRONG, outcome.detail, tuple(f"! wrote outside the root: {name}" for name in escaped)
    verdict = classify(_compared(before), expected, actual, blocks_parsed=bool(calls))
    if verdict in PASSING and spec.expect is not None:
        said = (Expect.APPLIED if outcome.calls and outcome.succeeded == outcome.calls
                else Expect.PARTIAL if outcome.succeeded else Expect.REFUSED)
        if said is not spec.expect:
            note = f"case.json expects {spec.expect.value}, the calls say {said.value}"
            return Verdict.MISREPORTED, f"{outcome.detail} ({note})", ()
    difference = () if verdict in PASSING else tree_difference(expected, actual)
    return verdict, outcome.detail, difference


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


def tree_difference(expected: Mapping[str, bytes], actual: Mapping[str, bytes]) -> tuple[str, ...]:
    """What differs between two trees: missing and unexpected files, and a short diff of each changed one.

    Line ends, tabs, byte-order marks and trailing spaces are made visible,
    since they are exactly what an edit most often gets subtly wrong.
    """
    lines: list[str] = []
    for path in sorted(set(expected) | set(actual)):
        want, got = expected.get(path), actual.get(path)
        if want == got:
            continue
        if got is None:
            lines.append(f"- {path}: expected, but missing")
        elif want is None:
            lines.append(f"+ {path}: not expected, but written ({len(got)} bytes)")
        else:
            lines.append(f"~ {path}: content differs")
            lines += _file_diff(want, got)
        if len(lines) >= DIFFERENCE_LINES:
            break
    return tuple(lines[:DIFFERENCE_LINES])


def _file_diff(want: bytes, got: bytes) -> list[str]:
    expected = [_visible(line) for line in _lines(want.decode("utf-8", "replace"))]
    actual = [_visible(line) for line in _lines(got.decode("utf-8", "replace"))]
    diff = list(difflib.unified_diff(expected, actual, "after/ (expected)", "result", n=1, lineterm=""))
    shown = ["    " + line for line in diff[2:] if not line.startswith("@@")]
    if len(shown) > _LINES_PER_FILE:
        shown = shown[:_LINES_PER_FILE] + [f"    ... {counted(len(shown) - _LINES_PER_FILE, 'more diff line')}"]
    return shown or ["    (same text; the bytes differ in encoding)"]


def _lines(text: str) -> list[str]:
    """Lines cut at LF only, each with its ending (`str.splitlines` would also cut at form feeds and the like)."""
    pieces = text.split("\n")
    return [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def _visible(line: str) -> str:
    """One line with its invisible characters shown: CR as `\\r`, tabs, BOM, trailing spaces, a missing newline."""
    newline = line.endswith("\n")
    body = line[:-1] if newline else line
    carriage_return = body.endswith("\r")
    body = body[:-1] if carriage_return else body
    stripped = body.rstrip(" ")
    body = stripped + "·" * (len(body) - len(stripped))
    body = body.replace("\t", "\\t").replace("\ufeff", "\\ufeff").replace("\r", "\\r")
    return body + ("\\r" if carriage_return else "") + ("" if newline else "  (no newline at end)")


# --- running many cases -----------------------------------------------------------------------


def default_scratch() -> str | None:
    """Where case folders are copied: a memory-backed folder when the system has one, else the temp folder.

    Every apply fsyncs its journal and files; on a disk that costs tens of
    milliseconds per case, in memory almost nothing, and these copies are
    thrown away anyway.
    """
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) else None


def default_jobs() -> int:
    """Worker processes when none are asked for: one per CPU this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def evaluate_cases(
    paths: Iterable[str | os.PathLike[str]],
    *,
    format: str | None = None,
    on_failure: str | None = None,
    strict: bool | None = None,
    fuzzy: bool | None = None,
    first_match: bool | None = None,
    jobs: int | None = None,
    scratch: str | os.PathLike[str] | None = None,
    progress: Callable[[CaseOutcome], None] | None = None,
) -> EvalReport:
    """Run every case found under ``paths``; options given here override each case's case.json.

    With more than `PARALLEL_THRESHOLD` cases and ``jobs`` > 1, cases run in
    worker processes; outcomes are always in case-name order, so a parallel
    run reports exactly what a serial one does. ``progress`` is called once
    per finished case, in that same order. Each case runs in a temporary
    folder under ``scratch`` (default: `default_scratch`).
    """
    overrides = CaseOptions(format=format, on_failure=on_failure, strict=strict, first_match=first_match,
                            fuzzy=fuzzy)
    folder = os.fspath(scratch) if scratch is not None else default_scratch()
    tasks = [_Task(str(path), name, overrides, folder) for path, name in find_cases(paths)]
    workers = jobs if jobs is not None else default_jobs()
    if workers < 1:
        raise ValueError("jobs must be at least 1")
    if len(tasks) <= PARALLEL_THRESHOLD:
        workers = 1
    started = time.perf_counter()
    outcomes: list[CaseOutcome] = []
    for outcome in _run_all(tasks, workers):
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return EvalReport(tuple(outcomes), time.perf_counter() - started, workers)


def _run_all(tasks: list[_Task], workers: int) -> Iterator[CaseOutcome]:
    """Outcomes in task order, from ``workers`` processes (or this one)."""
    if workers == 1:
        yield from map(_run_case, tasks)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_run_case, tasks, chunksize=max(1, len(tasks) // (workers * 8)))


def report_json(report: EvalReport) -> dict[str, Any]:
    """The `editblocks eval --json` shape."""
    return {
        "ok": report.ok,
        "totals": report.totals,
        "cases_total": len(report.outcomes),
        "seconds": round(report.seconds, 3),
        "jobs": report.jobs,
        "cases": [
            {
                "name": outcome.name,
                "verdict": outcome.verdict.value,
                "detail": outcome.detail,
                "seconds": round(outcome.seconds, 4),
                "difference": list(outcome.difference),
                "why": outcome.why,
            }
            for outcome in report.outcomes
        ],
    }
