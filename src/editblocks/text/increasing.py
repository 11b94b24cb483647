"""The longest strictly increasing subsequence, which aligns two texts on lines they share: the diff
anchors unique lines with it, and the fuzzy rung orders the lines a block and a window have in common."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence

POSITION = "i"
"""Array type of line positions: 4 bytes each (no list holds 2**31 lines; an int per line costs seven times more)."""


def longest_increasing(values: Sequence[int]) -> Sequence[int]:
    """Positions of the longest strictly increasing subsequence of ``values``."""
    tails = array(POSITION)  # the value ending the best run of each length
    ends = array(POSITION)  # the position of that value
    previous = array(POSITION, bytes(4 * len(values)))
    for position, value in enumerate(values):
        length = bisect_left(tails, value)
        if length == len(tails):
            tails.append(value)
            ends.append(position)
        else:
            tails[length] = value
            ends[length] = position
        previous[position] = ends[length - 1] if length else -1
    run = array(POSITION)
    position = ends[-1] if ends else -1
    while position >= 0:
        run.append(position)
        position = previous[position]
    run.reverse()
    return run
