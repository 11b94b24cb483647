"""What the patch front-ends share: turning hunk lines into blocks, and collecting diagnostics.

A hunk is the lines a file keeps (context), loses (removed) and gains
(added); as a block its old text is context + removed and its new text
context + added, in the order the hunk gives them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from editblocks.model import BlockKind, Diagnostic, EditBlock, Format, ParseResult, Scope, Severity, ShellSuggestion
from editblocks.parsing.values import edit_block


def joined(lines: Iterable[str]) -> str:
    """Lines as block text: each ended by a newline (the empty text for no lines)."""
    return "".join(line + "\n" for line in lines)


RUN_LINES = 4096
"""The most lines one regular-expression step takes as a run (a longer run is taken in several steps).

Python's regular-expression engine keeps state for every repetition of a group; past a few hundred
thousand repetitions in one match, each line costs ten times more (measured: 120k lines 3.7 ms, 240k
lines 37 ms), so one huge hunk or added file would be read superlinearly.
"""


def split_run(run: str) -> tuple[str, str, int, int, list[str]]:
    """A run of hunk lines (each starting with ` `, `-` or `+`, or empty, the last ended by a newline): its
    old text (context and removed lines), its new text (context and added lines), the number of lines
    of each, which the caller would otherwise count again, and the run's lines.

    One split and two list comprehensions: measured faster than regular-expression substitutions or
    `str.replace`, whose cost grows with every line's prefix they strip.
    """
    lines = run.split("\n")
    lines.pop()  # the empty string after the last newline
    old = [line[1:] for line in lines if line[:1] != "+"]
    new = [line[1:] for line in lines if line[:1] != "-"]
    old_text = "\n".join(old) + "\n" if old else ""
    new_text = "\n".join(new) + "\n" if new else ""
    return old_text, new_text, len(old), len(new), lines


def lf_only(text: str) -> str:
    """``text`` with CRLF read as LF; most answers hold no CR, and looking for one is cheaper than replacing."""
    return text.replace("\r\n", "\n") if "\r" in text else text


class RawLines:
    """The answer's lines as it was sent, CRLF kept: split once, and only when a created file asks for its lines'
    endings (the readers read the answer with CRLF as LF)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: list[str] | None = None

    def with_endings(self, created: str, header: int, last: int) -> str:
        """A created file's text (LF line breaks) with each line's break as the answer wrote it: lines ``header + 1``
        to ``last`` (1-based) hold its content lines (`+`, ` `, or empty), and a line that ends with CR there ends
        with CRLF. Unchanged when the ``header`` line (a patch line) itself ends with CR, the whole answer having
        come with CRLF, or when the lines do not match the text one to one."""
        if self._lines is None:
            self._lines = self._text.split("\n") if "\r\n" in self._text else []
        lines = self._lines
        if not lines or header > len(lines) or lines[header - 1].endswith("\r") or not created.endswith("\n"):
            return created
        content = [line for line in lines[header:last] if line[:1] in ("+", " ", "", "\r")]
        wanted = created.split("\n")[:-1]
        if len(content) != len(wanted) or not any(line.endswith("\r") for line in content):
            return created
        rebuilt = []
        for line, text in zip(content, wanted):
            if line.removesuffix("\r")[1:] != text:
                return created
            rebuilt.append(text + ("\r\n" if line.endswith("\r") else "\n"))
        return "".join(rebuilt)


def clean_path(raw: str) -> str:
    """A path as a patch header writes it: surrounding spaces and quotes gone, Windows separators read as `/`."""
    path = raw.strip()
    if len(path) >= 2 and path[0] == path[-1] and path[0] in "\"'`":
        path = path[1:-1]
    return path.replace("\\", "/")


@dataclass
class Collector:
    """Blocks and diagnostics of one answer; a file's blocks can be withdrawn when its section proves malformed."""

    format: Format
    blocks: list[EditBlock] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    shell: list[ShellSuggestion] = field(default_factory=list)

    def error(self, line: int, message: str) -> None:
        self.diagnostics.append(Diagnostic(Severity.ERROR, line, message))

    def warn(self, line: int, message: str) -> None:
        self.diagnostics.append(Diagnostic(Severity.WARNING, line, message))

    def block(self, path: str, old: str, new: str, kind: BlockKind, line: int, *, scope: Scope | None = None,
              line_hint: int | None = None, move_to: str | None = None, mode: int | None = None,
              marks: str = "") -> None:
        # The quick builder: a patch can hold thousands of hunks, and the dataclass constructor costs 1 µs each.
        self.blocks.append(edit_block(path, "", old, new, "", kind, self.format, line, (), None, line_hint, scope,
                                      move_to, mode, marks))

    def withdraw(self, count: int) -> None:
        """Drop every block added after the first ``count`` (a malformed file section writes nothing)."""
        del self.blocks[count:]

    def result(self) -> ParseResult:
        self.diagnostics.sort(key=lambda d: d.line)
        return ParseResult(self.format.value, tuple(self.blocks), tuple(self.shell), tuple(self.diagnostics))
