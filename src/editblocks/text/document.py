"""A file's text as lines plus each line's own ending.

Matching works on ending-free lines; writing puts every untouched line back
with the ending it had, and gives a changed or added line the ending of the
line it replaces (or stands next to). That is how mixed CRLF/LF files survive
an edit byte for byte outside the edited span, and keep each part's style
inside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Final

from editblocks.record import Record

LF = "\n"
CRLF = "\r\n"


class Document(Record):
    __slots__ = ("lines", "endings")
    lines: Final[tuple[str, ...]]
    endings: Final[tuple[str, ...]]

    def __init__(self, lines: tuple[str, ...], endings: tuple[str, ...]) -> None:
        self.lines = lines
        self.endings = endings

    @classmethod
    def from_text(cls, text: str) -> Document:
        lines, endings = split_lines(text)
        return cls(tuple(lines), tuple(endings))

    def to_text(self) -> str:
        return _text_of(self.lines, self.endings)

    @property
    def preferred_ending(self) -> str:
        for ending in self.endings:
            if ending:
                return ending
        return LF

    @property
    def final_newline(self) -> bool:
        return not self.endings or self.endings[-1] != ""

    def splice(self, start: int, end: int, new_lines: Sequence[str], sources: Sequence[int | None]) -> Document:
        """A copy with lines ``[start, end)`` replaced by ``new_lines`` (see `TextBuffer.splice`)."""
        buffer = TextBuffer(self)
        buffer.splice(start, end, new_lines, sources)
        return buffer.document()

    @classmethod
    def new_file(cls, text: str) -> Document:
        """A created file: the text with its own line endings (LF from a model's answer) and a final newline."""
        doc = cls.from_text(text)
        if doc.lines and not doc.final_newline:
            doc = Document(doc.lines, doc.endings[:-1] + (doc.preferred_ending,))
        return doc


def split_lines(text: str) -> tuple[list[str], list[str]]:
    """The text's lines and each one's ending (a CR before a line's LF is part of its ending; a last line without
    a line break has the ending "")."""
    if not text:
        return [], []
    lines = text.split(LF)
    unterminated = lines.pop()  # "" when the text ends with a line break; a CR here is text, not an ending
    if "\r" not in text:
        endings = [LF] * len(lines)
    else:
        endings = [CRLF if line.endswith("\r") else LF for line in lines]
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if unterminated:
        lines.append(unterminated)
        endings.append("")
    return lines, endings


class TextBuffer:
    """A document being edited in place, so a splice costs the size of the edit, not a copy of the file.

    The preferred ending and the final-newline state are the file's as it was
    read: edits never change the file's style.
    """

    def __init__(self, document: Document | str) -> None:
        """``document``, or a file's text (split straight into the lists edited here: for a big file, each copy of
        the lines costs a pointer per line)."""
        if isinstance(document, str):
            self.lines, self.endings = split_lines(document)
        else:
            self.lines, self.endings = list(document.lines), list(document.endings)
        self.preferred = next((ending for ending in self.endings if ending), LF)
        self.final_newline = not self.endings or self.endings[-1] != ""

    def splice(self, start: int, end: int, new_lines: Sequence[str], sources: Sequence[int | None]) -> None:
        """Replace lines ``[start, end)`` by ``new_lines``.

        ``sources[i]`` names the old line that ``new_lines[i]`` reproduces, so it
        keeps that line's ending; any other new line takes the ending of the
        replaced line at its position (the last one past the end), or of the
        line before the span when nothing is replaced. A file without a final
        newline keeps having none.
        """
        preferred, endings = self.preferred, self.endings
        replaced = endings[start:end] or endings[max(0, start - 1) : start] or [preferred]
        last = len(replaced) - 1
        new_endings = [
            endings[source] if source is not None else replaced[min(position, last)]
            for position, source in enumerate(sources)
        ]
        new_endings = [ending or preferred for ending in new_endings]
        self.replace_lines(start, end, new_lines)
        endings[start:end] = new_endings
        if not self.final_newline and endings:
            last = len(endings) - 1
            for position in (start - 1, start + len(new_lines) - 1):
                if 0 <= position < last and not endings[position]:
                    endings[position] = preferred
            endings[last] = ""

    def replace_lines(self, start: int, end: int, new_lines: Sequence[str]) -> None:
        """Put ``new_lines`` in place of lines ``[start, end)`` of the list itself (a subclass that keeps an index
        or a cache of the lines updates it here)."""
        self.lines[start:end] = new_lines

    def end_with_newline(self, wanted: bool) -> None:
        """Give the file a final newline or take it away: only for an edit whose text says so at the end."""
        if self.lines:
            self.endings[-1] = (self.endings[-1] or self.preferred) if wanted else ""
            self.final_newline = wanted

    def document(self) -> Document:
        return Document(tuple(self.lines), tuple(self.endings))

    def to_text(self) -> str:
        return _text_of(self.lines, self.endings)


def _text_of(lines: Sequence[str], endings: Sequence[str]) -> str:
    """Lines joined with their endings; plain LF files (the common case) take the fast path, building the
    text once (joining, then adding the last newline, would hold two copies of a big file's text)."""
    if endings.count(LF) == len(endings):
        return LF.join(chain(lines, ("",))) if lines else ""
    if endings.count(LF) == len(endings) - 1 and endings and endings[-1] == "":
        return LF.join(lines)
    return "".join(line + ending for line, ending in zip(lines, endings))
