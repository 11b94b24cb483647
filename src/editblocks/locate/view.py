"""The file as every rung sees it: comparison keys, joined text and window rankings, each computed once per call.

Shared by the line rungs, elision, fuzzy matching and the diagnosis, which
is why it lives apart from all of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from itertools import islice
from typing import Final

from editblocks.locate.budget import CompareBudget, compare_cost
from editblocks.locate.fuzzy import MAX_WINDOWS, FuzzyLines, ScoredWindow, rank_windows, score_window
from editblocks.locate.line_index import LineIndex
from editblocks.locate.normalize import (
    INDENT_CHARS,
    TAB_WIDTHS,
    collapse_inner_whitespace,
    content_key,
    fold_typography,
    indent_columns,
    indentation_steps,
    indentation_uses_tabs,
    is_blank,
    leading_indent,
)
from editblocks.locate.types import FOLDING_RUNGS, Rung
from editblocks.record import Record

NEAR_MISS_WINDOWS = 3
"""Candidate regions scored for a diagnosis (only the best is reported; applying fuzzily scores more)."""


INDEXED_RUNGS = (Rung.TRAILING_WHITESPACE, Rung.INDENTATION, *FOLDING_RUNGS)
"""Rungs whose keys get a `LineIndex` of their own when the file has one (the planner's many-block files)."""

DIRECT_SHIFT_CHECKS = 16
"""Windows equal but for indentation checked one by one; beyond this many, one pass over indentation steps."""


class Match(Record):
    """A window of the file that equals ``search`` on some rung, with the indentation shift that rung allowed."""

    __slots__ = ("start", "search", "replace", "shift", "tab_width")
    start: Final[int]
    search: Final[tuple[str, ...]]
    replace: Final[tuple[str, ...]]
    shift: Final[int]
    tab_width: Final[int]

    def __init__(self, start: int, search: tuple[str, ...], replace: tuple[str, ...], shift: int = 0,
                 tab_width: int = TAB_WIDTHS[0]) -> None:
        self.start = start
        self.search = search
        self.replace = replace
        self.shift = shift
        self.tab_width = tab_width

    @property
    def end(self) -> int:
        return self.start + len(self.search)


class FileView:
    """The file's lines with each rung's comparison keys and joined text, computed at most once per call."""

    def __init__(self, lines: Sequence[str], index: LineIndex | None = None,
                 diagnosis: CompareBudget | None = None) -> None:
        self.lines = lines
        self.index = index
        self._joined: dict[Rung | tuple[Rung, int], str | None] = {}
        self._shapes: dict[tuple[Rung, int], list[str]] = {}
        self._keys: dict[Rung, Sequence[str]] = {}
        self._rankings: dict[tuple[str, ...], tuple[bool, list[ScoredWindow]]] = {}
        self._key_indexes: dict[int, LineIndex] = {}  # by id() of the key list it indexes (and splices)
        self.budget = CompareBudget()
        """Characters a fuzzy match may compare in this call (`start_call` renews it)."""
        self.diagnosis = diagnosis if diagnosis is not None else CompareBudget()
        """Characters not-found diagnoses may compare: this call's, or shared by every block of the file."""
        self.scans: CompareBudget | None = None
        """Set for a call that only checks something (not locating a block): passes over the file its index
        cannot spare are charged to it, and not made once it is spent."""

    def start_call(self) -> None:
        """A new block is located with this view: a fresh fuzzy budget; what the diagnosis budget ran short of
        is that block's news only."""
        self.budget = CompareBudget()
        self.diagnosis.estimated = self.diagnosis.skipped = False

    def splice(self, start: int, end: int, new_lines: Sequence[str]) -> bool:
        """Catch up with an edit: lines ``[start, end)`` of ``lines`` (a live list) are now ``new_lines``.

        The key lists are spliced, not recomputed, so a file with thousands
        of blocks keeps one view; texts joined for searching and rankings are
        dropped. What a view knows only as "some line has ..." stays true
        (that merely skips a shortcut). Returns False when the view cannot
        follow (the edit brought typography into a file without any): the
        caller then makes a new one.
        """
        cached = self.__dict__
        if cached.get("has_typography") is False and any(fold_typography(line) != line for line in new_lines):
            return False
        if any(keys is self.lines and rung is not Rung.EXACT and any(line_key(rung, line) != line for line in new_lines)
               for rung, keys in self._keys.items()):
            return False  # a rung's keys were the lines themselves; from now on they differ
        self._joined.clear()
        self._shapes.clear()
        self._rankings.clear()
        cached.pop("uses_tabs", None)
        if cached.get("has_tabs") is False and any("\t" in line for line in new_lines):
            cached["has_tabs"] = True
        fuzzy = cached.get("fuzzy")
        fuzzy = fuzzy if isinstance(fuzzy, FuzzyLines) else None
        fuzzy_keys = [line_key(Rung.TYPOGRAPHY, line) for line in new_lines] if fuzzy is not None else []
        if fuzzy is not None:
            fuzzy.replacing(start, end, fuzzy_keys)
        spliced: set[int] = {id(self.lines)}
        for rung, keys in self._keys.items():
            if id(keys) not in spliced:
                spliced.add(id(keys))
                self._splice_list(keys, start, end, [line_key(rung, line) for line in new_lines])
        if fuzzy is not None:
            if id(fuzzy.folded) not in spliced:
                spliced.add(id(fuzzy.folded))
                self._splice_list(fuzzy.folded, start, end, [fold_typography(line) for line in new_lines])
            if id(fuzzy.keys) not in spliced:
                self._splice_list(fuzzy.keys, start, end, fuzzy_keys)
            if cached.get("has_inner_runs") is False and any(
                key != collapse_inner_whitespace(key) for key in fuzzy_keys
            ):
                cached["has_inner_runs"] = True
        return True

    def _splice_list(self, keys: Sequence[str], start: int, end: int, new_keys: list[str]) -> None:
        """Splice one derived list, through its index when it has one (the index then splices the list)."""
        index = self._key_indexes.get(id(keys))
        if index is not None:
            index.splice(start, end, new_keys)
        else:
            assert isinstance(keys, list), "derived lists are built as lists"
            keys[start:end] = new_keys

    @cached_property
    def has_typography(self) -> bool:
        """Whether folding typography changes any line (if not, the file's folded keys are its indentation keys)."""
        joined = "\n".join(self.lines)
        return fold_typography(joined) != joined

    @cached_property
    def fuzzy(self) -> FuzzyLines:
        fuzzy = FuzzyLines(self.lines, None if self.has_typography else self.keys(Rung.INDENTATION))
        if self.index is not None:
            fuzzy.index = self._index_of(fuzzy.keys)
        return fuzzy

    @cached_property
    def uses_tabs(self) -> bool | None:
        return indentation_uses_tabs(self.lines)

    def keys(self, rung: Rung) -> Sequence[str]:
        if rung not in self._keys:
            # Comprehensions with the string methods inline: this runs over every line of big files.
            if rung is Rung.EXACT:
                keys = self.lines
            elif rung is Rung.TRAILING_WHITESPACE:
                keys = [line.rstrip() for line in self.lines]
            elif rung is Rung.INDENTATION:
                keys = [line.rstrip().lstrip(INDENT_CHARS) for line in self.lines]
            elif rung is Rung.INTERNAL_WHITESPACE:
                keys = [collapse_inner_whitespace(key) for key in self.fuzzy.keys]
            else:
                keys = self.fuzzy.keys
            # Keys equal to the lines (no trailing whitespace, no indentation...) are the lines, and share
            # their index: a big file then holds one index, not one per rung.
            self._keys[rung] = self.lines if keys is not self.lines and keys == self.lines else keys
        return self._keys[rung]

    def ranked_windows(self, search: tuple[str, ...], *, thorough: bool) -> list[ScoredWindow]:
        """The file's windows most like ``search``, best first.

        A thorough ranking (before applying a fuzzy match) scores more windows
        and looks for near-duplicates; it also serves a later diagnosis.
        """
        cached = self._rankings.get(search)
        if cached is None or thorough and not cached[0]:
            max_windows = MAX_WINDOWS if thorough else NEAR_MISS_WINDOWS
            windows = rank_windows(
                self.fuzzy, FuzzyLines(search), probe_near_duplicates=thorough, max_windows=max_windows,
                budget=self.budget if thorough else self.diagnosis,
            )
            cached = self._rankings[search] = (thorough, windows)
        return cached[1]

    def window_at(self, search: tuple[str, ...], offset: int) -> ScoredWindow:
        """The window scored with the searched lines placed from file line ``offset`` on."""
        window = score_window(self.fuzzy, FuzzyLines(search), offset, self.budget)
        assert window is not None, "a copy of a scored window scores too"
        return window

    def occurrences(self, rung: Rung, pattern: list[str], min_start: int = 0) -> Iterator[int]:
        """Start of every occurrence of ``pattern`` among the rung's keys, overlapping ones included, in order.

        Joins the keys with newlines and lets ``str.find`` do the scanning, so a
        search costs about one pass over the file, not one comparison per line.
        """
        index = self.index if rung is Rung.EXACT else self._key_index(rung)
        if index is not None:
            starts = index.occurrences(pattern)
            if starts is not None:
                yield from (start for start in starts if start >= min_start)
                return
        yield from self._find(rung, self.keys(rung), pattern, min_start)

    def _key_index(self, rung: Rung) -> LineIndex | None:
        """An index of the rung's keys, for a view that lives through many blocks (the file has a line index)."""
        if self.index is None or rung not in INDEXED_RUNGS:
            return None
        return self._index_of(self.keys(rung))

    def _index_of(self, keys: Sequence[str]) -> LineIndex:
        if keys is self.lines and self.index is not None:
            return self.index
        if id(keys) not in self._key_indexes:
            assert isinstance(keys, list), "key lists are built as lists"
            self._key_indexes[id(keys)] = LineIndex(keys)
        return self._key_indexes[id(keys)]

    def shifted_occurrences(self, rung: Rung, search: Sequence[str], min_start: int, limit: int) -> list[int]:
        """Up to ``limit`` starts, lowest first, of windows equal to ``search`` on ``rung`` (indentation or
        typography) whose indentation differs from the search's by one uniform shift.

        A few windows equal but for indentation are checked one by one. A file
        with more of them (near-copies) is searched with keys that hold each
        line's indentation step from the non-blank line before it instead: a
        window qualifies when every non-blank searched line after the first
        steps as the file's line does, so that costs one pass, not a check of
        the whole window per copy.
        """
        pattern = [line_key(rung, line) for line in search]
        non_blank = [index for index, key in enumerate(pattern) if key]
        if len(non_blank) < 2:
            return list(islice(self.occurrences(rung, pattern, min_start), limit))
        candidates = list(islice(self.occurrences(rung, pattern, min_start), DIRECT_SHIFT_CHECKS + 1))
        if len(candidates) <= DIRECT_SHIFT_CHECKS:
            fold = rung in FOLDING_RUNGS
            shifted = [start for start in candidates
                       if uniform_shift(self.lines[start : start + len(search)], search, fold) is not None]
            return shifted[:limit]
        head = non_blank[0] + 1
        keys = self.keys(rung)
        searched = [fold_typography(line) for line in search] if rung in FOLDING_RUNGS else search
        tab_widths = TAB_WIDTHS if self.has_tabs or any("\t" in line for line in searched) else TAB_WIDTHS[:1]
        starts: set[int] = set()
        for tab_width in tab_widths:
            tail = indentation_steps(searched, pattern, tab_width)[head:]
            found: list[int] = []
            for position in self._find((rung, tab_width), self._shape(rung, tab_width), tail, head + min_start):
                start = position - head
                if list(keys[start:position]) == pattern[:head]:
                    found.append(start)
                    if len(found) == limit:
                        break
            starts.update(found)
        return sorted(starts)[:limit]

    @cached_property
    def has_inner_runs(self) -> bool:
        """Whether any line has a run of spaces or a tab inside it (if not, the internal-whitespace rung adds
        nothing for a search without one)."""
        return any(key != collapse_inner_whitespace(key) for key in self.fuzzy.keys)

    @cached_property
    def has_tabs(self) -> bool:
        return any("\t" in line for line in self.lines)

    def _shape(self, rung: Rung, tab_width: int) -> list[str]:
        if (rung, tab_width) not in self._shapes:
            lines = self.fuzzy.folded if rung in FOLDING_RUNGS else self.lines
            self._shapes[rung, tab_width] = indentation_steps(lines, self.keys(rung), tab_width)
        return self._shapes[rung, tab_width]

    def _find(
        self, name: Rung | tuple[Rung, int], keys: Sequence[str], pattern: list[str], min_start: int
    ) -> Iterator[int]:
        """Every occurrence of ``pattern`` in ``keys`` (joined once per ``name`` and searched with ``str.find``)."""
        if self.scans is not None and not self.scans.take_scan(compare_cost(0, len(keys), len(keys))):
            return
        if name not in self._joined:
            text = "\n".join(["", *keys, ""])
            self._joined[name] = text if text.count("\n") == len(keys) + 1 else None
        joined = self._joined[name]
        needle = "\n" + "\n".join(pattern) + "\n"
        if joined is None or needle.count("\n") != len(pattern) + 1:
            yield from _occurrences_by_comparison(keys, pattern, min_start)
            return
        position = joined.find(needle)
        line, counted_to = 0, 0
        while position != -1:
            line += joined.count("\n", counted_to, position)
            counted_to = position
            if line >= min_start and line + len(pattern) <= len(keys):
                yield line
            position = joined.find(needle, position + 1)


def _occurrences_by_comparison(keys: Sequence[str], pattern: list[str], min_start: int) -> Iterator[int]:
    """The slow path, for lines that themselves contain a newline (never produced by splitting a file)."""
    for start in range(min_start, len(keys) - len(pattern) + 1):
        if list(keys[start : start + len(pattern)]) == pattern:
            yield start


def line_key(rung: Rung, line: str) -> str:
    """What a line is compared by on a line rung."""
    if rung is Rung.EXACT:
        return line
    if rung is Rung.TRAILING_WHITESPACE:
        return line.rstrip()
    if rung is Rung.INDENTATION:
        return content_key(line)
    if rung is Rung.INTERNAL_WHITESPACE:
        return collapse_inner_whitespace(content_key(fold_typography(line)))
    return content_key(fold_typography(line))


def uniform_shift(window: Sequence[str], search: Sequence[str], fold: bool) -> tuple[int, int] | None:
    """The constant indentation shift (columns, tab width) from ``search`` to ``window``, if there is one.

    Tab widths 4, 8 and 2 are tried in turn; the first one under which every
    non-blank line moves by the same number of columns explains the match,
    unless a later one explains it with no shift at all: tabs against spaces
    that line up at some width are the same indentation, and shifting them by
    another width's guess would re-indent lines that were right.
    """
    if fold:
        window, search = [fold_typography(line) for line in window], [fold_typography(line) for line in search]
    indents = [
        (leading_indent(actual), leading_indent(searched))
        for actual, searched in zip(window, search)
        if not is_blank(searched)
    ]
    tab_widths = TAB_WIDTHS if any("\t" in a + s for a, s in indents) else TAB_WIDTHS[:1]
    explained: tuple[int, int] | None = None
    for tab_width in tab_widths:
        shifts = {
            indent_columns(actual, tab_width) - indent_columns(searched, tab_width) for actual, searched in indents
        }
        if len(shifts) <= 1:
            shift = shifts.pop() if shifts else 0
            if shift == 0:
                return 0, tab_width
            explained = explained or (shift, tab_width)
    return explained
