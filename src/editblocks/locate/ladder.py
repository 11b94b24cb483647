"""Where does a block's searched text live in a file? The matching ladder (docs/locating.md).

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

from collections.abc import Sequence

from editblocks.locate.adapt import found_for_match
from editblocks.locate.cache import FileCache
from editblocks.locate.diagnosis import near_miss
from editblocks.locate.elision import locate_elided
from editblocks.locate.fuzzy_rung import locate_fuzzy
from editblocks.locate.line_index import LineIndex
from editblocks.locate.matching import ambiguous, candidate_limit, matches_on_rung
from editblocks.locate.types import LADDER, Ambiguous, Found, LocateOptions, NotFound, Rung
from editblocks.locate.view import FileView, Match

HINT_TOLERANCE = 3
"""A line hint picks one of several identical candidates when it points inside it, or this many lines off."""


def locate(
    file_lines: Sequence[str],
    search_lines: Sequence[str],
    replace_lines: Sequence[str],
    options: LocateOptions = LocateOptions(),
    index: LineIndex | None = None,
    cache: FileCache | None = None,
) -> Found | NotFound | Ambiguous:
    """Find ``search_lines`` in ``file_lines`` with the rungs of ``options`` and adapt ``replace_lines``.

    ``index``, an index of ``file_lines`` itself, makes the exact rung cost
    the size of the search instead of a pass over the file. ``cache``, shared
    by the calls for one file, keeps the file's view while it is unchanged and
    one diagnosis budget for all its blocks. Raises
    ``ValueError`` only for an empty search (creating files is the caller's job).
    """
    if not search_lines:
        raise ValueError("locate() needs at least one searched line")
    if index is not None and index.lines is not file_lines:
        raise ValueError("the index must be built on file_lines itself")
    view = cache.view(file_lines, index) if cache is not None else FileView(file_lines, index)
    view.scans = None if options.diagnose else view.diagnosis
    search, replace = tuple(search_lines), tuple(replace_lines)
    hints: list[str] = []
    for rung in (rung for rung in LADDER if rung in options.rungs):
        if rung is Rung.ELISION:
            outcome = locate_elided(view, search, replace, options)
        elif rung is Rung.FUZZY:
            outcome = locate_fuzzy(view, search, replace, options)
        else:
            outcome = _locate_on_line_rung(view, rung, search, replace, options)
        if isinstance(outcome, str):
            hints.append(outcome)
        elif outcome is not None:
            return outcome
    near = near_miss(view, search) if options.diagnose else None
    if view.diagnosis.note:
        hints.append(view.diagnosis.note)
    return NotFound(near, "; ".join(hints))


def _locate_on_line_rung(
    view: FileView, rung: Rung, search: tuple[str, ...], replace: tuple[str, ...], options: LocateOptions
) -> Found | Ambiguous | None:
    matches = matches_on_rung(view, rung, search, replace, candidate_limit(options), options.min_start)
    if not matches:
        return None
    if len(matches) > 1 and not options.first_match:
        hinted = _hinted(matches, options)
        if hinted is not None:
            return found_for_match(view, rung, hinted)
        return ambiguous([match.start for match in matches], rung, options)
    return found_for_match(view, rung, matches[0])


def _hinted(matches: list[Match], options: LocateOptions) -> Match | None:
    """The one candidate a line hint points inside (give or take ``HINT_TOLERANCE`` lines), if exactly one; else the
    one candidate that starts exactly at the hint (a diff's header numbers name its first line).

    Never when the candidates were cut off: an unseen candidate could be the one the hint points at too.
    """
    hint = options.hint
    if hint is None or len(matches) > max(1, options.max_candidates):
        return None
    inside = [match for match in matches if match.start - HINT_TOLERANCE <= hint < match.end + HINT_TOLERANCE]
    if len(inside) == 1:
        return inside[0]
    exact = [match for match in inside if match.start == hint]
    return exact[0] if len(exact) == 1 else None
