"""A diff hunk whose context drops or adds blank lines: located by its other lines, applied by its marks.

Models writing a unified diff by hand often leave out a blank (or
whitespace-only) line of the file from a hunk's context, or add one the
file does not have. This rung compares only the non-blank lines: the
searched text's non-blank lines must follow one another in the file with
nothing but blank lines between them, at exactly one place. What the hunk
does is then replayed on the file's own lines there: the lines it keeps are
the file's, its removed lines go, its added lines come in where the hunk
puts them, and the file's blank lines stay unless the hunk removes that very
blank line (one it also has at that place). Where the hunk's blank lines
between two shown lines are not the file's, they are paired with the file's
in order, equal lines first; the change is made only when every pairing
that fits (and every order of an added line and a file blank line left
unpaired) gives the same lines. Otherwise the hunk is refused, as any
other hunk that could go more than one way.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from itertools import combinations, islice, product
from math import comb

from editblocks.locate.normalize import is_blank
from editblocks.locate.types import Ambiguous, Found, Rung
from editblocks.locate.view import FileView

MAX_CANDIDATES = 100
"""Places of the first non-blank line checked; past this the hunk is refused as ambiguous."""


def locate_ignoring_blank_lines(view: FileView, search: Sequence[str], replace: Sequence[str], marks: str,
                                min_start: int, hint: int | None, tolerance: int) -> Found | Ambiguous | str | None:
    """Where ``search`` is, reading blank lines on neither side; None when its non-blank lines are nowhere, and why
    not when they are found once but the hunk's blank lines cannot be matched up with the file's without a guess.

    ``marks`` are the hunk's line prefixes (`EditBlock.marks`); without them the texts are aligned by a diff.
    ``hint`` (a 0-based line) picks one of several places when it points inside exactly one (give or take
    ``tolerance`` lines), or at exactly one place's first line.
    """
    wanted = [(position, line.rstrip()) for position, line in enumerate(search) if not is_blank(line)]
    if not wanted:
        return None
    keys = view.keys(Rung.TRAILING_WHITESPACE)
    places: list[list[int]] = []
    for start in islice(view.occurrences(Rung.TRAILING_WHITESPACE, [wanted[0][1]], min_start), MAX_CANDIDATES + 1):
        found = _follow(keys, start, [key for _, key in wanted[1:]])
        if found is not None:
            places.append(found)
    if not places:
        return None
    if len(places) > 1:
        chosen = _hinted(places, hint, tolerance)
        if chosen is None:
            return Ambiguous(tuple(place[0] for place in places[:MAX_CANDIDATES]), Rung.BLANK_LINES,
                             len(places) > MAX_CANDIDATES)
        places = [chosen]
    place = places[0]
    replayed = _replayed(view.lines, dict(zip((position for position, _ in wanted), place)),
                         hunk_steps(search, replace, marks), search, replace)
    if isinstance(replayed, str):
        return replayed
    new_lines, sources = replayed
    return Found(place[0], place[-1] + 1, tuple(new_lines), tuple(sources), Rung.BLANK_LINES)


def _follow(keys: Sequence[str], start: int, rest: list[str]) -> list[int] | None:
    """The file lines of the searched non-blank lines after the first (at ``start``), each the next non-blank line
    of the file; None when one differs."""
    place = [start]
    position = start
    for key in rest:
        position += 1
        while position < len(keys) and not keys[position]:
            position += 1
        if position >= len(keys) or keys[position] != key:
            return None
        place.append(position)
    return place


def _hinted(places: list[list[int]], hint: int | None, tolerance: int) -> list[int] | None:
    if hint is None:
        return None
    inside = [place for place in places if place[0] - tolerance <= hint <= place[-1] + tolerance]
    if len(inside) == 1:
        return inside[0]
    exact = [place for place in places if place[0] == hint]
    return exact[0] if len(exact) == 1 else None


Step = tuple[str, int, int, int, int]
"""One step of a hunk, as `SequenceMatcher.get_opcodes` gives them: `equal`, `delete`, `insert` or `replace`, and the
old and new lines it spans."""


def hunk_steps(search: Sequence[str], replace: Sequence[str], marks: str) -> list[Step]:
    """The hunk's steps from its marks (a run of removed and added lines is one replacement), or from a diff of its
    texts when the marks do not fit them."""
    if len(marks) - marks.count("+") != len(search) or len(marks) - marks.count("-") != len(replace):
        matcher = SequenceMatcher(None, list(search), list(replace), autojunk=False)
        return [(tag, a, b, c, d) for tag, a, b, c, d in matcher.get_opcodes()]
    steps: list[Step] = []
    old = new = 0
    position = 0
    while position < len(marks):
        mark = marks[position]
        end = position + 1
        if mark == " ":
            while end < len(marks) and marks[end] == " ":
                end += 1
            steps.append(("equal", old, old + end - position, new, new + end - position))
            old, new = old + end - position, new + end - position
        else:
            while end < len(marks) and marks[end] != " ":
                end += 1
            removed, added = marks.count("-", position, end), marks.count("+", position, end)
            tag = "replace" if removed and added else "delete" if removed else "insert"
            steps.append((tag, old, old + removed, new, new + added))
            old, new = old + removed, new + added
        position = end
    return steps


Item = tuple[str, int, Sequence[str]]
"""What a hunk does, line by line: (`keep` or `remove`, old line, ()), or (`insert`, -1, the added lines), or
(`replace`, -1, the added lines) for lines that take the place of the removed lines before them."""


def _items(steps: list[Step], replace: Sequence[str]) -> list[Item]:
    items: list[Item] = []
    for tag, old_start, old_end, new_start, new_end in steps:
        verb = "keep" if tag == "equal" else "remove"
        items += [(verb, searched, ()) for searched in range(old_start, old_end)]
        if tag in ("insert", "replace"):
            items.append((tag, -1, replace[new_start:new_end]))
    return items


_ADDING = ("insert", "replace")


def _replayed(file_lines: Sequence[str], mapped: dict[int, int], steps: list[Step], search: Sequence[str],
              replace: Sequence[str]) -> tuple[list[str], list[int | None]] | str:
    """The hunk's change made to the file's lines between its first and last mapped line, or why it cannot be
    made unambiguously.

    ``mapped`` gives the file line of each non-blank searched line. Between two of them, the hunk's blank lines and
    the file's are paired up (`_gap`); the result must be the same whichever way that can be done.
    """
    new_lines: list[str] = []
    sources: list[int | None] = []
    gap: list[Item] = []
    previous: int | None = None  # the file line of the last non-blank searched line
    for item in _items(steps, replace):
        verb, searched, added = item
        if verb in _ADDING or searched not in mapped:
            gap.append(item)
            continue
        line = mapped[searched]
        if previous is None:
            edge = _edge(gap, search)
            if isinstance(edge, str):
                return edge
            new_lines += edge
            sources += [None] * len(edge)
        else:
            filled = _gap(gap, search, file_lines, previous + 1, line)
            if isinstance(filled, str):
                return filled
            new_lines += [file_lines[at] if at is not None else text for text, at in filled]
            sources += [at for _, at in filled]
        gap = []
        previous = line
        if verb == "keep":
            new_lines.append(file_lines[line])
            sources.append(line)
    edge = _edge(gap, search)
    if isinstance(edge, str):
        return edge
    new_lines += edge
    sources += [None] * len(edge)
    return new_lines, sources


def _edge(items: list[Item], search: Sequence[str]) -> list[str] | str:
    """Before the first or after the last non-blank line: the added lines; the hunk's blank lines there are outside
    the place found, so one it removes cannot be removed."""
    if any(verb == "remove" for verb, _, _ in items):
        line = next(searched for verb, searched, _ in items if verb == "remove")
        return (f"the hunk removes a blank line (old line {line + 1}) at its edge, where the file's blank lines "
                "differ from its own")
    return [text for verb, _, added in items if verb in _ADDING for text in added]


def _gap(items: list[Item], search: Sequence[str], file_lines: Sequence[str], start: int,
         end: int) -> list[tuple[str, int | None]] | str:
    """The lines between two non-blank lines of the place: the file's blank lines ``[start, end)`` with the hunk's
    blank lines there kept or removed and its added lines put in.

    The hunk's blank lines are paired with the file's in order, as many as both have, preferring pairs of equal
    lines; a file blank line left unpaired stays. When the hunk's and the file's blank lines differ in number,
    several pairings (and several orders of an added line and an unpaired file blank line) may fit: the result is
    taken only when they all give the same lines, else the hunk is refused.
    """
    blanks = [position for position, (verb, _, _) in enumerate(items) if verb not in _ADDING]
    files = list(range(start, end))
    pairings: list[list[tuple[int, int]]] | None = [list(zip(blanks, files))]
    if len(blanks) != len(files) and (blanks or any(verb in _ADDING for verb, _, _ in items)):
        pairings = _best_pairings(items, blanks, files, search, file_lines)
    if pairings is None:
        return f"the hunk's blank lines differ from the file's at lines {start + 1}–{end} in too many ways"
    results: list[list[tuple[str, int | None]]] = []
    for pairing in pairings:
        for result in _fillings(items, pairing, files):
            if results and [text if at is None else file_lines[at] for text, at in result] != \
                    [text if at is None else file_lines[at] for text, at in results[0]]:
                return (f"the hunk's blank lines differ from the file's at lines {start + 1}–{end}, and where its "
                        "change goes among them is unclear")
            results.append(result)
    return results[0]


MAX_PAIRINGS = 64


def _best_pairings(items: list[Item], blanks: list[int], files: list[int], search: Sequence[str],
                   file_lines: Sequence[str]) -> list[list[tuple[int, int]]] | None:
    """Every order-keeping pairing of the hunk's blank lines with the file's (as many pairs as the fewer side has)
    with the most pairs of equal lines; None when there are too many to check."""
    size = min(len(blanks), len(files))
    if comb(max(len(blanks), len(files)), size) > MAX_PAIRINGS:
        return None
    if len(blanks) <= len(files):
        candidates = [list(zip(blanks, chosen)) for chosen in combinations(files, size)]
    else:
        candidates = [list(zip(chosen, files)) for chosen in combinations(blanks, size)]

    def equal_pairs(pairing: list[tuple[int, int]]) -> int:
        return sum(1 for item, line in pairing if search[items[item][1]] == file_lines[line])

    best = max(map(equal_pairs, candidates))
    return [pairing for pairing in candidates if equal_pairs(pairing) == best]


def _fillings(items: list[Item], pairing: list[tuple[int, int]],
              files: list[int]) -> list[list[tuple[str, int | None]]]:
    """The gap's lines for one pairing: (text, None) for an added line, ("", file line) for a file line kept.

    Where added lines and unpaired file blank lines fall between the same two pairs, the hunk may say which come
    first: lines replacing removed ones take their place, and lines shown right after (or right before) the
    stretch's edge, but not both, stay next to it. Otherwise both orders are given.
    """
    paired = dict(pairing)
    pieces: list[list[list[tuple[str, int | None]]]] = []  # per stretch between pairs: the ways to write it
    added: list[tuple[str, int | None]] = []
    kinds: list[str] = []  # what the stretch holds, in order: added lines, or the hunk's unpaired blank lines
    next_file = 0  # index into files of the first file blank line not yet placed

    def stretch(upto: int) -> None:
        nonlocal added, kinds, next_file
        unpaired: list[tuple[str, int | None]] = [("", files[at]) for at in range(next_file, upto)]
        first, last = (kinds[0], kinds[-1]) if kinds else ("", "")
        if not (added and unpaired):
            ways = [added + unpaired]
        elif first == "replace" or first in _ADDING and last not in _ADDING:
            ways = [added + unpaired]
        elif last in _ADDING and first not in _ADDING:
            ways = [unpaired + added]
        else:
            ways = [added + unpaired, unpaired + added]
        pieces.append(ways)
        added, kinds, next_file = [], [], max(next_file, upto)

    for position, (verb, _, lines) in enumerate(items):
        if verb in _ADDING:
            added += [(text, None) for text in lines]
            kinds.append(verb)
        elif position not in paired:
            kinds.append(verb)
        else:
            at = files.index(paired[position])
            stretch(at)
            next_file = at + 1
            if verb == "keep":
                pieces.append([[("", paired[position])]])
    stretch(len(files))
    return [[line for piece in choice for line in piece] for choice in product(*pieces)]
