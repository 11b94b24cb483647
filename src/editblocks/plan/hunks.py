"""Patch hunks: located after their `@@` anchor lines and after the previous hunk of the same file.

Still through the ladder, and still refused when the hunk matches more than
once where it may be.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from editblocks.locate.types import Ambiguous, Found, NotFound, Rung
from editblocks.model import EditBlock, EditResult, ResultCode, Status
from editblocks.plan.files import missing
from editblocks.plan.outcomes import ambiguous, found, locate_in, locate_options, not_found
from editblocks.plan.state import FileState, PlanOptions, lines_of


def scoped_edit(block: EditBlock, state: FileState, options: PlanOptions) -> EditResult:
    """A patch hunk: its anchors found in order, then its lines after them (and after the previous hunk)."""
    buffer = state.buffer
    if buffer is None:
        return missing(block, state, "change")
    scope = block.scope
    assert scope is not None
    lines, index = state.lines_and_index()
    start = min(state.cursor, len(lines)) if scope.after_previous else 0
    after = f"the previous hunk, which ends at line {start}" if start else ""
    for anchor in scope.anchors:
        found_at = _find_anchor(lines, anchor, start)
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
        outcome: Found | Ambiguous | NotFound = Found(at, at, tuple(replacement), (None,) * len(replacement),
                                                      Rung.EXACT)
    else:
        if scope.at_end:
            start = max(start, len(lines) - len(search))
        located_options = replace(locate_options(block, state, options), min_start=start)
        outcome = locate_in(state, lines, search, replacement, located_options, index)
    if isinstance(outcome, Found):
        return found(block, state, outcome, advances=True)
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


def _insertion_point(block: EditBlock, state: FileState, after_anchors: int, length: int) -> int:
    """Where a hunk that only adds lines goes: after its anchors, else at the line its header names, else the end."""
    scope = block.scope
    assert scope is not None
    if scope.at_end:
        return length
    if scope.anchors:
        return after_anchors
    if block.line_hint is not None:
        return min(max(0, state.current_line(block.line_hint - 1)), length)
    return length


def _find_anchor(lines: Sequence[str], anchor: str, start: int) -> int | None:
    """The first line at or after ``start`` equal to ``anchor``: exactly, then ignoring edge whitespace."""
    for position in range(start, len(lines)):
        if lines[position] == anchor:
            return position
    wanted = anchor.strip()
    for position in range(start, len(lines)):
        if lines[position].strip() == wanted:
            return position
    return None

