"""Where an edit aims in a file as it is now, so a refused edit can show the model the lines it meant.

Used when the file changed since the model last read it: the reply shows the
current lines around the old text (where it occurs, or the region most like
it) or around the line an insert names, instead of sending the model back to
search the whole file again.
"""

from __future__ import annotations

from collections.abc import Sequence

from editblocks.locate.diagnosis import find_near_miss
from editblocks.tools.text_editor import joined, occurrences, snippet


def target_span(lines: Sequence[str], final_newline: bool, *, old: str = "",
                line: int | None = None) -> tuple[int, int] | None:
    """The 0-based lines ``[start, end)`` an edit aims at: the first place ``old`` occurs, else the region most
    like it; or the lines on either side of the gap after 1-based ``line``. None when nothing is near."""
    if old:
        found = occurrences(joined(lines, final_newline), old)
        if found.lines:
            start = found.lines[0] - 1
            return start, min(len(lines), start + max(1, old.count("\n") + (not old.endswith("\n"))))
        near = find_near_miss(lines, old.splitlines())
        return (near.start, near.end) if near is not None else None
    if line is not None and 0 <= line <= len(lines):
        return max(0, line - 1), min(len(lines), line + 1)
    return None


def target_lines(lines: Sequence[str], final_newline: bool, *, old: str = "", line: int | None = None) -> str:
    """The numbered lines around where the edit aims (see `target_span`), or "" when it aims nowhere near."""
    span = target_span(lines, final_newline, old=old, line=line)
    if span is None:
        return ""
    start, end = span
    return snippet(lines, start, max(1, end - start))
