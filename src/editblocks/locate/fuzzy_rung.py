"""The fuzzy rung: applies the most similar window only when it is similar enough, clearly the best and unique.

The similarity itself is ``editblocks.locate.fuzzy``; this module decides
whether a scored window may be applied.
"""

from __future__ import annotations

from editblocks.locate.adapt import adapted
from editblocks.locate.diagnosis import line_span
from editblocks.locate.fuzzy import FuzzyLines, ScoredWindow
from editblocks.locate.matching import ambiguous, candidate_limit, without_blank_edges
from editblocks.locate.types import Ambiguous, Found, LocateOptions, Rung
from editblocks.locate.view import FileView
from editblocks.model import percent

FUZZY_MIN_LINE_SIMILARITY = 0.6
"""A fuzzy match is refused when any searched line is less like its file line than this."""


def locate_fuzzy(
    view: FileView, search: tuple[str, ...], replace: tuple[str, ...], options: LocateOptions
) -> Found | Ambiguous | str:
    """The most similar window, if it is similar enough, clearly the best, and has no unrelated lines."""
    search, replace = without_blank_edges(search, replace) or (search, replace)
    searched = FuzzyLines(search)
    windows = view.ranked_windows(search, thorough=True)
    if not windows:
        return "no similar region for a fuzzy match"
    best = windows[0]
    if best.start < options.min_start:
        return f"the most similar region (line {best.start + 1}) lies before line {options.min_start + 1}"
    refusal = _fuzzy_refusal(best, searched, options)
    if refusal:
        return refusal
    copies = _copies_elsewhere(view, best, options)
    if copies:
        if not options.first_match:
            return ambiguous([best.start, *copies], Rung.FUZZY, options)
        if copies[0] < best.start:
            best = view.window_at(search, best.offset + copies[0] - best.start)
    rivals = [w for w in windows[1:] if not w.overlaps(best) and best.similarity - w.similarity < options.fuzzy_margin]
    if rivals:
        contenders = sorted([best, *rivals], key=lambda window: window.start)
        if not options.first_match:
            return ambiguous([window.start for window in contenders], Rung.FUZZY, options)
        best = next(window for window in contenders if not _fuzzy_refusal(window, searched, options))
    file_indices = [best.file_index_by_search_index.get(index) for index in range(len(search))]
    return adapted(
        view, Rung.FUZZY, search, replace, file_indices, best.start, best.end, best.shift, best.tab_width,
        best.similarity,
    )


def _copies_elsewhere(view: FileView, window: ScoredWindow, options: LocateOptions) -> list[int]:
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
            if len(copies) >= candidate_limit(options):
                break
    return copies


def _fuzzy_refusal(window: ScoredWindow, searched: FuzzyLines, options: LocateOptions) -> str:
    """Why ``window`` may not be applied as a fuzzy match; empty when it may."""
    lines = line_span(window.start, window.end)
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
