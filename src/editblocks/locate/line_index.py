"""Where each line occurs in a file that keeps changing, without a pass over the whole file per edit.

Planning many blocks on one big file must not cost blocks × lines. The index
is built once and never rebuilt. Each line the file had then keeps its slot;
a slot holds the lines inserted just before it, then its own line while no
edit has removed it. A Fenwick tree of the slots' sizes turns a slot into a
current line number, and a line number into its slot, in O(log n); a splice
costs O(log n) per line it removes or per slot it touches, however many
edits came before it.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence

MIN_BUDGET = 32


class LineIndex:
    """Positions of the lines of `lines` (a live list that must only be changed through `splice`)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        size = len(lines)
        self._last_slot: dict[str, int] = dict(zip(lines, range(size)))
        """Every line the file had, to its (last) slot: unique lines, most code lines, need nothing else."""
        self._counts: Counter[str] | None = None
        """How often each line occurred, when some line occurred more than once (None: each line once)."""
        self._originals: list[str] | None = None
        """The lines as they were, kept only until the slots of repeated lines are first asked for."""
        if len(self._last_slot) < size:
            self._counts = Counter(lines)
            self._originals = list(lines)
        self._repeat_slots: dict[str, list[int]] = {}
        self._changes: dict[str, int] = {}  # by line: copies inserted minus copies removed since the build
        self._before: dict[int, list[str]] = {}  # slot -> the lines inserted just before its own line
        self._inserted_at: dict[str, list[int]] = {}
        """Line -> slots whose inserted lines may hold it (a list: lighter than a set; repeats skipped when read)."""
        self._removed = bytearray(size + 1)  # slot -> its own line is gone
        # Slot `size` stands past the last line: its "own line" is the end, so lines appended go before it.
        self._tree = array("q", bytes(8 * (size + 2)))  # Fenwick tree of (slot size - 1), 1-based
        self._top = 1 << (size + 1).bit_length() - 1
        self._budget = max(MIN_BUDGET, math.isqrt(size))

    def splice(self, start: int, end: int, new_lines: Sequence[str]) -> None:
        """Replace lines `[start, end)` of the live list and keep the index right.

        Lines the edit keeps at either end (a patch hunk's context) keep their slots: only the lines between
        them are taken out and put in."""
        lines = self.lines
        count = len(new_lines)
        keep = min(end - start, count)
        head = 0
        while head < keep and lines[start + head] == new_lines[head]:
            head += 1
        tail = 0
        while tail < keep - head and lines[end - 1 - tail] == new_lines[count - 1 - tail]:
            tail += 1
        first, last, added = start + head, end - tail, new_lines[head : count - tail]
        changes = self._changes
        if last > first:
            for line in lines[first:last]:
                changes[line] = changes.get(line, 0) - 1
            self._take_out(first, last - first)
        lines[start:end] = new_lines
        if added:
            for line in added:
                changes[line] = changes.get(line, 0) + 1
            slot, offset = self._slot_at(first)
            before = self._before.setdefault(slot, [])
            before[offset:offset] = added
            self._grow(slot, len(added))
            inserted_at = self._inserted_at
            for line in added:
                slots = inserted_at.setdefault(line, [])
                if not slots or slots[-1] != slot:
                    slots.append(slot)

    def occurrences(self, pattern: Sequence[str]) -> list[int] | None:
        """Sorted starts of every occurrence of `pattern` (overlapping ones too), or None when the rarest
        line of the pattern is too common for the index to beat a plain scan."""
        size = len(pattern)
        anchor, count = 0, self._count(pattern[0])
        for position in range(1, size if count > 1 else 0):  # the rarest line anchors; no line beats one copy
            here = self._count(pattern[position])
            if here < count:
                anchor, count = position, here
                if count <= 1:
                    break
        too_common = count > len(self.lines) // self._budget + MIN_BUDGET
        # Each place costs a walk of the tree in Python: past this, a C-level scan of the joined lines wins.
        too_costly = count > 1 and count * len(self._tree).bit_length() > len(self.lines) // 16
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
        """How often ``line`` occurs now (cheap: kept up to date by every splice)."""
        return self._count(line)

    def positions(self, line: str) -> list[int]:
        """Where ``line`` is now, in no particular order."""
        return list(self._positions(line))

    def _count(self, line: str) -> int:
        counts = self._counts
        built = (1 if line in self._last_slot else 0) if counts is None else counts.get(line, 0)
        return built + self._changes.get(line, 0)

    def _positions(self, line: str) -> Iterator[int]:
        removed, before = self._removed, self._before
        if self._counts is not None and self._counts.get(line, 0) > 1:
            slots: Sequence[int] = self._slots_of_repeated(line)
        else:
            slot = self._last_slot.get(line)
            slots = () if slot is None else (slot,)
        for slot in slots:
            if not removed[slot]:
                yield self._lines_before(slot) + len(before.get(slot, ()))
        for slot in dict.fromkeys(self._inserted_at.get(line, ())):
            inserted = before.get(slot)
            if inserted and line in inserted:
                first = self._lines_before(slot)
                yield from (first + offset for offset, each in enumerate(inserted) if each == line)

    def _slots_of_repeated(self, line: str) -> list[int]:
        """The slots of every line that occurred more than once, gathered in one pass the first time one is
        asked for."""
        if self._originals is not None:
            assert self._counts is not None
            slots = self._repeat_slots
            for repeated, count in self._counts.items():
                if count > 1:
                    slots[repeated] = []
            for slot, original in enumerate(self._originals):
                if original in slots:
                    slots[original].append(slot)
            self._originals = None
        return self._repeat_slots[line]

    def _take_out(self, start: int, count: int) -> None:
        """Forget the ``count`` lines from ``start`` on: inserted ones leave their slot, own lines are marked
        removed."""
        before, removed = self._before, self._removed
        while count:
            slot, offset = self._slot_at(start)
            inserted = before.get(slot)
            if inserted is not None and offset < len(inserted):
                taken = min(count, len(inserted) - offset)
                del inserted[offset : offset + taken]
                if not inserted:
                    del before[slot]
            else:
                taken = 1
                removed[slot] = 1
            self._grow(slot, -taken)
            count -= taken

    def _lines_before(self, slot: int) -> int:
        """How many current lines come before ``slot``'s lines."""
        total, node, tree = slot, slot, self._tree
        while node:
            total += tree[node]
            node &= node - 1
        return total

    def _grow(self, slot: int, delta: int) -> None:
        node, tree = slot + 1, self._tree
        size = len(tree)
        while node < size:
            tree[node] += delta
            node += node & -node

    def _slot_at(self, position: int) -> tuple[int, int]:
        """The slot holding current line ``position`` (the end slot for the position past the last line), and
        the line's place among that slot's lines."""
        slot, rest, step, tree = 0, position, self._top, self._tree
        size = len(tree)
        while step:
            node = slot + step
            if node < size and step + tree[node] <= rest:
                slot = node
                rest -= step + tree[node]
            step >>= 1
        return slot, rest
