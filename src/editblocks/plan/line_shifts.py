"""Where a file's original line is after the edits made so far, without going through every earlier edit.

A patch's hunks come in file order, so each edit lies after the ones before
it; then the edits are disjoint, increasing ranges of the original file, and
a line's place is found by bisection: shifted by every edit that ends at or
before it. A line inside an edited range, or any line once an edit went back
before an earlier one, is mapped edit by edit, the definition itself.
"""

from __future__ import annotations

from bisect import bisect_right


class LineShifts:
    """The (start, end, lines written) of every splice of one file, in order, each in the lines of its time."""

    def __init__(self) -> None:
        self.edits: list[tuple[int, int, int]] = []
        self._in_order = True
        self._original_starts: list[int] = []
        self._original_ends: list[int] = []
        self._shift_before: list[int] = []  # the lines added (less removed) by the edits before each one
        self._shift = 0

    def add(self, start: int, end: int, written: int) -> None:
        if self.edits:
            last_start, _, last_written = self.edits[-1]
            self._in_order = self._in_order and start >= last_start + last_written
        self.edits.append((start, end, written))
        if self._in_order:
            self._original_starts.append(start - self._shift)
            self._original_ends.append(end - self._shift)
            self._shift_before.append(self._shift)
            self._shift += written - (end - start)

    def current_line(self, line: int) -> int:
        """Where the file's original 0-based ``line`` is now."""
        if self._in_order:
            following = bisect_right(self._original_ends, line)  # the first edit that ends after the line
            if following == len(self.edits):
                return line + self._shift
            if line < self._original_starts[following]:
                return line + self._shift_before[following]
        for start, end, written in self.edits:
            if line >= end:
                line += written - (end - start)
        return line
