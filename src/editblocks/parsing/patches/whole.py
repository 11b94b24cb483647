"""Whole-file answers (aider's `whole` format): a path line, then the file's complete new content in a fence.

Each fenced block with a path (on the line before the fence, or on the
fence line itself) becomes a `whole` block: the file is replaced, or
created. A fence in a shell language with no path before it holds shell
suggestions (so does a `git rm` request in backticks); any other fence
with no path is a snippet and is skipped with a warning. A fence that is
never closed (a cut-short answer) yields nothing for its file. Whether the
content leaves code out (`# ... rest of the code ...`) is decided against
the file when planning. One forward pass: linear, never raises.
"""

from __future__ import annotations

from collections.abc import Collection

from editblocks.model import BlockKind, Format, ParseResult, ShellSuggestion
from editblocks.parsing.fences import Fence, inline_commands, open_fence, shell_commands
from editblocks.parsing.filenames import path_from_line, path_in_fence_info
from editblocks.parsing.patches.common import Collector, joined


def parse_whole(text: str, known_files: Collection[str] | None = None) -> ParseResult:
    """Every file the answer gives in full; never raises."""
    out = Collector(Format.WHOLE)
    previous = ""  # the last non-blank line outside fences
    fence: Fence | None = None
    path: str | None = None
    start = 0
    content: list[str] = []
    shell_lines: list[tuple[int, str]] | None = None  # the lines of an open shell fence with no path before it
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        stripped = line.strip()
        if fence is not None:
            if fence.is_closed_by(stripped):
                if path is not None:
                    out.block(path, "", joined(content), BlockKind.WHOLE, start)
                elif shell_lines is not None:
                    out.shell += [ShellSuggestion(command, at)
                                  for at, command in shell_commands(shell_lines, fence.is_transcript)]
                fence, path, content, shell_lines = None, None, [], None
            elif path is not None:
                content.append(line)
            elif shell_lines is not None:
                shell_lines.append((number, line))
            continue
        opened = open_fence(stripped) if stripped[:1] in "`~<" else None
        if opened is None:
            if stripped:
                previous = stripped
                out.shell += [ShellSuggestion(command, number) for command in inline_commands(line)]
            continue
        fence, start, content = opened, number, []
        named = path_in_fence_info(opened.info, known_files) or path_from_line(previous, known_files)
        path = named.path if named is not None else None
        previous = ""
        if path is None and opened.is_shell:
            shell_lines = []
        elif path is None:
            out.warn(number, f"the fenced block at line {number} has no file path on the line before it; ignored")
    if fence is not None and path is not None:
        out.error(start, f"the fenced content of {path} from line {start} is never closed (answer cut short?); "
                         f"nothing is applied to {path}")
    return out.result()
