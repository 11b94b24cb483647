"""Old text found at several places, where the place does not matter: every choice gives the same file.

Ambiguity is refused because editing the wrong copy gives a wrong file. Two
shapes are safe all the same. One block whose every candidate place gives the
same resulting file (an insertion into a run of identical lines) is applied
at the first. And N identical blocks whose old text occurs exactly N times
(a model told to "repeat the block for each occurrence") change each place
once: applied one after another, whichever place each took, the file ends
the same, provided no edit makes or unmakes another occurrence (a block whose
new text still holds its old text would find its own output again, so it is
left refused).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from editblocks.locate.ladder import locate
from editblocks.locate.types import LINE_RUNGS, Ambiguous, Found, LocateOptions, NotFound
from editblocks.model import BlockKind, EditBlock, EditResult
from editblocks.plan.outcomes import found, would_apply
from editblocks.plan.state import FileState, lines_of

MAX_PLACES = 10
"""Places compared one by one; an old text found more often stays ambiguous."""


def same_file_everywhere(lines: list[str], search: list[str], replacement: list[str], outcome: Ambiguous,
                         options: LocateOptions) -> Found | None:
    """The first candidate, when editing any of ``outcome``'s candidates gives the same file; else None."""
    places = _places(lines, search, replacement, outcome, options)
    if places is None:
        return None
    low, high = places[0].start, max(place.end for place in places)
    results = {tuple([*lines[low : place.start], *place.new_lines, *lines[place.end : high]]) for place in places}
    return places[0] if len(results) == 1 else None


TwinKey = tuple[object, ...]


def twin_key(block: EditBlock) -> TwinKey | None:
    """What a plain edit block shares with every word-for-word copy of it for the same file; None for a block the
    rule for identical blocks does not cover."""
    if block.kind is not BlockKind.EDIT or block.scope is not None or block.readings or block.is_noop \
            or block.line_hint is not None or not block.old.strip():
        return None
    return block.path, block.format, block.leading, block.old, block.new, block.trailing, block.literal


def twin_places(block: EditBlock, count: int, state: FileState, options: LocateOptions) -> list[Found] | None:
    """The places `count` copies of ``block`` would edit, one each, when its old text occurs exactly `count` times
    and every way of pairing copies with places gives the same file; else None."""
    assert state.buffer is not None
    lines = state.buffer.lines
    search, replacement = lines_of(block.search), lines_of(block.replace)
    outcome = locate(lines, search, replacement, options)
    if not isinstance(outcome, Ambiguous) or len(outcome.starts) != count:
        return None
    places = _places(lines, search, replacement, outcome, options)
    if places is None or any(later.start < earlier.end for earlier, later in zip(places, places[1:])):
        return None
    for place in places:
        if not would_apply(block, state, place):
            return None
        alone = [*lines[: place.start], *place.new_lines, *lines[place.end :]]
        rest = locate(alone, search, replacement, replace(options, max_candidates=len(places) + 1, diagnose=False))
        left = 0 if isinstance(rest, NotFound) else 1 if isinstance(rest, Found) else len(rest.starts)
        if left != len(places) - 1:
            return None
    return places


def twins_in_place(blocks: Sequence[EditBlock], state: FileState, options: LocateOptions) -> list[EditResult] | None:
    """N identical ``blocks`` whose old text occurs exactly N times: each place edited once (the splices recorded),
    the results in answer order (each block with the place in file order); else None, and nothing recorded."""
    places = twin_places(blocks[0], len(blocks), state, options)
    if places is None:
        return None
    note = (f"the old text occurs {len(places)} times and the answer has {len(places)} identical blocks for it: "
            "each place was edited once (every way of pairing blocks with places gives the same file)")
    results = [found(twin, state, place, note) for twin, place in reversed(list(zip(blocks, places)))]
    return results[::-1]


def _places(lines: list[str], search: list[str], replacement: list[str], outcome: Ambiguous,
            options: LocateOptions) -> list[Found] | None:
    """Each candidate of ``outcome`` located on its own (on a line rung, at most `MAX_PLACES`), or None."""
    if outcome.truncated or outcome.strategy not in LINE_RUNGS or len(outcome.starts) > MAX_PLACES:
        return None
    places = []
    for start in outcome.starts:
        place = locate(lines, search, replacement, replace(options, first_match=True, min_start=start, hint=None))
        if not isinstance(place, Found) or place.start != start:
            return None
        places.append(place)
    return places
