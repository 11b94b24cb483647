"""Fuzzy location: which window of the file is most like the searched lines, and how alike.

Used to apply a block when fuzzy matching is enabled, and always to diagnose a block that was not found. It must
stay fast on big inputs (a 2,000-line block in a 20,000-line file), so it never slides a window over the whole file:

1. *Vote.* Every distinctive searched line that occurs in the file votes for the offset ``file index - search
   index``. Searched lines with no exact twin are looked up fuzzily (rapidfuzz ``process.extract``) and vote with
   their score. Lines that are very common in the file (``}``, ``return``) or in the block do not vote: they say
   nothing about where the block is.
2. *Score* the few best-voted offsets precisely: align the searched lines with a window a little larger than the
   block (runs of equal lines first, anchored on lines unique to both sides as patience diff does, then the
   best-scoring pairs of similar lines in between), so lines the model dropped or added are tolerated, and trim the
   window to the aligned lines.

Similarity of a window: every line of both sides weighs ``len(key) + 1`` (key = the line stripped and
typography-folded); a line paired with a line on the other side scores rapidfuzz ``fuzz.ratio`` of the two keys
(0..1), lowered when its indentation deviates from the block's common indentation shift (each deviating column
counts as an unmatched character); an unpaired line scores 0. The similarity is the weighted mean score over all
lines of both sides. It equals 1.0 only when every line pairs with an equal line at a consistent indentation, and is
close to ``fuzz.ratio`` of the joined texts.

Huge lines make each comparison expensive, so the characters compared are counted against a `budget.CompareBudget`;
past it, lines are compared by their head and tail only (an estimate), and the caller can say so.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Final, NamedTuple

from editblocks.locate.budget import CompareBudget, compare_cost, shortened
from editblocks.locate.line_index import LineIndex
from editblocks.locate.normalize import INDENT_CHARS, TAB_WIDTHS, fold_typography, indent_columns, leading_indent
from editblocks.record import Record
from editblocks.text.increasing import longest_increasing

MIN_PAIR_SCORE = 0.5
"""Two lines less alike than this are never paired: they are different lines."""

VOTE_SAMPLE = 256
"""At most this many searched lines vote, spread evenly over the block, so big blocks cost no more."""

MAX_VOTES_PER_LINE = 32
"""A searched line whose occurrences in file and block give more votes than this is too common to vote."""

TOO_COMMON = 4 * MAX_VOTES_PER_LINE
"""A key an index counts more often than this is not looked up line by line (it could never vote)."""

PROBE_LINES = 8
"""At most this many searched lines without an exact twin are looked up fuzzily."""

PROBE_MATCHES = 8
PROBE_CUTOFF = 60.0
MAX_WINDOWS = 6
"""How many of the best-voted offsets are scored precisely."""

FULL_ALIGNMENT_CELLS = 2500
"""Gaps between equal lines up to this many line pairs are aligned optimally; bigger ones along their diagonal."""

BAND = 4
"""Half-width, in lines, of the diagonal band used for big gaps."""

UNCOUNTED_UNITS = 4_096
"""Comparisons this cheap (`budget.compare_cost`) are not counted against the budget: a window holds few of them."""


class LinePair(Record):
    __slots__ = ("search_index", "file_index", "score")
    search_index: Final[int]
    file_index: Final[int]
    score: Final[float]
    """Content similarity of the two keys in [0, 1] (1.0 when equal), before any indentation penalty."""

    def __init__(self, search_index: int, file_index: int, score: float) -> None:
        self.search_index = search_index
        self.file_index = file_index
        self.score = score


@dataclass(frozen=True)
class ScoredWindow:
    """A region ``[start, end)`` of the file, how it aligns with the searched lines and how alike they are."""

    start: int
    end: int
    similarity: float
    pairs: tuple[LinePair, ...]
    shift: int
    """Columns to add to a searched line's indentation to reach the file's, for most paired lines."""
    tab_width: int
    deviating: frozenset[int]
    """Search indices of paired lines whose indentation does not follow ``shift``."""

    @property
    def offset(self) -> int:
        """Where the first searched line would be, given how the first pair lines up."""
        return self.pairs[0].file_index - self.pairs[0].search_index

    def overlaps(self, other: ScoredWindow) -> bool:
        return self.start < other.end and other.start < self.end

    @cached_property
    def file_index_by_search_index(self) -> dict[int, int]:
        return {pair.search_index: pair.file_index for pair in self.pairs}


class FuzzyLines:
    """Lines with their typography folded once, and their comparison keys."""

    def __init__(self, lines: Sequence[str], keys: Sequence[str] | None = None) -> None:
        """``keys``, when given, are the lines' indentation-rung keys; only valid if folding changes nothing."""
        self.folded = [fold_typography(line) for line in lines] if keys is None else lines
        self.keys = [line.rstrip().lstrip(INDENT_CHARS) for line in self.folded] if keys is None else keys
        self.index: LineIndex | None = None
        """An index of ``keys``, set by a view that lives through many blocks."""

    def __len__(self) -> int:
        return len(self.keys)

    def replacing(self, start: int, end: int, new_keys: list[str]) -> None:
        """Keys ``[start, end)`` are about to become ``new_keys`` (the caller splices the lists themselves): keep
        the totals derived from them right."""
        cached = self.__dict__
        if "total_chars" in cached:
            cached["total_chars"] += sum(map(len, new_keys)) - sum(map(len, self.keys[start:end]))
        if "short_keys" in cached:
            cached["short_keys"][start:end] = [shortened(key) for key in new_keys]

    def positions(self, key: str) -> list[int]:
        """Where ``key`` occurs (found in the index when there is one); for a key far too common to vote, the
        first few of them only (an index does not list thousands of blank lines for nothing)."""
        if self.index is None:
            return [index for index, line in enumerate(self.keys) if line == key]
        if self.index.count(key) > TOO_COMMON:
            return [-1] * (TOO_COMMON + 1)
        return sorted(self.index.positions(key))

    @cached_property
    def total_chars(self) -> int:
        return sum(map(len, self.keys))

    @cached_property
    def short_keys(self) -> list[str]:
        """The keys as an estimate compares them (`budget.shortened`)."""
        return [shortened(key) for key in self.keys]

    def indent(self, index: int) -> str:
        return leading_indent(self.folded[index])


def rank_windows(
    file: FuzzyLines, search: FuzzyLines, *, probe_near_duplicates: bool = False, max_windows: int = MAX_WINDOWS,
    budget: CompareBudget | None = None,
) -> list[ScoredWindow]:
    """The most similar windows of ``file`` for ``search``, best first, at distinct offsets.

    ``probe_near_duplicates`` also looks up the longest searched lines fuzzily
    even when they occur verbatim, so that a near-identical copy of the block
    elsewhere in the file is seen (needed before applying a fuzzy match).
    ``max_windows`` bounds how many candidate offsets are scored precisely, and ``budget`` how many characters
    are compared (a fresh `CompareBudget` when not given; pass one to learn whether it ran short).
    """
    budget = budget if budget is not None else CompareBudget()
    votes = _vote_for_offsets(file, search, probe_near_duplicates, budget)
    pad = _pad(search)
    windows: dict[tuple[int, int], ScoredWindow] = {}
    for offset in _distinct_offsets(votes, pad, max_windows):
        window = _score_window(file, search, offset, pad, budget)
        if window is not None:
            windows.setdefault((window.start, window.end), window)
    return sorted(windows.values(), key=lambda window: (-window.similarity, window.start))


def _vote_for_offsets(file: FuzzyLines, search: FuzzyLines, probe_near_duplicates: bool,
                      budget: CompareBudget) -> dict[int, float]:
    distinctive = [index for index, key in enumerate(search.keys) if len(key) >= 2]
    step = max(1, len(distinctive) // VOTE_SAMPLE)
    sample = distinctive[::step][:VOTE_SAMPLE]
    positions_in_search: dict[str, list[int]] = defaultdict(list)
    for index in sample:
        positions_in_search[search.keys[index]].append(index)
    if file.index is not None:
        positions_in_file = {key: file.positions(key) for key in positions_in_search}
    else:
        positions_in_file = {key: [] for key in positions_in_search}
        for index, key in enumerate(file.keys):
            found = positions_in_file.get(key)
            if found is not None:
                found.append(index)

    votes: dict[int, float] = defaultdict(float)
    voted: set[int] = set()
    in_file: set[int] = set()
    for key, file_indices in positions_in_file.items():
        search_indices = positions_in_search[key]
        if file_indices:
            in_file.update(search_indices)
        if not file_indices or len(file_indices) * len(search_indices) > MAX_VOTES_PER_LINE:
            continue
        weight = len(key) + 1
        for search_index in search_indices:
            voted.add(search_index)
            for file_index in file_indices:
                votes[file_index - search_index] += weight

    # Lines with no exact twin are looked up fuzzily; common lines that did not vote would only add noise.
    unmatched = sorted((i for i in sample if i not in in_file), key=lambda i: -len(search.keys[i]))
    probes = unmatched[:PROBE_LINES]
    if probe_near_duplicates:
        probes += sorted(voted, key=lambda i: -len(search.keys[i]))[:2]
    for search_index in probes:
        key = search.keys[search_index]
        for _, score, file_index in _probe(key, file, budget):
            if search_index in voted and score == 100.0:
                continue
            votes[file_index - search_index] += (len(key) + 1) * score / 100.0
    return votes


def _probe(key: str, file: FuzzyLines, budget: CompareBudget) -> list[tuple[str, float, int]]:
    """The file lines most like ``key``: compared in full while the budget lasts, then on shortened lines."""
    from rapidfuzz import fuzz, process  # loaded only when some block has no exact match

    if budget.take_exact(compare_cost(len(key), file.total_chars, len(file))):
        return process.extract(key, file.keys, scorer=fuzz.ratio, score_cutoff=PROBE_CUTOFF, limit=PROBE_MATCHES)
    short = shortened(key)
    if budget.take_estimate(compare_cost(len(short), sum(map(len, file.short_keys)), len(file))):
        return process.extract(short, file.short_keys, scorer=fuzz.ratio, score_cutoff=PROBE_CUTOFF,
                               limit=PROBE_MATCHES)
    return []


def _distinct_offsets(votes: dict[int, float], pad: int, max_windows: int) -> list[int]:
    """The best-voted offsets, skipping those a window at an already chosen offset covers."""
    chosen: list[int] = []
    for offset, _ in heapq.nlargest(max_windows * 16, votes.items(), key=lambda item: (item[1], -item[0])):
        if all(abs(offset - other) > pad for other in chosen):
            chosen.append(offset)
            if len(chosen) == max_windows:
                break
    return chosen


def _pad(search: FuzzyLines) -> int:
    """Lines of slack around a window, for lines the model dropped or added."""
    return 2 + len(search) // 10


def score_window(file: FuzzyLines, search: FuzzyLines, offset: int,
                 budget: CompareBudget | None = None) -> ScoredWindow | None:
    """The window for the searched lines placed from file line ``offset`` on, as `rank_windows` scores it."""
    return _score_window(file, search, offset, _pad(search), budget if budget is not None else CompareBudget())


def _score_window(file: FuzzyLines, search: FuzzyLines, offset: int, pad: int,
                  budget: CompareBudget) -> ScoredWindow | None:
    low = max(0, offset - pad)
    high = min(len(file), offset + len(search) + pad)
    if low >= high:
        return None
    pairs = _trim_to_content(_align(search.keys, file.keys, low, high, max(0, offset - low), budget), search)
    if not pairs:
        return None
    start, end = pairs[0].file_index, pairs[-1].file_index + 1
    shift, tab_width, shifts = _indent_shifts(file, search, pairs)

    matched = 0.0
    deviating: set[int] = set()
    for pair, pair_shift in zip(pairs, shifts):
        score = pair.score
        if pair_shift is not None and pair_shift != shift:
            deviating.add(pair.search_index)
            length = len(search.keys[pair.search_index]) + len(file.keys[pair.file_index])
            score *= length / (length + abs(pair_shift - shift))
        matched += score * (len(search.keys[pair.search_index]) + len(file.keys[pair.file_index]) + 2)
    total = sum(map(len, search.keys)) + len(search) + sum(map(len, file.keys[start:end])) + end - start
    return ScoredWindow(start, end, matched / total, tuple(pairs), shift, tab_width, frozenset(deviating))


def verbatim_similarity(file_lines: Sequence[str], search_lines: Sequence[str], window: ScoredWindow,
                        budget: CompareBudget | None = None) -> float:
    """The window's similarity recomputed on the lines as they are, whitespace and typography included.

    Same weighting as the window similarity, for a window whose keys are all
    equal, so that it does not claim to be 100 % like a text it is not.
    """
    budget = budget if budget is not None else CompareBudget()
    matched = 0.0
    for pair in window.pairs:
        searched, actual = search_lines[pair.search_index], file_lines[pair.file_index]
        score = 1.0 if searched == actual else _ratio(searched, actual, budget) / 100.0
        matched += score * (len(searched) + len(actual) + 2)
    total = sum(map(len, search_lines)) + len(search_lines)
    total += sum(map(len, file_lines[window.start : window.end])) + window.end - window.start
    return matched / total


def _trim_to_content(pairs: list[LinePair], search: FuzzyLines) -> list[LinePair]:
    """The pairs from the first to the last non-blank searched line, plus blank pairs right next to them.

    A blank line paired far from the content (blank lines pair with any blank
    line) must not stretch the window.
    """
    content = [number for number, pair in enumerate(pairs) if search.keys[pair.search_index]]
    if not content:
        return []
    first, last = content[0], content[-1]
    while first > 0 and pairs[first - 1].file_index == pairs[first].file_index - 1:
        first -= 1
    while last + 1 < len(pairs) and pairs[last + 1].file_index == pairs[last].file_index + 1:
        last += 1
    return pairs[first : last + 1]


class _Run(NamedTuple):
    """``length`` equal lines from ``search_start`` in the search and ``file_start`` in the window."""

    search_start: int
    file_start: int
    length: int

    @property
    def search_end(self) -> int:
        return self.search_start + self.length

    @property
    def file_end(self) -> int:
        return self.file_start + self.length


def _align(
    search_keys: Sequence[str], file_keys: Sequence[str], low: int, high: int, expected_start: int,
    budget: CompareBudget,
) -> list[LinePair]:
    """Pair searched lines with lines of ``file_keys[low:high]``, in order, most alike first.

    Runs of equal lines are paired first; the gaps between them are filled
    with the best-scoring pairs of similar lines. ``expected_start`` (an index
    into the window) is where the first searched line is thought to be.
    """
    window = file_keys[low:high]
    count = len(search_keys)
    runs = _equal_runs(search_keys, window, expected_start)
    if not runs:
        first = max(0, expected_start - 2)
        return _pair_gap(search_keys, 0, count, window, first, min(len(window), first + count + 4), low, budget)
    head, tail = runs[0], runs[-1]
    pairs = _pair_gap(search_keys, 0, head.search_start, window, _head_start(head), head.file_start, low, budget)
    for run, following in zip(runs, [*runs[1:], None]):
        pairs += [LinePair(run.search_start + step, low + run.file_start + step, 1.0) for step in range(run.length)]
        if following is not None:
            pairs += _pair_gap(
                search_keys, run.search_end, following.search_start, window, run.file_end, following.file_start, low,
                budget,
            )
    tail_end = _tail_end(tail, count, len(window))
    pairs += _pair_gap(search_keys, tail.search_end, count, window, tail.file_end, tail_end, low, budget)
    return pairs


def _head_start(head: _Run) -> int:
    """Searched lines before the first equal run belong right before it (with two lines of slack)."""
    return max(0, head.file_start - head.search_start - 2)


def _tail_end(tail: _Run, search_count: int, window_count: int) -> int:
    """Searched lines after the last equal run belong right after it (with two lines of slack)."""
    return min(window_count, tail.file_end + (search_count - tail.search_end) + 2)


def _equal_runs(search: Sequence[str], window: Sequence[str], expected_start: int) -> list[_Run]:
    """Runs of equal lines, in order, found the way patience diff finds them.

    Lines that occur once on each side anchor the alignment and grow into
    runs; the gaps between runs are treated the same way, and a gap with no
    such line falls back to a longest common subsequence. Plain LCS alone
    would scatter common lines (blank lines, ``return``) across the window,
    away from the block's true position.
    """
    top = _anchored_runs(search, 0, len(search), window, 0, len(window))
    if not top:
        low = max(0, expected_start - 2)
        return _common_subsequence_runs(search, 0, len(search), window, low, min(len(window), low + len(search) + 4))
    gaps = [(0, top[0].search_start, _head_start(top[0]), top[0].file_start)]
    gaps += [(run.search_end, nxt.search_start, run.file_end, nxt.file_start) for run, nxt in zip(top, top[1:])]
    gaps.append((top[-1].search_end, len(search), top[-1].file_end, _tail_end(top[-1], len(search), len(window))))
    runs = list(top)
    while gaps:
        search_low, search_high, file_low, file_high = gaps.pop()
        if search_low >= search_high or file_low >= file_high:
            continue
        inner = _anchored_runs(search, search_low, search_high, window, file_low, file_high)
        if not inner:
            runs += _common_subsequence_runs(search, search_low, search_high, window, file_low, file_high)
            continue
        runs += inner
        corners = [(search_low, file_low), *((run.search_end, run.file_end) for run in inner)]
        ends = [(run.search_start, run.file_start) for run in inner] + [(search_high, file_high)]
        gaps += [(s_low, s_high, f_low, f_high) for (s_low, f_low), (s_high, f_high) in zip(corners, ends)]
    runs.sort()
    return runs


def _anchored_runs(
    search: Sequence[str], search_low: int, search_high: int, window: Sequence[str], file_low: int, file_high: int
) -> list[_Run]:
    """Runs grown from lines unique to both ranges that keep their order (a longest increasing subsequence)."""
    search_counts = Counter(search[search_low:search_high])
    file_positions: dict[str, int] = {}
    repeated: set[str] = set()
    for index in range(file_low, file_high):
        key = window[index]
        if key in file_positions:
            repeated.add(key)
        else:
            file_positions[key] = index
    candidates = [
        (index, file_positions[key])
        for index in range(search_low, search_high)
        if search_counts[key := search[index]] == 1 and key in file_positions and key not in repeated
    ]
    runs: list[_Run] = []
    search_done, file_done = search_low, file_low
    for search_index, file_index in _increasing_subsequence(candidates):
        if search_index < search_done or file_index < file_done:
            continue
        first_search, first_file = search_index, file_index
        while (
            first_search > search_done
            and first_file > file_done
            and search[first_search - 1] == window[first_file - 1]
        ):
            first_search, first_file = first_search - 1, first_file - 1
        end_search, end_file = search_index + 1, file_index + 1
        while end_search < search_high and end_file < file_high and search[end_search] == window[end_file]:
            end_search, end_file = end_search + 1, end_file + 1
        runs.append(_Run(first_search, first_file, end_search - first_search))
        search_done, file_done = end_search, end_file
    return runs


def _increasing_subsequence(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (ordered by first item) whose second items increase."""
    return [pairs[position] for position in longest_increasing([value for _, value in pairs])]


def _common_subsequence_runs(
    search: Sequence[str], search_low: int, search_high: int, window: Sequence[str], file_low: int, file_high: int
) -> list[_Run]:
    return [
        _Run(search_low + first, file_low + second, length)
        for first, second, length in common_line_runs(search[search_low:search_high], window[file_low:file_high])
    ]


def common_line_runs(first: Sequence[str], second: Sequence[str]) -> list[tuple[int, int, int]]:
    """Runs ``(index in first, index in second, length)`` of a longest common subsequence of two line lists.

    The common leading and trailing lines are one run each (as rapidfuzz
    also aligns them); only when the lines between them share some line is
    rapidfuzz asked, so an exact match with lines added or removed does not
    load it. Lines are numbered before rapidfuzz sees them: it hashes list
    items itself, and there ``""`` (hash 0) equals ``"\\x00"`` (code point 0).
    """
    size = min(len(first), len(second))
    head = 0
    while head < size and first[head] == second[head]:
        head += 1
    tail = 0
    while tail < size - head and first[-1 - tail] == second[-1 - tail]:
        tail += 1
    if not set(first[head : len(first) - tail]).intersection(second[head : len(second) - tail]):
        return [run for run in ((0, 0, head), (len(first) - tail, len(second) - tail, tail)) if run[2]]
    from rapidfuzz.distance import Indel

    numbers: dict[str, int] = {}
    first_numbers = [numbers.setdefault(line, len(numbers)) for line in first]
    second_numbers = [numbers.setdefault(line, len(numbers)) for line in second]
    return [
        (op.src_start, op.dest_start, op.src_end - op.src_start)
        for op in Indel.opcodes(first_numbers, second_numbers)
        if op.tag == "equal"
    ]


def _pair_gap(
    search_keys: Sequence[str],
    search_low: int,
    search_high: int,
    window: Sequence[str],
    window_low: int,
    window_high: int,
    offset: int,
    budget: CompareBudget,
) -> list[LinePair]:
    """Pair the lines of one gap between equal runs: optimally when small, along the diagonal when big."""
    searched = search_keys[search_low:search_high]
    actual = window[window_low:window_high]
    if not searched or not actual:
        return []
    if len(searched) * len(actual) <= FULL_ALIGNMENT_CELLS:
        matches = _best_pairs(searched, actual, budget)
    else:
        matches = _diagonal_pairs(searched, actual, budget)
    return [LinePair(search_low + row, offset + window_low + column, score) for row, column, score in matches]


def _line_similarity(search_key: str, file_key: str, budget: CompareBudget) -> float:
    """``fuzz.ratio`` of two keys in [0, 1], or 0.0 below ``MIN_PAIR_SCORE``; blank lines only match blank lines."""
    if not search_key or not file_key:
        return 1.0 if search_key == file_key else 0.0
    return _ratio(search_key, file_key, budget, MIN_PAIR_SCORE * 100) / 100.0


def _ratio(first: str, second: str, budget: CompareBudget, cutoff: float = 0.0) -> float:
    """``fuzz.ratio``, on the lines in full while the budget lasts, then on shortened lines, then 0."""
    from rapidfuzz import fuzz

    units = compare_cost(len(first), len(second))
    if units <= UNCOUNTED_UNITS or budget.take_exact(units):
        return fuzz.ratio(first, second, score_cutoff=cutoff)
    first, second = shortened(first), shortened(second)
    if budget.take_estimate(compare_cost(len(first), len(second))):
        return fuzz.ratio(first, second, score_cutoff=cutoff)
    return 0.0


def _best_pairs(searched: Sequence[str], actual: Sequence[str], budget: CompareBudget) -> list[tuple[int, int, float]]:
    """In-order pairs maximising the summed, length-weighted similarity (a weighted LCS)."""
    rows, columns = len(searched), len(actual)
    scores = [[_line_similarity(s, a, budget) for a in actual] for s in searched]
    best = [[0.0] * (columns + 1) for _ in range(rows + 1)]
    for row in range(rows):
        for column in range(columns):
            value = max(best[row][column + 1], best[row + 1][column])
            score = scores[row][column]
            if score:
                value = max(value, best[row][column] + score * (len(searched[row]) + len(actual[column]) + 2))
            best[row + 1][column + 1] = value
    matches: list[tuple[int, int, float]] = []
    row, column = rows, columns
    while row and column:
        if best[row][column] == best[row - 1][column]:
            row -= 1
        elif best[row][column] == best[row][column - 1]:
            column -= 1
        else:
            matches.append((row - 1, column - 1, scores[row - 1][column - 1]))
            row, column = row - 1, column - 1
    matches.reverse()
    return matches


def _diagonal_pairs(searched: Sequence[str], actual: Sequence[str],
                    budget: CompareBudget) -> list[tuple[int, int, float]]:
    """Greedy in-order pairs near the gap's diagonal: bounded work for gaps too big to align optimally."""
    matches: list[tuple[int, int, float]] = []
    cursor = 0
    for row, key in enumerate(searched):
        centre = row * len(actual) // len(searched)
        window = range(max(cursor, centre - BAND), min(len(actual), centre + BAND + 1))
        scored = [(_line_similarity(key, actual[column], budget), -column) for column in window]
        if scored:
            score, negative_column = max(scored)
            if score:
                matches.append((row, -negative_column, score))
                cursor = -negative_column + 1
    return matches


def _indent_shifts(
    file: FuzzyLines, search: FuzzyLines, pairs: Sequence[LinePair]
) -> tuple[int, int, list[int | None]]:
    """The indentation shift most paired lines share, the tab width that explains it best, and each pair's shift.

    Shifts are in columns, file minus search; blank pairs have none.
    """
    indents = [
        (file.indent(pair.file_index), search.indent(pair.search_index))
        if search.keys[pair.search_index] and file.keys[pair.file_index]
        else None
        for pair in pairs
    ]
    if not any(indent and ("\t" in indent[0] or "\t" in indent[1]) for indent in indents):
        shifts = [None if indent is None else len(indent[0]) - len(indent[1]) for indent in indents]
        return _most_common(shifts), TAB_WIDTHS[0], shifts
    candidates = []
    for tab_width in TAB_WIDTHS:
        shifts = [
            None if indent is None else indent_columns(indent[0], tab_width) - indent_columns(indent[1], tab_width)
            for indent in indents
        ]
        common = _most_common(shifts)
        candidates.append((shifts.count(common), -TAB_WIDTHS.index(tab_width), common, tab_width, shifts))
    _, _, common, tab_width, shifts = max(candidates)
    return common, tab_width, shifts


def _most_common(shifts: list[int | None]) -> int:
    counts = Counter(shift for shift in shifts if shift is not None)
    return counts.most_common(1)[0][0] if counts else 0
