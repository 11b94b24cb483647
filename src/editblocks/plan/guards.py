"""Lines a model's new text may not bring into a file: placeholders that stand for code, and edit markers.

A placeholder (`// ... rest of code`, `# existing code here`, `(rest of
methods ...)`) written where the old text had code deletes that code
silently; an edit marker (`<<<<<<< SEARCH`, `>>>>>>> REPLACE`, `*** End
Patch`) in a patch, a whole file or a tool call is another format's
structure leaking into the file. Either is refused unless the old text holds
the same line at that place. Marker blocks are checked for their own markers
when they are read (parsing/marker_guard.py), where the block's marker
lengths are known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from editblocks.locate.elision import is_placeholder
from editblocks.parsing.marker_guard import EDIT_MARKERS
from editblocks.parsing.markers import classify
from editblocks.text.line_diff import added_lines

PLACEHOLDER = "placeholder"
EDIT_MARKER = "edit-marker"
EMPTY_CONTENT = "empty-content"
CONTENT_REFUSALS = (PLACEHOLDER, EDIT_MARKER, EMPTY_CONTENT)
"""The `refusal` codes of a block refused for its new text (beside the workspace's codes for files)."""
_WORD = re.compile(r"\w+")
_ELLIPSES = ("...", "\u2026")
_PATCH_HEADERS = ("*** Begin Patch", "*** End Patch", "*** Update File:", "*** Add File:", "*** Delete File:")


def introduced_placeholder(old: Sequence[str], new: Sequence[str]) -> tuple[int, str] | None:
    """The first line of ``new`` (1-based, and its text) that stands for code it leaves out of ``old``.

    Such a line deletes code when it takes the place of old lines whose words the new text has nowhere else; a
    placeholder that only adds a line deletes nothing, and a line the old text has at that place is the file's
    own. A bare `...` is Python's stub body too, so only a whole file is refused for one.
    """
    wanted = [index for index, line in enumerate(new) if is_placeholder(line) and line.strip() not in _ELLIPSES]
    if not wanted:
        return None
    kept_words: set[str] | None = None
    for index, (_, old_first, old_last, _, _) in added_lines(old, new, wanted):
        if kept_words is None:
            kept_words = {word for line in new for word in _WORD.findall(line)}
        if any(set(_WORD.findall(line)) - kept_words for line in old[old_first:old_last]):
            return index + 1, new[index].strip()
    return None


def introduced_marker(old: Sequence[str], new: Sequence[str]) -> str | None:
    """The first edit-marker line of another format (a SEARCH/REPLACE start or end, a V4A patch's own lines) in
    ``new`` that ``old`` does not have at that place."""
    wanted = [index for index, line in enumerate(new) if _is_edit_marker(line)]
    added = added_lines(old, new, wanted) if wanted else []
    return new[added[0][0]].strip() if added else None


def text_refusal(old: str, new: str, where: str) -> str:
    """Why a tool call may not replace ``old`` by ``new`` in ``where`` (texts, not lines), if it may not."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    placeholder = introduced_placeholder(old_lines, new_lines)
    if placeholder is not None:
        return placeholder_reason(*placeholder, where)
    marker = introduced_marker(old_lines, new_lines)
    return marker_reason(marker, where) if marker is not None else ""


def placeholder_reason(number: int, text: str, where: str) -> str:
    return (f"refused: line {number} of the new text (`{text}`) stands for code it leaves out, and writing it "
            f"would delete that code from {where}; write out every line the new text keeps, or quote only the "
            "lines to change")


def marker_reason(text: str, where: str) -> str:
    return (f"refused: the new text holds the line `{text}`, an edit marker, which would be written into {where} "
            "as text; send the edit in one format (to write such a line on purpose, use a SEARCH/REPLACE block "
            "with 9-character markers, whose shorter marker lines are text)")


def _is_edit_marker(line: str) -> bool:
    text = line.strip()
    if not text or text[0] not in "<>-+*":
        return False
    if text.startswith(_PATCH_HEADERS):
        return True
    marker = classify(text)
    return marker is not None and marker.kind in EDIT_MARKERS and any(char.isalpha() for char in text)
