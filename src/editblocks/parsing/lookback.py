"""Which file a block edits: the last few lines before its start marker, or the previous block's path.

Kept apart from the parser because it is a job of its own with its own
memory: the recent lines outside blocks (plain runs and fence lines), a cache
of path lines already read (models repeat the same path before many blocks),
and the previous block's path and format to carry over when a block has no
path line of its own.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection

from editblocks.model import Format
from editblocks.parsing.filenames import (
    PathLine,
    is_file_label,
    mentions_path,
    path_from_line,
    path_in_fence_info,
    resolve_known,
)
from editblocks.parsing.markers import MarkerKind
from editblocks.parsing.wrappers import WRAPPER_FORMATS, is_wrapper_line, path_element, wrapper_tag

LOOKBACK_LINES = 6
_PATH_CACHE_LIMIT = 256

PathChoice = tuple[str | None, Format, str]  # the path, the block's format, a hint for a missing path
_SHARED_PATH_CACHE: dict[str, PathLine | None] = {}
_UNREAD = PathLine("", False)  # a line not in the cache yet
_SHARED_FENCE_CACHE: dict[str, PathLine | None] = {}
_SEARCH_START = MarkerKind.SEARCH_START
_OLD_TEXT_START = MarkerKind.OLD_TEXT_START


class PathLookback:
    """Remembers the lines read outside blocks and finds the path of the next block from them."""

    def __init__(self, format: Format, known: Collection[str] | None) -> None:
        self._format = format
        self._known = known
        # (lines, None) for plain lines, one or a run of them joined by newlines; (line, fence info) for a fence line.
        # The parser appends to it directly, and keeps ``inside_fence`` (whether the last fence line left a fence open).
        self.recent: deque[tuple[str, str | None]] = deque(maxlen=LOOKBACK_LINES)
        self.inside_fence = False
        # Without known files a line's reading depends on nothing else, so every parser shares one cache.
        self._path_cache = _SHARED_PATH_CACHE if known is None else {}
        self._fence_cache = _SHARED_FENCE_CACHE if known is None else {}
        self._last_path: str | None = None
        self._last_format: Format = Format.DIFF
        self.wrapper: Format | None = None  # the dialect of the tool call's XML the parser is in, if any

    def path_for_block(self, start: MarkerKind) -> PathChoice:
        """The path of the block that ``start`` opens; the lines looked back over are used up."""
        choice = self._look_back(start)
        self.recent.clear()
        return choice

    def _look_back(self, start: MarkerKind) -> PathChoice:
        """Look back over the last few lines for the block's path (nearest non-fence line); a path found is
        remembered, to carry over to a block without one."""
        crossed_fence = False
        left = LOOKBACK_LINES
        for lines, fence_info in reversed(self.recent):
            if fence_info is not None:
                found = self._fence_cache.get(fence_info, _UNREAD)
                if found is _UNREAD:
                    found = self._fence_path(fence_info)
                if found is not None:
                    fmt = self._block_format(start, Format.DIFF_FENCED, found.labelled)
                    self._last_path, self._last_format = found.path, fmt
                    return found.path, fmt, ""
                crossed_fence = True
                left -= 1
            else:
                pieces = [lines]
                if "\n" in lines:  # a run of lines: its last one decides, unless it is blank (most runs end in a path)
                    last = lines[lines.rfind("\n") + 1 :]
                    pieces = [last] if last and not last.isspace() else lines.rsplit("\n", left)[-left:]
                for line in reversed(pieces):
                    stripped = line.strip()
                    if not stripped or is_wrapper_line(stripped):
                        continue
                    found = self._path_cache.get(stripped, _UNREAD)
                    if found is _UNREAD:
                        found = self._path_line(stripped)
                    if found is not None:
                        style = Format.DIFF if crossed_fence or not self.inside_fence else Format.DIFF_FENCED
                        if (start is _SEARCH_START and not found.labelled and self._format is Format.AUTO
                                and self.wrapper is None):
                            fmt = style  # what `_block_format` says, in the common case
                        else:
                            fmt = self._block_format(start, style, found.labelled)
                        self._last_path, self._last_format = found.path, fmt
                        return found.path, fmt, ""
                    return self._carry_over(start, stripped)
                left -= len(pieces)
            if left <= 0:
                break
        return self._carry_over(start, "")

    def wrapper_line(self, stripped: str) -> None:
        """A line outside blocks that starts with `<`: an agent's XML wrapper around blocks opens or closes."""
        tag = wrapper_tag(stripped)
        if tag is not None and tag[0] in WRAPPER_FORMATS:
            self.wrapper = None if tag[1] else WRAPPER_FORMATS[tag[0]]

    def _path_line(self, stripped: str) -> PathLine | None:
        """Read a path line and cache its reading: models repeat the same path line before many blocks."""
        if len(self._path_cache) >= _PATH_CACHE_LIMIT:
            self._path_cache.clear()
        element = path_element(stripped) if stripped[:1] == "<" else None
        found = self._path_cache[stripped] = path_from_line(element if element is not None else stripped, self._known)
        return found

    def _fence_path(self, info: str) -> PathLine | None:
        """Read a path on a fence line and cache its reading (most fence lines say only ```` ```python ````)."""
        if len(self._fence_cache) >= _PATH_CACHE_LIMIT:
            self._fence_cache.clear()
        found = self._fence_cache[info] = path_in_fence_info(info, self._known)
        return found

    def _block_format(self, start: MarkerKind, style: Format, labelled: bool) -> Format:
        if self._format is not Format.AUTO:
            return self._format
        if start is MarkerKind.ANCHORED_START:
            return Format.ANCHORED
        if start is MarkerKind.GUILLEMET_START:
            return Format.GUILLEMET
        if start is MarkerKind.OLD_TEXT_START:
            return Format.ZED
        if start is _SEARCH_START and self.wrapper in (Format.CLINE, Format.ROO):
            return self.wrapper
        if start is MarkerKind.NEW_FILE_START or labelled:
            return Format.SEARCH_REPLACE
        return style

    def _carry_over(self, start: MarkerKind, prose: str) -> PathChoice:
        """No path line: reuse the previous block's path, unless the prose names another file."""
        previous = self._last_path
        if prose:  # (none when a block follows a block at once, as in a flood of start markers)
            if is_file_label(prose):
                return None, self._format, " (the `File:` line before it names no usable path: write the path alone)"
            named = {resolve_known(p, self._known, creating=False) for p in mentions_path(prose)}
            if named and previous not in named:
                shown = ", ".join(f"`{p}`" for p in sorted(named))
                return None, self._format, (f" (the line before it mentions {shown}: put the path alone on its own "
                                            "line)")
        if previous is None:
            hint = " (put the file's path alone on the line before `<edits>`)" if start is _OLD_TEXT_START else ""
            return None, self._block_format(start, Format.DIFF, False), hint
        fmt = self._last_format if self._format is Format.AUTO else self._format
        if self._format is Format.AUTO and start is not MarkerKind.SEARCH_START:
            fmt = self._block_format(start, fmt, False)
        self._last_format = fmt
        return previous, fmt, ""
