"""A file's text as lines plus each line's own ending.

Matching works on ending-free lines; writing puts every untouched line back
with the ending it had, and gives new lines the file's preferred ending (the
style of its first line break). That is how mixed CRLF/LF files survive an
edit byte for byte outside the edited span.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

LF = "\n"
CRLF = "\r\n"


@dataclass(frozen=True)
class Document:
    lines: tuple[str, ...]
    endings: tuple[str, ...]

    @classmethod
    def from_text(cls, text: str) -> Document:
        if not text:
            return cls((), ())
        raw = text.split(LF)
        unterminated = raw.pop()  # "" when the text ends with a line break; a CR here is text, not an ending
        lines: list[str] = []
        endings: list[str] = []
        for piece in raw:
            if piece.endswith("\r"):
                lines.append(piece[:-1])
                endings.append(CRLF)
            else:
                lines.append(piece)
                endings.append(LF)
        if unterminated:
            lines.append(unterminated)
            endings.append("")
        return cls(tuple(lines), tuple(endings))

    def to_text(self) -> str:
        return "".join(line + ending for line, ending in zip(self.lines, self.endings))

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
        """Replace lines ``[start, end)`` by ``new_lines``.

        ``sources[i]`` names the old line that ``new_lines[i]`` reproduces, so it
        keeps that line's ending; other new lines take the preferred ending.
        A file without a final newline keeps having none.
        """
        preferred = self.preferred_ending
        new_endings = [
            self.endings[src] or preferred if src is not None else preferred for src in sources
        ]
        lines = self.lines[:start] + tuple(new_lines) + self.lines[end:]
        endings = list(self.endings[:start]) + new_endings + list(self.endings[end:])
        if endings and not self.final_newline:
            endings = [e or preferred for e in endings]
            endings[-1] = ""
        return Document(lines, tuple(endings))

    @classmethod
    def new_file(cls, text: str) -> Document:
        """A created file: the model's text with LF endings and a final newline."""
        doc = cls.from_text(text)
        if doc.lines and not doc.final_newline:
            doc = Document(doc.lines, doc.endings[:-1] + (LF,))
        return doc
