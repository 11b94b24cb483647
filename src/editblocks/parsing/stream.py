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
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection
from functools import lru_cache

from editblocks.model import FRONT_END_FORMATS, EditBlock, Event, Format, ParseResult
from editblocks.parsing.assemble import BlockAssembler
from editblocks.parsing.events import EventSink
from editblocks.parsing.lookback import PathLookback
from editblocks.parsing.markers import (
    DIALECT_FIRST_CHARS,
    MIN_RUN,
    SPECIAL_FIRST_CHARS,
    MarkerKind,
    classify,
)
from editblocks.parsing.outside import OutsideLines
from editblocks.parsing.sections import section_bounds

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
    ) -> None:
        self._format = Format(format)
        custom_fence = fence if fence[0][:1] not in ("`", "~") else None
        self._special = SPECIAL_FIRST_CHARS | frozenset(fence[0].strip()[:1])
        self._top_candidate = _top_candidate_lines(self._special)
        known = frozenset(known_files) if known_files is not None else None
        self._sink = EventSink(events)
        self._lookback = PathLookback(self._format, known)
        self._assembler = BlockAssembler(self._format, known, self._sink, self._lookback)
        self._outside = OutsideLines(self._format, custom_fence, self._assembler.starts, self._sink,
                                     self._lookback, self._assembler, events)
        self._pending: list[str] = []
        self._line_no = 0
        self._closed = False

    @property
    def starts_seen(self) -> Counter[MarkerKind]:
        """Start markers by block kind, for marker balance."""
        return self._assembler.starts_seen

    @property
    def ends_seen(self) -> Counter[MarkerKind]:
        """End markers by the kind of block they end, for marker balance."""
        return self._assembler.ends_seen

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
        return self._sink.take(self._assembler.block)

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
        return self._sink.take(None)

    def result(self) -> ParseResult:
        """The whole parse so far; after `close()` equal to `parse()` of everything fed."""
        blocks = tuple(self._assembler.blocks)
        return ParseResult(
            format=_detected_format(self._format, blocks),
            blocks=blocks,
            shell=tuple(self._sink.shell),
            diagnostics=tuple(self._sink.diagnostics),
        )

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
        assembler = self._assembler
        outside = self._outside
        next_special = -1  # where the next line that could be a marker or fence starts, once searched for
        while position < end:
            block = assembler.block
            if block is None:
                if outside.think_line is None and outside.shell_lines is None:
                    if next_special < position:
                        found = self._top_candidate.search(text, position - 1)
                        next_special = found.start() + 1 if found is not None else end
                    stop = next_special
                    if outside.fence is None:
                        tick = text.find("`", position, stop)
                        if tick != -1:
                            stop = text.rfind("\n", 0, tick) + 1
                    if stop > position:
                        number = outside.plain_run(text, position, stop, number)
                        position = stop
                        continue
                newline = text.find("\n", position)
                line = text[position:newline]
                position = newline + 1
                number += 1
                first = line[:1]
                if first in special or ((first == " " or first == "\t") and line.lstrip()[:1] in special):
                    self._line_no = number
                    outside.special_line(line, number)
                else:
                    outside.plain_line(line, number)
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
                if marker is None:
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
    if format is not Format.AUTO:
        return format.value
    if not blocks:
        return Format.AUTO.value
    counts = Counter(block.format for block in blocks)
    best = max(counts.values())
    return next(block.format.value for block in blocks if counts[block.format] == best)


@lru_cache(maxsize=8)
def _top_candidate_lines(special: frozenset[str]) -> re.Pattern[str]:
    """Outside blocks, the start of a line that could be a marker or fence: its first character, or the first
    after indentation that begins with a space or tab, is one of the ``special`` characters."""
    return re.compile("\n(?:[ \t][^\\S\n]*)?[" + re.escape("".join(sorted(special))) + "]")


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
    chosen = Format(format)
    if chosen in FRONT_END_FORMATS:
        from editblocks.frontends.detect import front_end_parse

        return front_end_parse(text, chosen, known_files)
    result = parsed_whole(text, chosen, fence, known_files).result()
    if chosen is Format.AUTO and not result.blocks:
        from editblocks.frontends.detect import auto_patch

        return auto_patch(text, result) or result
    return result


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
