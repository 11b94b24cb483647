"""Roo Code's `apply_diff` dialect inside SEARCH/REPLACE blocks: line-number hints and escaped markers.

Roo asks models to write ``:start_line:N`` (and, formerly, ``:end_line:N``)
plus a ``-------`` line right after ``<<<<<<< SEARCH``. Those lines are a hint
about where the old text is, never text to find: they are taken off the old
text here and kept as the block's ``line_hint``. A hint line inside the new
text would be written into the file, so it makes the block malformed.

Roo also escapes a content line that would read as a marker with a
backslash at the start of the line (``\\=======``, ``\\<<<<<<< SEARCH``,
``\\:start_line:``); such a line stands for the marker line itself. The text
as written is kept too, for a file that itself holds backslash-escaped lines.

Pure functions on finished section texts. The parser calls them only for a
block with a content line starting with `\\` or `:` (its hot loop notes such
lines), so ordinary blocks cost nothing here.
"""

from __future__ import annotations

import re
from typing import Final

from editblocks.parsing.markers import classify
from editblocks.record import Record

_HINT_WORDS = (":start_line:", ":end_line:")
_ESCAPE_CANDIDATE = r"^\\(?=[<=>+\-:«═»])"


class Dialect(Record):
    """The old and new texts of every reading with hints taken off and escapes read, and what was found."""

    __slots__ = ("pairs", "line_hint", "literal")
    pairs: Final[tuple[tuple[str, str], ...]]
    line_hint: Final[int | None]
    literal: Final[tuple[str, str] | None]  # the first reading as written, when an escaped line was read

    def __init__(self, pairs: tuple[tuple[str, str], ...], line_hint: int | None = None,
                 literal: tuple[str, str] | None = None) -> None:
        self.pairs = pairs
        self.line_hint = line_hint
        self.literal = literal


def read_dialect(pairs: list[tuple[str, str]]) -> Dialect | str:
    """Apply the dialect to each (old, new) reading of one block; a string says why the block is malformed."""
    old = pairs[0][0]
    start = end = None
    header = 0
    if old.startswith(":"):
        rest, start, end = _take_hints(old)
        header = len(old) - len(rest)
    for _, new in pairs:
        misplaced = _hint_line_in(new)
        if misplaced is not None:
            return (f"has a line-number hint `{misplaced}` in its new text, where it would be written into the file; "
                    f"hints belong right after `<<<<<<< SEARCH` (write `\\{misplaced}` for a literal line)")
    stripped = [(o[header:], n) for o, n in pairs]
    read = [(_unescape(o), _unescape(n)) for o, n in stripped]
    literal = stripped[0] if read[0] != stripped[0] else None
    hint = start if start is not None else _start_from_end(end, read[0][0])
    return Dialect(tuple(read), hint, literal)


def _take_hints(old: str) -> tuple[str, int | None, int | None]:
    """The old text without its leading hint lines (and the dash line after them), and the hinted lines."""
    start = end = None
    position = 0
    while position < len(old):
        newline = old.find("\n", position)
        found = _hint(old[position : newline if newline != -1 else len(old)])
        if found is None:
            break
        word, number = found
        if word == _HINT_WORDS[0]:
            start = number
        else:
            end = number
        position = newline + 1 if newline != -1 else len(old)
    if position == 0:
        return old, None, None
    newline = old.find("\n", position)
    dashes = old[position : newline if newline != -1 else len(old)].strip()
    if len(dashes) >= 3 and dashes == "-" * len(dashes):
        position = newline + 1 if newline != -1 else len(old)
    return old[position:], start, end


def _hint(line: str) -> tuple[str, int] | None:
    text = line.strip()
    for word in _HINT_WORDS:
        if text.startswith(word):
            number = text[len(word) :].strip()
            return (word, int(number)) if number.isdigit() and len(number) < 10 else None
    return None


def _hint_line_in(text: str) -> str | None:
    if "_line:" not in text:
        return None
    for line in text.split("\n"):
        if line[:1] == ":" and _hint(line) is not None:
            return line.strip()
    return None


def _start_from_end(end: int | None, old: str) -> int | None:
    """A lone ``:end_line:`` names the old text's last line; its first is that many lines up."""
    if end is None:
        return None
    return max(1, end - old.count("\n") + 1)


def _unescape(text: str) -> str:
    """``\\=======`` becomes ``=======``: a backslash starting a line before a marker or hint line goes (Roo
    escapes at the start of a line only; an indented marker line is text anyway)."""
    if "\\" not in text:
        return text
    pieces: list[str] = []
    position = 0
    for found in re.finditer(_ESCAPE_CANDIDATE, text, re.MULTILINE):
        slash = found.end() - 1
        line_end = text.find("\n", slash)
        rest = text[slash + 1 : line_end if line_end != -1 else len(text)]
        if classify(rest) is None and _hint(rest) is None:
            continue
        pieces.append(text[position:slash])
        position = slash + 1
    if not pieces:
        return text
    pieces.append(text[position:])
    return "".join(pieces)


def holds_escaped_markers(lines: list[str]) -> bool:
    """Whether a file's lines include a backslash-escaped marker or hint line: such a file means them literally."""
    for line in lines:
        if line[:1] == "\\" and (classify(line[1:]) is not None or _hint(line[1:]) is not None):
            return True
    return False
