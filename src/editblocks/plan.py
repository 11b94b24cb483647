"""Planning: apply blocks, in order, to in-memory copies of the files, and decide each block's fate.

Pure: the caller reads the files (the workspace) and hands over their texts;
the plan says what every block did and what every changed file becomes.
Nothing is written until every block has been decided, and with the `abort`
policy a single failure means nothing is written at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from editblocks.document import Document, TextBuffer
from editblocks.locate.fuzzy import FuzzyLines, score_window
from editblocks.locate.ladder import (
    DEFAULT_RUNGS,
    EXACT_ONLY,
    Ambiguous,
    Found,
    LocateOptions,
    NearMiss,
    NotFound,
    Rung,
    explain_anchor_failure,
    locate,
)
from editblocks.locate.line_index import LineIndex
from editblocks.model import (
    EXACT_ONLY_FORMATS,
    BlockKind,
    EditBlock,
    EditResult,
    Format,
    Policy,
    Reason,
    Status,
    percent,
)

MIN_ALREADY_APPLIED_CHARS = 12
MAX_ALREADY_APPLIED_CANDIDATES = 100
MAX_ALREADY_APPLIED_CHECKS = 10
ALREADY_APPLIED_SIMILARITY_MARGIN = 0.1
INDEX_FROM_BLOCK = 4  # a file's 4th block on: index its lines, so many blocks never cost blocks × lines
MAX_LISTED_CANDIDATES = 10


def default_policy(fmt: Format) -> Policy:
    """Seed 003 skips the rest of a file after a failure; the other seeds carry on."""
    return Policy.SKIP_FILE if fmt is Format.GUILLEMET else Policy.CONTINUE


@dataclass(frozen=True)
class Source:
    """What the caller knows about one target file.

    `key` is the canonical path (two spellings of one file share it); `text`
    is None when the file does not exist; a non-empty `refusal` means the file
    may not be edited (outside the root, binary, ...) and says why.
    """

    key: str
    text: str | None
    refusal: str = ""
    refusal_code: str = ""  # the stable code of the refusal (`paths.RefusalCode`), for scripts


@dataclass(frozen=True)
class PlanOptions:
    policy: Policy | None = None  # None: each block's format default
    fuzzy: bool = False
    first_match: bool = False
    strict: bool = False  # exact matching only, for every format


@dataclass(frozen=True)
class FilePlan:
    key: str
    original: str | None  # None: the file is created
    text: str


@dataclass(frozen=True)
class Plan:
    results: tuple[EditResult, ...]
    files: tuple[FilePlan, ...]
    aborted: bool = False

    @property
    def failed(self) -> bool:
        return any(result.status is Status.FAILED for result in self.results)


@dataclass
class _FileState:
    source: Source
    buffer: TextBuffer | None  # None while the file does not exist
    blocks_seen: int = 0
    failed_at: int | None = None

    def lines_and_index(self) -> tuple[list[str], LineIndex | None]:
        assert self.buffer is not None
        self.blocks_seen += 1
        index = self.buffer.indexed() if self.blocks_seen >= INDEX_FROM_BLOCK else self.buffer.index
        return self.buffer.lines, index


def plan_edits(
    blocks: Sequence[EditBlock], sources: Mapping[str, Source], options: PlanOptions = PlanOptions()
) -> Plan:
    """Decide every block against the current in-memory text of its file."""
    states: dict[str, _FileState] = {}
    results: list[EditResult] = []
    abort = False
    for block in blocks:
        source = sources[block.path]
        state = states.get(source.key)
        if state is None:
            buffer = TextBuffer(Document.from_text(source.text)) if source.text is not None else None
            state = states[source.key] = _FileState(source, buffer)
        result = _plan_block(block, state, options)
        if not source.refusal:
            result = replace(result, file=source.key)
        if result.status is Status.FAILED:
            policy = options.policy or default_policy(block.format)
            abort = abort or policy is Policy.ABORT
            if state.failed_at is None:
                state.failed_at = block.line
        results.append(result)
    plan = Plan(tuple(results), _changed_files(states))
    if abort:
        failed_lines = [r.block.line for r in results if r.status is Status.FAILED]
        return abort_plan(plan, f"block at line {failed_lines[0]} failed and the policy is abort")
    return plan


def abort_plan(plan: Plan, why: str) -> Plan:
    """Nothing is written: blocks that would have applied are reported as skipped, saying why."""
    results = tuple(
        replace(r, status=Status.SKIPPED, code=Reason.ABORTED, reason=f"not applied: {why}; nothing was written")
        if r.status is Status.APPLIED
        else r
        for r in plan.results
    )
    return Plan(results, (), aborted=True)


def _changed_files(states: Mapping[str, _FileState]) -> tuple[FilePlan, ...]:
    files = []
    for key, state in states.items():
        if state.buffer is None:
            continue
        text = state.buffer.to_text()
        if text != state.source.text:
            files.append(FilePlan(key, state.source.text, text))
    return tuple(files)


def _plan_block(block: EditBlock, state: _FileState, options: PlanOptions) -> EditResult:
    source = state.source
    if source.refusal:
        return EditResult(block, Status.FAILED, source.refusal, Reason.REFUSED, refusal=source.refusal_code)
    if state.failed_at is not None and (options.policy or default_policy(block.format)) is Policy.SKIP_FILE:
        return EditResult(
            block, Status.SKIPPED, f"skipped: an earlier block for {source.key} (line {state.failed_at}) failed",
            Reason.SKIPPED_AFTER_FAILURE,
        )
    if block.kind is BlockKind.CREATE:
        return _create(block, state)
    if state.buffer is None:
        return EditResult(block, Status.FAILED, f"file not found: {block.path}", Reason.FILE_NOT_FOUND)
    return _edit(block, state, options)


def _lines(text: str) -> list[str]:
    """A block text as lines; CRLF counts as LF (both sides are normalised), whoever built the block."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _create(block: EditBlock, state: _FileState) -> EditResult:
    key = state.source.key
    new_lines = _lines(block.new)
    existing = state.buffer
    if existing is not None and "".join(existing.lines).strip():
        if existing.lines == new_lines:
            return EditResult(block, Status.SKIPPED, f"already applied: {key} already has exactly this content",
                              Reason.ALREADY_APPLIED, 1, len(new_lines), "create", 1.0)
        return EditResult(
            block, Status.FAILED,
            f"cannot create {key}: it already exists and is not empty; to change it, quote the lines to replace "
            "in the old text", Reason.FILE_EXISTS,
        )
    state.buffer = TextBuffer(Document.new_file("\n".join(new_lines) + "\n" if new_lines else ""))
    return EditResult(block, Status.APPLIED, "", Reason.NONE, 1 if new_lines else None,
                      len(new_lines) or None, "create", 1.0)


def _rungs(block: EditBlock, options: PlanOptions) -> tuple[Rung, ...]:
    if options.strict:
        return EXACT_ONLY
    if options.fuzzy:
        return DEFAULT_RUNGS + (Rung.FUZZY,)
    return EXACT_ONLY if block.format in EXACT_ONLY_FORMATS else DEFAULT_RUNGS


def _edit(block: EditBlock, state: _FileState, options: PlanOptions) -> EditResult:
    key = state.source.key
    lines, index = state.lines_and_index()
    search, replacement = _lines(block.search), _lines(block.replace)
    outcome = locate(lines, search, replacement,
                     LocateOptions(rungs=_rungs(block, options), first_match=options.first_match), index)
    if isinstance(outcome, Found):
        return _found(block, state, outcome)
    if isinstance(outcome, Ambiguous):
        return _ambiguous(block, key, outcome)
    already = _already_applied(block, lines, index, replacement, outcome.near_miss)
    if already is not None:
        return already
    return _not_found(block, key, lines, outcome)


def _found(block: EditBlock, state: _FileState, found: Found) -> EditResult:
    assert state.buffer is not None
    first, last = found.start + 1, max(found.start + 1, found.end)
    similarity = round(found.similarity, 4)
    if block.is_noop:
        return EditResult(block, Status.SKIPPED,
                          f"no change: the old and new text are identical ({_span_words(found.start, found.end)})",
                          Reason.NO_OP, first, last, found.strategy.value, similarity)
    there = _replacement_around(state.buffer.lines, found)
    if there is not None:
        end = there + len(found.new_lines)
        return EditResult(
            block, Status.SKIPPED,
            f"already applied: the new text is already in the file at {_span_words(there, end)}, around the old "
            "text; applying it again would repeat the added lines",
            Reason.ALREADY_APPLIED, there + 1, end, found.strategy.value, similarity,
        )
    state.buffer.splice(found.start, found.end, found.new_lines, found.sources)
    return EditResult(block, Status.APPLIED, _tolerance_note(found), Reason.NONE, first, last,
                      found.strategy.value, similarity)


_TOLERANCE_NOTES = {
    Rung.EXACT: "",
    Rung.TRAILING_WHITESPACE: "matched after ignoring whitespace at line ends and blank edge lines",
    Rung.INDENTATION: "matched with the indentation shifted; the new lines were re-indented to fit",
    Rung.TYPOGRAPHY: "matched after folding typographic quotes, dashes and spaces",
    Rung.ELISION: "matched piece by piece around `...` lines; the elided lines were kept",
    Rung.FUZZY: "matched approximately (fuzzy)",
}


def _tolerance_note(found: Found) -> str:
    note = _TOLERANCE_NOTES[found.strategy]
    if found.strategy is Rung.FUZZY:
        note += f", {percent(found.similarity)} similar"
    return note


def _ambiguous(block: EditBlock, key: str, ambiguous: Ambiguous) -> EditResult:
    lines = [start + 1 for start in ambiguous.starts]
    shown = lines[:MAX_LISTED_CANDIDATES]
    listed = ", ".join(str(n) for n in shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else str(shown[0])
    more = " and more" if ambiguous.truncated or len(lines) > len(shown) else ""
    reason = (f"Edit location is ambiguous (matches at lines {listed}{more}) in {key}; "
              "include more surrounding lines so the old text occurs only once")
    return EditResult(block, Status.FAILED, reason, Reason.AMBIGUOUS, strategy=ambiguous.strategy.value,
                      candidates=tuple(lines))


def _replacement_around(lines: list[str], found: Found) -> int | None:
    """Where the file already holds the whole replacement around the located old text (a re-sent insertion).

    Only when the replacement adds non-blank lines: adding a blank line next
    to an existing one is a real edit, not a repeat.
    """
    new_lines = list(found.new_lines)
    added = [line for line, source in zip(new_lines, found.sources) if source is None]
    if not any(line.strip() for line in added):
        return None
    lowest = max(0, found.end - len(new_lines))
    highest = min(found.start, len(lines) - len(new_lines))
    for start in range(lowest, highest + 1):
        if lines[start : start + len(new_lines)] == new_lines:
            return start
    return None


def _already_applied(block: EditBlock, lines: list[str], index: LineIndex | None,
                     replacement: list[str], near: NearMiss | None) -> EditResult | None:
    """A re-sent edit: the old text is gone and the new text is where it was.

    "Where it was": the old text, placed where the new text is, is about as
    similar as it is to the region most like it anywhere. New text that only
    happens to occur elsewhere does not count (a typo in the old text must be
    reported, not hidden). Only when nothing is like the old text at all may a
    unique, substantial copy of the new text stand in.
    """
    if block.is_noop or not any(line.strip() for line in replacement):
        return None
    rungs = LocateOptions(rungs=(Rung.EXACT, Rung.TRAILING_WHITESPACE), max_candidates=MAX_ALREADY_APPLIED_CANDIDATES)
    outcome = locate(lines, replacement, replacement, rungs, index)
    if isinstance(outcome, NotFound):
        return None
    starts = outcome.starts if isinstance(outcome, Ambiguous) else (outcome.start,)
    if near is not None:
        search, file = FuzzyLines(_lines(block.search)), FuzzyLines(lines)
        beside = [start for start in starts[:MAX_ALREADY_APPLIED_CHECKS] if _where_old_was(file, search, start, near)]
        if not beside:
            return None
        start = beside[0]
    elif isinstance(outcome, Found) and len("".join(replacement).replace(" ", "")) >= MIN_ALREADY_APPLIED_CHARS:
        start = outcome.start
    else:
        return None
    end = start + len(replacement)
    return EditResult(
        block, Status.SKIPPED,
        f"already applied: the new text is already in the file at {_span_words(start, end)} and the old text is not",
        Reason.ALREADY_APPLIED, start + 1, max(start + 1, end), outcome.strategy.value, 1.0,
    )


def _where_old_was(file: FuzzyLines, search: FuzzyLines, start: int, near: NearMiss) -> bool:
    """Whether the new text at ``start`` stands where the searched (old) text would have been."""
    if start < near.end and near.start < start + len(search):
        return True
    window = score_window(file, search, start)
    return window is not None and window.similarity >= near.similarity - ALREADY_APPLIED_SIMILARITY_MARGIN


def _not_found(block: EditBlock, key: str, lines: list[str], outcome: NotFound) -> EditResult:
    near = outcome.near_miss
    if block.format in EXACT_ONLY_FORMATS:
        parts = _lines(block.leading), _lines(block.old), _lines(block.trailing)
        reason = f"{key}: {explain_anchor_failure(lines, *parts)}"
    else:
        reason = f"the old text was not found in {key}"
        if near is not None:
            where = _span_words(near.start, near.end)
            reason += f"; the closest text is at {where} ({percent(near.similarity)} similar)"
    if outcome.hint:
        reason += f" ({outcome.hint})"
    closest = (near.start + 1, max(near.start + 1, near.end)) if near is not None else None
    return EditResult(block, Status.FAILED, reason, Reason.NOT_FOUND, similarity=_similarity(near),
                      hint=_near_miss_hint(near), closest=closest)


def _span_words(start: int, end: int) -> str:
    """`line 4` or `lines 4–6`, from a 0-based half-open span."""
    return f"line {start + 1}" if end - start <= 1 else f"lines {start + 1}–{end}"


def _similarity(near: NearMiss | None) -> float | None:
    return round(near.similarity, 4) if near is not None else None


def _near_miss_hint(near: NearMiss | None) -> str:
    return "\n".join(near.diff) if near is not None else ""
