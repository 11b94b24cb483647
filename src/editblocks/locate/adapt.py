"""The replacement as it is written into the file: copied context lines are the file's own, changed lines are
fitted to its indentation and punctuation.

Every rung that finds a match (line rungs, elision pieces, fuzzy) ends here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from editblocks.locate.fuzzy import common_line_runs
from editblocks.locate.normalize import (
    INDENT_CHARS,
    fold_typography,
    indent_columns,
    indentation_uses_tabs,
    indented_key,
    is_blank,
    leading_indent,
    map_back_typography,
    render_indent,
    typographic_characters,
)
from editblocks.locate.types import FOLDING_RUNGS, Found, Rung
from editblocks.locate.typography import with_file_typography
from editblocks.locate.view import FileView, Match


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


def found_for_match(view: FileView, rung: Rung, match: Match) -> Found:
    file_indices = [match.start + index for index in range(len(match.search))]
    return adapted(
        view, rung, match.search, match.replace, file_indices, match.start, match.end, match.shift, match.tab_width
    )


def adapted(
    view: FileView,
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
    if rung in FOLDING_RUNGS and view.has_typography:
        quoted = [(line, view.lines[index]) for line, index in zip(search, file_index_of_search) if index is not None]
        searched, actual = [line for line, _ in quoted], [line for _, line in quoted]
        new_lines = [with_file_typography(line, searched, actual) if source is None else line
                     for line, source in zip(new_lines, sources)]
    return Found(start, end, tuple(new_lines), tuple(sources), rung, similarity)


def _line_adapter(
    view: FileView, rung: Rung, search: Sequence[str], region: Sequence[str], shift: int, tab_width: int
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
