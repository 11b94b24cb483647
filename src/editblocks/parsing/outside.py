"""Lines outside blocks: fences, shell fences, reasoning sections and inline commands.

`StreamParser` hands this part every line outside blocks that its hot loop does
not take in bulk. It keeps the state those lines change — the open fence, the
lines of an open shell fence, the line a reasoning section opened at — and the
hot loop reads that state directly, so the split adds no call per line.
"""

from __future__ import annotations

from collections.abc import Collection

from editblocks.model import Format
from editblocks.parsing.assemble import BlockAssembler
from editblocks.parsing.events import EventSink
from editblocks.parsing.fences import Fence, inline_commands, open_fence, open_fence_short, shell_commands
from editblocks.parsing.lookback import PathLookback
from editblocks.parsing.markers import (
    CACHED_LINE_CHARS,
    STARTS,
    Marker,
    MarkerKind,
    classify,
    classify_short,
    classify_tag,
    is_conflict_start,
    near_marker,
)

_THINK_OPEN = ("<think>", "<thinking>", "<think ", "<thinking ")
_THINK_CLOSE = ("</think>", "</thinking>")
_FENCE_CHARS = frozenset("`~")


class OutsideLines:
    """Reads the lines outside blocks; opens a block on its start marker through the assembler."""

    def __init__(
        self,
        format: Format,
        custom_fence: tuple[str, str] | None,
        starts: Collection[MarkerKind],
        sink: EventSink,
        lookback: PathLookback,
        assembler: BlockAssembler,
        text_events: bool,
    ) -> None:
        self._format = format
        # `<<<<<<< HEAD` starts aider's first edit blocks, read under auto and their own format only
        self._conflicts = format in (Format.AUTO, Format.ORIGINAL_UPDATED)
        self._custom_fence = custom_fence
        self._starts = starts
        self._sink = sink
        self._lookback = lookback
        self._assembler = assembler
        self._text_events = text_events
        self._add_text = sink.add_text
        self.recent = lookback.recent  # the look-back's line list, appended to directly (the parser does too)
        self.fence: Fence | None = None
        self.shell_lines: list[tuple[int, str]] | None = None
        self.think_line: int | None = None

    def plain_run(self, text: str, start: int, stop: int, number: int) -> int:
        """Whole lines with nothing to act on (no marker, fence or backtick), taken in bulk; returns the new line count.

        They only matter as text events, the last few for the path look-back, and inside a shell fence as its lines.
        """
        if self._text_events:
            self._add_text(text[start:stop], number + 1)
        lines = text[start : stop - 1]
        self.recent.append((lines, None))
        if self.shell_lines is not None:
            split = lines.split("\n")
            self.shell_lines.extend(zip(range(number + 1, number + 1 + len(split)), split))
            return number + len(split)
        return number + text.count("\n", start, stop)

    def plain_line(self, line: str, number: int) -> None:
        if self._text_events:
            self._add_text(line + "\n", number)
        if self.think_line is not None:
            if any(tag in line.lower() for tag in _THINK_CLOSE):
                self.think_line = None
            return
        self.recent.append((line, None))
        if self.fence is None:
            if "`" in line:
                for command in inline_commands(line):
                    self._sink.suggest(command, number)
        elif self.shell_lines is not None:
            self.shell_lines.append((number, line))

    def special_line(self, line: str, number: int) -> None:
        """A line that could be a marker, a fence or a tag (see `markers.candidate_lines`); any other line is plain."""
        if self.think_line is not None:
            self.plain_line(line, number)
            return
        stripped = line.strip()
        if stripped[:1] in _FENCE_CHARS:  # a fence line (the most common case here) is no marker, tag or near miss
            if not self.fence_line(line, stripped, number):
                self.plain_line(line, number)
            return
        marker = classify_short(line, 0) if len(line) <= CACHED_LINE_CHARS else classify(line)
        conflict = False
        if marker is None and stripped[:1] == "<":
            marker = classify_tag(stripped)
            if marker is None and self._conflicts and not self._assembler.rereading and is_conflict_start(stripped):
                marker, conflict = Marker(MarkerKind.SEARCH_START, len(stripped) - len(stripped.lstrip("<"))), True
            if marker is None:
                self._lookback.wrapper_line(stripped)
        if marker is not None:
            if marker.kind in self._starts:
                self.shell_lines = None  # a shell-tagged fence holding an edit block is an edit, not commands
                self._assembler.open(marker, number, line, conflict=conflict)
                return
            if marker.kind in STARTS:
                self._sink.warn(number, f"{marker.kind.value} marker ignored: the response format is "
                                f"{self._format.value}")
            else:
                self._assembler.stray(marker, number, self.fence is not None)
        if self.fence_line(line, stripped, number):
            return
        if self.fence is None and stripped.lower().startswith(_THINK_OPEN):
            if not any(tag in stripped.lower() for tag in _THINK_CLOSE):
                self.think_line = number
                if self._text_events:
                    self._add_text(line + "\n", number)
                return
        note = near_marker(line) if marker is None else None
        if note:
            self._sink.warn(number, note)
        self.plain_line(line, number)

    def finish(self) -> None:
        """At the end of the response: an open shell fence still yields its commands; an open reasoning section is
        reported."""
        self._finish_shell_fence()
        if self.think_line is not None:
            self._sink.warn(self.think_line, f"reasoning section opened at line {self.think_line} is never closed; "
                            "any edit blocks after it were ignored")

    def fence_line(self, line: str, stripped: str, number: int) -> bool:
        """Track fences; any fence-looking line is remembered as such for the path look-back. False: not a fence
        line (the caller reads it as a plain line)."""
        fence = self.fence
        if fence is not None and (stripped == fence.closing or fence.is_closed_by(stripped)):
            if self.shell_lines is not None:
                self._finish_shell_fence()
            self.fence = None
            info = ""
        else:
            custom = self._custom_fence
            looks_like = (open_fence_short if len(stripped) <= CACHED_LINE_CHARS else open_fence)(stripped, custom)
            if looks_like is None:
                return False
            if fence is None:
                self.fence = looks_like
                self.shell_lines = [] if looks_like.is_shell else None
                self._assembler.fences_opened += 1
            info = looks_like.info
        self.recent.append((line, info))
        self._lookback.inside_fence = self.fence is not None
        if self._text_events:
            self._add_text(line + "\n", number)
        return True

    def _finish_shell_fence(self) -> None:
        fence, lines = self.fence, self.shell_lines
        self.shell_lines = None
        if fence is None or lines is None:
            return
        self._sink.suggest_all(shell_commands(lines, fence.is_transcript))
