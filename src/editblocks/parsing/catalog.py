"""One line and one tiny example per edit format, for `editblocks formats` and the docs.

The examples are rendered from real blocks, so they always parse back.
"""

from __future__ import annotations

from dataclasses import dataclass

from editblocks.model import BlockKind, EditBlock, Format
from editblocks.parsing.render import render


@dataclass(frozen=True)
class FormatInfo:
    format: Format
    summary: str
    example: str


_SUMMARIES = {
    Format.DIFF: "path on its own line, then a fenced <<<<<<< SEARCH / ======= / >>>>>>> REPLACE block "
                 "(fence optional)",
    Format.DIFF_FENCED: "like diff, but the path is the first line inside the fence",
    Format.EDITOR_DIFF: "parsed exactly as diff; its prompt asks for edits only, no shell commands",
    Format.EDITOR_DIFF_FENCED: "parsed exactly as diff-fenced; its prompt asks for edits only, no shell commands",
    Format.SEARCH_REPLACE: "bare SEARCH/REPLACE blocks under a `### File: path` header, plus <<<<<<< NEW_FILE blocks",
    Format.ANCHORED: "path, <<<<<<< EDIT, leading anchor, -------, old, =======, new, -------, trailing anchor, "
                     ">>>>>>>",
    Format.GUILLEMET: "path, ««« EDIT, old section, ═══════ REPL, new section, »»» EDIT END; "
                      "the shared first lines are the anchor",
}


def _example(fmt: Format) -> str:
    if fmt is Format.ANCHORED:
        block = EditBlock("src/app.py", "def total(items):\n", "    return sum(items)\n",
                          "    return sum(items, start=0)\n", "\n", BlockKind.EDIT, fmt, 2)
    elif fmt is Format.GUILLEMET:
        block = EditBlock("src/app.py", "def total(items):\n", "    return sum(items)\n",
                          "    return sum(items, start=0)\n", "", BlockKind.EDIT, fmt, 2)
    else:
        block = EditBlock("src/app.py", "", "def total(items):\n    return sum(items)\n",
                          "def total(items):\n    return sum(items, start=0)\n", "", BlockKind.EDIT, fmt, 3)
    return render(block)


CATALOG: tuple[FormatInfo, ...] = tuple(FormatInfo(fmt, _SUMMARIES[fmt], _example(fmt)) for fmt in _SUMMARIES)
