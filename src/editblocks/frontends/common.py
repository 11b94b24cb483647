"""What the patch front-ends share: turning hunk lines into blocks, and collecting diagnostics.

A hunk is the lines a file keeps (context), loses (removed) and gains
(added); as a block its old text is context + removed and its new text
context + added, in the order the hunk gives them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from editblocks.model import BlockKind, Diagnostic, EditBlock, Format, ParseResult, Scope, Severity, ShellSuggestion


def joined(lines: Iterable[str]) -> str:
    """Lines as block text: each ended by a newline (the empty text for no lines)."""
    return "".join(line + "\n" for line in lines)


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
        self.blocks.append(EditBlock(path, "", old, new, "", kind, self.format, line, line_hint=line_hint,
                                     scope=scope, move_to=move_to))

    def withdraw(self, count: int) -> None:
        """Drop every block added after the first ``count`` (a malformed file section writes nothing)."""
        del self.blocks[count:]

    def result(self) -> ParseResult:
        self.diagnostics.sort(key=lambda d: d.line)
        return ParseResult(self.format.value, tuple(self.blocks), tuple(self.shell), tuple(self.diagnostics))
