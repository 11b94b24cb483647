"""Marker edits (and diff hunks located by content): a block's old text located in its file and replaced, or a new
file created.

The file decides what the model meant where the text alone cannot: which of
several separators ends the old text, whether a byte-order mark or copied
line numbers belong to it, whether escaped marker lines are literal, and
whether a diff hunk's blank context lines are the file's.
"""

from __future__ import annotations

from dataclasses import replace

from editblocks.locate.blank_lines import locate_ignoring_blank_lines
from editblocks.locate.ladder import HINT_TOLERANCE
from editblocks.locate.line_index import LineIndex
from editblocks.locate.line_numbers import strip_line_numbers
from editblocks.locate.omitted_lines import locate_omitting_lines
from editblocks.locate.types import Ambiguous, Found, NotFound
from editblocks.model import EditBlock, EditResult, Format, Reading, ResultCode, Status
from editblocks.parsing.dialect import holds_escaped_markers
from editblocks.plan.duplicates import same_file_everywhere
from editblocks.plan.outcomes import already_applied, ambiguous, found, locate_in, locate_options, not_found, with_note
from editblocks.plan.state import BOM, FileState, PlanOptions, lines_of, text_of
from editblocks.text.document import Document


def create(block: EditBlock, state: FileState) -> EditResult:
    """A new file, or an empty one filled. A leading byte-order mark in the text is written once: as the file's
    own when the file has none yet, and not at all when the (empty) file already starts with one."""
    key = state.source.key
    text = block.new
    if text.startswith(BOM):
        text = text.lstrip(BOM)
        if not state.source.bom:
            text = BOM + text
    new_lines = lines_of(text)
    existing = state.buffer
    if existing is not None and "".join(existing.lines).strip():
        if _without_bom(existing.lines) == _without_bom(new_lines):
            return EditResult(block, Status.SKIPPED, f"already applied: {key} already has exactly this content",
                              ResultCode.ALREADY_APPLIED, 1, len(new_lines), "create", 1.0)
        last = next((line for line in reversed(existing.lines) if line.strip()), "")
        shown = last.strip() if len(last.strip()) <= 60 else last.strip()[:59] + "…"
        return EditResult(
            block, Status.FAILED,
            f"cannot create {key}: it already exists and is not empty, and an empty old text never replaces or "
            f"appends to a file; to change it, quote the lines to replace in the old text; to add lines at its end, "
            f"quote its last line (`{shown}`) in the old text and repeat it before the new lines",
            ResultCode.FILE_EXISTS,
        )
    written = text if "\r\n" in text else "\n".join(new_lines) + "\n" if new_lines else ""
    state.fill(Document.new_file(written))  # a patch's CRLF lines keep their line breaks
    return EditResult(block, Status.APPLIED, "", ResultCode.NONE, 1 if new_lines else None,
                      len(new_lines) or None, "create", 1.0)


def _without_bom(lines: list[str]) -> list[str]:
    return [lines[0].removeprefix(BOM), *lines[1:]] if lines else lines


def edit(block: EditBlock, state: FileState, options: PlanOptions) -> EditResult:
    lines, index = state.lines_and_index()
    if block.literal is not None and holds_escaped_markers(lines):
        block = replace(block, old=block.literal[0], new=block.literal[1], readings=(), literal=None)
    if block.readings:
        return _edit_readings(block, state, options, lines, index)
    return _edit_text(block, state, options, lines, index)


def _edit_text(block: EditBlock, state: FileState, options: PlanOptions, lines: list[str],
               index: LineIndex | None) -> EditResult:
    key = state.source.key
    search, replacement = lines_of(block.search), lines_of(block.replace)
    outcome = locate_in(state, lines, search, replacement, locate_options(block, state, options), index)
    note = ""
    if isinstance(outcome, NotFound) and not block.leading and not block.trailing:
        other = _read_differently(block, state, options, lines, index, search, replacement)
        if isinstance(other, str):
            outcome = NotFound(outcome.near_miss, "; ".join(part for part in (outcome.hint, other) if part))
        elif other is not None:
            block, outcome, note = other
            search, replacement = lines_of(block.search), lines_of(block.replace)
    if isinstance(outcome, NotFound) and block.format is Format.UDIFF and not options.strict:
        tolerant = _tolerant_hunk(block, state, lines, index, search, replacement)
        if isinstance(tolerant, str):
            outcome = NotFound(outcome.near_miss, "; ".join(part for part in (outcome.hint, tolerant) if part))
        elif tolerant is not None:
            outcome = tolerant
    if isinstance(outcome, Found):
        return found(block, state, outcome, note)
    if isinstance(outcome, Ambiguous):
        first = same_file_everywhere(lines, search, replacement, outcome, locate_options(block, state, options))
        if first is not None:
            where = ", ".join(str(start + 1) for start in outcome.starts)
            return found(block, state, first, f"the old text occurs at lines {where}, and editing any of them gives "
                                              "the same file")
        return ambiguous(block, key, outcome, state, len(search))
    already = already_applied(block, lines, index, replacement, outcome.near_miss, state.buffer)
    if already is not None:
        return already
    return with_note(not_found(block, key, lines, outcome), note)


def _tolerant_hunk(block: EditBlock, state: FileState, lines: list[str], index: LineIndex | None,
                   search: list[str], replacement: list[str]) -> Found | Ambiguous | str | None:
    """A diff hunk not found as written: its context may leave out (or add) blank lines of the file, or leave out a
    few lines of the file that are not blank."""
    assert state.buffer is not None
    view = state.buffer.cache.view(lines, index)
    view.scans = None
    hint = state.current_line(block.line_hint - 1) if block.line_hint is not None else None
    outcome = locate_ignoring_blank_lines(view, search, replacement, block.marks, 0, hint, HINT_TOLERANCE)
    if outcome is not None:
        return outcome
    return locate_omitting_lines(view, search, replacement, block.marks, state.buffer.cache.tolerant_hunks)


def _read_differently(
    block: EditBlock, state: FileState, options: PlanOptions, lines: list[str], index: LineIndex | None,
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
        at_start = locate_in(state, lines, lines_of(unmarked.old), lines_of(unmarked.new),
                             replace(locate_options(unmarked, state, options), first_match=True), index)
        if isinstance(at_start, Found) and at_start.start == 0:
            return unmarked, at_start, "the byte-order mark the old text starts with matched the start of the file"
        return "the old text starts with a byte-order mark, so it can only match at the very start of the file"
    numbered = strip_line_numbers(search, replacement)
    if numbered is None or isinstance(numbered, str):
        return numbered
    unnumbered = replace(block, old=text_of(numbered.search), new=text_of(numbered.replace),
                         line_hint=block.line_hint if block.line_hint is not None else numbered.first)
    outcome = locate_in(state, lines, numbered.search, numbered.replace,
                        locate_options(unnumbered, state, options), index)
    return unnumbered, outcome, f"the line-number prefixes ({numbered.style}) copied from a numbered view were removed"


def _edit_readings(block: EditBlock, state: FileState, options: PlanOptions, lines: list[str],
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
        outcome = locate_in(state, lines, lines_of(candidate.search), lines_of(candidate.replace),
                            locate_options(candidate, state, options), index)
        tried.append((candidate, reading, outcome))
    count = len(block.readings)
    listing = "; ".join(reading.note for reading in block.readings)
    located = [(candidate, reading, outcome) for candidate, reading, outcome in tried if isinstance(outcome, Found)]
    chosen = _covering([outcome for _, _, outcome in located])
    if chosen is not None:
        candidate, reading, outcome = located[chosen]
        note = f"read as {reading.note}: of the {count} ways to read the block, the only one the file holds"
        return found(candidate, state, outcome, note)
    if located:
        starts = sorted({outcome.start + 1 for _, _, outcome in located})
        reason = (f"the block can be read {count} ways ({listing}) and {key} holds the old text of more than one "
                  "of them; write it with 9-character markers (`<<<<<<<<< SEARCH`, `=========`, "
                  "`>>>>>>>>> REPLACE`) so its separator is clear")
        return EditResult(block, Status.FAILED, reason, ResultCode.AMBIGUOUS, candidates=tuple(starts))
    several = [(candidate, outcome) for candidate, _, outcome in tried if isinstance(outcome, Ambiguous)]
    if several:
        candidate, outcome = several[0]
        result = ambiguous(candidate, key, outcome, state, len(lines_of(candidate.search)))
        return replace(result, block=block, reason=f"the block can be read {count} ways ({listing}) and none of "
                                                   f"them has old text found exactly once: {result.reason}")
    candidate, _, outcome = tried[0]
    assert isinstance(outcome, NotFound)
    result = not_found(candidate, key, lines, outcome)
    return replace(result, block=block, reason=f"the block can be read {count} ways ({listing}) and none of them "
                                               f"has its old text in the file: {result.reason}")


def _covering(located: list[Found]) -> int | None:
    """Which found reading to apply: the one whose place holds every other found reading's, with more lines."""
    if not located:
        return None
    best = max(range(len(located)), key=lambda position: located[position].end - located[position].start)
    top = located[best]
    for position, other in enumerate(located):
        if position == best:
            continue
        inside = top.start <= other.start and other.end <= top.end
        if not inside or other.end - other.start >= top.end - top.start:
            return None
    return best
