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
`=======` or `<<<<<<< SEARCH` lines can still be edited (sections.py holds the
rest of the marker-length rule). A SEARCH block with several candidate
separators is never split at a guess: it carries every reading, and the
planner lets the file decide. When a block turns out to have ended before
the line the parser is at (a second `=======` used as its end), the text
after its real end is read again outside blocks, once.

The work is split by job; `StreamParser` owns the other parts (composition)
and is the only one that sees the text:
- `StreamParser` (here) classifies lines: its hot loop reads the text, takes
  plain lines outside blocks in bulk, appends a block's content straight to
  its body and hands only the marker lines that are structure to the assembler;
- `OutsideLines` (outside.py) reads the other lines outside blocks and keeps
  their state (fences, shell fences, reasoning sections, inline commands),
  which the hot loop reads directly; a start marker opens a block through it;
- `BlockAssembler` (assemble.py) opens, completes, holds back and withdraws
  blocks, and counts start and end markers;
- `sections.py` holds the open block's data and cuts a finished body into
  leading, old, new and trailing text;
- `EventSink` (events.py) collects diagnostics and shell suggestions and
  orders the event stream (text, progress, blocks);
- `PathLookback` (lookback.py) remembers the last lines outside blocks and
  finds each block's path, or carries the previous one over.
The hot loop keeps its reach cheap: the assembler and the outside-lines part
are local variables (the open block and the fence state are one attribute
away, as they were on the parser), and the outside part holds the look-back's
line list and the sink's text method itself, so the split adds no attribute
look-up per line.

What costs what (issue 13): only a line that starts, after indentation, with
three equal marker or fence characters, or with `<`, leaves the bulk path
(`markers.candidate_lines`), so markdown quotes and bullets are plain text; the
structure tables are built once per format and fence, not per parser; `feed`
keeps a chunk without a newline with one append and takes a completed plain
line without the hot loop; `parse` of an answer in which nothing could be
structure returns a shared empty result; and results, blocks, diagnostics and
events are built by `values.py` without their dataclass constructors.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from functools import lru_cache

from editblocks.model import (
    FRONT_END_FORMATS,
    BlockCompleted,
    DiagnosticEvent,
    EditBlock,
    Event,
    Format,
    ParseResult,
    ShellSuggestion,
)
from editblocks.parsing.assemble import FORMAT_STARTS, BlockAssembler
from editblocks.parsing.events import EventSink
from editblocks.parsing.lookback import PathLookback
from editblocks.parsing.markers import (
    CACHED_LINE_CHARS,
    DIALECT_FIRST_CHARS,
    MIN_RUN,
    SPECIAL_FIRST_CHARS,
    MarkerKind,
    candidate_lines,
    classify,
    classify_short,
    classify_tag,
    cut_start_marker,
)
from editblocks.parsing.outside import OutsideLines
from editblocks.parsing.sections import section_bounds
from editblocks.parsing.values import parse_result, text_event

DEFAULT_FENCE = ("```", "```")


class StreamParser:
    """Feed a response in chunks of any size; get events as blocks open, grow and complete."""

    def __init__(
        self,
        format: Format | str = Format.AUTO,
        fence: tuple[str, str] = DEFAULT_FENCE,
        known_files: Collection[str] | None = None,
        *,
        events: bool = True,
        text_events: bool = True,
    ) -> None:
        """``text_events=False`` leaves out the text events (prose outside blocks), for a display that shows only
        blocks: every other event, and the result, stay exactly the same."""
        self._format = _FORMATS.get(format) or Format(format)
        # Patches and whole files are read whole at close (frontends/); `auto` keeps the text for that too.
        self._front_end = self._format in FRONT_END_FORMATS
        self._known = known_files
        self._chunks: list[str] | None = [] if self._front_end or self._format is Format.AUTO else None
        self._patch: ParseResult | None = None
        self._final: ParseResult | None = None
        custom_fence, self._special, self._top_candidate = (
            _DEFAULT_FENCE_TABLES if _is_default_fence(fence) else _fence_tables(fence))
        known = frozenset(known_files) if known_files is not None else None
        self._sink = EventSink(events)
        markers = Format.AUTO if self._front_end else self._format
        self._lookback = PathLookback(markers, known)
        self._assembler = BlockAssembler(markers, known, self._sink, self._lookback)
        self._outside = OutsideLines(markers, custom_fence, self._assembler.starts, self._sink,
                                     self._lookback, self._assembler, events and text_events)
        self._text_events = events and text_events
        self._pending: list[str] = []
        self._line_no = 0
        self._closed = False

    @property
    def starts_seen(self) -> Counter[MarkerKind]:
        """Start markers by block kind, for marker balance."""
        return Counter(self._assembler.starts_seen)

    @property
    def ends_seen(self) -> Counter[MarkerKind]:
        """End markers by the kind of block they end, for marker balance."""
        return Counter(self._assembler.ends_seen)

    # --- driving -------------------------------------------------------------

    def feed(self, chunk: str) -> list[Event]:
        if self._chunks is not None and not self._closed:
            self._chunks.append(chunk)
            if self._front_end:
                return []
        if "\n" not in chunk:
            if self._closed:
                raise RuntimeError("feed() after close()")
            self._pending.append(chunk)
            return []
        if self._closed:
            raise RuntimeError("feed() after close()")
        cut = chunk.rfind("\n") + 1
        pending = self._pending
        if not pending and chunk.find("\r", 0, cut) == -1:
            if cut < len(chunk):
                pending.append(chunk[cut:])
            first = chunk.find("\n") + 1
            if first == cut:
                events = self._one_line(chunk[:cut])
                if events is not None:
                    return events
            # The chunk is read where it stands (a one-shot parse copies nothing): its first line on its own (the hot
            # loop expects a newline before a line), then the rest of its complete lines.
            line = chunk[: first - 1]
            lead = line[:1]
            outside = self._outside
            if self._assembler.block is None and (
                    outside.think_line is not None or not ((lead in self._special or lead == " " or lead == "\t")
                                                           and self._top_candidate.match("\n" + line))):
                self._line_no += 1
                outside.plain_line(line, self._line_no)  # what the hot loop does with a plain line
            else:
                self._process("\n" + chunk[:first])
            if first < cut:
                self._process(chunk, first, cut)
            return self._sink.take(self._assembler.block)
        pending.append(chunk[:cut])
        lines = "".join(pending)
        pending.clear()
        if cut < len(chunk):
            pending.append(chunk[cut:])
        if "\r" in lines:
            lines = lines.replace("\r\n", "\n")
        if lines.find("\n") == len(lines) - 1:
            events = self._one_line(lines)
            if events is not None:
                return events
        lines = "\n" + lines  # (rebound, so that only one copy is alive while it is read)
        self._process(lines)
        return self._sink.take(self._assembler.block)

    def _one_line(self, line: str) -> list[Event] | None:
        """A chunk that completes one line that cannot be a marker, fence or tag (most lines, when a model
        streams tokens): taken without the hot loop's set-up. Returns its events, or None to take the usual path.
        ``line`` ends with its newline."""
        block = self._assembler.block
        first = line[:1]
        if block is not None:
            if (first in _BLOCK_CANDIDATE_FIRSTS or first == " " or first == "\t") and \
                    block.candidates.match("\n" + line):
                return None
            block.body.append(line)
            self._line_no += 1
            return self._sink.take_line(block)
        outside = self._outside
        if (outside.think_line is not None or outside.shell_lines is not None
                or ((first in self._special or first == " " or first == "\t")
                    and self._top_candidate.match("\n" + line))
                or (outside.fence is None and "`" in line)):
            return None
        number = self._line_no = self._line_no + 1
        outside.recent.append((line[:-1], None))
        return [text_event(line, number)] if self._text_events else []

    def close(self) -> list[Event]:
        if self._closed:
            return []
        if self._pending:
            tail = "".join(self._pending)
            self._pending = []
            if self._line_no == 0 and "\r" in tail.rstrip("\r"):
                tail = tail.replace("\r", "\n")
                self._sink.warn(1, "the response breaks its lines with bare CR characters; "
                                "they were read as line breaks")
            self._process("\n" + (tail[:-1] if tail.endswith(("\r", "\n")) else tail) + "\n")
            if self._assembler.block is None and cut_start_marker(tail):
                self._sink.error(self._line_no, f"the response ends in the middle of a start marker "
                                                f"(`{tail.strip()[:30]}`, line {self._line_no}): it was cut off, "
                                                "and the block that line began is missing")
        block = self._assembler.block
        ended = self._assembler.end_at_look_alike_end(block) if block is not None else None
        if ended is not None:
            self._reread(*ended)
        block = self._assembler.block
        if block is not None and block.strict:
            reread = self._assembler.reopen_tolerant(block)
            self._line_no = block.line
            self._process(reread)
        block = self._assembler.block
        if block is not None and block.dividers:
            ended = self._assembler.end_at_second_separator(block, interrupted=False)
            if ended is not None:
                self._reread(*ended)
        self._closed = True
        self._assembler.finish()
        self._outside.finish()
        events = self._sink.take(None)
        if self._chunks is not None and (self._front_end or not self._assembler.blocks):
            from editblocks.parsing.patches.detect import read_whole_answer

            self._patch = read_whole_answer("".join(self._chunks), self._format, self._known,
                                            None if self._front_end else self.result(), self._prose_shell)
        self._chunks = None
        if self._patch is not None:
            events += [BlockCompleted(block) for block in self._patch.blocks]
            events += [DiagnosticEvent(diagnostic) for diagnostic in self._patch.diagnostics]
        return events

    def _prose_shell(self, prose: str) -> tuple[ShellSuggestion, ...]:
        """The shell suggestions in the prose around a patch; read in a marker format, not `auto`, so what is left
        of the answer is never read for a patch again."""
        return parsed_whole(prose, Format.DIFF, known_files=self._known).result().shell

    def result(self) -> ParseResult:
        """The whole parse so far; after `close()` equal to `parse()` of everything fed."""
        if self._patch is not None:
            return self._patch
        if self._final is not None:
            return self._final
        blocks = tuple(self._assembler.blocks)
        result = parse_result(_detected_format(self._format, blocks), blocks, tuple(self._sink.shell),
                              tuple(self._sink.diagnostics))
        if self._closed:  # nothing changes after close: built once (close itself may ask for it first)
            self._final = result
        return result

    def held_block(self) -> EditBlock | None:
        """A block that has ended but whose `BlockCompleted` waits for the next block or the end of the answer
        (a stray marker right after it would withdraw it): a live display can locate it at once."""
        return self._assembler.held_block

    def partial_block(self) -> tuple[str | None, dict[str, str]] | None:
        """The open block's path and its text so far per section, for an in-progress display."""
        block = self._assembler.block
        if block is None:
            return None
        texts: dict[str, str] = {}
        for name, begin, end in section_bounds(block):
            texts[name] = texts.get(name, "") + "".join(block.body[begin:end])
        return block.path, texts

    def _process(self, text: str, position: int = 1, end: int = -1) -> None:
        """The hot loop over the complete lines of ``text[position:end]`` (``end`` -1: to the end of ``text``); the
        character before ``position`` is a newline, and so is the last one before ``end``.

        Outside blocks, lines are handled one by one. Inside a block, a regular
        expression jumps straight to the next line that could be a marker, and
        the content lines before it are kept as one slice: block content is
        never split into lines, so it costs little more than a scan.
        """
        if end < 0:
            end = len(text)
        number = self._line_no
        special = self._special
        top_candidate = self._top_candidate.match
        assembler = self._assembler
        outside = self._outside
        bulk_only = not self._text_events  # plain runs then only feed the look-back (or a shell fence)
        remember = outside.recent.append
        next_special = -1  # where the next line that could be a marker or fence starts, once searched for
        while position < end:
            block = assembler.block
            if block is None:
                if outside.think_line is None:
                    if next_special < position:
                        found = self._top_candidate.search(text, position - 1, end)
                        next_special = found.start() + 1 if found is not None else end
                    stop = next_special
                    if outside.fence is None:
                        tick = text.find("`", position, stop)
                        if tick != -1:
                            stop = text.rfind("\n", 0, tick) + 1
                    if stop > position:
                        if bulk_only and outside.shell_lines is None:  # what plain_run does then, without the call
                            remember((text[position : stop - 1], None))
                            number += text.count("\n", position, stop)
                        else:
                            number = outside.plain_run(text, position, stop, number)
                        position = stop
                        continue
                newline = text.find("\n", position)
                line = text[position:newline]
                number += 1
                first = line[:1]
                if position == next_special or (
                        (first in special or first == " " or first == "\t") and top_candidate(text, position - 1)):
                    self._line_no = number
                    if (first == "`" or first == "~") and outside.think_line is None:  # what special_line does
                        if not outside.fence_line(line, line.rstrip(), number):     # with a fence line, in one call
                            outside.plain_line(line, number)
                    else:
                        outside.special_line(line, number)
                else:
                    outside.plain_line(line, number)
                position = newline + 1
                continue
            found = block.candidates.search(text, position - 1, end)
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
                if block.tags:
                    marker = classify_tag(line)
                else:
                    short_run = block.length if block.length < MIN_RUN else 0
                    marker = (classify_short if len(line) <= CACHED_LINE_CHARS else classify)(line, short_run)
                if marker is None:
                    if block.conflict and line[:1] == ">" and not assembler.rereading:
                        # `>>>>>>> main` ends a git conflict: what followed `<<<<<<< HEAD` is text
                        self._reread(*assembler.abandon_conflict(block, number, line))
                        position = newline + 1
                        continue
                    if line.lstrip()[:1] in DIALECT_FIRST_CHARS:
                        block.dialect = True
                    block.body.append(text[start : newline + 1])
                elif marker.kind not in block.structure or (block.strict and marker.length != block.length):
                    assembler.look_alike(block, marker, number, line)
                    block.body.append(text[start : newline + 1])
                else:
                    reread = assembler.marker(block, marker, number, line)
                    if reread is not None:
                        self._reread(*reread)
                position = newline + 1
        self._line_no = number

    def _reread(self, text: str, after_line: int) -> None:
        """Read ``text`` (starting with a newline) again as if it followed response line ``after_line``.

        Used when a block turns out to have ended earlier than the line the parser is at; what followed its
        real end is read again outside blocks (a path line, a fence, the next block's start). Text is read
        again at most once: while re-reading, the assembler never ends a block early, so parsing stays linear.
        """
        assembler = self._assembler
        assembler.rereading = True
        current = self._line_no
        self._line_no = after_line
        self._process(text)
        self._line_no = max(self._line_no, current)
        assembler.rereading = False


def _detected_format(format: Format, blocks: tuple[EditBlock, ...]) -> str:
    """The format asked for, or under `auto` the one most blocks were written in (the first of a tie)."""
    if format is not Format.AUTO or not blocks:
        return str(format)
    first = blocks[0].format
    for block in blocks:
        if block.format is not first:
            break
    else:  # (most answers keep to one format: no counting)
        return str(first)
    counts = Counter(block.format for block in blocks)
    best = max(counts.values())
    return next(str(block.format) for block in blocks if counts[block.format] == best)


@lru_cache(maxsize=8)
def _fence_tables(fence: tuple[str, str]) -> tuple[tuple[str, str] | None, frozenset[str], re.Pattern[str]]:
    """Built once per fence pair, not per parser: the configured non-markdown fence (None for backticks and
    tildes), the characters a line that could be structure starts with, and the expression that finds such lines.

    A configured fence's first characters keep the loose rule (any line starting with one is looked at), so
    its lines are recognised exactly as before (its closer's too, when that starts with a marker or fence
    character); every other line needs `candidate_lines`' stricter start.
    """
    custom = fence if fence[0][:1] not in ("`", "~") else None
    special = SPECIAL_FIRST_CHARS | frozenset(fence[0].strip()[:1])
    loose = ""
    if custom is not None:
        firsts = frozenset(fence[0].strip()[:1]) | (frozenset(fence[1].strip()[:1]) & SPECIAL_FIRST_CHARS)
        loose = "".join(sorted(firsts - {"<"}))
    return custom, special, candidate_lines(loose)


def parse(
    text: str,
    format: Format | str = Format.AUTO,
    fence: tuple[str, str] = DEFAULT_FENCE,
    known_files: Collection[str] | None = None,
) -> ParseResult:
    """Parse a whole response: the blocks, shell suggestions and diagnostics it holds. Never raises on any text.

    Patches and whole-file answers are read by their front-end (frontends/), asked for by format or, for
    V4A patches and unified diffs, detected under `auto` when the answer holds no marker block.
    """
    fmt = _FORMATS.get(format) or Format(format)
    if _is_default_fence(fence) and "`" not in text and "\r" not in text and fmt in _NOTHING_FOUND:
        if _DEFAULT_TOP_CANDIDATE.search("\n" + text) is None and not _may_hold_patch(fmt, text):
            return _NOTHING_FOUND[fmt]
    return parsed_whole(text, fmt, fence, known_files).result()


def _is_default_fence(fence: tuple[str, str]) -> bool:
    """The default fence by value: callers often pass an equal tuple of their own."""
    return fence is DEFAULT_FENCE or (type(fence) is tuple and fence == DEFAULT_FENCE)


def _may_hold_patch(fmt: Format, text: str) -> bool:
    """Under `auto`, a V4A patch or a git diff can stand in an answer with no candidate line (their other lines
    start with `***`, `@@`, ` `, `-` or `+`)."""
    return fmt is Format.AUTO and ("*** Begin Patch" in text or "diff --git " in text)


_BLOCK_CANDIDATE_FIRSTS = SPECIAL_FIRST_CHARS | DIALECT_FIRST_CHARS
"""Inside a block, a line that could be structure starts with one of these (or indentation)."""
_FORMATS: dict[str, Format] = {fmt: fmt for fmt in Format}
"""A format by value or member, without the enum constructor's cost (a member hashes and compares as its value)."""
_DEFAULT_FENCE_TABLES = _fence_tables(DEFAULT_FENCE)
_DEFAULT_TOP_CANDIDATE = _DEFAULT_FENCE_TABLES[2]
_NOTHING_FOUND = {fmt: StreamParser(fmt).result() for fmt in FORMAT_STARTS}
"""Per format, the result of an answer in which no line could be structure and no backtick or CR stands, so that
parsing it does nothing beyond reading it: most short answers and chat replies. The parser would find exactly
this (a result is immutable, so one is shared)."""


def parsed_whole(
    text: str,
    format: Format | str = Format.AUTO,
    fence: tuple[str, str] = DEFAULT_FENCE,
    known_files: Collection[str] | None = None,
) -> StreamParser:
    """A parser fed the whole text and closed, without events: `parse` takes its result, `validate` its counts too."""
    parser = StreamParser(format, fence, known_files, events=False)
    parser.feed(text)
    parser.close()
    return parser
