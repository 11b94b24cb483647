"""What the patch front-ends share: turning hunk lines into blocks, and collecting diagnostics.

A hunk is the lines a file keeps (context), loses (removed) and gains
(added); as a block its old text is context + removed and its new text
context + added, in the order the hunk gives them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from editblocks.model import BlockKind, Diagnostic, EditBlock, Format, ParseResult, Scope, Severity, ShellSuggestion


def joined(lines: Iterable[str]) -> str:
    """Lines as block text: each ended by a newline (the empty text for no lines)."""
    return "".join(line + "\n" for line in lines)


_ADDED_LINE = re.compile(r"\n\+[^\n]*")
_REMOVED_LINE = re.compile(r"\n-[^\n]*")


def split_run(run: str) -> tuple[str, str]:
    """A run of hunk lines (each starting with ` `, `-` or `+`, or empty) as its old and its new text.

    The lines of the other side are cut out (a regular expression that meets only them), then every
    prefix is made a space and the spaces dropped with two `str.replace` calls: after a newline the next
    character is always a prefix, so nothing else is touched, at the speed of a copy.
    """
    padded = "\n" + run
    old = _ADDED_LINE.sub("", padded) if "\n+" in padded else padded
    new = _REMOVED_LINE.sub("", padded) if "\n-" in padded else padded
    return old.replace("\n-", "\n ").replace("\n ", "\n")[1:], new.replace("\n+", "\n ").replace("\n ", "\n")[1:]


def lf_only(text: str) -> str:
    """``text`` with CRLF read as LF; most answers hold no CR, and looking for one is cheaper than replacing."""
    return text.replace("\r\n", "\n") if "\r" in text else text


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
              line_hint: int | None = None, move_to: str | None = None) -> None:
        # Positional arguments: a patch can hold thousands of hunks, and keywords double the constructor's cost.
        self.blocks.append(EditBlock(path, "", old, new, "", kind, self.format, line, (), None, line_hint, scope,
                                     move_to))

    def withdraw(self, count: int) -> None:
        """Drop every block added after the first ``count`` (a malformed file section writes nothing)."""
        del self.blocks[count:]

    def result(self) -> ParseResult:
        self.diagnostics.sort(key=lambda d: d.line)
        return ParseResult(self.format.value, tuple(self.blocks), tuple(self.shell), tuple(self.diagnostics))
