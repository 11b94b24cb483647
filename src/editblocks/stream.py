"""The incremental parser: one forward pass over the response, line by line, for every format.

`StreamParser.feed(chunk)` takes text as it arrives and returns events;
`parse(text)` is the same machine fed the whole text at once, so a streamed
response and a one-shot parse always agree. Nothing is ever re-scanned: each
line is looked at once, and content lines cost one character test and an
append, which keeps parsing close to the speed of `str.splitlines`.

The start marker decides the block's grammar (SEARCH/REPLACE, NEW_FILE,
anchored EDIT, guillemet), so `auto` needs no separate detection pass.
Inside a block with standard markers (7 characters or fewer) every marker
line is structure; a block opened with 8 or 9 marker characters is strict:
only markers of that same length are structure, so files whose text holds
`=======` or `<<<<<<< SEARCH` lines can still be edited. When a block holds
more candidate separators than its grammar allows, it is reported as
malformed rather than split at a guess.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import NamedTuple

from editblocks.fences import Fence, inline_commands, open_fence, shell_commands
from editblocks.filenames import (
    PathLine,
    is_file_label,
    mentions_path,
    path_from_line,
    path_in_fence_info,
    resolve_known,
)
from editblocks.markers import (
    GUILLEMET_KINDS,
    MIN_RUN,
    SPECIAL_FIRST_CHARS,
    STANDARD_RUN,
    STARTS,
    Marker,
    MarkerKind,
    classify,
    near_marker,
)
from editblocks.model import (
    SEARCH_REPLACE_FAMILY,
    BlockCompleted,
    BlockKind,
    BlockProgress,
    BlockStarted,
    Diagnostic,
    DiagnosticEvent,
    EditBlock,
    Event,
    Format,
    ParseResult,
    Severity,
    ShellSuggested,
    ShellSuggestion,
    TextEvent,
    shared_line_prefix,
)

DEFAULT_FENCE = ("```", "```")
LOOKBACK_LINES = 6
_PATH_CACHE_LIMIT = 256
_THINK_OPEN = ("<think>", "<thinking>", "<think ", "<thinking ")
_THINK_CLOSE = ("</think>", "</thinking>")

_FORMAT_STARTS: dict[Format, frozenset[MarkerKind]] = {
    Format.ANCHORED: frozenset({MarkerKind.ANCHORED_START}),
    Format.GUILLEMET: frozenset({MarkerKind.GUILLEMET_START}),
    **{fmt: frozenset({MarkerKind.SEARCH_START, MarkerKind.NEW_FILE_START}) for fmt in SEARCH_REPLACE_FAMILY},
    Format.AUTO: STARTS,
}
_ENDS: dict[MarkerKind, frozenset[MarkerKind]] = {
    MarkerKind.SEARCH_START: frozenset({MarkerKind.REPLACE_END, MarkerKind.BARE_END}),
    MarkerKind.NEW_FILE_START: frozenset({MarkerKind.NEW_FILE_END, MarkerKind.REPLACE_END}),
    MarkerKind.ANCHORED_START: frozenset({MarkerKind.BARE_END, MarkerKind.REPLACE_END}),
    MarkerKind.GUILLEMET_START: frozenset({MarkerKind.GUILLEMET_END}),
}
_PROPER_END = {
    MarkerKind.SEARCH_START: MarkerKind.REPLACE_END,
    MarkerKind.NEW_FILE_START: MarkerKind.NEW_FILE_END,
    MarkerKind.ANCHORED_START: MarkerKind.BARE_END,
    MarkerKind.GUILLEMET_START: MarkerKind.GUILLEMET_END,
}
_DIVIDERS: dict[MarkerKind, frozenset[MarkerKind]] = {
    MarkerKind.SEARCH_START: frozenset({MarkerKind.SEPARATOR}),
    MarkerKind.NEW_FILE_START: frozenset(),
    MarkerKind.ANCHORED_START: frozenset({MarkerKind.DASH, MarkerKind.SEPARATOR}),
    MarkerKind.GUILLEMET_START: frozenset({MarkerKind.GUILLEMET_SEPARATOR}),
}
_STRAY_AT_TOP = frozenset(
    {MarkerKind.REPLACE_END, MarkerKind.NEW_FILE_END, MarkerKind.GUILLEMET_SEPARATOR, MarkerKind.GUILLEMET_END}
)
_STARTED_BY = {
    MarkerKind.REPLACE_END: MarkerKind.SEARCH_START,
    MarkerKind.NEW_FILE_END: MarkerKind.NEW_FILE_START,
    MarkerKind.GUILLEMET_SEPARATOR: MarkerKind.GUILLEMET_START,
    MarkerKind.GUILLEMET_END: MarkerKind.GUILLEMET_START,
}
_MARKER_TEXT = {
    MarkerKind.REPLACE_END: "`>>>>>>> REPLACE`",
    MarkerKind.NEW_FILE_END: "`>>>>>>> NEW_FILE`",
    MarkerKind.GUILLEMET_SEPARATOR: "`═══════ REPL`",
    MarkerKind.GUILLEMET_END: "`»»» EDIT END`",
}


@dataclass(slots=True)
class _Divider:
    index: int  # position in the block body where the next section starts
    kind: MarkerKind
    length: int
    line: int
    text: str  # the marker line as written, to re-read a strict block that never closed


@dataclass(slots=True)
class _OpenBlock:
    start: MarkerKind
    line: int
    length: int
    strict: bool
    path: str | None
    format: Format
    missing_path_hint: str
    indent: str
    candidates: re.Pattern[str]
    structure: frozenset[MarkerKind]  # the marker kinds that are structure inside this block, not content
    interrupting: bool = False  # opened inside a block that had no divider yet: its text may hold markers
    body: list[str] = field(default_factory=list)  # content as slices of whole lines, each ending in a newline
    dividers: list[_Divider] = field(default_factory=list)
    reported: int = 0  # body lines already sent as progress

    def text_after_start(self) -> str:
        """The block's lines after its start marker, as written (content and dividers interleaved)."""
        pieces: list[str] = []
        position = 0
        for divider in self.dividers:
            pieces.extend(self.body[position : divider.index])
            pieces.append(divider.text + "\n")
            position = divider.index
        pieces.extend(self.body[position:])
        return "".join(pieces)


class _Held(NamedTuple):
    """A completed block kept back until the next block starts or the response ends.

    A stray end marker right after it shows its text held a marker line
    that cut it short; it is then withdrawn instead of half-applied.
    """

    block: EditBlock
    interrupting: bool
    end_line: int


_Sections = tuple[str, str, str, str]  # leading, old, new, trailing


class StreamParser:
    """Feed a response in chunks of any size; get events as blocks open, grow and complete."""

    def __init__(
        self,
        format: Format | str = Format.AUTO,
        fence: tuple[str, str] = DEFAULT_FENCE,
        known_files: Collection[str] | None = None,
        *,
        events: bool = True,
    ) -> None:
        self._format = Format(format)
        self._starts = _FORMAT_STARTS[self._format]
        self._structure = {start: _structure(start, self._starts) for start in STARTS}
        self._custom_fence = fence if fence[0][:1] not in ("`", "~") else None
        self._special = SPECIAL_FIRST_CHARS | frozenset(fence[0].strip()[:1])
        self._top_candidate = _top_candidate_lines(self._special)
        self._known = frozenset(known_files) if known_files is not None else None
        self._path_cache: dict[str, PathLine | None] = {}
        self._events_on = events
        self._pending: list[str] = []
        self._line_no = 0
        # (lines, None) for plain lines, one or a run of them joined by newlines; (line, fence info) for a fence line
        self._recent: deque[tuple[str, str | None]] = deque(maxlen=LOOKBACK_LINES)
        self._fence: Fence | None = None
        self._shell_lines: list[tuple[int, str]] | None = None
        self._think_line: int | None = None
        self._last_path: str | None = None
        self._last_format: Format = Format.DIFF
        self._block: _OpenBlock | None = None
        self._held: _Held | None = None
        self._strict_allowed = True
        self._closed = False
        self._blocks: list[EditBlock] = []
        self._shell: list[ShellSuggestion] = []
        self._diagnostics: list[Diagnostic] = []
        self._events: list[Event] = []
        self._text: list[str] = []
        self._text_line = 0
        self.starts_seen: Counter[MarkerKind] = Counter()  # by block kind, for marker balance
        self.ends_seen: Counter[MarkerKind] = Counter()

    # --- driving -------------------------------------------------------------

    def feed(self, chunk: str) -> list[Event]:
        if "\n" not in chunk and not self._closed:
            self._pending.append(chunk)
            return []
        if self._closed:
            raise RuntimeError("feed() after close()")
        cut = chunk.rfind("\n")
        text = "\n" + "".join(self._pending) + chunk[: cut + 1]
        self._pending = [chunk[cut + 1 :]] if cut + 1 < len(chunk) else []
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        self._process(text)
        return self._take_events()

    def close(self) -> list[Event]:
        if self._closed:
            return []
        if self._pending:
            tail = "".join(self._pending)
            self._pending = []
            if self._line_no == 0 and "\r" in tail.rstrip("\r"):
                tail = tail.replace("\r", "\n")
                self._warn(1, "the response breaks its lines with bare CR characters; they were read as line breaks")
            self._process("\n" + (tail[:-1] if tail.endswith(("\r", "\n")) else tail) + "\n")
        block = self._block
        if block is not None and block.strict:
            self._reread_tolerant(block)
            block = self._block
        self._closed = True
        if block is not None:
            self._error(block.line, f"block at line {block.line} is not closed (response truncated?)")
            self._block = None
        self._confirm_held()
        self._finish_shell_fence()
        if self._think_line is not None:
            self._warn(self._think_line, f"reasoning section opened at line {self._think_line} is never closed; "
                       "any edit blocks after it were ignored")
        return self._take_events(final=True)

    def result(self) -> ParseResult:
        """The whole parse so far; after `close()` equal to `parse()` of everything fed."""
        return ParseResult(
            format=self._detected_format(),
            blocks=tuple(self._blocks),
            shell=tuple(self._shell),
            diagnostics=tuple(self._diagnostics),
        )

    def partial_block(self) -> tuple[str | None, dict[str, str]] | None:
        """The open block's path and its text so far per section, for an in-progress display."""
        block = self._block
        if block is None:
            return None
        texts: dict[str, str] = {}
        bounds = self._section_bounds(block)
        for name, begin, end in bounds:
            texts[name] = texts.get(name, "") + "".join(block.body[begin:end])
        return block.path, texts

    def _process(self, text: str) -> None:
        """The hot loop over complete lines; `text` starts with a newline and ends with one.

        Outside blocks, lines are handled one by one. Inside a block, a regular
        expression jumps straight to the next line that could be a marker, and
        the content lines before it are kept as one slice: block content is
        never split into lines, so it costs little more than a scan.
        """
        position = 1
        end = len(text)
        number = self._line_no
        special = self._special
        next_special = -1  # where the next line that could be a marker or fence starts, once searched for
        while position < end:
            block = self._block
            if block is None:
                if self._think_line is None and self._shell_lines is None:
                    if next_special < position:
                        found = self._top_candidate.search(text, position - 1)
                        next_special = found.start() + 1 if found is not None else end
                    stop = next_special
                    if self._fence is None:
                        tick = text.find("`", position, stop)
                        if tick != -1:
                            stop = text.rfind("\n", 0, tick) + 1
                    if stop > position:
                        number = self._plain_run(text, position, stop, number)
                        position = stop
                        continue
                newline = text.find("\n", position)
                line = text[position:newline]
                position = newline + 1
                number += 1
                first = line[:1]
                if first in special or ((first == " " or first == "\t") and line.lstrip()[:1] in special):
                    self._line_no = number
                    self._top_special_line(line, number)
                else:
                    self._plain_line(line, number)
                continue
            found = block.candidates.search(text, position - 1)
            start = found.start() + 1 if found is not None else end
            if start > position:
                content = text[position:start]
                block.body.append(content)
                number += content.count("\n")
                position = start
            if found is not None:
                newline = text.find("\n", start)
                number += 1
                self._line_no = number
                line = text[start:newline]
                marker = classify(line, block.length if block.length < MIN_RUN else 0)
                if marker is None or marker.kind not in block.structure or (
                    block.strict and marker.length != block.length
                ):
                    block.body.append(text[start : newline + 1])
                else:
                    self._block_marker(block, marker, number, line)
                position = newline + 1
        self._line_no = number

    # --- lines outside blocks -----------------------------------------------------

    def _plain_run(self, text: str, start: int, stop: int, number: int) -> int:
        """Whole lines with nothing to act on (no marker, fence or backtick), taken in bulk; returns the new line count.

        They only matter as text events and, the last few, for the path look-back.
        """
        if self._events_on:
            self._add_text(text[start:stop], number + 1)
        self._recent.append((text[start : stop - 1], None))
        return number + text.count("\n", start, stop)

    def _plain_line(self, line: str, number: int) -> None:
        if self._events_on:
            self._add_text(line + "\n", number)
        if self._think_line is not None:
            if any(tag in line.lower() for tag in _THINK_CLOSE):
                self._think_line = None
            return
        self._recent.append((line, None))
        if self._fence is None:
            if "`" in line:
                for command in inline_commands(line):
                    self._suggest(command, number)
        elif self._shell_lines is not None:
            self._shell_lines.append((number, line))

    def _top_special_line(self, line: str, number: int) -> None:
        if self._think_line is not None:
            self._plain_line(line, number)
            return
        marker = classify(line)
        if marker is not None:
            if marker.kind in self._starts:
                self._open_block(marker, number, line)
                return
            if marker.kind in STARTS:
                self._warn(number, f"{marker.kind.value} marker ignored: the response format is {self._format.value}")
            else:
                if marker.kind in _STRAY_AT_TOP and _STARTED_BY[marker.kind] in self._starts:
                    self.ends_seen[_STARTED_BY[marker.kind]] += 1
                if not self._withdraw_if_cut_short(marker, number) and marker.kind in _STRAY_AT_TOP:
                    self._warn(number, f"{_MARKER_TEXT[marker.kind]} without a block start before it")
        stripped = line.strip()
        if self._fence_line(line, stripped, number):
            return
        if self._fence is None and stripped.lower().startswith(_THINK_OPEN):
            if not any(tag in stripped.lower() for tag in _THINK_CLOSE):
                self._think_line = number
                if self._events_on:
                    self._add_text(line + "\n", number)
                return
        note = near_marker(line) if marker is None else None
        if note:
            self._warn(number, note)
        self._plain_line(line, number)

    def _fence_line(self, line: str, stripped: str, number: int) -> bool:
        """Track fences; any fence-looking line is remembered as such for the path look-back."""
        fence = self._fence
        if fence is not None and fence.is_closed_by(stripped):
            self._finish_shell_fence()
            self._fence = None
            info = ""
        else:
            looks_like = open_fence(stripped, self._custom_fence)
            if looks_like is None:
                return False
            if fence is None:
                self._fence = looks_like
                self._shell_lines = [] if looks_like.is_shell else None
            info = looks_like.info
        self._recent.append((line, info))
        if self._events_on:
            self._add_text(line + "\n", number)
        return True

    def _finish_shell_fence(self) -> None:
        fence, lines = self._fence, self._shell_lines
        self._shell_lines = None
        if fence is None or lines is None:
            return
        for number, command in shell_commands(lines, fence.is_transcript):
            self._suggest(command, number)

    # --- blocks -------------------------------------------------------------------------

    def _open_block(self, marker: Marker, number: int, line: str, interrupting: bool = False) -> None:
        self._confirm_held()
        self.starts_seen[marker.kind] += 1
        if self._shell_lines is not None:
            self._shell_lines = None  # a shell-tagged fence holding an edit block is an edit, not commands
        path, fmt, hint = self._path_for_block(marker.kind)
        if path is not None:
            self._last_path, self._last_format = path, fmt
        strict = (self._strict_allowed and marker.kind is not MarkerKind.GUILLEMET_START
                  and marker.length > STANDARD_RUN)
        indent = line[: len(line) - len(line.lstrip())]
        self._block = _OpenBlock(marker.kind, number, marker.length, strict, path, fmt, hint, indent,
                                 _candidate_lines(len(indent)), self._structure[marker.kind], interrupting)
        self._recent.clear()
        if marker.irregular:
            self._warn(number, f"marker accepted despite {marker.irregular}")
        if self._events_on:
            self._flush_text()
            shown = resolve_known(path, self._known, creating=False) if path is not None else None
            self._events.append(BlockStarted(shown, number, fmt))

    def _block_marker(self, block: _OpenBlock, marker: Marker, number: int, line: str) -> None:
        kind = marker.kind
        if kind in self._starts:
            self._error(block.line, f"block at line {block.line} is not closed before the next block at line {number}")
            self._block = None
            self._open_block(marker, number, line, interrupting=not block.dividers)
            return
        if kind in _DIVIDERS[block.start]:
            block.dividers.append(_Divider(len(block.body), kind, marker.length, number, line))
            return
        if kind is not _PROPER_END[block.start] or marker.irregular:
            self._warn(number, f"block at line {block.line} ends with an unexpected marker; accepted")
        self._report_progress(block)
        self._block = None
        self.ends_seen[block.start] += 1
        self._complete(block, number)

    def _complete(self, block: _OpenBlock, end_line: int) -> None:
        sections = _split(block, self._error)
        if sections is None:
            return
        if block.path is None:
            self._error(block.line, f"block at line {block.line} has no file path{block.missing_path_hint}")
            return
        leading, old, new, trailing = sections
        if block.indent:
            leading, old, new, trailing = (_dedent(part, block.indent) for part in sections)
        blank = ((not leading or leading.isspace()) and (not old or old.isspace())
                 and (not trailing or trailing.isspace()))
        kind = BlockKind.CREATE if blank else BlockKind.EDIT
        path = resolve_known(block.path, self._known, creating=blank) if self._known else block.path
        edit = EditBlock(path, leading, old, new, trailing, kind, block.format, block.line)
        self._held = _Held(edit, block.interrupting, end_line)

    def _confirm_held(self) -> None:
        held = self._held
        if held is None:
            return
        self._held = None
        edit = held.block
        if edit.kind is BlockKind.EDIT and edit.old == edit.new:
            self._warn(edit.line, no_op_warning(edit.line))
        self._blocks.append(edit)
        if self._events_on:
            self._flush_text()  # text read after the block, while it was held, comes first however it was fed
            self._events.append(BlockCompleted(edit))

    def _withdraw_if_cut_short(self, marker: Marker, number: int) -> bool:
        """A stray end marker (or, after an interrupting block, a stray separator) right after a block means a
        marker line inside its text ended it early: report it and apply nothing of it."""
        held = self._held
        if held is None or held.block.format is Format.GUILLEMET and marker.kind not in GUILLEMET_KINDS:
            return False
        kind = marker.kind
        evidence = kind in _STRAY_AT_TOP or (held.block.format is Format.ANCHORED and kind is MarkerKind.BARE_END)
        if not evidence and not (held.interrupting and kind in (MarkerKind.SEPARATOR, MarkerKind.DASH)):
            return False
        self._held = None
        line = held.block.line
        self._error(line, f"block at line {line} was cut short: it ended at line {held.end_line}, but a stray "
                          f"marker follows at line {number}, so its text holds marker-like lines. Nothing of it is "
                          "applied; write it with 9-character markers (for example `<<<<<<<<< SEARCH`, "
                          "`=========`, `>>>>>>>>> REPLACE`).")
        return True

    def _reread_tolerant(self, block: _OpenBlock) -> None:
        """A strict (8-9 character) block reached the end without its own end marker: the model mixed marker
        lengths, so read its lines again with standard rules, and no block is strict from here on."""
        self._strict_allowed = False
        self._report_progress(block)
        self._block = replace(block, strict=False, body=[], dividers=[], reported=0)
        self._line_no = block.line
        self._process("\n" + block.text_after_start())

    def _path_for_block(self, start: MarkerKind) -> tuple[str | None, Format, str]:
        """Look back over the last few lines for the block's path (nearest non-fence line)."""
        crossed_fence = False
        left = LOOKBACK_LINES
        for lines, fence_info in reversed(self._recent):
            if fence_info is not None:
                found = path_in_fence_info(fence_info, self._known)
                if found is not None:
                    return found.path, self._block_format(start, Format.DIFF_FENCED, found.labelled), ""
                crossed_fence = True
                left -= 1
            else:
                pieces = lines.rsplit("\n", left)[-left:] if "\n" in lines else [lines]
                for line in reversed(pieces):
                    stripped = line.strip()
                    if not stripped:
                        continue
                    found = self._path_line(stripped)
                    if found is not None:
                        style = Format.DIFF if crossed_fence or self._fence is None else Format.DIFF_FENCED
                        return found.path, self._block_format(start, style, found.labelled), ""
                    return self._carry_over(start, stripped)
                left -= len(pieces)
            if left <= 0:
                break
        return self._carry_over(start, "")

    def _path_line(self, stripped: str) -> PathLine | None:
        """Cached: models repeat the same path line before many blocks."""
        try:
            return self._path_cache[stripped]
        except KeyError:
            if len(self._path_cache) >= _PATH_CACHE_LIMIT:
                self._path_cache.clear()
            found = self._path_cache[stripped] = path_from_line(stripped, self._known)
            return found

    def _block_format(self, start: MarkerKind, style: Format, labelled: bool) -> Format:
        if self._format is not Format.AUTO:
            return self._format
        if start is MarkerKind.ANCHORED_START:
            return Format.ANCHORED
        if start is MarkerKind.GUILLEMET_START:
            return Format.GUILLEMET
        if start is MarkerKind.NEW_FILE_START or labelled:
            return Format.SEARCH_REPLACE
        return style

    def _carry_over(self, start: MarkerKind, prose: str) -> tuple[str | None, Format, str]:
        """No path line: reuse the previous block's path, unless the prose names another file."""
        if is_file_label(prose):
            return None, self._format, " (the `File:` line before it names no usable path: write the path alone)"
        named = {resolve_known(p, self._known, creating=False) for p in mentions_path(prose)} if prose else set()
        previous = self._last_path
        if named and previous not in named:
            shown = ", ".join(f"`{p}`" for p in sorted(named))
            return None, self._format, f" (the line before it mentions {shown}: put the path alone on its own line)"
        if previous is None:
            return None, self._block_format(start, Format.DIFF, False), ""
        fmt = self._last_format if self._format is Format.AUTO else self._format
        if self._format is Format.AUTO and start is not MarkerKind.SEARCH_START:
            fmt = self._block_format(start, fmt, False)
        return previous, fmt, ""

    # --- results and events ---------------------------------------------------------------

    def _suggest(self, command: str, number: int) -> None:
        suggestion = ShellSuggestion(command, number)
        self._shell.append(suggestion)
        if self._events_on:
            self._flush_text()
            self._events.append(ShellSuggested(suggestion))

    def _error(self, line: int, message: str) -> None:
        self._diagnose(Diagnostic(Severity.ERROR, line, message))

    def _warn(self, line: int, message: str) -> None:
        self._diagnose(Diagnostic(Severity.WARNING, line, message))

    def _diagnose(self, diagnostic: Diagnostic) -> None:
        self._diagnostics.append(diagnostic)
        if self._events_on:
            if self._block is not None:
                self._progress(self._block)
            self._flush_text()
            self._events.append(DiagnosticEvent(diagnostic))

    def _report_progress(self, block: _OpenBlock) -> None:
        """Report the block's text not yet sent, before whatever ends it: progress always adds up to the whole
        block, and how the response was cut into chunks changes only where the progress is split."""
        if self._events_on:
            self._progress(block)

    def _add_text(self, lines: str, number: int) -> None:
        """Keep whole lines (each ending in a newline) for the next text event; ``number`` is the first one's."""
        if not self._text:
            self._text_line = number
        self._text.append(lines)

    def _flush_text(self) -> None:
        if self._text:
            self._events.append(TextEvent("".join(self._text), self._text_line))
            self._text = []

    def _take_events(self, final: bool = False) -> list[Event]:
        if not self._events_on:
            return []
        if self._block is not None:
            self._progress(self._block)
        if final or self._text:
            self._flush_text()
        events, self._events = self._events, []
        return events

    def _progress(self, block: _OpenBlock) -> None:
        body, reported, dividers = block.body, block.reported, block.dividers
        if reported >= len(body):
            return
        self._flush_text()
        if not dividers or dividers[-1].index <= reported:
            names = _SECTION_NAMES[block.start]
            name = names[min(len(dividers), len(names) - 1)]
            self._events.append(BlockProgress(block.line, name, "".join(body[reported:])))
        else:
            for name, begin, end in self._section_bounds(block, reported):
                if begin < end:
                    self._events.append(BlockProgress(block.line, name, "".join(body[begin:end])))
        block.reported = len(body)

    @staticmethod
    def _section_bounds(block: _OpenBlock, since: int = 0) -> list[tuple[str, int, int]]:
        """Sections as (name, begin, end) body ranges, from body position `since` on (later dividers only)."""
        names = _SECTION_NAMES[block.start]
        dividers = block.dividers
        first = len(dividers)
        while first > 0 and dividers[first - 1].index > since:
            first -= 1
        cuts = [since] + [d.index for d in dividers[first:]] + [len(block.body)]
        return [(names[min(first + i, len(names) - 1)], cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]

    def _detected_format(self) -> str:
        if self._format is not Format.AUTO:
            return self._format.value
        if not self._blocks:
            return Format.AUTO.value
        counts = Counter(block.format for block in self._blocks)
        best = max(counts.values())
        return next(block.format.value for block in self._blocks if counts[block.format] == best)


_ErrorSink = Callable[[int, str], None]

_SECTION_NAMES: dict[MarkerKind, tuple[str, ...]] = {
    MarkerKind.SEARCH_START: ("old", "new"),
    MarkerKind.NEW_FILE_START: ("new",),
    MarkerKind.ANCHORED_START: ("leading", "old", "new", "trailing"),
    MarkerKind.GUILLEMET_START: ("old", "new"),
}


def _structure(start: MarkerKind, starts: frozenset[MarkerKind]) -> frozenset[MarkerKind]:
    """The marker kinds that are structure inside a block opened by ``start`` (the others are its content):
    another block's start (which interrupts it), its own ends and dividers, and only of its own family
    (chevrons or guillemets)."""
    guillemet = start is MarkerKind.GUILLEMET_START
    kinds = starts | _ENDS[start] | _DIVIDERS[start]
    return frozenset(kind for kind in kinds if (kind in GUILLEMET_KINDS) == guillemet)


@lru_cache(maxsize=8)
def _top_candidate_lines(special: frozenset[str]) -> re.Pattern[str]:
    """Outside blocks, the start of a line that could be a marker or fence: its first character, or the first
    after indentation that begins with a space or tab, is one of the ``special`` characters."""
    return re.compile("\n(?:[ \t][^\\S\n]*)?[" + re.escape("".join(sorted(special))) + "]")


@lru_cache(maxsize=32)
def _candidate_lines(indent_width: int) -> re.Pattern[str]:
    """Lines inside a block that could be markers: a marker character after at most the block's own indentation.

    Deeper lines are content (a markdown file's indented `=======`); shallower
    ones still count, so a block whose start marker alone was indented cannot
    swallow the rest of the response.
    """
    characters = "[" + re.escape("".join(sorted(SPECIAL_FIRST_CHARS))) + "]"
    return re.compile("\n" + (f"[ \t]{{0,{indent_width}}}" if indent_width else "") + characters)


def _split(block: _OpenBlock, error: _ErrorSink) -> _Sections | None:
    """Cut the block body at its dividers, or report why it cannot be cut unambiguously."""
    body, dividers, line = block.body, block.dividers, block.line
    if block.start is MarkerKind.NEW_FILE_START:
        return "", "", "".join(body), ""
    if block.start is MarkerKind.ANCHORED_START:
        return _split_anchored(block, error)
    if not dividers:
        error(line, f"block at line {line} has no separator")
        return None
    chosen = _pick_one(dividers, block.length)
    if chosen is None:
        where = _line_numbers(d.line for d in dividers)
        error(line, f"block at line {line} has {len(dividers)} separator lines (lines {where}); cannot tell which one "
                    "divides old from new text. If the text itself contains such lines, write the block with "
                    "9-character markers (for example `<<<<<<<<< SEARCH`, `=========`, `>>>>>>>>> REPLACE`).")
        return None
    old, new = "".join(body[: chosen.index]), "".join(body[chosen.index :])
    if block.start is MarkerKind.GUILLEMET_START:
        return _split_common_prefix(old, new)
    return "", old, new, ""


def _split_common_prefix(old: str, new: str) -> _Sections:
    """The guillemet anchor: the whole lines both sections start with."""
    shared = shared_line_prefix(old, new)
    return old[:shared], old[shared:], new[shared:], ""


def _lines_text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def _dedent(text: str, indent: str) -> str:
    """Remove the indentation of a block written inside a markdown list, when every content line has it."""
    if not indent or not text:
        return text
    lines = text.split("\n")[:-1]
    if not all(line.startswith(indent) or not line.strip() for line in lines):
        return text
    size = len(indent)
    return _lines_text([line[size:] if line.startswith(indent) else "" for line in lines])


def _line_numbers(numbers: Iterable[int], shown: int = 5) -> str:
    """`3, 9, 12` — or the first few and how many more, so a diagnostic stays short whatever the block holds."""
    listed = list(numbers)
    head = ", ".join(str(n) for n in listed[:shown])
    return head if len(listed) <= shown else f"{head} and {len(listed) - shown} more"


def _pick_one(dividers: list[_Divider], length: int) -> _Divider | None:
    if len(dividers) == 1:
        return dividers[0]
    same_length = [d for d in dividers if d.length == length]
    return same_length[0] if len(same_length) == 1 else None


def _split_anchored(block: _OpenBlock, error: _ErrorSink) -> _Sections | None:
    """Anchored blocks need dash, separator, dash in that order; extra look-alikes must not make it ambiguous."""
    for candidates in ([d for d in block.dividers if d.length == block.length], block.dividers):
        layouts = _anchored_layouts(candidates)
        if len(layouts) == 1:
            first, middle, second = layouts[0]
            body = block.body
            return ("".join(body[:first]), "".join(body[first:middle]), "".join(body[middle:second]),
                    "".join(body[second:]))
        if len(layouts) > 1:
            break
    line = block.line
    if not any(d.kind is MarkerKind.SEPARATOR for d in block.dividers):
        error(line, f"block at line {line} has no separator")
    else:
        error(line, f"anchored block at line {line} needs `-------`, `=======` and `-------` in that order, "
                    "exactly once each; if its text contains such lines, use 9-character markers")
    return None


_ANCHORED_LAYOUT = [MarkerKind.DASH, MarkerKind.SEPARATOR, MarkerKind.DASH]


def _anchored_layouts(dividers: list[_Divider]) -> list[tuple[int, int, int]]:
    """Every dash–separator–dash layout, but only up to two: one is the answer, two already mean ambiguity."""
    if len(dividers) == 3 and [d.kind for d in dividers] == _ANCHORED_LAYOUT:
        return [(dividers[0].index, dividers[1].index, dividers[2].index)]
    dash_indices = [d.index for d in dividers if d.kind is MarkerKind.DASH]
    layouts: list[tuple[int, int, int]] = []
    dashes_before = 0
    for middle in dividers:
        if middle.kind is MarkerKind.DASH:
            dashes_before += 1
            continue
        for first in dash_indices[: min(dashes_before, 2)]:
            for last in dash_indices[dashes_before : dashes_before + 2]:
                layouts.append((first, middle.index, last))
                if len(layouts) > 1:
                    return layouts
    return layouts


def no_op_warning(line: int) -> str:
    """The parser's warning for a block whose old and new text are identical (`apply` states it as a result)."""
    return f"block at line {line} changes nothing (its old and new text are identical)"


def parse(
    text: str,
    format: Format | str = Format.AUTO,
    fence: tuple[str, str] = DEFAULT_FENCE,
    known_files: Collection[str] | None = None,
) -> ParseResult:
    """Parse a whole response: the blocks, shell suggestions and diagnostics it holds. Never raises on any text."""
    parser = StreamParser(format, fence, known_files, events=False)
    parser.feed(text)
    parser.close()
    return parser.result()
