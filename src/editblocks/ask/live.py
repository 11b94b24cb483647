"""The streaming core: answer text in, parser events and located block verdicts out, no terminal involved.

`LiveAnswer` is what `editblocks ask` (and a review page) drives: feed it the
model's text as it arrives and it returns the parser's events plus a
`BlockLocated` for every block the moment it ends, so a verdict can be shown
before the answer is over. The parser holds a finished block back one step
(a stray marker right after it would withdraw it); the block is located at
once anyway, and its new text is taken into the in-memory files only when
the parser confirms it. A withdrawn block becomes a `BlockWithdrawn`.

Patches (V4A, unified diffs) and whole-file answers are read by their
front-ends from the whole text, so their blocks get their verdicts when the
answer ends; the prose around them streams as usual. Asked for such a
format, the stream's own reading of marker blocks is never taken (a patch
whose lines quote SEARCH/REPLACE markers is a patch), so a streamed answer
ends with exactly the blocks a one-shot parse gives.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from editblocks.ask.locator import LiveLocator, Located
from editblocks.model import (
    FRONT_END_FORMATS,
    BlockCompleted,
    BlockProgress,
    BlockStarted,
    DiagnosticEvent,
    EditBlock,
    EditResult,
    Event,
    Format,
    ParseResult,
    ShellSuggested,
)
from editblocks.parsing.stream import StreamParser, parse


@dataclass(frozen=True)
class BlockLocated:
    """A block ended and was located against the in-memory files: ``result`` says how (or why not)."""

    block: EditBlock
    result: EditResult


@dataclass(frozen=True)
class BlockWithdrawn:
    """A block that had ended turned out to be cut short by a marker line in its text; nothing of it applies."""

    block: EditBlock


LiveEvent = Event | BlockLocated | BlockWithdrawn


class LiveAnswer:
    """One answer being streamed: feed it chunks, get events; `close()` at the end, then `result()`."""

    def __init__(self, locator: LiveLocator, format: Format | str = Format.AUTO,
                 known_files: Collection[str] | None = None) -> None:
        self._format = Format(format)
        self._known_files = known_files
        streamed = Format.AUTO if self._format in FRONT_END_FORMATS else self._format
        self._parser = StreamParser(streamed, known_files=known_files)
        self._whole: ParseResult | None = None  # a patch or whole-file answer, read by its front-end at the end
        self._locator = locator
        self._chunks: list[str] = []
        self._pending: Located | None = None  # located, not yet confirmed by the parser
        self.located: list[Located] = []

    @property
    def text(self) -> str:
        """The answer so far."""
        return "".join(self._chunks)

    def feed(self, chunk: str) -> list[LiveEvent]:
        self._chunks.append(chunk)
        events = self._parser.feed(chunk)
        if self._format in FRONT_END_FORMATS:
            return [event for event in events if not isinstance(event, _MARKER_EVENTS)]
        held = self._parser.held_block()
        if not events and held is (self._pending.block if self._pending is not None else None):
            return []  # the usual chunk: text inside a line
        return self._after(events, held)

    def close(self) -> list[LiveEvent]:
        closing = self._parser.close()
        if self._format in FRONT_END_FORMATS:
            events: list[LiveEvent] = [event for event in closing if not isinstance(event, _MARKER_EVENTS)]
        else:
            events = self._after(closing, None)
        if self._format in FRONT_END_FORMATS or (self._format is Format.AUTO and not self.located):
            whole = parse(self.text, self._format, known_files=self._known_files)
            if self._format in FRONT_END_FORMATS:
                events += [DiagnosticEvent(diagnostic) for diagnostic in whole.diagnostics]
                events += [ShellSuggested(suggestion) for suggestion in whole.shell]
            if self._format in FRONT_END_FORMATS or whole.blocks and not self.located:
                self._whole = whole
                for block in whole.blocks:
                    located = self._locator.locate(block)
                    self._confirm(located)
                    events.append(BlockLocated(block, located.result))
        return events

    def result(self) -> ParseResult:
        return self._whole if self._whole is not None else self._parser.result()

    def _after(self, events: list[Event], held: EditBlock | None) -> list[LiveEvent]:
        out: list[LiveEvent] = []
        for event in events:
            out.append(event)
            if isinstance(event, BlockCompleted):
                pending = self._pending
                if pending is not None and pending.block is event.block:
                    self._pending = None
                    self._confirm(pending)
                else:
                    located = self._locator.locate(event.block)
                    self._confirm(located)
                    out.append(BlockLocated(located.block, located.result))
        pending = self._pending
        if pending is not None and held is not pending.block:
            self._pending = None  # ended, then withdrawn: the parser never completed it
            out.append(BlockWithdrawn(pending.block))
        if held is not None and self._pending is None:  # a held block is never one already confirmed
            self._pending = self._locator.locate(held)
            out.append(BlockLocated(held, self._pending.result))
        return out

    def _confirm(self, located: Located) -> None:
        self._locator.accept(located)
        self.located.append(located)


_MARKER_EVENTS = (BlockStarted, BlockProgress, BlockCompleted, DiagnosticEvent, ShellSuggested)
"""What the stream reads as marker blocks (and their diagnostics and shell fences): dropped when the answer is read
as a patch or whole files, whose front-end reads the whole text at the end."""

