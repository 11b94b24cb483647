"""One line and one tiny example per edit format, for `editblocks formats` and the docs.

The examples of marker formats are rendered from real blocks, so they always parse back; the front-ends'
examples are written out (a test parses each one).
"""

from __future__ import annotations

from typing import Final

from editblocks.model import BlockKind, EditBlock, Format
from editblocks.parsing.render import render
from editblocks.record import Record


class FormatInfo(Record):
    __slots__ = ("format", "summary", "example")
    format: Final[Format]
    summary: Final[str]
    example: Final[str]

    def __init__(self, format: Format, summary: str, example: str) -> None:
        self.format = format
        self.summary = summary
        self.example = example


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
    Format.ORIGINAL_UPDATED: "aider's first markers: like diff, with <<<<<<< ORIGINAL (or <<<<<<< HEAD) and "
                             ">>>>>>> UPDATED (or >>>>>>> updated); auto reads them as diff",
    Format.CLINE: "Cline's replace_in_file tool call: <path> and <diff> elements around ------- SEARCH / ======= / "
                  "+++++++ REPLACE blocks (auto detects it)",
    Format.ROO: "Roo Code's apply_diff tool call: <path> and <diff> (or <args><file>…<content>) around SEARCH/REPLACE "
                "blocks with :start_line: hints (auto detects it)",
    Format.ZED: "Zed's edits: the path, then <edits> with <old_text> … </old_text> <new_text> … </new_text> pairs "
                "(<old_text line=N> hints the line; auto detects it)",
    Format.V4A: "OpenAI's apply_patch: *** Begin Patch, Add/Update/Delete File (and Move to), hunks with @@ anchor "
                "lines and ' '/-/+ lines, *** End Patch (auto detects it)",
    Format.UDIFF: "a unified diff (git diff, diff -u, or hunks with bare @@ ... @@): --- a/path, +++ b/path, hunks "
                  "found by their content (auto detects it)",
    Format.WHOLE: "path on its own line, then the file's complete new content in a fence",
}
_FRONT_END_EXAMPLES = {
    Format.V4A: "*** Begin Patch\n*** Update File: src/app.py\n@@ def total(items):\n-    return sum(items)\n"
                "+    return sum(items, start=0)\n*** End Patch\n",
    Format.UDIFF: "--- a/src/app.py\n+++ b/src/app.py\n@@ ... @@\n def total(items):\n-    return sum(items)\n"
                  "+    return sum(items, start=0)\n",
    Format.WHOLE: "src/app.py\n```python\ndef total(items):\n    return sum(items, start=0)\n```\n",
}


def _example(fmt: Format) -> str:
    if fmt in _FRONT_END_EXAMPLES:
        return _FRONT_END_EXAMPLES[fmt]
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


def no_blocks_message(format: Format | str = Format.AUTO) -> str:
    """Say which formats were looked for, so an answer in an unexpected shape (or a wrong --format) is easy to
    tell apart from an answer that holds no edit at all."""
    fmt = Format(format)
    if fmt is Format.AUTO:
        names = ", ".join(info.format.value for info in CATALOG)
        return f"no edit blocks found: looked for every format ({names}); `editblocks formats` shows each"
    return (f"no edit blocks found in the {fmt.value} format; --format auto tries every format, and "
            "`editblocks formats` shows each")
