"""Planning: apply blocks, in order, to in-memory copies of the files, and decide each block's fate.

Pure: the caller reads the files (the workspace) and hands over their texts;
the plan says what every block did and what every changed file becomes.
Nothing is written until every block has been decided, and with the `abort`
policy a single failure means nothing is written at all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from editblocks.document import Document, TextBuffer
from editblocks.locate.diagnosis import explain_anchor_failure
from editblocks.locate.fuzzy import FuzzyLines, score_window
from editblocks.locate.ladder import HINT_TOLERANCE, locate
from editblocks.locate.line_index import LineIndex
from editblocks.locate.line_numbers import strip_line_numbers
from editblocks.locate.types import (
    DEFAULT_RUNGS,
    EXACT_ONLY,
    Ambiguous,
    Found,
    LocateOptions,
    NearMiss,
    NotFound,
    Rung,
)
from editblocks.model import (
    EXACT_ONLY_FORMATS,
    FRONT_END_FORMATS,
    BlockKind,
    EditBlock,
    EditResult,
    Format,
    Policy,
    Reading,
    Reason,
    Status,
    percent,
)
from editblocks.parsing.dialect import holds_escaped_markers
from editblocks.parsing.filenames import closest_paths

MIN_ALREADY_APPLIED_CHARS = 12
MAX_ALREADY_APPLIED_CANDIDATES = 100
MAX_ALREADY_APPLIED_CHECKS = 10
ALREADY_APPLIED_SIMILARITY_MARGIN = 0.1
INDEX_FROM_BLOCK = 4  # a file's 4th block on: index its lines, so many blocks never cost blocks × lines
MAX_LISTED_CANDIDATES = 10
BOM = "\ufeff"


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
    bom: bool = False  # the file starts with a byte-order mark (kept by the workspace, not part of `text`)
    links: frozenset[str] = frozenset()  # spellings that reach the file through a symlink: not to delete or move by


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
    deleted: bool = False  # the file is removed (``text`` is empty)
    moved_from: str | None = None  # the file is created by moving this one (which is removed)


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
    edits: list[tuple[int, int, int]] = field(default_factory=list)
    """(start, end, lines written) of every splice so far, in order: maps a line hint onto the current text."""
    cursor: int = 0  # where the last splice ended: a patch's next hunk of this file is looked for after it
    removed: bool = False  # deleted, or moved away, by a block
    moved_from: str | None = None
    moved_to: str | None = None

    def current_line(self, line: int) -> int:
        """Where the file's original 0-based ``line`` is now, after the edits made so far."""
        for start, end, written in self.edits:
            if line >= end:
                line += written - (end - start)
        return line

    def lines_and_index(self) -> tuple[list[str], LineIndex | None]:
        assert self.buffer is not None
        self.blocks_seen += 1
        index = self.buffer.indexed() if self.blocks_seen >= INDEX_FROM_BLOCK else self.buffer.index
        return self.buffer.lines, index


def plan_edits(
    blocks: Sequence[EditBlock], sources: Mapping[str, Source], options: PlanOptions = PlanOptions(),
    existing: Sequence[str] = (),
) -> Plan:
    """Decide every block against the current in-memory text of its file.

    ``existing`` lists files under the root (as far as the caller knows them), to suggest the path a model meant
    when the file it names does not exist.
    """
    states: dict[str, _FileState] = {}
    results: list[EditResult] = []
    abort = False

    def state_of(path: str) -> _FileState:
        # a block may name a second file (a move's target) the caller did not read: refuse it, never raise
        source = sources.get(path) or Source(path, None, refusal=f"{path} was not read for this plan",
                                             refusal_code="unreadable")
        state = states.get(source.key)
        if state is None:
            buffer = TextBuffer(Document.from_text(source.text)) if source.text is not None else None
            state = states[source.key] = _FileState(source, buffer)
        return state

    from editblocks.patch_plan import moving_sections, section_result

    sections = moving_sections(blocks)
    failed_sections: dict[int, int] = {}  # move block index -> line of its section's first failed hunk
    for index, block in enumerate(blocks):
        state = state_of(block.path)
        source = sources.get(block.path, state.source)
        result = section_result(blocks, index, sections, failed_sections, state, state_of) \
            or _plan_block(block, state, options, existing, state_of)
        if not source.refusal:
            result = replace(result, file=source.key)
        if result.status is Status.FAILED and index in sections:
            failed_sections.setdefault(sections[index], block.line)
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
            if state.removed and state.source.text is not None:
                files.append(FilePlan(key, state.source.text, "", deleted=True))
            continue
        text = state.buffer.to_text()
        if state.moved_from is not None and state.source.text is None:
            files.append(FilePlan(key, None, text, moved_from=state.moved_from))
        elif text != state.source.text:
            files.append(FilePlan(key, state.source.text, text))
    return tuple(files)


def _plan_block(block: EditBlock, state: _FileState, options: PlanOptions, existing: Sequence[str],
                state_of: Callable[[str], _FileState]) -> EditResult:
    source = state.source
    if source.refusal:
        return EditResult(block, Status.FAILED, source.refusal, Reason.REFUSED, refusal=source.refusal_code)
    if state.failed_at is not None and (options.policy or default_policy(block.format)) is Policy.SKIP_FILE:
        return EditResult(
            block, Status.SKIPPED, f"skipped: an earlier block for {source.key} (line {state.failed_at}) failed",
            Reason.SKIPPED_AFTER_FAILURE,
        )
    if block.kind is BlockKind.CREATE and block.format not in FRONT_END_FORMATS:
        return _create(block, state)
    if block.kind is not BlockKind.EDIT or block.scope is not None:
        from editblocks.patch_plan import plan_patch_block

        return plan_patch_block(block, state, options, state_of)
    if state.buffer is None:
        reason = f"file not found: {block.path}"
        suggestions = closest_paths(block.path, existing)
        if suggestions:
            reason += "; did you mean " + " or ".join(f"`{path}`" for path in suggestions) + "?"
        return EditResult(block, Status.FAILED, reason, Reason.FILE_NOT_FOUND)
    return _edit(block, state, options)


def _lines(text: str) -> list[str]:
    """A block text as lines; CRLF counts as LF (both sides are normalised), whoever built the block."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _create(block: EditBlock, state: _FileState) -> EditResult:
    """A new file, or an empty one filled. A leading byte-order mark in the text is written once: as the file's
    own when the file has none yet, and not at all when the (empty) file already starts with one."""
    key = state.source.key
    text = block.new
    if text.startswith(BOM):
        text = text.lstrip(BOM)
        if not state.source.bom:
            text = BOM + text
    new_lines = _lines(text)
    existing = state.buffer
    if existing is not None and "".join(existing.lines).strip():
        if _without_bom(existing.lines) == _without_bom(new_lines):
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


def _without_bom(lines: list[str]) -> list[str]:
    return [lines[0].removeprefix(BOM), *lines[1:]] if lines else lines


def _rungs(block: EditBlock, options: PlanOptions) -> tuple[Rung, ...]:
    if options.strict:
        return EXACT_ONLY
    if options.fuzzy:
        return DEFAULT_RUNGS + (Rung.FUZZY,)
    return EXACT_ONLY if block.format in EXACT_ONLY_FORMATS else DEFAULT_RUNGS


def _edit(block: EditBlock, state: _FileState, options: PlanOptions) -> EditResult:
    lines, index = state.lines_and_index()
    if block.literal is not None and holds_escaped_markers(lines):
        block = replace(block, old=block.literal[0], new=block.literal[1], readings=(), literal=None)
    if block.readings:
        return _edit_readings(block, state, options, lines, index)
    return _edit_text(block, state, options, lines, index)


def _locate_options(block: EditBlock, state: _FileState, options: PlanOptions) -> LocateOptions:
    hint = state.current_line(block.line_hint - 1) if block.line_hint is not None else None
    return LocateOptions(rungs=_rungs(block, options), first_match=options.first_match, hint=hint,
                         session=state.buffer.session if state.buffer is not None else None)


def _edit_text(block: EditBlock, state: _FileState, options: PlanOptions, lines: list[str],
               index: LineIndex | None) -> EditResult:
    key = state.source.key
    search, replacement = _lines(block.search), _lines(block.replace)
    outcome = locate(lines, search, replacement, _locate_options(block, state, options), index)
    note = ""
    if isinstance(outcome, NotFound) and not block.leading and not block.trailing:
        other = _read_differently(block, state, options, lines, index, search, replacement)
        if isinstance(other, str):
            outcome = NotFound(outcome.near_miss, "; ".join(part for part in (outcome.hint, other) if part))
        elif other is not None:
            block, outcome, note = other
            search, replacement = _lines(block.search), _lines(block.replace)
    if isinstance(outcome, Found):
        return _found(block, state, outcome, note)
    if isinstance(outcome, Ambiguous):
        return _ambiguous(block, key, outcome, state, len(search))
    already = _already_applied(block, lines, index, replacement, outcome.near_miss, state.buffer)
    if already is not None:
        return already
    result = _not_found(block, key, lines, outcome)
    return replace(result, reason=f"{result.reason} ({note})") if note else result


def _read_differently(
    block: EditBlock, state: _FileState, options: PlanOptions, lines: list[str], index: LineIndex | None,
    search: list[str], replacement: list[str],
) -> tuple[EditBlock, Found | Ambiguous | NotFound, str] | str | None:
    """The old text as written is not in the file; two things a model copies along with it may explain why.

    A byte-order mark at its start stands for the file's own (which is not part of the file's text): the rest
    must then be at the very start of the file. Line-number prefixes from a numbered view are taken off when
    every old line carries one. Returns the block as read that way, where it is, and a note for the report;
    or why the block cannot be read that way; or None when neither applies.
    """
    if search[0].startswith(BOM):
        unmarked = replace(block, old=block.old[len(BOM) :], new=block.new.removeprefix(BOM))
        at_start = locate(lines, _lines(unmarked.old), _lines(unmarked.new),
                          replace(_locate_options(unmarked, state, options), first_match=True), index)
        if isinstance(at_start, Found) and at_start.start == 0:
            return unmarked, at_start, "the byte-order mark the old text starts with matched the start of the file"
        return "the old text starts with a byte-order mark, so it can only match at the very start of the file"
    numbered = strip_line_numbers(search, replacement)
    if numbered is None or isinstance(numbered, str):
        return numbered
    unnumbered = replace(block, old=_text(numbered.search), new=_text(numbered.replace),
                         line_hint=block.line_hint if block.line_hint is not None else numbered.first)
    outcome = locate(lines, numbered.search, numbered.replace, _locate_options(unnumbered, state, options), index)
    return unnumbered, outcome, f"the line-number prefixes ({numbered.style}) copied from a numbered view were removed"


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _edit_readings(block: EditBlock, state: _FileState, options: PlanOptions, lines: list[str],
                   index: LineIndex | None) -> EditResult:
    """A block with several candidate separators: the file decides which reading it is.

    A reading applies when its old text is found exactly once and every other reading whose old text is found
    lies inside that place, quoting less of it (the longer quote is the more specific reading). Otherwise the
    block is refused, naming every reading tried.
    """
    key = state.source.key
    tried: list[tuple[EditBlock, Reading, Found | Ambiguous | NotFound]] = []
    for reading in block.readings:
        candidate = replace(block, old=reading.old, new=reading.new, readings=())
        outcome = locate(lines, _lines(candidate.search), _lines(candidate.replace),
                         _locate_options(candidate, state, options), index)
        tried.append((candidate, reading, outcome))
    count = len(block.readings)
    listing = "; ".join(reading.note for reading in block.readings)
    found = [(candidate, reading, outcome) for candidate, reading, outcome in tried if isinstance(outcome, Found)]
    chosen = _covering([outcome for _, _, outcome in found])
    if chosen is not None:
        candidate, reading, outcome = found[chosen]
        note = f"read as {reading.note}: of the {count} ways to read the block, the only one the file holds"
        return _found(candidate, state, outcome, note)
    if found:
        starts = sorted({outcome.start + 1 for _, _, outcome in found})
        reason = (f"the block can be read {count} ways ({listing}) and {key} holds the old text of more than one "
                  "of them; write it with 9-character markers (`<<<<<<<<< SEARCH`, `=========`, "
                  "`>>>>>>>>> REPLACE`) so its separator is clear")
        return EditResult(block, Status.FAILED, reason, Reason.AMBIGUOUS, candidates=tuple(starts))
    ambiguous = [(candidate, outcome) for candidate, _, outcome in tried if isinstance(outcome, Ambiguous)]
    if ambiguous:
        candidate, outcome = ambiguous[0]
        result = _ambiguous(candidate, key, outcome, state, len(_lines(candidate.search)))
        return replace(result, block=block, reason=f"the block can be read {count} ways ({listing}) and none of "
                                                   f"them has old text found exactly once: {result.reason}")
    candidate, _, outcome = tried[0]
    assert isinstance(outcome, NotFound)
    result = _not_found(candidate, key, lines, outcome)
    return replace(result, block=block, reason=f"the block can be read {count} ways ({listing}) and none of them "
                                               f"has its old text in the file: {result.reason}")


def _covering(found: list[Found]) -> int | None:
    """Which found reading to apply: the one whose place holds every other found reading's, with more lines."""
    if not found:
        return None
    best = max(range(len(found)), key=lambda position: found[position].end - found[position].start)
    top = found[best]
    for position, other in enumerate(found):
        if position == best:
            continue
        inside = top.start <= other.start and other.end <= top.end
        if not inside or other.end - other.start >= top.end - top.start:
            return None
    return best


def _found(block: EditBlock, state: _FileState, found: Found, note: str = "") -> EditResult:
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
    state.edits.append((found.start, found.end, len(found.new_lines)))
    reason = "; ".join(part for part in (note, _tolerance_note(found)) if part)
    return EditResult(block, Status.APPLIED, reason, Reason.NONE, first, last, found.strategy.value, similarity)


_TOLERANCE_NOTES = {
    Rung.EXACT: "",
    Rung.TRAILING_WHITESPACE: "matched after ignoring whitespace at line ends and blank edge lines",
    Rung.INDENTATION: "matched with the indentation shifted; the new lines were re-indented to fit",
    Rung.TYPOGRAPHY: "matched after folding typographic quotes, dashes and spaces",
    Rung.INTERNAL_WHITESPACE: "matched after reading runs of spaces and tabs inside lines as one space",
    Rung.ELISION: "matched piece by piece around `...` lines; the elided lines were kept",
    Rung.FUZZY: "matched approximately (fuzzy)",
}


def _tolerance_note(found: Found) -> str:
    note = _TOLERANCE_NOTES[found.strategy]
    if found.strategy is Rung.FUZZY:
        note += f", {percent(found.similarity)} similar"
    return note


def _ambiguous(block: EditBlock, key: str, ambiguous: Ambiguous, state: _FileState, length: int) -> EditResult:
    """Refused: the old text occurs more than once. With a line hint, the places nearest it are listed first."""
    lines = [start + 1 for start in ambiguous.starts]
    hint = state.current_line(block.line_hint - 1) if block.line_hint is not None else None
    ordered = sorted(lines, key=lambda line: abs(line - 1 - hint)) if hint is not None else lines
    shown = ordered[:MAX_LISTED_CANDIDATES]
    listed = ", ".join(str(n) for n in shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else str(shown[0])
    more = " and more" if ambiguous.truncated or len(lines) > len(shown) else ""
    reason = (f"Edit location is ambiguous (matches at lines {listed}{more}) in {key}; "
              "include more surrounding lines so the old text occurs only once")
    if hint is not None:
        inside = sum(1 for start in ambiguous.starts
                     if start - HINT_TOLERANCE <= hint < start + length + HINT_TOLERANCE)
        where = "none of them" if not inside else "more than one of them"
        reason += f" (its line hint, line {block.line_hint}, points at {where})"
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
                     replacement: list[str], near: NearMiss | None, buffer: TextBuffer | None) -> EditResult | None:
    """A re-sent edit: the old text is gone and the new text is where it was.

    "Where it was": the old text, placed where the new text is, is about as
    similar as it is to the region most like it anywhere. New text that only
    happens to occur elsewhere does not count (a typo in the old text must be
    reported, not hidden). Only when nothing is like the old text at all may a
    unique, substantial copy of the new text stand in.
    """
    if block.is_noop or not any(line.strip() for line in replacement):
        return None
    rungs = LocateOptions(rungs=(Rung.EXACT, Rung.TRAILING_WHITESPACE), max_candidates=MAX_ALREADY_APPLIED_CANDIDATES,
                          diagnose=False, session=buffer.session if buffer is not None else None)
    outcome = locate(lines, replacement, replacement, rungs, index)
    if isinstance(outcome, NotFound):
        return None
    starts = outcome.starts if isinstance(outcome, Ambiguous) else (outcome.start,)
    if near is not None:
        search = FuzzyLines(_lines(block.search))
        file = buffer.session.fuzzy(lines, index) if buffer is not None else FuzzyLines(lines)
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
