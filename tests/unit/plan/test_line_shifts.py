"""A line hint is mapped onto the current text without going through every earlier edit when the edits come in
file order, as a patch's hunks do (issue 29), and to the same line as going through them would."""

from __future__ import annotations

import random

from editblocks.plan.line_shifts import LineShifts


def by_definition(edits: list[tuple[int, int, int]], line: int) -> int:
    for start, end, written in edits:
        if line >= end:
            line += written - (end - start)
    return line


def test_every_line_lands_where_going_through_every_edit_puts_it():
    rng = random.Random(29)
    for _ in range(2000):
        shifts, edits, length = LineShifts(), [], rng.randint(0, 40)
        cursor = 0
        for _ in range(rng.randint(0, 8)):
            if rng.random() < 0.85:  # in order, after the last edit's new lines
                start = rng.randint(cursor, max(cursor, length))
            else:
                start = rng.randint(0, max(0, length))
            end = rng.randint(start, min(length, start + 5)) if start <= length else start
            written = rng.randint(0, 5)
            shifts.add(start, end, written)
            edits.append((start, end, written))
            length += written - (end - start)
            cursor = start + written
        for line in range(-2, 50):
            assert shifts.current_line(line) == by_definition(edits, line), (edits, line)


class CountedList(list):
    walks = 0

    def __iter__(self):
        CountedList.walks += 1
        return super().__iter__()


def test_hunks_in_file_order_never_walk_the_earlier_edits():
    for hunks in (125, 1000):  # N and 8N
        shifts = LineShifts()
        shifts.edits = CountedList()
        CountedList.walks = 0
        for number in range(hunks):
            hint = 10 * number + 5
            assert shifts.current_line(hint) == hint + number  # one line added by each earlier hunk
            now = shifts.current_line(hint)
            shifts.add(now, now + 1, 2)
        assert CountedList.walks == 0
