"""An answer as the page shows it: prose and blocks in the order they were written, even while it streams.

The stream parser reports a block's start where the block is written but may
report its completion later (a SEARCH block is held until it cannot have
ended elsewhere), so a block gets its place when it starts and its content
when it completes; until then it is an in-progress block showing the text
that has arrived, section by section.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from editblocks.model import (
    BlockCompleted,
    BlockProgress,
    BlockStarted,
    EditBlock,
    Event,
    Format,
    ParseResult,
    TextEvent,
)
from editblocks.parsing.stream import StreamParser


@dataclass
class BlockSlot:
    """Where a block sits in the answer; ``block`` stays None while it is still arriving."""

    line: int
    path: str | None
    sections: dict[str, str] = field(default_factory=dict)
    block: EditBlock | None = None


Piece = str | BlockSlot


class AnswerFeed:
    """Feeds an answer's text through a `StreamParser` and keeps its pieces in reading order."""

    def __init__(self, format: Format | str = Format.AUTO) -> None:
        self._parser = StreamParser(format)
        self.text_parts: list[str] = []
        self.pieces: list[Piece] = []
        self._slots: dict[int, BlockSlot] = {}
        self.closed = False

    def feed(self, chunk: str) -> None:
        if self.closed or not chunk:
            return
        self.text_parts.append(chunk)
        self._take(self._parser.feed(chunk))

    def close(self) -> None:
        if self.closed:
            return
        self._take(self._parser.close())
        self.closed = True
        # a block that started but never completed was withdrawn: its lines came back as text
        self.pieces = [piece for piece in self.pieces if not (isinstance(piece, BlockSlot) and piece.block is None)]

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def result(self) -> ParseResult:
        return self._parser.result()

    def blocks(self) -> list[EditBlock]:
        """The completed blocks in answer order (the order `parse` gives them)."""
        return list(self._parser.result().blocks)

    def _take(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, TextEvent):
                self.pieces.append(event.text)
            elif isinstance(event, BlockStarted):
                slot = BlockSlot(event.line, event.path)
                self._slots[event.line] = slot
                self.pieces.append(slot)
            elif isinstance(event, BlockProgress):
                slot_for = self._slots.get(event.line)
                if slot_for is not None:
                    slot_for.sections[event.section] = slot_for.sections.get(event.section, "") + event.added
            elif isinstance(event, BlockCompleted):
                done = self._slots.get(event.block.line)
                if done is None:
                    done = BlockSlot(event.block.line, event.block.path)
                    self.pieces.append(done)
                done.block = event.block
