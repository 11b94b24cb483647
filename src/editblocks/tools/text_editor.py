"""The text editor tool's edits, as pure functions on a file's lines.

`str_replace` matches ``old_str`` as text (it may start or end inside a line),
and only when it occurs exactly once; `insert` puts lines after a line number.
Both return the span of whole lines they change and the lines that replace
it, so the caller can splice them into the file keeping every untouched
line's own ending. Tabs are never expanded (the reference tool expands them in
the whole file, which rewrites lines the model never touched).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_COUNTED = 1000  # a hostile old_str ("a" in a file of a million a's) stops being counted here
SNIPPET_CONTEXT = 4
MAX_LISTED_LINES = 50  # a reply names every line up to here; a hostile file may hold thousands of occurrences


@dataclass(frozen=True)
class LineEdit:
    """Replace lines ``[start, end)`` (0-based) by ``new_lines``; when ``final_newline`` is not None, the file
    then ends with a line break or not (a replacement at the very end says which, as the text it puts there).
    ``sources``, when given, names per new line the file line it reproduces unchanged (it keeps that line's
    ending); without it a new line equal to the old line at its place counts as that line."""

    start: int
    end: int
    new_lines: tuple[str, ...]
    final_newline: bool | None = None
    sources: tuple[int | None, ...] | None = None


@dataclass(frozen=True)
class Occurrences:
    """Where ``old_str`` occurs: the 1-based line each occurrence starts on (at most MAX_COUNTED of them)."""

    lines: tuple[int, ...]
    truncated: bool


def joined(lines: Sequence[str], final_newline: bool) -> str:
    """The lines as one LF text, the way the model sees the file."""
    text = "\n".join(lines)
    return text + "\n" if lines and final_newline else text


def normalized(text: str) -> str:
    """A model's text with CRLF read as LF: the file's own endings are kept apart from its lines."""
    return text.replace("\r\n", "\n")


def occurrences(text: str, old: str) -> Occurrences:
    """Every place ``old`` starts in ``text``, overlapping ones included (`aa` occurs twice in `aaa`)."""
    starts: list[int] = []
    position = text.find(old)
    while position != -1 and len(starts) < MAX_COUNTED:
        starts.append(position)
        position = text.find(old, position + 1)
    lines, line, counted_to = [], 1, 0
    for start in starts:
        line += text.count("\n", counted_to, start)
        counted_to = start
        lines.append(line)
    return Occurrences(tuple(lines), position != -1)


def replace_once(lines: Sequence[str], final_newline: bool, old: str, new: str,
                 text: str | None = None) -> LineEdit | Occurrences:
    """The edit that replaces the one occurrence of ``old``; the occurrences instead when there is not exactly one.

    The changed span is the whole lines the occurrence touches; when the new
    text no longer ends where a line did, the next line joins the span. ``text``, when given, is the lines
    already joined as `joined` would (the caller's file text, when it is that).
    """
    text = joined(lines, final_newline) if text is None else text
    found = occurrences(text, old)
    if len(found.lines) != 1 or found.truncated:
        return found
    position = text.find(old)
    start = found.lines[0] - 1
    head = _line_start(text, position)
    end_offset = position + len(old)
    tail = end_offset if end_offset == len(text) or (end_offset > head and text[end_offset - 1] == "\n") \
        else _next_line_start(text, end_offset)
    middle = text[head:position] + new + text[position + len(old) : tail]
    if middle and not middle.endswith("\n") and tail < len(text):
        tail = _next_line_start(text, tail)
        middle = text[head:position] + new + text[position + len(old) : tail]
    end = start + text.count("\n", head, tail) + (1 if tail == len(text) and not text.endswith("\n") else 0)
    return LineEdit(start, end, tuple(_split(middle)), _final_newline(text, head, tail, middle, final_newline))


def _final_newline(text: str, head: int, tail: int, middle: str, final_newline: bool) -> bool | None:
    """Whether the file ends with a line break after the edit, when that changes (None: as before). The new end is
    the edit's own text, or, when the edit removes the last line, the line before it, whose break stays."""
    if tail != len(text):
        return None
    end = middle or text[:head]
    return None if not end or end.endswith("\n") == final_newline else not final_newline


def insert_after(line: int, new: str) -> LineEdit:
    """Insert ``new`` (as whole lines) after 1-based line ``line``; 0 puts it at the top. An empty ``new`` is one
    empty line."""
    return LineEdit(line, line, tuple(_split(new if new.endswith("\n") else new + "\n")))


def numbered(lines: Sequence[str], first: int = 1) -> str:
    """Lines with their 1-based numbers, as `cat -n` prints them (a style the planner strips when copied back)."""
    return "".join(f"{number:6}\t{line}\n" for number, line in enumerate(lines, start=first))


def cut_view(shown: str, limit: int) -> str:
    """A view's text cut to at most ``limit`` characters at a line boundary, saying so (the text editor tool's
    `max_characters`)."""
    if len(shown) <= limit:
        return shown
    cut = shown[:limit].rsplit("\n", 1)[0] + "\n" if "\n" in shown[:limit] else ""
    return cut + f"[output cut at {limit} characters: view a smaller `view_range`]\n"


def snippet(lines: Sequence[str], start: int, count: int) -> str:
    """The changed lines ``[start, start + count)`` with a few lines around them, numbered."""
    first = max(0, start - SNIPPET_CONTEXT)
    last = min(len(lines), start + count + SNIPPET_CONTEXT)
    return numbered(lines[first:last], first + 1)


def at_lines(numbers: Sequence[int]) -> str:
    """`line 3`, `lines 3 and 9`, `lines 3, 9 and 12` (each line once); past MAX_LISTED_LINES, how many more."""
    distinct = list(dict.fromkeys(numbers))
    return ("line " if len(distinct) == 1 else "lines ") + _listed(distinct)


def _listed(numbers: Sequence[int]) -> str:
    shown = [str(n) for n in numbers[:MAX_LISTED_LINES]]
    text = ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else "".join(shown)
    more = len(numbers) - len(shown)
    return text + (f" and {more} more" if more else "")


def _line_start(text: str, position: int) -> int:
    return text.rfind("\n", 0, position) + 1


def _next_line_start(text: str, position: int) -> int:
    newline = text.find("\n", position)
    return len(text) if newline == -1 else newline + 1


def _split(text: str) -> list[str]:
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts
