"""Printing a front-end block back as patch or whole-file text, so that parsing the text gives the block again.

A hunk is written with the lines its old and new text share at the start
and end as kept lines and the rest as removed and added lines; any such
split reads back as the same old and new text.
"""

from __future__ import annotations

from editblocks.model import BlockKind, EditBlock, Format


def render_front_end(block: EditBlock) -> str:
    """The text of one V4A, unified-diff or whole-file block, in its own format."""
    if block.format is Format.WHOLE:
        return _whole(block)
    if block.format is Format.V4A:
        return "*** Begin Patch\n" + _v4a_section(block) + "*** End Patch\n"
    return _unified(block)


def _lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text else []


def _hunk_lines(old: str, new: str) -> list[str]:
    before, after = _lines(old), _lines(new)
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    kept_head, kept_tail = before[:head], before[len(before) - tail :]
    removed, added = before[head : len(before) - tail], after[head : len(after) - tail]
    return ([" " + line for line in kept_head] + ["-" + line for line in removed] + ["+" + line for line in added]
            + [" " + line for line in kept_tail])


def _v4a_section(block: EditBlock) -> str:
    if block.kind is BlockKind.CREATE:
        return f"*** Add File: {block.path}\n" + "".join(f"+{line}\n" for line in _lines(block.new))
    if block.kind is BlockKind.DELETE:
        return f"*** Delete File: {block.path}\n"
    if block.kind is BlockKind.MOVE:
        return f"*** Update File: {block.path}\n*** Move to: {block.move_to}\n"
    anchors = block.scope.anchors if block.scope is not None else ()
    heads = [f"@@ {anchor}\n" for anchor in anchors] or ["@@\n"]
    end = "*** End of File\n" if block.scope is not None and block.scope.at_end else ""
    body = "".join(line + "\n" for line in _hunk_lines(block.old, block.new))
    return f"*** Update File: {block.path}\n" + "".join(heads) + body + end


def _unified(block: EditBlock) -> str:
    old, new = _lines(block.old), _lines(block.new)
    if block.kind is BlockKind.MOVE:
        return (f"diff --git a/{block.path} b/{block.move_to}\nsimilarity index 100%\n"
                f"rename from {block.path}\nrename to {block.move_to}\n")
    if block.kind is BlockKind.CREATE:
        header = f"--- /dev/null\n+++ b/{block.path}\n"
        return header + (f"@@ -0,0 +1,{len(new)} @@\n" + "".join(f"+{line}\n" for line in new) if new else "")
    if block.kind is BlockKind.DELETE:
        header = f"--- a/{block.path}\n+++ /dev/null\n"
        return header + (f"@@ -1,{len(old)} +0,0 @@\n" + "".join(f"-{line}\n" for line in old) if old else "")
    start = block.line_hint
    head = f"@@ -{start},{len(old)} +{start},{len(new)} @@\n" if start else "@@ ... @@\n"
    body = "".join(line + "\n" for line in _hunk_lines(block.old, block.new))
    return f"--- a/{block.path}\n+++ b/{block.path}\n{head}{body}"


def _whole(block: EditBlock) -> str:
    fence = "```"
    while any(line.lstrip().startswith(fence) for line in _lines(block.new)):
        fence += "`"
    return f"{block.path}\n{fence}\n{block.new}{fence}\n"
