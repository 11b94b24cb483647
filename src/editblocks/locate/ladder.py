"""Where does a block's searched text live in a file? The matching ladder (README, "How a block is located").

Pure functions on lines (strings without line endings). Each rung is tried
only when the stricter ones found nothing, and every rung demands a unique
match: two candidates are an ``Ambiguous`` answer, never a guess. When a
tolerant rung matches, the replacement is adapted the way the searched text
was: lines it copies from the searched text are written as the file's own
lines (so whitespace or quote differences in unchanged context never leak
into the file), and changed lines take the file's indentation and ASCII
punctuation. When nothing matches, ``NotFound`` names the closest region of
the file, so the model can be told what is really there.

The replacement is always literal text: nothing in it is interpreted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from itertools import islice

from editblocks.locate.fuzzy import (
    MAX_WINDOWS,
    FuzzyLines,
    ScoredWindow,
    common_line_runs,
    rank_windows,
    score_window,
    verbatim_similarity,
)
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
    indented_key,
    is_blank,
    leading_indent,
    map_back_typography,
    render_indent,
    typographic_characters,
)
from editblocks.model import percent


class Rung(StrEnum):
    """The rungs of the matching ladder, strictest first."""

    EXACT = "exact"
    TRAILING_WHITESPACE = "trailing-whitespace"
    INDENTATION = "indentation"
    TYPOGRAPHY = "typography"
    INTERNAL_WHITESPACE = "internal-whitespace"
    ELISION = "elision"
    FUZZY = "fuzzy"


LADDER = tuple(Rung)
DEFAULT_RUNGS = (
    Rung.EXACT, Rung.TRAILING_WHITESPACE, Rung.INDENTATION, Rung.TYPOGRAPHY, Rung.INTERNAL_WHITESPACE, Rung.ELISION,
)
EXACT_ONLY = (Rung.EXACT,)
_LINE_RUNGS = (Rung.EXACT, Rung.TRAILING_WHITESPACE, Rung.INDENTATION, Rung.TYPOGRAPHY, Rung.INTERNAL_WHITESPACE)
_FOLDING_RUNGS = (Rung.TYPOGRAPHY, Rung.INTERNAL_WHITESPACE)
"""The rungs that compare typography-folded lines (and shift indentation uniformly, as the indentation rung does)."""
"""The rungs that compare a block line by line; elision uses them for each piece."""

NEAR_MISS_MIN_SIMILARITY = 0.5
"""Below this, the closest region is too unlike the searched text to be worth naming."""

NEAR_MISS_WINDOWS = 3
"""Candidate regions scored for a diagnosis (only the best is reported; applying fuzzily scores more)."""

FUZZY_MIN_LINE_SIMILARITY = 0.6
"""A fuzzy match is refused when any searched line is less like its file line than this."""

DIRECT_SHIFT_CHECKS = 16
"""Windows equal but for indentation checked one by one; beyond this many, one pass over indentation steps."""

HINT_TOLERANCE = 3
"""A line hint picks one of several identical candidates when it points inside it, or this many lines off."""

DIFF_MAX_LINES = 12
DIFF_MAX_LINE_CHARS = 100

_COMMENT_STARTS = ("#", "//", "/*", "*", "<!--", "--", "{/*")
_ELLIPSES = ("...", "\u2026")


@dataclass(frozen=True)
class LocateOptions:
    rungs: tuple[Rung, ...] = DEFAULT_RUNGS
    """Tried in ladder order whatever their order here."""
    first_match: bool = False
    """Take the lowest of several candidates instead of answering ``Ambiguous``."""
    fuzzy_threshold: float = 0.90
    """Least similarity (0..1) a fuzzy window needs to be applied."""
    fuzzy_margin: float = 0.05
    """How much better the best fuzzy window must be than the best window that does not overlap it."""
    max_candidates: int = 100
    hint: int | None = None
    """0-based file line a line-number hint names: of several identical candidates, the one it points inside."""


@dataclass(frozen=True)
class Found:
    start: int
    """0-based index of the first file line replaced."""
    end: int
    """Exclusive end of the replaced lines."""
    new_lines: tuple[str, ...]
    """The replacement lines (no line endings), adapted to the file."""
    sources: tuple[int | None, ...]
    """Per new line, the index of the file line it reproduces unchanged (context), else ``None``."""
    strategy: Rung
    similarity: float = 1.0


@dataclass(frozen=True)
class NearMiss:
    """The region ``[start, end)`` of the file most like the searched text.

    ``similarity`` is defined in ``editblocks.locate.fuzzy`` (a length-weighted mean
    of line similarities; 1.0 only for a region equal line by line). ``diff``
    renders searched against actual lines, differences with one line of
    context, at most 12 lines of at most about 100 characters:
    ``"  41 | text"`` is a line both share (file line 41), ``"-    | text"`` a
    searched line, ``"+ 42 | text"`` the file's line 42 in its place, and
    ``"     ... 9 matching lines"`` stands for lines not shown.
    """

    start: int
    end: int
    similarity: float
    diff: tuple[str, ...]


@dataclass(frozen=True)
class NotFound:
    near_miss: NearMiss | None
    hint: str = ""
    """Why a rung that seemed to apply refused (elision pieces, fuzzy thresholds); empty otherwise."""


@dataclass(frozen=True)
class Ambiguous:
    starts: tuple[int, ...]
    """0-based start of every candidate, lowest first, at most ``max_candidates`` of them."""
    strategy: Rung
    truncated: bool


@dataclass(frozen=True)
class _Match:
    """A window of the file that equals ``search`` on some rung, with the indentation shift that rung allowed."""

    start: int
    search: tuple[str, ...]
    replace: tuple[str, ...]
    shift: int = 0
    tab_width: int = TAB_WIDTHS[0]

    @property
    def end(self) -> int:
        return self.start + len(self.search)


class _FileView:
    """The file's lines with each rung's comparison keys and joined text, computed at most once per call."""

    def __init__(self, lines: Sequence[str], index: LineIndex | None = None) -> None:
        self.lines = lines
        self.index = index
        self._joined: dict[Rung | tuple[Rung, int], str | None] = {}
        self._shapes: dict[tuple[Rung, int], list[str]] = {}
        self._keys: dict[Rung, Sequence[str]] = {}
        self._rankings: dict[tuple[str, ...], tuple[bool, list[ScoredWindow]]] = {}

    @cached_property
    def has_typography(self) -> bool:
        """Whether folding typography changes any line (if not, the file's folded keys are its indentation keys)."""
        joined = "\n".join(self.lines)
        return fold_typography(joined) != joined

    @cached_property
    def fuzzy(self) -> FuzzyLines:
        return FuzzyLines(self.lines, None if self.has_typography else self.keys(Rung.INDENTATION))

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
            self._keys[rung] = keys
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
                self.fuzzy, FuzzyLines(search), probe_near_duplicates=thorough, max_windows=max_windows
            )
            cached = self._rankings[search] = (thorough, windows)
        return cached[1]

    def window_at(self, search: tuple[str, ...], offset: int) -> ScoredWindow:
        """The window scored with the searched lines placed from file line ``offset`` on."""
        window = score_window(self.fuzzy, FuzzyLines(search), offset)
        assert window is not None, "a copy of a scored window scores too"
        return window

    def occurrences(self, rung: Rung, pattern: list[str], min_start: int = 0) -> Iterator[int]:
        """Start of every occurrence of ``pattern`` among the rung's keys, overlapping ones included, in order.

        Joins the keys with newlines and lets ``str.find`` do the scanning, so a
        search costs about one pass over the file, not one comparison per line.
        """
        if rung is Rung.EXACT and self.index is not None:
            starts = self.index.occurrences(pattern)
            if starts is not None:
                yield from (start for start in starts if start >= min_start)
                return
        yield from self._find(rung, self.keys(rung), pattern, min_start)

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
        pattern = [_line_key(rung, line) for line in search]
        non_blank = [index for index, key in enumerate(pattern) if key]
        if len(non_blank) < 2:
            return list(islice(self.occurrences(rung, pattern, min_start), limit))
        candidates = list(islice(self.occurrences(rung, pattern, min_start), DIRECT_SHIFT_CHECKS + 1))
        if len(candidates) <= DIRECT_SHIFT_CHECKS:
            fold = rung in _FOLDING_RUNGS
            shifted = [start for start in candidates
                       if _uniform_shift(self.lines[start : start + len(search)], search, fold) is not None]
            return shifted[:limit]
        head = non_blank[0] + 1
        keys = self.keys(rung)
        searched = [fold_typography(line) for line in search] if rung in _FOLDING_RUNGS else search
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
            lines = self.fuzzy.folded if rung in _FOLDING_RUNGS else self.lines
            self._shapes[rung, tab_width] = indentation_steps(lines, self.keys(rung), tab_width)
        return self._shapes[rung, tab_width]

    def _find(
        self, name: Rung | tuple[Rung, int], keys: Sequence[str], pattern: list[str], min_start: int
    ) -> Iterator[int]:
        """Every occurrence of ``pattern`` in ``keys`` (joined once per ``name`` and searched with ``str.find``)."""
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


def _line_key(rung: Rung, line: str) -> str:
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


def _alignment_key(rung: Rung, tab_width: int) -> Callable[[str], str]:
    """What tells a copied context line from a changed one when aligning the replacement with the search.

    Indentation is part of it (in columns), so a line the model re-indented
    (wrapping code in a block, say) counts as changed and keeps its new depth.
    """
    if rung is Rung.EXACT:
        return lambda line: line
    if rung is Rung.TRAILING_WHITESPACE:
        return str.rstrip
    if rung is Rung.INDENTATION or rung is Rung.INTERNAL_WHITESPACE:
        # A line whose inner spacing (or typography) the model changed between old and new text is a change.
        return lambda line: indented_key(line, tab_width)
    return lambda line: indented_key(fold_typography(line), tab_width)


def locate(
    file_lines: Sequence[str],
    search_lines: Sequence[str],
    replace_lines: Sequence[str],
    options: LocateOptions = LocateOptions(),
    index: LineIndex | None = None,
) -> Found | NotFound | Ambiguous:
    """Find ``search_lines`` in ``file_lines`` with the rungs of ``options`` and adapt ``replace_lines``.

    ``index``, an index of ``file_lines`` itself, makes the exact rung cost
    the size of the search instead of a pass over the file. Raises
    ``ValueError`` only for an empty search (creating files is the caller's job).
    """
    if not search_lines:
        raise ValueError("locate() needs at least one searched line")
    if index is not None and index.lines is not file_lines:
        raise ValueError("the index must be built on file_lines itself")
    view = _FileView(file_lines, index)
    search, replace = tuple(search_lines), tuple(replace_lines)
    hints: list[str] = []
    for rung in (rung for rung in LADDER if rung in options.rungs):
        if rung is Rung.ELISION:
            outcome = _locate_elided(view, search, replace, options)
        elif rung is Rung.FUZZY:
            outcome = _locate_fuzzy(view, search, replace, options)
        else:
            outcome = _locate_on_line_rung(view, rung, search, replace, options)
        if isinstance(outcome, str):
            hints.append(outcome)
        elif outcome is not None:
            return outcome
    return NotFound(_near_miss(view, search), "; ".join(hints))


def _locate_on_line_rung(
    view: _FileView, rung: Rung, search: tuple[str, ...], replace: tuple[str, ...], options: LocateOptions
) -> Found | Ambiguous | None:
    matches = _matches_on_rung(view, rung, search, replace, _candidate_limit(options))
    if not matches:
        return None
    if len(matches) > 1 and not options.first_match:
        hinted = _hinted(matches, options)
        if hinted is not None:
            return _found_for_match(view, rung, hinted)
        return _ambiguous([match.start for match in matches], rung, options)
    return _found_for_match(view, rung, matches[0])


def _hinted(matches: list[_Match], options: LocateOptions) -> _Match | None:
    """The one candidate a line hint points inside (give or take ``HINT_TOLERANCE`` lines), if exactly one.

    Never when the candidates were cut off: an unseen candidate could be the one the hint points at too.
    """
    hint = options.hint
    if hint is None or len(matches) > max(1, options.max_candidates):
        return None
    inside = [match for match in matches if match.start - HINT_TOLERANCE <= hint < match.end + HINT_TOLERANCE]
    return inside[0] if len(inside) == 1 else None


def _candidate_limit(options: LocateOptions) -> int:
    """Candidates worth collecting: one more than can be reported tells whether the list was cut."""
    return 1 if options.first_match else max(1, options.max_candidates) + 1


def _ambiguous(starts: Sequence[int], rung: Rung, options: LocateOptions) -> Ambiguous:
    limit = max(1, options.max_candidates)
    ordered = sorted(starts)
    return Ambiguous(tuple(ordered[:limit]), rung, len(ordered) > limit)


def _matches_on_rung(
    view: _FileView, rung: Rung, search: tuple[str, ...], replace: tuple[str, ...], limit: int, min_start: int = 0
) -> list[_Match]:
    """Up to ``limit`` windows equal to ``search`` on ``rung``.

    From the second rung on, blank lines at the edges of the search that the
    file does not have (a model's habit) are dropped and tried again, with the
    same number of blank edge lines dropped from the replacement.
    """
    matches = _windows_equal_on_rung(view, rung, search, replace, limit, min_start)
    if matches or rung is Rung.EXACT:
        return matches
    trimmed = _without_blank_edges(search, replace)
    if trimmed is None:
        return []
    return _windows_equal_on_rung(view, rung, *trimmed, limit, min_start)


def _windows_equal_on_rung(
    view: _FileView, rung: Rung, search: tuple[str, ...], replace: tuple[str, ...], limit: int, min_start: int
) -> list[_Match]:
    if rung is Rung.TYPOGRAPHY and not view.has_typography and not typographic_characters("".join(search)):
        return []
    if rung is Rung.INTERNAL_WHITESPACE and not view.has_inner_runs and not any(
        _line_key(rung, line) != _line_key(Rung.TYPOGRAPHY, line) for line in search
    ):
        return []
    pattern = [_line_key(rung, line) for line in search]
    matches: list[_Match] = []
    if rung in (Rung.INDENTATION, *_FOLDING_RUNGS):
        for start in view.shifted_occurrences(rung, search, min_start, limit):
            shift = _uniform_shift(view.lines[start : start + len(search)], search, rung in _FOLDING_RUNGS)
            assert shift is not None, "shifted_occurrences only yields uniformly shifted windows"
            matches.append(_Match(start, search, replace, *shift))
        return matches
    for start in view.occurrences(rung, pattern, min_start):
        matches.append(_Match(start, search, replace))
        if len(matches) >= limit:
            break
    return matches


def _without_blank_edges(
    search: tuple[str, ...], replace: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """Search and replacement without the search's blank edge lines, or ``None`` if there are none to drop."""
    leading, trailing = _blank_run(search), _blank_run(reversed(search))
    if not leading and not trailing or leading + trailing >= len(search):
        return None
    replace_leading = min(leading, _blank_run(replace))
    rest = replace[replace_leading:]
    replace_trailing = min(trailing, _blank_run(reversed(rest)))
    return search[leading : len(search) - trailing], rest[: len(rest) - replace_trailing]


def _blank_run(lines: Iterator[str] | Sequence[str]) -> int:
    count = 0
    for line in lines:
        if not is_blank(line):
            break
        count += 1
    return count


def _uniform_shift(window: Sequence[str], search: Sequence[str], fold: bool) -> tuple[int, int] | None:
    """The constant indentation shift (columns, tab width) from ``search`` to ``window``, if there is one.

    Tab widths 4, 8 and 2 are tried in turn; the first one under which every
    non-blank line moves by the same number of columns explains the match.
    """
    if fold:
        window, search = [fold_typography(line) for line in window], [fold_typography(line) for line in search]
    indents = [
        (leading_indent(actual), leading_indent(searched))
        for actual, searched in zip(window, search)
        if not is_blank(searched)
    ]
    tab_widths = TAB_WIDTHS if any("\t" in a + s for a, s in indents) else TAB_WIDTHS[:1]
    for tab_width in tab_widths:
        shifts = {
            indent_columns(actual, tab_width) - indent_columns(searched, tab_width) for actual, searched in indents
        }
        if len(shifts) <= 1:
            return (shifts.pop() if shifts else 0), tab_width
    return None


def _found_for_match(view: _FileView, rung: Rung, match: _Match) -> Found:
    file_indices = [match.start + index for index in range(len(match.search))]
    return _adapted(
        view, rung, match.search, match.replace, file_indices, match.start, match.end, match.shift, match.tab_width
    )


def _adapted(
    view: _FileView,
    rung: Rung,
    search: Sequence[str],
    replace: Sequence[str],
    file_index_of_search: Sequence[int | None],
    start: int,
    end: int,
    shift: int,
    tab_width: int,
    similarity: float = 1.0,
) -> Found:
    """The replacement as it should be written at ``[start, end)``.

    Replacement lines aligned with an (equivalent) searched line are the
    file's own line there; the others are the model's, adapted to the file.
    """
    key = _alignment_key(rung, tab_width)
    region = view.lines[start:end]
    adapt = _line_adapter(view, rung, search, region, shift, tab_width)
    new_lines = [adapt(line) for line in replace]
    sources: list[int | None] = [None] * len(replace)
    replace_keys, search_keys = [key(line) for line in replace], [key(line) for line in search]
    for replace_start, search_start, length in common_line_runs(replace_keys, search_keys):
        for step in range(length):
            file_index = file_index_of_search[search_start + step]
            if file_index is not None:
                new_lines[replace_start + step] = view.lines[file_index]
                sources[replace_start + step] = file_index
    return Found(start, end, tuple(new_lines), tuple(sources), rung, similarity)


def _line_adapter(
    view: _FileView, rung: Rung, search: Sequence[str], region: Sequence[str], shift: int, tab_width: int
) -> Callable[[str], str]:
    """How a changed replacement line is written into the file on ``rung``."""
    if rung in (Rung.EXACT, Rung.TRAILING_WHITESPACE):
        return lambda line: line
    substituted: frozenset[str] = frozenset()
    if rung is not Rung.INDENTATION:
        # Typographic characters the model put in the search where the file has ASCII.
        substituted = frozenset(typographic_characters("".join(search)) - typographic_characters("".join(region)))
    uses_tabs = indentation_uses_tabs(region)
    if uses_tabs is None:
        uses_tabs = view.uses_tabs

    def adapt(line: str) -> str:
        if is_blank(line):
            return ""
        indent = leading_indent(line)
        columns = max(0, indent_columns(indent, tab_width) + shift)
        tabs = indent[:1] == "\t" if uses_tabs is None else uses_tabs
        return render_indent(columns, tabs, tab_width) + map_back_typography(line.lstrip(INDENT_CHARS), substituted)

    return adapt


# --- elision ------------------------------------------------------------------------------------


def is_elision_line(line: str) -> bool:
    """Whether ``line`` stands for omitted code: ``...`` alone, or a comment made of an ellipsis and words."""
    text = line.strip()
    if text in _ELLIPSES:
        return True
    return text.startswith(_COMMENT_STARTS) and any(ellipsis in text for ellipsis in _ELLIPSES)


def _split_at_elisions(lines: Sequence[str]) -> list[tuple[str, ...]]:
    pieces: list[tuple[str, ...]] = []
    current: list[str] = []
    for line in lines:
        if is_elision_line(line):
            pieces.append(tuple(current))
            current = []
        else:
            current.append(line)
    pieces.append(tuple(current))
    return pieces


def _locate_elided(
    view: _FileView, search: tuple[str, ...], replace: tuple[str, ...], options: LocateOptions
) -> Found | Ambiguous | str | None:
    """Match a search that elides code piece by piece: each piece unique, the pieces in file order.

    Returns ``None`` when the search has no elision, a hint when it cannot be
    matched, and keeps the file's lines between the pieces as they are.
    """
    search_pieces = _split_at_elisions(search)
    if len(search_pieces) == 1:
        return None
    replace_pieces = _split_at_elisions(replace)
    if len(replace_pieces) != len(search_pieces):
        return (
            f"the search has {len(search_pieces) - 1} elision line(s) (`...`) "
            f"but the replacement has {len(replace_pieces) - 1}; they must correspond"
        )
    rungs = [rung for rung in _LINE_RUNGS if rung in options.rungs]
    located: list[Found] = []
    for number, (search_piece, replace_piece) in enumerate(zip(search_pieces, replace_pieces), start=1):
        if all(is_blank(line) for line in search_piece):
            if not all(is_blank(line) for line in replace_piece):
                return (
                    f"part {number} of the replacement has new lines where the search elides code; "
                    "there is no place to put them"
                )
            continue
        after = located[-1].end if located else 0
        piece = _locate_piece(view, rungs, search_piece, replace_piece, options, after)
        if piece is None:
            return f"part {number} of the search (between elision lines) was not found"
        if isinstance(piece, Ambiguous):
            return Ambiguous(piece.starts, Rung.ELISION, piece.truncated)
        if piece.start < after:
            return "the parts of the search around its elision lines are not in this order in the file"
        located.append(piece)
    if not located:
        return "the search has only elision lines"
    new_lines: list[str] = []
    sources: list[int | None] = []
    for previous, piece in zip([None, *located], located):
        if previous is not None:
            new_lines += view.lines[previous.end : piece.start]
            sources += range(previous.end, piece.start)
        new_lines += piece.new_lines
        sources += piece.sources
    return Found(located[0].start, located[-1].end, tuple(new_lines), tuple(sources), Rung.ELISION)


def _locate_piece(
    view: _FileView,
    rungs: Sequence[Rung],
    search: tuple[str, ...],
    replace: tuple[str, ...],
    options: LocateOptions,
    after: int,
) -> Found | Ambiguous | None:
    """One elision piece, on the strictest line rung that finds it; unique in the whole file unless first-match."""
    for rung in rungs:
        min_start = after if options.first_match else 0
        matches = _matches_on_rung(view, rung, search, replace, _candidate_limit(options), min_start)
        if len(matches) > 1 and not options.first_match:
            return _ambiguous([match.start for match in matches], rung, options)
        if matches:
            return _found_for_match(view, rung, matches[0])
    return None


# --- fuzzy --------------------------------------------------------------------------------------


def _locate_fuzzy(
    view: _FileView, search: tuple[str, ...], replace: tuple[str, ...], options: LocateOptions
) -> Found | Ambiguous | str:
    """The most similar window, if it is similar enough, clearly the best, and has no unrelated lines."""
    search, replace = _without_blank_edges(search, replace) or (search, replace)
    searched = FuzzyLines(search)
    windows = view.ranked_windows(search, thorough=True)
    if not windows:
        return "no similar region for a fuzzy match"
    best = windows[0]
    refusal = _fuzzy_refusal(best, searched, options)
    if refusal:
        return refusal
    copies = _copies_elsewhere(view, best, options)
    if copies:
        if not options.first_match:
            return _ambiguous([best.start, *copies], Rung.FUZZY, options)
        if copies[0] < best.start:
            best = view.window_at(search, best.offset + copies[0] - best.start)
    rivals = [w for w in windows[1:] if not w.overlaps(best) and best.similarity - w.similarity < options.fuzzy_margin]
    if rivals:
        contenders = sorted([best, *rivals], key=lambda window: window.start)
        if not options.first_match:
            return _ambiguous([window.start for window in contenders], Rung.FUZZY, options)
        best = next(window for window in contenders if not _fuzzy_refusal(window, searched, options))
    file_indices = [best.file_index_by_search_index.get(index) for index in range(len(search))]
    return _adapted(
        view, Rung.FUZZY, search, replace, file_indices, best.start, best.end, best.shift, best.tab_width,
        best.similarity,
    )


def _copies_elsewhere(view: _FileView, window: ScoredWindow, options: LocateOptions) -> list[int]:
    """Starts of other copies of the window's own lines (indentation aside) that do not overlap it.

    Such a copy is exactly as similar to the searched text, wherever the few
    candidate windows the ranking scored happened to lie: a repetitive file
    must make a fuzzy match ambiguous, not pick one copy.
    """
    own = list(view.keys(Rung.INDENTATION)[window.start : window.end])
    copies: list[int] = []
    for start in view.occurrences(Rung.INDENTATION, own):
        if start + len(own) <= window.start or start >= window.end:
            copies.append(start)
            if len(copies) >= _candidate_limit(options):
                break
    return copies


def _fuzzy_refusal(window: ScoredWindow, searched: FuzzyLines, options: LocateOptions) -> str:
    """Why ``window`` may not be applied as a fuzzy match; empty when it may."""
    lines = _line_span(window.start, window.end)
    if window.similarity < options.fuzzy_threshold:
        return (
            f"the most similar region ({lines}, {percent(window.similarity)} similar) "
            f"is below the fuzzy threshold of {percent(options.fuzzy_threshold)}"
        )
    pairs = window.file_index_by_search_index
    scores = {pair.search_index: pair.score for pair in window.pairs}
    for index, key in enumerate(searched.keys):
        if key and (index not in pairs or scores[index] < FUZZY_MIN_LINE_SIMILARITY):
            return f"searched line {index + 1} has no counterpart in the most similar region ({lines})"
    return ""


# --- diagnosis ----------------------------------------------------------------------------------


def find_near_miss(file_lines: Sequence[str], search_lines: Sequence[str]) -> NearMiss | None:
    """The region of the file most like ``search_lines``, or ``None`` when nothing is remotely like it."""
    return _near_miss(_FileView(file_lines), tuple(search_lines))


def _near_miss(view: _FileView, search: tuple[str, ...]) -> NearMiss | None:
    """Blank lines at the edges of the search are left out: they only blur the comparison."""
    search = (_without_blank_edges(search, ()) or (search, ()))[0]
    if not search:
        return None
    windows = view.ranked_windows(search, thorough=False)
    if not windows or windows[0].similarity < NEAR_MISS_MIN_SIMILARITY:
        return None
    best = windows[0]
    if best.similarity == 1.0 and any(view.lines[pair.file_index] != search[pair.search_index] for pair in best.pairs):
        # Equal but for whitespace or typography, so an exact-only rung refused it: show exactly those differences.
        similarity = verbatim_similarity(view.lines, search, best)
        return NearMiss(best.start, best.end, similarity, _render_diff(view.lines, search, best, verbatim=True))
    return NearMiss(best.start, best.end, best.similarity, _render_diff(view.lines, search, best, verbatim=False))


def _render_diff(
    file_lines: Sequence[str], search: Sequence[str], window: ScoredWindow, *, verbatim: bool
) -> tuple[str, ...]:
    """Searched against actual lines, differences with one line of context, at most ``DIFF_MAX_LINES`` lines.

    Lines count as different when their keys differ or their indentation
    breaks the block's common shift, or with ``verbatim`` when they differ at all.
    """
    rows: list[tuple[str, int | None, str]] = []
    searched, actual = 0, window.start
    for pair in (*window.pairs, None):
        search_stop = pair.search_index if pair else len(search)
        file_stop = pair.file_index if pair else window.end
        rows += [("-", None, search[index]) for index in range(searched, search_stop)]
        rows += [("+", index, file_lines[index]) for index in range(actual, file_stop)]
        if pair is None:
            break
        if verbatim:
            same = file_lines[pair.file_index] == search[pair.search_index]
        else:
            same = pair.score == 1.0 and pair.search_index not in window.deviating
        if same:
            rows.append((" ", pair.file_index, file_lines[pair.file_index]))
        else:
            rows += [("-", None, search[pair.search_index]), ("+", pair.file_index, file_lines[pair.file_index])]
        searched, actual = pair.search_index + 1, pair.file_index + 1

    changed = [index for index, row in enumerate(rows) if row[0] != " "]
    if not changed:
        return ()
    shown = {near for index in changed for near in (index - 1, index, index + 1) if 0 <= near < len(rows)}
    width = len(str(window.end))
    rendered: list[str] = []
    hidden = 0
    for index, (tag, file_index, text) in enumerate(rows):
        if index not in shown:
            hidden += 1
            continue
        if hidden:
            rendered.append(_hidden_marker(hidden, width))
            hidden = 0
        number = "" if file_index is None else str(file_index + 1)
        rendered.append(f"{tag} {number:>{width}} |" + (f" {_cut(text)}" if text else ""))
    if hidden:
        rendered.append(_hidden_marker(hidden, width))
    if len(rendered) > DIFF_MAX_LINES:
        rest = sum(1 for line in rendered[DIFF_MAX_LINES - 1 :] if line[:1] in "-+")
        rendered = rendered[: DIFF_MAX_LINES - 1] + [f"... and {rest} more differing line{'s' if rest != 1 else ''}"]
    return tuple(rendered)


def _hidden_marker(count: int, width: int) -> str:
    return f"  {'':>{width}} ... {count} matching line{'s' if count > 1 else ''}"


def _cut(text: str) -> str:
    return text if len(text) <= DIFF_MAX_LINE_CHARS else text[: DIFF_MAX_LINE_CHARS - 1] + "\u2026"


def _line_span(start: int, end: int) -> str:
    """1-based, human wording of the 0-based span ``[start, end)``."""
    return f"line {start + 1}" if end - start <= 1 else f"lines {start + 1}\u2013{end}"


def explain_anchor_failure(
    file_lines: Sequence[str], leading_lines: Sequence[str], old_lines: Sequence[str], trailing_lines: Sequence[str]
) -> str:
    """Which part of an anchored block (exact-only) failed to match, in the wording of seed 002.

    Every occurrence of the leading anchor is tried, not only the first one.
    """
    view = _FileView(file_lines)
    leading, old, trailing = list(leading_lines), list(old_lines), list(trailing_lines)

    def starts_of(lines: list[str]) -> list[int]:
        return list(view.occurrences(Rung.EXACT, lines)) if lines else []

    def followed_by(positions: list[int], lines: list[str]) -> list[int]:
        return [p + len(lines) for p in positions if list(file_lines[p : p + len(lines)]) == lines]

    if leading:
        anchors = starts_of(leading)
        if not anchors:
            return "Leading anchor not found" + _closest(view, leading)
        after_old = followed_by([start + len(leading) for start in anchors], old)
        if not after_old:
            where = f"(anchor at {_line_list(anchors)})"
            return f"Old lines don't match content after anchor {where}" + _closest(view, old)
        if trailing and not followed_by(after_old, trailing):
            return "Trailing anchor not found after old lines" + _after_lines(after_old) + _closest(view, trailing)
    elif old:
        after_old = [start + len(old) for start in starts_of(old)]
        if not after_old:
            return "Old lines not found" + _closest(view, old)
        if trailing and not followed_by(after_old, trailing):
            return "Trailing anchor not found after old lines" + _after_lines(after_old) + _closest(view, trailing)
    elif trailing and not starts_of(trailing):
        return "Trailing anchor not found" + _closest(view, trailing)
    return "Content sequence not found in file" + _closest(view, [*leading, *old, *trailing])


def _after_lines(ends: list[int]) -> str:
    return f" (old lines end at {_line_list([end - 1 for end in ends])})"


def _line_list(indices: list[int]) -> str:
    """1-based wording of some 0-based line indices, the first five of them."""
    numbers = ", ".join(str(index + 1) for index in indices[:5])
    more = f" and {len(indices) - 5} more" if len(indices) > 5 else ""
    return f"line{'s' if len(indices) > 1 else ''} {numbers}{more}"


def _closest(view: _FileView, lines: list[str]) -> str:
    near = _near_miss(view, tuple(lines)) if lines else None
    if near is None:
        return ""
    return f"; closest: {_line_span(near.start, near.end)}, {percent(near.similarity)} similar"
