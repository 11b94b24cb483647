"""Printing a block back as the text of its format, so that `parse(render(block))` gives the block again.

When the block's own text holds lines that would read as markers, the block
is written with longer (strict) markers, which the parser then reads by
length; when it holds fence lines, the fence is made longer than any of them.
A path that would not read back as itself (spaces, a leading `#`) is written
in backticks, and a text not ending in a newline gets one, since every block
text is made of whole lines.

A patch hunk is written with the lines its old and new text share at the
start and end as kept lines and the rest as removed and added lines; any
such split reads back as the same old and new text.
"""

from __future__ import annotations

from dataclasses import replace

from editblocks.model import FRONT_END_FORMATS, BlockKind, EditBlock, Format
from editblocks.parsing.filenames import path_from_line
from editblocks.parsing.markers import MAX_RUN, STANDARD_RUN, Marker, MarkerKind, classify, classify_tag

_LANGUAGES = {
    "py": "python", "js": "javascript", "jsx": "jsx", "ts": "typescript", "tsx": "tsx", "md": "markdown",
    "json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml", "rs": "rust", "go": "go", "java": "java",
    "c": "c", "h": "c", "cpp": "cpp", "hpp": "cpp", "cs": "csharp", "rb": "ruby", "php": "php", "sh": "bash",
    "html": "html", "css": "css", "sql": "sql", "kt": "kotlin", "swift": "swift", "txt": "text",
}
_GUILLEMET_MARKERS = frozenset({MarkerKind.GUILLEMET_START, MarkerKind.GUILLEMET_SEPARATOR, MarkerKind.GUILLEMET_END})


def language_for(path: str) -> str:
    """The fence language tag for a file, from its extension ("" when unknown)."""
    name = path.rsplit("/", 1)[-1]
    return _LANGUAGES.get(name.rsplit(".", 1)[-1].lower(), "") if "." in name else ""


def render(block: EditBlock, fence: tuple[str, str] = ("```", "```")) -> str:
    """The response text for one block, in the block's own format."""
    if block.format in FRONT_END_FORMATS:
        return _render_patch(block)
    block = replace(block, leading=_whole_lines(block.leading), old=_whole_lines(block.old),
                    new=_whole_lines(block.new), trailing=_whole_lines(block.trailing))
    if block.format is Format.GUILLEMET:
        return _guillemet(block)
    if block.format is Format.ZED:
        return _zed(block)
    run = _marker_length(block)
    if block.format is Format.ANCHORED:
        return _anchored(block, run)
    if block.format is Format.SEARCH_REPLACE:
        return _path_line(block.path, "### File: ") + "\n" + _search_replace_body(block, run)
    if block.format is Format.CLINE:
        return (f"<replace_in_file>\n<path>{_path_line(block.path)}</path>\n<diff>\n{'-' * run} SEARCH\n{block.old}"
                f"{'=' * run}\n{block.new}{'+' * run} REPLACE\n</diff>\n</replace_in_file>\n")
    if block.format is Format.ROO:
        hint = f":start_line:{block.line_hint}\n-------\n" if block.line_hint is not None else ""
        return (f"<apply_diff>\n<path>{_path_line(block.path)}</path>\n<diff>\n{'<' * run} SEARCH\n{hint}{block.old}"
                f"{'=' * run}\n{block.new}{'>' * run} REPLACE\n</diff>\n</apply_diff>\n")
    opening, closing = _fence_for(block, fence)
    body = _search_replace_body(block, run)
    if block.format in (Format.DIFF_FENCED, Format.EDITOR_DIFF_FENCED):
        return f"{opening}\n{_path_line(block.path)}\n{body}{closing}\n"
    return f"{_path_line(block.path)}\n{opening}\n{body}{closing}\n"


def _whole_lines(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _path_line(path: str, prefix: str = "") -> str:
    """The path as written on its line: plain when it reads back as itself, else in backticks."""
    for written in (path, f"`{path}`"):
        found = path_from_line(prefix + written)
        if found is not None and found.path == path:
            return prefix + written
    return prefix + path


def _search_replace_body(block: EditBlock, run: int) -> str:
    if block.kind is BlockKind.CREATE and block.format is Format.SEARCH_REPLACE and not block.old:
        return f"{'<' * run} NEW_FILE\n{block.new}{'>' * run} NEW_FILE\n"
    if block.format is Format.ORIGINAL_UPDATED:
        return f"{'<' * run} ORIGINAL\n{block.old}{'=' * run}\n{block.new}{'>' * run} UPDATED\n"
    return f"{'<' * run} SEARCH\n{block.old}{'=' * run}\n{block.new}{'>' * run} REPLACE\n"


def _zed(block: EditBlock) -> str:
    if any(classify_tag(line) is not None for text in _texts(block) for line in text.split("\n")):
        raise ValueError("a Zed edit cannot hold lines that are its own tags")
    tag = f"<old_text line={block.line_hint}>" if block.line_hint is not None else "<old_text>"
    return (f"{_path_line(block.path)}\n<edits>\n{tag}\n{block.old}</old_text>\n<new_text>\n{block.new}"
            "</new_text>\n</edits>\n")


def _anchored(block: EditBlock, run: int) -> str:
    dash, separator = "-" * run, "=" * run
    return (
        f"{_path_line(block.path)}\n{'<' * run} EDIT\n{block.leading}{dash}\n{block.old}{separator}\n"
        f"{block.new}{dash}\n{block.trailing}{'>' * run}\n"
    )


def _guillemet(block: EditBlock) -> str:
    if any(_marker_in(text, _GUILLEMET_MARKERS) for text in _texts(block)):
        raise ValueError("a guillemet block cannot hold lines that are guillemet markers")
    return (f"{_path_line(block.path)}\n««« EDIT\n{block.leading}{block.old}"
            f"═══════ REPL\n{block.leading}{block.new}»»» EDIT END\n")


def _marker_length(block: EditBlock) -> int:
    """7 normally; 9 or 8 (strict, read by length) when the text holds marker-like lines."""
    lengths = {marker.length for text in _texts(block) for marker in _markers(text)}
    if not lengths:
        return STANDARD_RUN
    for run in (MAX_RUN, MAX_RUN - 1):
        if run not in lengths:
            return run
    raise ValueError("the block's text holds marker lines of every strict length; it cannot be written unambiguously")


def _fence_for(block: EditBlock, fence: tuple[str, str]) -> tuple[str, str]:
    opening, closing = fence
    language = language_for(block.path)
    if opening.startswith("`"):
        longest = max((_backtick_run(line) for text in _texts(block) for line in text.split("\n")), default=0)
        if longest >= len(opening):
            opening = closing = "`" * (longest + 1)
    return opening + language, closing


def _backtick_run(line: str) -> int:
    stripped = line.strip()
    return len(stripped) - len(stripped.lstrip("`"))


def _texts(block: EditBlock) -> tuple[str, ...]:
    return block.leading, block.old, block.new, block.trailing


def _markers(text: str) -> list[Marker]:
    return [marker for line in text.split("\n") if (marker := classify(line)) is not None]


def _marker_in(text: str, kinds: frozenset[MarkerKind]) -> bool:
    return any(marker.kind in kinds for marker in _markers(text))


# --- patches and whole files ---------------------------------------------------------


def _render_patch(block: EditBlock) -> str:
    """The text of one V4A, unified-diff or whole-file block, in its own format."""
    if block.format is Format.WHOLE:
        return _whole_file(block)
    if block.format is Format.V4A:
        return "*** Begin Patch\n" + _v4a_section(block) + "*** End Patch\n"
    return _unified(block)


def _patch_lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text else []


def _hunk_lines(old: str, new: str) -> list[str]:
    before, after = _patch_lines(old), _patch_lines(new)
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
        return f"*** Add File: {block.path}\n" + "".join(f"+{line}\n" for line in _patch_lines(block.new))
    if block.kind is BlockKind.DELETE:
        return f"*** Delete File: {block.path}\n"
    if block.kind is BlockKind.MOVE:
        return f"*** Update File: {block.path}\n*** Move to: {block.move_to}\n"
    if block.kind is BlockKind.MODE:
        return ""  # V4A has no mode changes
    anchors = block.scope.anchors if block.scope is not None else ()
    heads = [f"@@ {anchor}\n" for anchor in anchors] or ["@@\n"]
    end = "*** End of File\n" if block.scope is not None and block.scope.at_end else ""
    body = "".join(line + "\n" for line in _hunk_lines(block.old, block.new))
    return f"*** Update File: {block.path}\n" + "".join(heads) + body + end


def _unified(block: EditBlock) -> str:
    old, new = _patch_lines(block.old), _patch_lines(block.new)
    if block.kind is BlockKind.MOVE:
        return (f"diff --git a/{block.path} b/{block.move_to}\nsimilarity index 100%\n"
                f"rename from {block.path}\nrename to {block.move_to}\n")
    if block.kind is BlockKind.MODE:
        return f"diff --git a/{block.path} b/{block.path}\nnew mode {block.mode or 0:o}\n"
    if block.kind is BlockKind.CREATE:
        header = f"--- /dev/null\n+++ b/{block.path}\n"
        return header + (f"@@ -0,0 +1,{len(new)} @@\n" + "".join(f"+{line}\n" for line in new) if new else "")
    if block.kind is BlockKind.DELETE:
        header = f"--- a/{block.path}\n+++ /dev/null\n"
        return header + (f"@@ -1,{len(old)} +0,0 @@\n" + "".join(f"-{line}\n" for line in old) if old else "")
    start = block.line_hint
    head = f"@@ -{start},{len(old)} +{start},{len(new)} @@\n" if start else "@@ ... @@\n"
    if start and block.scope is not None and block.scope.exact:
        head = f"@@ -{start - 1},0 +{start},{len(new)} @@\n"
    body = "".join(line + "\n" for line in _hunk_lines(block.old, block.new))
    return f"--- a/{block.path}\n+++ b/{block.path}\n{head}{body}"


def _whole_file(block: EditBlock) -> str:
    fence = "```"
    while any(line.lstrip().startswith(fence) for line in _patch_lines(block.new)):
        fence += "`"
    return f"{block.path}\n{fence}\n{block.new}{fence}\n"
