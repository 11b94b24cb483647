"""Which lines of two texts match, in O(n log n) even when thousands of edits are spread over a big file.

`difflib.SequenceMatcher` finds the longest matching run and recurses on both
sides of it: with k separate edits that is about k passes over the file (10,000
one-line edits on a 200,000-line file: minutes). Here the lines that occur
exactly once on each side anchor the alignment first (the longest increasing
run of them, as patience diff does); only the gaps between anchors are handed
to difflib, each one small. A big gap without any anchor (a file of repeated
lines) is reported as one replaced run rather than searched quadratically: the
diff is still right, only less minimal.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Sequence

Opcode = tuple[str, int, int, int, int]

DIRECT_LINES = 2_000
"""Gaps up to this many lines (both sides together) go straight to difflib: its output, and it is quick there."""

MAX_UNANCHORED_WORK = 4_000_000
"""A gap without anchors is still given to difflib when its two sides multiply to at most this."""


def line_opcodes(old: Sequence[str], new: Sequence[str]) -> list[Opcode]:
    """`SequenceMatcher.get_opcodes()` for two line lists, equal runs merged, cheap on big inputs."""
    opcodes: list[Opcode] = []
    if len(old) + len(new) <= DIRECT_LINES:
        _difflib(old, new, 0, len(old), 0, len(new), opcodes)
    else:
        _align(old, new, 0, len(old), 0, len(new), opcodes)
    return _merged(opcodes)


def _align(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int, out: list[Opcode]) -> None:
    head = 0
    while a1 + head < a2 and b1 + head < b2 and old[a1 + head] == new[b1 + head]:
        head += 1
    if head:
        out.append(("equal", a1, a1 + head, b1, b1 + head))
        a1, b1 = a1 + head, b1 + head
    tail = 0
    while a1 < a2 - tail and b1 < b2 - tail and old[a2 - 1 - tail] == new[b2 - 1 - tail]:
        tail += 1
    a_end, b_end = a2 - tail, b2 - tail
    if a1 < a_end or b1 < b_end:
        _align_middle(old, new, a1, a_end, b1, b_end, out)
    if tail:
        out.append(("equal", a_end, a2, b_end, b2))


def _align_middle(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int,
                  out: list[Opcode]) -> None:
    if not a1 < a2 or not b1 < b2:
        out.append(("delete" if a1 < a2 else "insert", a1, a2, b1, b2))
        return
    if (a2 - a1) + (b2 - b1) <= DIRECT_LINES:
        _difflib(old, new, a1, a2, b1, b2, out)
        return
    anchors = _anchors(old, new, a1, a2, b1, b2)
    if not anchors:
        if (a2 - a1) * (b2 - b1) <= MAX_UNANCHORED_WORK:
            _difflib(old, new, a1, a2, b1, b2, out)
        else:
            out.append(("replace", a1, a2, b1, b2))
        return
    for a, b in anchors:
        _align(old, new, a1, a, b1, b, out)
        out.append(("equal", a, a + 1, b, b + 1))
        a1, b1 = a + 1, b + 1
    _align(old, new, a1, a2, b1, b2, out)


def _difflib(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int, out: list[Opcode]) -> None:
    matcher = difflib.SequenceMatcher(None, old[a1:a2], new[b1:b2])
    out.extend((tag, i1 + a1, i2 + a1, j1 + b1, j2 + b1) for tag, i1, i2, j1, j2 in matcher.get_opcodes())


def _anchors(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int) -> list[tuple[int, int]]:
    """Pairs (old, new) of lines unique on both sides, the longest run of them in the same order on both."""
    seen_old: dict[str, int] = {}
    for a in range(a1, a2):
        line = old[a]
        seen_old[line] = -1 if line in seen_old else a
    seen_new: dict[str, int] = {}
    for b in range(b1, b2):
        line = new[b]
        if seen_old.get(line, -1) >= 0:
            seen_new[line] = -1 if line in seen_new else b
    pairs = sorted((seen_old[line], b) for line, b in seen_new.items() if b >= 0)
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by old position) whose new positions increase too."""
    tails: list[int] = []  # new position ending the best run of each length
    ends: list[int] = []  # index into pairs of that run's last pair
    previous = [-1] * len(pairs)
    for position, (_, b) in enumerate(pairs):
        length = bisect_left(tails, b)
        if length == len(tails):
            tails.append(b)
            ends.append(position)
        else:
            tails[length] = b
            ends[length] = position
        previous[position] = ends[length - 1] if length else -1
    run: list[tuple[int, int]] = []
    position = ends[-1] if ends else -1
    while position >= 0:
        run.append(pairs[position])
        position = previous[position]
    run.reverse()
    return run


def _merged(opcodes: list[Opcode]) -> list[Opcode]:
    """Neighbouring equal runs as one, and empty runs dropped, as `get_opcodes` returns them."""
    merged: list[Opcode] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if i1 == i2 and j1 == j2:
            continue
        if merged and merged[-1][0] == tag == "equal":
            merged[-1] = (tag, merged[-1][1], i2, merged[-1][3], j2)
        else:
            merged.append((tag, i1, i2, j1, j2))
    return merged


def hunks(opcodes: list[Opcode], context: int) -> list[list[Opcode]]:
    """The changes in hunks, each with up to ``context`` equal lines around it; equal runs longer than twice
    ``context`` split hunks (the grouping `SequenceMatcher.get_grouped_opcodes` makes)."""
    codes = list(opcodes)
    if codes and codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes and codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    groups.append(group)
    return [group for group in groups if any(code[0] != "equal" for code in group)]
