"""Whole-file answers (aider's `whole` format): a path line, then the file's complete new content in a fence.

Each fenced block with a path (on the line before the fence, or on the
fence line itself) becomes a `whole` block: the file is replaced, or
created. Fences in a shell language are suggestions, never files; a fence
with no path is a snippet and is skipped with a warning. A fence that is
never closed (a cut-short answer) yields nothing for its file. Whether the
content leaves code out (`# ... rest of the code ...`) is decided against
the file when planning. One forward pass: linear, never raises.
"""

from __future__ import annotations

from collections.abc import Collection

from editblocks.frontends.common import Collector, joined
from editblocks.model import BlockKind, Format, ParseResult
from editblocks.parsing.fences import Fence, open_fence
from editblocks.parsing.filenames import path_from_line, path_in_fence_info


def parse_whole(text: str, known_files: Collection[str] | None = None) -> ParseResult:
    """Every file the answer gives in full; never raises."""
    out = Collector(Format.WHOLE)
    previous = ""  # the last non-blank line outside fences
    fence: Fence | None = None
    path: str | None = None
    start = 0
    content: list[str] = []
    found = 0
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        stripped = line.strip()
        if fence is not None:
            if fence.is_closed_by(stripped):
                if path is not None:
                    out.block(path, "", joined(content), BlockKind.WHOLE, start)
                fence, path, content = None, None, []
            elif path is not None:
                content.append(line)
            continue
        opened = open_fence(stripped) if stripped[:1] in "`~" else None
        if opened is None:
            if stripped:
                previous = stripped
            continue
        fence, start, content = opened, number, []
        if opened.is_shell:
            path = None
            continue
        named = path_in_fence_info(opened.info, known_files) or path_from_line(previous, known_files)
        path = named.path if named is not None else None
        previous = ""
        if path is None:
            out.warn(number, f"the fenced block at line {number} has no file path on the line before it; ignored")
        else:
            found += 1
    if fence is not None and path is not None:
        out.error(start, f"the fenced content of {path} from line {start} is never closed (answer cut short?); "
                         f"nothing is applied to {path}")
    if not found:
        out.error(1, "no whole file found: write the file's path on its own line, then its complete content "
                     "in a fenced block")
    return out.result()
