"""A unified diff of two long texts that differ in many scattered places, in time close to linear.

`difflib` looks for the longest common run again inside every gap between
matches, which costs about (file length × number of changes): minutes for a
thousand changes in a 100,000-line file. Lines that occur exactly once in
each text and in the same order (patience diff's anchors) split the texts
into small gaps first; `difflib` then runs on each gap alone. The output is
formatted exactly as `difflib.unified_diff` formats it.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence

ANCHORED_FROM_LINES = 2_000
"""Below this many lines per side plain `difflib` is fast enough, and its output stays exactly what it was."""


class _AnchoredMatcher(difflib.SequenceMatcher[str]):
    """`SequenceMatcher` whose matching blocks come from unique-line anchors, `difflib` filling the gaps."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        self._old, self._new = a, b
        self._blocks: list[difflib.Match] | None = None
        super().__init__(None, a, b, autojunk=False)

    def set_seq2(self, b: Sequence[str]) -> None:
        """Keep ``b`` without indexing all of it: only the gaps are matched by `difflib`, each with its own index."""
        self._new = b

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self._blocks is not None:
            return self._blocks
        a, b = self._old, self._new
        blocks: list[tuple[int, int, int]] = []
        low_a = low_b = 0
        for i, j in [*_anchors(a, b), (len(a), len(b))]:
            if i > low_a and j > low_b:
                gap = difflib.SequenceMatcher(None, a[low_a:i], b[low_b:j], autojunk=False)
                blocks += [(low_a + m.a, low_b + m.b, m.size) for m in gap.get_matching_blocks() if m.size]
            if i < len(a):
                blocks.append((i, j, 1))
            low_a, low_b = i + 1, j + 1
        merged: list[tuple[int, int, int]] = []
        for i, j, size in blocks:
            if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
                merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
            else:
                merged.append((i, j, size))
        self._blocks = [difflib.Match(*block) for block in merged] + [difflib.Match(len(a), len(b), 0)]
        return self._blocks


def _anchors(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) of lines unique in both texts, the longest run of them increasing in both."""
    count_a, count_b = Counter(a), Counter(b)
    index_b = {line: j for j, line in enumerate(b)}
    pairs = [(i, index_b[line]) for i, line in enumerate(a) if count_a[line] == 1 and count_b.get(line) == 1]
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by i) whose j increase too (patience sorting)."""
    tails: list[int] = []  # tails[k]: the smallest j ending an increasing run of length k + 1
    tail_at: list[int] = []  # the pair index of that tail
    previous = [-1] * len(pairs)
    for position, (_, j) in enumerate(pairs):
        k = len(tails) if not tails or j > tails[-1] else bisect_left(tails, j)  # mostly in order: skip the search
        if k == len(tails):
            tails.append(j)
            tail_at.append(position)
        else:
            tails[k], tail_at[k] = j, position
        previous[position] = tail_at[k - 1] if k else -1
    run: list[tuple[int, int]] = []
    position = tail_at[-1] if tail_at else -1
    while position != -1:
        run.append(pairs[position])
        position = previous[position]
    return run[::-1]


def anchored_unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, n: int) -> Iterator[str]:
    """What `difflib.unified_diff(a, b, fromfile, tofile, n=n)` yields, found through unique-line anchors."""
    started = False
    for group in _AnchoredMatcher(a, b).get_grouped_opcodes(n):
        if not started:
            started = True
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk range as `difflib` writes it: `3`, `3,4`, or `2,0` for an empty range after line 2."""
    length = stop - start
    if length == 1:
        return f"{start + 1}"
    return f"{start if not length else start + 1},{length}"
