"""An answer as the page shows it: prose and blocks in the order they were written, even while it streams.

The stream parser reports a block's start where the block is written but may
report its completion later (a SEARCH block is held until it cannot have
ended elsewhere), so a block gets its place when it starts and its content
when it completes; until then it is an in-progress block showing the text
that has arrived, section by section. Each block's verdict comes from the
service's live planner (the one `ask` shows in the terminal) the moment the
block ends (a block waiting for identical blocks, one for each place its old
text occurs, gets it when they come or cannot).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from editblocks.model import (
    BlockCompleted,
    BlockProgress,
    BlockStarted,
    EditBlock,
    EditResult,
    ParseResult,
    TextEvent,
)
from editblocks.service.live import BlockLocated, BlockWaiting, BlockWithdrawn, LiveAnswer, LiveEvent


@dataclass
class BlockSlot:
    """Where a block sits in the answer; ``block`` stays None while it is still arriving."""

    line: int
    path: str | None
    sections: dict[str, str] = field(default_factory=dict)
    block: EditBlock | None = None


Piece = str | BlockSlot


class AnswerFeed:
    """Feeds an answer's text through a `LiveAnswer` and keeps its pieces in reading order, with each block's
    live verdict."""

    def __init__(self, live: LiveAnswer) -> None:
        self._live = live
        self.text_parts: list[str] = []
        self.pieces: list[Piece] = []
        self._slots: dict[int, BlockSlot] = {}
        self.verdicts: dict[EditBlock, EditResult] = {}
        self._held: EditBlock | None = None  # ended and decided, but not yet confirmed by the parser
        self.closed = False

    def feed(self, chunk: str) -> None:
        if self.closed or not chunk:
            return
        self.text_parts.append(chunk)
        self._take(self._live.feed(chunk))

    def close(self) -> None:
        if self.closed:
            return
        self._take(self._live.close())
        self.closed = True
        # a block that started but never completed was withdrawn: its lines came back as text
        self.pieces = [piece for piece in self.pieces if not (isinstance(piece, BlockSlot) and piece.block is None)]

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def result(self) -> ParseResult:
        return self._live.result()

    def blocks(self) -> list[EditBlock]:
        """The completed blocks in answer order (the order `parse` gives them); while the answer arrives, also
        the block that has ended but waits for the parser's confirmation (it already has its verdict)."""
        done = list(self._live.result().blocks)
        if self._held is not None and not self.closed and self._held not in done:
            done.append(self._held)
        return done

    def _take(self, events: list[LiveEvent]) -> None:
        for event in events:
            if isinstance(event, BlockLocated | BlockWaiting):  # a waiting block has no verdict yet: pending
                if isinstance(event, BlockLocated):
                    self.verdicts[event.block] = event.result
                slot = self._slots.get(event.block.line)
                if slot is not None and slot.block is None:  # ended, held by the parser: shown with its verdict
                    slot.block = self._held = event.block
            elif isinstance(event, BlockWithdrawn):
                self.verdicts.pop(event.block, None)
                slot = self._slots.get(event.block.line)
                if slot is not None and slot.block is event.block:
                    slot.block = None
                self._held = None
            elif isinstance(event, TextEvent):
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
                if event.block is self._held:
                    self._held = None
