"""Where each line occurs in a file that keeps changing, without a pass over the whole file per edit.

Planning many blocks on one big file must not cost blocks × lines. The index
is built once; after that it is not rebuilt on every splice. A short log of
splices maps the positions it holds to where those lines are now, and only the
lines inserted since the last rebuild are searched directly. After about √n
splices it is rebuilt. A block therefore costs O(√n) amortised instead of a
scan of the whole file.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence

MIN_BUDGET = 32


class LineIndex:
    """Positions of the lines of `lines` (a live list that must only be changed through `splice`)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._base: dict[str, list[int] | int] = {}
        self._rebuild()

    def _rebuild(self) -> None:
        """Unique lines (most code lines) go through C-level `dict(zip())`; only repeated lines need a loop.

        The old table is dropped first: two tables of a big file at once would be the planner's peak memory."""
        lines = self.lines
        self._base = {}
        positions: dict[str, list[int] | int] = dict(zip(lines, range(len(lines))))
        if len(positions) < len(lines):
            repeated = {line for line, count in Counter(lines).items() if count > 1}
            for line in repeated:
                positions[line] = []
            for number, line in enumerate(lines):
                if line in repeated:
                    positions[line].append(number)  # type: ignore[union-attr]
        self._base = positions
        self._log: list[tuple[int, int, int]] = []  # (start, removed, inserted) in the coordinates of their time
        self._fresh: list[tuple[int, int]] = []  # current ranges of lines inserted since the rebuild
        self._fresh_lines = 0
        self._budget = max(MIN_BUDGET, math.isqrt(len(self.lines)))

    def splice(self, start: int, end: int, new_lines: Sequence[str]) -> None:
        """Replace lines `[start, end)` of the live list and keep the index right."""
        self.lines[start:end] = new_lines
        inserted = len(new_lines)
        shift = inserted - (end - start)
        self._log.append((start, end - start, inserted))
        fresh: list[tuple[int, int]] = []
        for first, last in self._fresh:
            if last <= start:
                fresh.append((first, last))
            elif first >= end:
                fresh.append((first + shift, last + shift))
            else:
                self._fresh_lines -= min(last, end) - max(first, start)
                if first < start:
                    fresh.append((first, start))
                if last > end:
                    fresh.append((start + inserted, last + shift))
        if inserted:
            fresh.append((start, start + inserted))
            self._fresh_lines += inserted
        self._fresh = fresh
        if len(self._log) > self._budget or self._fresh_lines > 8 * self._budget:
            self._rebuild()

    def occurrences(self, pattern: Sequence[str]) -> list[int] | None:
        """Sorted starts of every occurrence of `pattern` (overlapping ones too), or None when the rarest
        line of the pattern is too common for the index to beat a plain scan."""
        size = len(pattern)
        anchor = min(range(size), key=lambda j: self._count(pattern[j]))
        count = self._count(pattern[anchor])
        too_common = count > len(self.lines) // self._budget + MIN_BUDGET
        # Mapping each place through the log is Python work: past this, a C-level scan of the joined lines wins.
        too_costly = count > 1 and count * len(self._log) > len(self.lines) // 16
        if too_common or too_costly:
            return None
        lines, wanted = self.lines, list(pattern)
        starts = {
            begin
            for position in self._positions(pattern[anchor])
            if 0 <= (begin := position - anchor) and begin + size <= len(lines)
            and lines[begin : begin + size] == wanted
        }
        return sorted(starts)

    def count(self, line: str) -> int:
        """How often ``line`` occurred at the last rebuild (cheap; edits since may have changed it a little)."""
        return self._count(line)

    def positions(self, line: str) -> list[int]:
        """Where ``line`` is now, in no particular order."""
        return list(self._positions(line))

    def _count(self, line: str) -> int:
        found = self._base.get(line)
        return 0 if found is None else 1 if isinstance(found, int) else len(found)

    def _positions(self, line: str) -> Iterator[int]:
        found = self._base.get(line)
        base = () if found is None else (found,) if isinstance(found, int) else found
        for position in base:
            for start, removed, inserted in self._log:
                if position >= start + removed:
                    position += inserted - removed
                elif position >= start:
                    break
            else:
                yield position
        lines = self.lines
        for first, last in self._fresh:
            for position in range(first, last):
                if lines[position] == line:
                    yield position
