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
from array import array
from collections.abc import Sequence

from editblocks.text.increasing import POSITION, longest_increasing

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
    return opcodes


def _align(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int, out: list[Opcode]) -> None:
    head = 0
    while a1 + head < a2 and b1 + head < b2 and old[a1 + head] == new[b1 + head]:
        head += 1
    if head:
        _add(out, "equal", a1, a1 + head, b1, b1 + head)
        a1, b1 = a1 + head, b1 + head
    tail = 0
    while a1 < a2 - tail and b1 < b2 - tail and old[a2 - 1 - tail] == new[b2 - 1 - tail]:
        tail += 1
    a_end, b_end = a2 - tail, b2 - tail
    if a1 < a_end or b1 < b_end:
        _align_middle(old, new, a1, a_end, b1, b_end, out)
    if tail:
        _add(out, "equal", a_end, a2, b_end, b2)


def _align_middle(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int,
                  out: list[Opcode]) -> None:
    if not a1 < a2 or not b1 < b2:
        _add(out, "delete" if a1 < a2 else "insert", a1, a2, b1, b2)
        return
    if (a2 - a1) + (b2 - b1) <= DIRECT_LINES:
        _difflib(old, new, a1, a2, b1, b2, out)
        return
    olds, news = _anchors(old, new, a1, a2, b1, b2)
    if not olds:
        if (a2 - a1) * (b2 - b1) <= MAX_UNANCHORED_WORK:
            _difflib(old, new, a1, a2, b1, b2, out)
        else:
            _add(out, "replace", a1, a2, b1, b2)
        return
    for a, b in zip(olds, news):
        _align(old, new, a1, a, b1, b, out)
        _add(out, "equal", a, a + 1, b, b + 1)
        a1, b1 = a + 1, b + 1
    _align(old, new, a1, a2, b1, b2, out)


def _difflib(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int, out: list[Opcode]) -> None:
    matcher = difflib.SequenceMatcher(None, old[a1:a2], new[b1:b2])
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        _add(out, tag, i1 + a1, i2 + a1, j1 + b1, j2 + b1)


def _add(out: list[Opcode], tag: str, i1: int, i2: int, j1: int, j2: int) -> None:
    """Append an opcode; an equal run right after another is merged into it, an empty one dropped, so the list
    stays as short as the changes (10,000 edits: some 20,000 entries, not one per anchor line)."""
    if i1 == i2 and j1 == j2:
        return
    if tag == "equal" and out and out[-1][0] == "equal" and out[-1][2] == i1 and out[-1][4] == j1:
        out[-1] = ("equal", out[-1][1], i2, out[-1][3], j2)
    else:
        out.append((tag, i1, i2, j1, j2))


def _anchors(old: Sequence[str], new: Sequence[str], a1: int, a2: int, b1: int, b2: int) -> tuple[
    Sequence[int], Sequence[int]
]:
    """Lines unique on both sides, the longest run of them in the same order on both: their old positions and
    their new positions.

    One dict serves both sides (it is the peak memory of a big diff): a line's value is ``0`` while it is
    unique in the old lines and not seen in the new lines (a cached small int, not one object per line),
    ``-2 - b`` once seen exactly once, at ``b``, in the new lines, and ``-1`` when it repeats on either side.
    Positions are kept in arrays, not lists: a 200,000-line file would otherwise hold some 200,000 int
    objects per list.
    """
    seen: dict[str, int] = {}
    for a in range(a1, a2):
        line = old[a]
        seen[line] = -1 if line in seen else 0
    for b in range(b1, b2):
        value = seen.get(new[b])
        if value is not None and value != -1:
            seen[new[b]] = -2 - b if value >= 0 else -1
    olds = array(POSITION)
    news = array(POSITION)
    for a in range(a1, a2):
        value = seen[old[a]]
        if value <= -2:
            olds.append(a)
            news.append(-2 - value)
    del seen
    run = longest_increasing(news)
    return array(POSITION, (olds[position] for position in run)), array(POSITION, (news[position] for position in run))


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


def added_lines(old: Sequence[str], new: Sequence[str], wanted: Sequence[int]) -> list[tuple[int, Opcode]]:
    """Which of the ``wanted`` positions of ``new`` are not lines ``old`` has at the same place (not in an equal
    run of the alignment), each with the opcode it stands in (a `replace` one took old lines' place), in order."""
    found: list[tuple[int, Opcode]] = []
    pending = sorted(wanted)
    position = 0
    for opcode in line_opcodes(old, new):
        tag, _, _, first, last = opcode
        while position < len(pending) and pending[position] < last:
            if tag != "equal" and pending[position] >= first:
                found.append((pending[position], opcode))
            position += 1
    return found
