"""Windows equal to the searched text on one line rung, and how many candidates are collected and reported.

The line rungs, each elision piece and the fuzzy rung all count and report
candidates the same way, so this sits below all of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from editblocks.locate.normalize import is_blank, typographic_characters
from editblocks.locate.types import FOLDING_RUNGS, Ambiguous, LocateOptions, Rung
from editblocks.locate.view import FileView, Match, line_key, uniform_shift


def candidate_limit(options: LocateOptions) -> int:
    """Candidates worth collecting: one more than can be reported tells whether the list was cut."""
    return 1 if options.first_match else max(1, options.max_candidates) + 1


def ambiguous(starts: Sequence[int], rung: Rung, options: LocateOptions) -> Ambiguous:
    limit = max(1, options.max_candidates)
    ordered = sorted(starts)
    return Ambiguous(tuple(ordered[:limit]), rung, len(ordered) > limit)


def matches_on_rung(
    view: FileView, rung: Rung, search: tuple[str, ...], replace: tuple[str, ...], limit: int, min_start: int = 0
) -> list[Match]:
    """Up to ``limit`` windows equal to ``search`` on ``rung``.

    From the second rung on, blank lines at the edges of the search that the
    file does not have (a model's habit) are dropped and tried again, with the
    same number of blank edge lines dropped from the replacement.
    """
    matches = _windows_equal_on_rung(view, rung, search, replace, limit, min_start)
    if matches or rung is Rung.EXACT:
        return matches
    trimmed = without_blank_edges(search, replace)
    if trimmed is None:
        return []
    return _windows_equal_on_rung(view, rung, *trimmed, limit, min_start)


def _windows_equal_on_rung(
    view: FileView, rung: Rung, search: tuple[str, ...], replace: tuple[str, ...], limit: int, min_start: int
) -> list[Match]:
    if rung is Rung.TYPOGRAPHY and not view.has_typography and not typographic_characters("".join(search)):
        return []
    if rung is Rung.INTERNAL_WHITESPACE and not view.has_inner_runs and not any(
        line_key(rung, line) != line_key(Rung.TYPOGRAPHY, line) for line in search
    ):
        return []
    pattern = [line_key(rung, line) for line in search]
    matches: list[Match] = []
    if rung in (Rung.INDENTATION, *FOLDING_RUNGS):
        for start in view.shifted_occurrences(rung, search, min_start, limit):
            shift = uniform_shift(view.lines[start : start + len(search)], search, rung in FOLDING_RUNGS)
            assert shift is not None, "shifted_occurrences only yields uniformly shifted windows"
            matches.append(Match(start, search, replace, *shift))
        return matches
    for start in view.occurrences(rung, pattern, min_start):
        matches.append(Match(start, search, replace))
        if len(matches) >= limit:
            break
    return matches


def without_blank_edges(
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
