"""A diff hunk whose context leaves out lines of the file: located piece by piece, the left-out lines kept.

A model writing a hunk by hand sometimes skips a few lines of the file it
thought beside the point (an entry, a short function) and shows the lines
around them as if they followed one another. Such a hunk is read as pieces:
every one of its lines must be in the file (whitespace at line ends aside),
in its order, with at most ``MAX_OMITTED`` file lines left out at a time,
and each piece between two left-out stretches must occur exactly once in the
file. The left-out lines stay where they are. Context the model rewrote is
never taken for the file's: a hunk line the file does not have fails it.

Lines may be left out only where the change still has one clear place:
between two kept lines with no added line between them, or beside removed
lines (the lines added in their place take it). Never inside a run of
removed lines (were the left-out lines to go too?), nor where lines are
added between two kept lines (above the left-out lines or below them?): a
hunk that lines up with the file that way, even as one way among others,
is refused. Every other way of lining it up must make the same change, else
the hunk is ambiguous.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice

from editblocks.locate.blank_lines import hunk_steps
from editblocks.locate.budget import CompareBudget
from editblocks.locate.types import Ambiguous, Found, Rung
from editblocks.locate.view import FileView

MAX_OMITTED = 12
"""File lines a hunk may leave out at one place."""
MAX_STARTS = 100
"""Places of the hunk's first piece tried; past this the hunk is too common to place this way."""
MAX_PIECES = 5
"""Pieces a hunk may fall into: a hunk that leaves out lines at more places than this is not placed this way."""
MAX_STATES = 2_000
"""Pairs of a hunk line and a file line it may stand for, over all places tried; past this the hunk is given up (the
hunks of real answers take a few hundred at most)."""
_GUESS = -1
"""The mark a way of lining the hunk up leaves in the places of its change when it leaves lines out where that makes
the change a guess: such a way never agrees with another, and its existence refuses the hunk."""


@dataclass
class _Hunk:
    old: list[str]
    """The old lines' keys (line ends stripped of whitespace)."""
    removed: list[bool]
    added: list[list[str]] = field(default_factory=list)
    """``added[i]``: the lines added before old line ``i`` (``added[len(old)]``: after the last one)."""

    def may_leave_out(self, line: int) -> bool:
        """Whether file lines may be left out between old lines ``line`` and ``line + 1``."""
        if self.removed[line] and self.removed[line + 1]:
            return False
        return not self.added[line + 1] or (self.removed[line] and not self.removed[line + 1])


@dataclass
class _Reach:
    """How an old line can stand for one file line: the fewest left-out stretches before it, the file line of the
    previous old line on that way, and the places of the change so far (two kinds at most: two is ambiguous)."""

    stretches: int
    previous: int | None
    changes: set[tuple[int, ...]]


def locate_omitting_lines(view: FileView, search: Sequence[str], replace: Sequence[str], marks: str,
                          budget: CompareBudget | None = None) -> Found | Ambiguous | str | None:
    """Where ``search`` is when its context leaves out lines of the file; None when it is not there that way either
    (or ``budget``, the file's allowance of steps, ran out), and why not when it is but cannot be placed safely."""
    hunk = _read(search, replace, marks)
    if not hunk.old or not any(key for key in hunk.old):
        return None
    keys = view.keys(Rung.TRAILING_WHITESPACE)
    starts = list(islice(view.occurrences(Rung.TRAILING_WHITESPACE, hunk.old[:1]), MAX_STARTS + 1))
    if len(hunk.old) < 2 or not starts or len(starts) > MAX_STARTS:
        return None
    levels = _levels(hunk, keys, starts, budget if budget is not None else CompareBudget(MAX_STATES, 0))
    if levels is None or not levels[-1]:
        return None
    changes = set().union(*(reach.changes for reach in levels[-1].values()))
    if any(_GUESS in change for change in changes):
        return ("the hunk reads as leaving out lines of the file inside its removed lines or where it adds lines, "
                "which makes its change a guess")
    last = levels[-1]
    if len(changes) > 1:
        places = sorted({_path(levels, end)[0] for end in last})
        if len(places) == 1:
            return ("the hunk, read as leaving out lines of the file, lines up with it more than one way, and the "
                    "ways change different lines")
        return Ambiguous(tuple(places), Rung.OMITTED_LINES, False)
    end = min(last, key=lambda line: (last[line].stretches, line))
    path = _path(levels, end)
    pieces = _pieces(path)
    if len(pieces) > MAX_PIECES:
        return (f"the hunk would leave out lines of the file at {len(pieces) - 1} places; at most {MAX_PIECES - 1} "
                "are read so")
    for first, stop in pieces:
        if len(list(islice(view.occurrences(Rung.TRAILING_WHITESPACE, hunk.old[first:stop]), 2))) > 1:
            return (f"the hunk would leave out lines of the file, but its old lines {first + 1}–{stop}, a piece "
                    "between them, occur more than once in the file")
    return _found(view.lines, hunk, path)


def _read(search: Sequence[str], replace: Sequence[str], marks: str) -> _Hunk:
    hunk = _Hunk([line.rstrip() for line in search], [False] * len(search))
    hunk.added = [[] for _ in range(len(search) + 1)]
    for tag, old_start, old_end, new_start, new_end in hunk_steps(search, replace, marks):
        if tag == "equal":
            continue
        for line in range(old_start, old_end):
            hunk.removed[line] = True
        hunk.added[old_end] += replace[new_start:new_end]  # after the lines they replace: the same place
    return hunk


def _levels(hunk: _Hunk, keys: Sequence[str], starts: list[int],
            budget: CompareBudget) -> list[dict[int, _Reach]] | None:
    """Per old line, every file line it can stand for on some way of lining the hunk up (None past ``MAX_STATES`` or
    the budget)."""
    anchors = _anchors(hunk)
    allowance = min(MAX_STATES, budget.exact)
    if len(starts) > allowance:
        return None
    level = {start: _Reach(0, None, {_marked(anchors, 0, start, ())}) for start in starts}
    levels = [level]
    visited = len(level)
    for line in range(1, len(hunk.old)):
        wanted = hunk.old[line]
        guessed = not hunk.may_leave_out(line - 1)
        following: dict[int, _Reach] = {}
        for at, reach in level.items():
            for skipped in range(MAX_OMITTED + 1):
                target = at + 1 + skipped
                if target >= len(keys):
                    break
                if keys[target] != wanted:
                    continue
                stretches = reach.stretches + (skipped > 0)
                changes = {_marked(anchors, line, target, change) for change in reach.changes}
                if skipped and guessed:
                    changes = {(*change, _GUESS) for change in changes}
                known = following.get(target)
                if known is None:
                    visited += 1
                    if visited > allowance:
                        budget.take_exact(allowance)
                        return None
                    following[target] = _Reach(stretches, at, changes)
                    continue
                known.changes = set(islice(known.changes | changes, 2))
                if stretches < known.stretches:
                    known.stretches, known.previous = stretches, at
        levels.append(following)
        level = following
        if not level:
            break
    budget.take_exact(visited)
    return levels


def _anchors(hunk: _Hunk) -> list[bool]:
    """Which old lines' places fix where the change goes: removed lines, and the kept line that added lines go
    before (or, at the end of the hunk, after)."""
    anchors = list(hunk.removed)
    for line, added in enumerate(hunk.added):
        if not added or (line and hunk.removed[line - 1]):
            continue
        anchors[min(line, len(anchors) - 1)] = True
    return anchors


def _marked(anchors: list[bool], line: int, at: int, change: tuple[int, ...]) -> tuple[int, ...]:
    return (*change, at) if anchors[line] else change


def _path(levels: list[dict[int, _Reach]], end: int) -> list[int]:
    """The file line of every old line on the way (with the fewest left-out stretches) that ends at ``end``."""
    path = [end]
    for level in reversed(levels[1:]):
        previous = level[path[-1]].previous
        assert previous is not None
        path.append(previous)
    return path[::-1]


def _pieces(path: list[int]) -> list[tuple[int, int]]:
    """The runs of old lines that stand for consecutive file lines: (first, stop) indexes into the old lines."""
    pieces: list[tuple[int, int]] = []
    first = 0
    for line in range(1, len(path)):
        if path[line] != path[line - 1] + 1:
            pieces.append((first, line))
            first = line
    pieces.append((first, len(path)))
    return pieces


def _found(file_lines: Sequence[str], hunk: _Hunk, path: list[int]) -> Found:
    """The hunk's change made on the file's lines from its first old line's to its last's, left-out lines kept."""
    new_lines: list[str] = []
    sources: list[int | None] = []
    for line, at in enumerate(path):
        left_out = range(path[line - 1] + 1, at) if line else range(0)
        after_removed = line > 0 and hunk.removed[line - 1]
        if after_removed:  # the lines added in place of the removed ones come before the lines left out
            new_lines += hunk.added[line]
            sources += [None] * len(hunk.added[line])
        new_lines += [file_lines[kept] for kept in left_out]
        sources += left_out
        if not after_removed:
            new_lines += hunk.added[line]
            sources += [None] * len(hunk.added[line])
        if not hunk.removed[line]:
            new_lines.append(file_lines[at])
            sources.append(at)
    new_lines += hunk.added[len(path)]
    sources += [None] * len(hunk.added[len(path)])
    return Found(path[0], path[-1] + 1, tuple(new_lines), tuple(sources), Rung.OMITTED_LINES)
