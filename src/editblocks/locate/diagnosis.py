"""Why nothing matched: the closest region of the file as a short diff, and which part of an anchored block failed.

Only consulted after the rungs gave up, so it is kept out of the ladder.
"""

from __future__ import annotations

from collections.abc import Sequence

from editblocks.locate.fuzzy import ScoredWindow, verbatim_similarity
from editblocks.locate.matching import without_blank_edges
from editblocks.locate.types import NearMiss, Rung
from editblocks.locate.view import FileView
from editblocks.model import counted, percent

NEAR_MISS_MIN_SIMILARITY = 0.5
"""Below this, the closest region is too unlike the searched text to be worth naming."""


DIFF_MAX_LINES = 12
DIFF_MAX_LINE_CHARS = 100


def find_near_miss(file_lines: Sequence[str], search_lines: Sequence[str]) -> NearMiss | None:
    """The region of the file most like ``search_lines``, or ``None`` when nothing is remotely like it."""
    return near_miss(FileView(file_lines), tuple(search_lines))


def near_miss(view: FileView, search: tuple[str, ...]) -> NearMiss | None:
    """Blank lines at the edges of the search are left out: they only blur the comparison."""
    search = (without_blank_edges(search, ()) or (search, ()))[0]
    if not search:
        return None
    if view.diagnosis.spent:
        view.diagnosis.skipped = True  # so the report says why no closest text is named
        return None
    windows = view.ranked_windows(search, thorough=False)
    if not windows or windows[0].similarity < NEAR_MISS_MIN_SIMILARITY:
        return None
    best = windows[0]
    if best.similarity == 1.0 and any(view.lines[pair.file_index] != search[pair.search_index] for pair in best.pairs):
        # Equal but for whitespace or typography, so an exact-only rung refused it: show exactly those differences.
        similarity = verbatim_similarity(view.lines, search, best, view.diagnosis)
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
        rendered = rendered[: DIFF_MAX_LINES - 1] + [f"... and {counted(rest, 'more differing line')}"]
    return tuple(rendered)


def _hidden_marker(count: int, width: int) -> str:
    return f"  {'':>{width}} ... {counted(count, 'matching line')}"


def _cut(text: str) -> str:
    return text if len(text) <= DIFF_MAX_LINE_CHARS else text[: DIFF_MAX_LINE_CHARS - 1] + "\u2026"


def line_span(start: int, end: int) -> str:
    """1-based, human wording of the 0-based span ``[start, end)``."""
    return f"line {start + 1}" if end - start <= 1 else f"lines {start + 1}\u2013{end}"


def explain_anchor_failure(
    file_lines: Sequence[str], leading_lines: Sequence[str], old_lines: Sequence[str], trailing_lines: Sequence[str],
    where: str = "",
) -> str:
    """Which part of an anchored block (exact-only) failed to match, named as the format names its parts;
    ``where`` (" in src/a.py") follows the part's name.

    Every occurrence of the leading anchor is tried, not only the first one.
    """
    view = FileView(file_lines)
    leading, old, trailing = list(leading_lines), list(old_lines), list(trailing_lines)

    def starts_of(lines: list[str]) -> list[int]:
        return list(view.occurrences(Rung.EXACT, lines)) if lines else []

    def followed_by(positions: list[int], lines: list[str]) -> list[int]:
        return [p + len(lines) for p in positions if list(file_lines[p : p + len(lines)]) == lines]

    if leading:
        anchors = starts_of(leading)
        if not anchors:
            return f"leading anchor not found{where}" + _closest(view, leading)
        after_old = followed_by([start + len(leading) for start in anchors], old)
        if not after_old:
            return (f"old lines don't match content after anchor{where} (anchor at {_line_list(anchors)})"
                    + _closest(view, old))
        if trailing and not followed_by(after_old, trailing):
            return (f"trailing anchor not found after old lines{where}" + _after_lines(after_old)
                    + _closest(view, trailing))
    elif old:
        after_old = [start + len(old) for start in starts_of(old)]
        if not after_old:
            return f"old lines not found{where}" + _closest(view, old)
        if trailing and not followed_by(after_old, trailing):
            return (f"trailing anchor not found after old lines{where}" + _after_lines(after_old)
                    + _closest(view, trailing))
    elif trailing and not starts_of(trailing):
        return f"trailing anchor not found{where}" + _closest(view, trailing)
    return f"content sequence not found{where or ' in the file'}" + _closest(view, [*leading, *old, *trailing])


def _after_lines(ends: list[int]) -> str:
    return f" (old lines end at {_line_list([end - 1 for end in ends])})"


def _line_list(indices: list[int]) -> str:
    """1-based wording of some 0-based line indices, the first five of them."""
    numbers = ", ".join(str(index + 1) for index in indices[:5])
    more = f" and {len(indices) - 5} more" if len(indices) > 5 else ""
    return f"line{'s' if len(indices) > 1 else ''} {numbers}{more}"


def _closest(view: FileView, lines: list[str]) -> str:
    near = near_miss(view, tuple(lines)) if lines else None
    if near is None:
        return ""
    return f"; closest: {line_span(near.start, near.end)}, {percent(near.similarity)} similar"
