"""Whether a block's new text would write one of its own marker lines into the file.

A SEARCH/REPLACE block whose text cannot be delimited reliably (two
separators, markers of mixed lengths) may be read in a way that puts a
`=======` or `>>>>>>> REPLACE` line into its new text: applied, that reading
writes the marker itself, and often a second version of the code, into the
file. A line counts when it is a marker of the block's own dialect (a length
the block used for its own markers; every length for a block with standard
markers, where every marker line is structure) and the old text does not have
it at the same place (a file that holds such lines keeps them). A
backslash-escaped line is text, never a marker.
"""

from __future__ import annotations

from collections.abc import Collection

from editblocks.parsing.markers import MarkerKind, classify
from editblocks.text.line_diff import added_lines

EDIT_MARKERS = frozenset({
    MarkerKind.SEARCH_START, MarkerKind.SEPARATOR, MarkerKind.REPLACE_END, MarkerKind.BARE_END,
    MarkerKind.NEW_FILE_START, MarkerKind.NEW_FILE_END,
})
_FIRST_CHARS = frozenset("<=>-+")


def introduced_marker(old: str, new: str, lengths: Collection[int] | None = None) -> str | None:
    """The first line of ``new`` that is an edit marker (of one of ``lengths``; of any length when None) and
    that ``old`` does not hold at the same place; None when there is none. Only unindented lines count: an
    indented marker line is text inside a block."""
    new_lines = _lines(new)
    hits = [index for index, line in enumerate(new_lines) if _is_marker(line, lengths)]
    if not hits:
        return None
    added = added_lines(_lines(old), new_lines, hits)
    return new_lines[added[0][0]].strip() if added else None


def _is_marker(line: str, lengths: Collection[int] | None) -> bool:
    if line[:1] not in _FIRST_CHARS:
        return False
    marker = classify(line)
    return marker is not None and marker.kind in EDIT_MARKERS and (lengths is None or marker.length in lengths)


def _lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines
