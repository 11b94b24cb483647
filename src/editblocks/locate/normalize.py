"""Line normalisations shared by the matching ladder and the fuzzy matcher.

Models copy code imperfectly in a few predictable ways: trailing whitespace,
indentation (depth, or tabs against spaces) and typography (curly quotes,
dashes, odd spaces). These helpers make those differences comparable and
then undo them, so what lands in the file is written in the file's own style.
HTML entities are deliberately not part of any normalisation: ``&amp;`` is
real text in HTML and XML sources and must never compare equal to ``&``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

INDENT_CHARS = " \t"
_INNER_RUN = re.compile(r"[ \t]{2,}|\t")
TAB_WIDTHS = (4, 8, 2)
"""Tab widths tried when tabs meet spaces; the first one that explains the indentation wins."""

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b"
# « and » are folded too: models produce them for quotes in code, and a file
# that really uses them is untouched, since unchanged lines are copied from it.
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u00ab\u00bb"
_SPACES = "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
_ELLIPSIS = "\u2026"

TYPOGRAPHIC_EQUIVALENTS: dict[str, str] = {
    **dict.fromkeys(_DASHES, "-"),
    **dict.fromkeys(_SINGLE_QUOTES, "'"),
    **dict.fromkeys(_DOUBLE_QUOTES, '"'),
    **dict.fromkeys(_SPACES, " "),
    _ELLIPSIS: "...",
}
"""Each typographic character and the ASCII text it stands for."""

_FOLD_TABLE = str.maketrans(TYPOGRAPHIC_EQUIVALENTS)


def fold_typography(text: str) -> str:
    """``text`` with every typographic character replaced by its ASCII equivalent."""
    if text.isascii():
        return text
    return text.translate(_FOLD_TABLE)


def typographic_characters(text: str) -> set[str]:
    """The characters of ``text`` that ``fold_typography`` would change."""
    if text.isascii():
        return set()
    return {char for char in text if char in TYPOGRAPHIC_EQUIVALENTS}


def map_back_typography(text: str, characters: set[str] | frozenset[str]) -> str:
    """Replace only the given typographic ``characters`` of ``text`` by their ASCII equivalents."""
    if not characters or text.isascii():
        return text
    table: dict[str, str | int | None] = {char: TYPOGRAPHIC_EQUIVALENTS[char] for char in characters}
    return text.translate(str.maketrans(table))


def collapse_inner_whitespace(key: str) -> str:
    """A line key (no indentation, no trailing whitespace) with every run of spaces and tabs made one space."""
    if "  " not in key and "\t" not in key:
        return key
    return _INNER_RUN.sub(" ", key)


def is_blank(line: str) -> bool:
    return not line.strip()


def leading_indent(line: str) -> str:
    """The run of spaces and tabs that starts ``line``."""
    return line[: len(line) - len(line.lstrip(INDENT_CHARS))]


def content_key(line: str) -> str:
    """``line`` without its indentation and trailing whitespace: what the indentation rung compares."""
    return line.rstrip().lstrip(INDENT_CHARS)


def indent_columns(indent: str, tab_width: int) -> int:
    """The display column that ``indent`` (spaces and tabs) reaches with tab stops every ``tab_width``."""
    column = 0
    for char in indent:
        column = (column // tab_width + 1) * tab_width if char == "\t" else column + 1
    return column


def render_indent(columns: int, use_tabs: bool, tab_width: int) -> str:
    """Indentation reaching ``columns``, with tabs for whole tab stops when the file indents with tabs."""
    if use_tabs:
        return "\t" * (columns // tab_width) + " " * (columns % tab_width)
    return " " * columns


def indented_key(line: str, tab_width: int) -> str:
    """``line`` with its indentation expanded to spaces and trailing whitespace removed.

    Two lines with the same key look the same on screen: the indentation rung
    uses it to tell a copied context line from one the model re-indented.
    """
    if is_blank(line):
        return ""
    return " " * indent_columns(leading_indent(line), tab_width) + content_key(line)


def indentation_steps(lines: Sequence[str], keys: Sequence[str], tab_width: int) -> list[str]:
    """Per line, its indentation step from the previous non-blank line (in columns) and its ``key``; ``""`` if blank.

    Two runs of lines have equal steps exactly when one is the other
    indented by a constant amount, which makes that a plain sequence match.
    """
    steps: list[str] = []
    previous = 0
    for line, key in zip(lines, keys):
        if not key:
            steps.append("")
            continue
        indent = line[: len(line) - len(line.lstrip(INDENT_CHARS))]
        columns = indent_columns(indent, tab_width) if "\t" in indent else len(indent)
        steps.append(f"{columns - previous} {key}")
        previous = columns
    return steps


def indentation_uses_tabs(lines: Sequence[str]) -> bool | None:
    """Whether indented ``lines`` mostly start with a tab; ``None`` when none is indented."""
    tabs = spaces = 0
    for line in lines:
        if line[:1] == "\t":
            tabs += 1
        elif line[:1] == " " and not is_blank(line):
            spaces += 1
    if tabs == spaces == 0:
        return None
    return tabs > spaces
