"""Patch hunks: located after their `@@` anchor lines and after the previous hunk of the same file.

Still through the ladder, and still refused when the hunk matches more than
once where it may be. A hunk with no old lines goes where its place says (a
`git diff -U0` header is exact), or creates the missing file it is for; a
hunk that says how the file ends (`\\ No newline at end of file`) must end
it, and sets the file's final line break.
"""

from __future__ import annotations

from dataclasses import replace

from editblocks.locate.line_index import LineIndex
from editblocks.locate.normalize import content_key
from editblocks.locate.types import Ambiguous, Found, NotFound, Rung
from editblocks.model import EditBlock, EditResult, Format, ResultCode, Status
from editblocks.plan.files import missing
from editblocks.plan.outcomes import ambiguous, found, locate_in, locate_options, not_found
from editblocks.plan.state import FileState, PlanOptions, lines_of, span_words
from editblocks.text.document import Document


def scoped_edit(block: EditBlock, state: FileState, options: PlanOptions) -> EditResult:
    """A patch hunk: its anchors found in order, then its lines after them (and after the previous hunk)."""
    buffer = state.buffer
    scope = block.scope
    assert scope is not None
    if buffer is None:
        if not block.search and block.format is Format.UDIFF and not state.removed:
            return _new_file(block, state)
        return missing(block, state, "change")
    lines, index = state.lines_and_index()
    start = min(state.cursor, len(lines)) if scope.after_previous else 0
    after = f"the previous hunk, which ends at line {start}" if start else ""
    for anchor in scope.anchors:
        found_at = _find_anchor(state, lines, index, anchor, start)
        if found_at is None:
            where = f" after {after}" if after else ""
            return EditResult(block, Status.FAILED,
                              f"the `@@ {anchor}` line was not found in {state.source.key}{where}; an `@@` line must "
                              "repeat a line of the file exactly (such as a class or function line), in file order",
                              ResultCode.NOT_FOUND)
        start, after = found_at + 1, f"its `@@ {anchor}` line, line {found_at + 1}"
    search, replacement = lines_of(block.search), lines_of(block.replace)
    if not search:
        at = _insertion_point(block, state, start, len(lines))
        if at > len(lines):
            assert block.line_hint is not None
            return EditResult(block, Status.FAILED,
                              f"the hunk adds its lines after line {block.line_hint - 1} (its header counts no old "
                              f"lines), but {state.source.key} has only {len(lines)} lines; nothing was added",
                              ResultCode.NOT_FOUND)
        outcome: Found | Ambiguous | NotFound = Found(at, at, tuple(replacement), (None,) * len(replacement),
                                                      Rung.EXACT)
    else:
        if scope.at_end:
            start = max(start, len(lines) - len(search))
        located_options = replace(locate_options(block, state, options), min_start=start)
        outcome = locate_in(state, lines, search, replacement, located_options, index)
    if isinstance(outcome, Found):
        return _placed(block, state, outcome, len(lines))
    where = "at the end of the file" if scope.at_end else f"after {after}" if after else ""
    if isinstance(outcome, Ambiguous):
        result = ambiguous(block, state.source.key, outcome, state, len(search))
        return replace(result, reason=f"{result.reason}; looked for {where}") if where else result
    result = not_found(block, state.source.key, lines, outcome)
    if start and search:
        earlier = locate_in(state, lines, search, replacement, replace(located_options, min_start=0), index)
        if not isinstance(earlier, NotFound):
            return replace(result, reason=f"the hunk's lines were not found in {state.source.key} {where}; they "
                                          "occur only before it (hunks and `@@` lines must be in file order)")
    return replace(result, reason=f"{result.reason}; looked for {where}") if where else result


def _placed(block: EditBlock, state: FileState, where: Found, length: int) -> EditResult:
    """The located hunk applied; a hunk that says how the file ends (`\\ No newline at end of file`) must end it, and
    gives it or takes away its final line break even when its lines are unchanged."""
    buffer = state.buffer
    scope = block.scope
    assert buffer is not None and scope is not None
    wanted = scope.final_newline
    if wanted is not None and where.end != length:
        return EditResult(block, Status.FAILED,
                          f"the hunk says it ends {state.source.key} (`\\ No newline at end of file`), but "
                          f"{length - where.end} lines follow the place it was found at "
                          f"{span_words(where.start, where.end)}; nothing was changed", ResultCode.NOT_FOUND,
                          where.start + 1, max(where.start + 1, where.end))
    ending = wanted is not None and bool(buffer.lines or where.new_lines) and buffer.final_newline != wanted
    if ending and block.is_noop:
        state.end_with_newline(wanted is True)
        now = "ends with a line break" if wanted else "no longer ends with a line break"
        return EditResult(block, Status.APPLIED, f"{state.source.key} now {now}", ResultCode.NONE, where.start + 1,
                          max(where.start + 1, where.end), where.strategy.value, 1.0)
    result = found(block, state, where, advances=True, repeats=not scope.exact)
    if result.status is Status.APPLIED and ending:
        state.end_with_newline(wanted is True)
    return result


def _new_file(block: EditBlock, state: FileState) -> EditResult:
    """A hunk that only adds lines, for a file that does not exist (a new file sent under a plain `--- path`
    header): the file is created with those lines. A `git diff -U0` header that puts them below the top is refused."""
    if block.scope is not None and block.scope.exact and block.line_hint not in (None, 1):
        return missing(block, state, "change")
    document = Document.new_file(block.new)
    state.fill(document)
    if block.scope is not None and block.scope.final_newline is False:
        state.end_with_newline(False)
    count = len(document.lines)
    return EditResult(block, Status.APPLIED,
                      f"created {state.source.key}: the hunk only adds lines, and the file did not exist",
                      ResultCode.NONE, 1 if count else None, count or None, "create", 1.0)


def _insertion_point(block: EditBlock, state: FileState, after_anchors: int, length: int) -> int:
    """Where a hunk that only adds lines goes: after its anchors, else exactly where a `-U0` header says (past the
    end when the file is too short), else at the line its header names, else the end."""
    scope = block.scope
    assert scope is not None
    if scope.at_end:
        return length
    if scope.anchors:
        return after_anchors
    if block.line_hint is not None and scope.exact:
        return max(0, state.current_line(block.line_hint - 1))
    if block.line_hint is not None:
        return min(max(0, state.current_line(block.line_hint - 1)), length)
    return length


def _find_anchor(state: FileState, lines: list[str], index: LineIndex | None, anchor: str,
                 start: int) -> int | None:
    """The first line at or after ``start`` equal to ``anchor``: exactly, then ignoring edge spaces and tabs.

    Looked up in the file's view (its index, once the file has one), so hunks whose anchors are missing do not
    each scan the file."""
    assert state.buffer is not None
    view = state.buffer.cache.view(lines, index)
    view.scans = None  # a lookup for applying, not a check: never cut short by a diagnosis budget
    exact = next(view.occurrences(Rung.EXACT, [anchor], start), None)
    if exact is not None:
        return exact
    wanted = anchor.strip()
    if wanted != content_key(anchor):  # edge whitespace beyond spaces and tabs: compared line by line
        return next((position for position in range(start, len(lines)) if lines[position].strip() == wanted), None)
    return next((position for position in view.occurrences(Rung.INDENTATION, [wanted], start)
                 if lines[position].strip() == wanted), None)
