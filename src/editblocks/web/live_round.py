"""One assistant answer as the workbench shows it: prose and blocks in reading order, each block with its verdict.

The live planner's events come in as the answer streams (`LiveVerdicts`).
A block gets its place where it starts, shows its sections as they arrive,
and gets its verdict the moment it ends, even while the parser still holds
it back (a stray marker line right after it could withdraw it). Every piece
carries the revision at which it last changed, so the page is sent only
what changed since it last looked, however long the conversation grows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from editblocks.model import BlockCompleted, BlockProgress, BlockStarted, EditBlock, EditResult, ParseResult, TextEvent
from editblocks.service.live import BlockLocated, BlockWithdrawn, LiveAnswer, LiveEvent


@dataclass
class Prose:
    """A run of the answer's text between blocks."""

    id: int
    text: str = ""
    rev: int = 0


@dataclass
class Slot:
    """Where a block sits; ``block`` and ``result`` stay None while it is still arriving."""

    id: int
    line: int
    path: str | None
    sections: dict[str, str] = field(default_factory=dict)
    block: EditBlock | None = None
    result: EditResult | None = None
    rev: int = 0


Piece = Prose | Slot


class LiveRound:
    """Feeds one answer through the live planner and keeps its pieces in reading order.

    ``clock`` gives the revision to stamp a change with (the owner's version counter, so revisions of every
    round of a conversation compare).
    """

    def __init__(self, answer: LiveAnswer, clock: Callable[[], int]) -> None:
        self._answer = answer
        self._clock = clock
        self.pieces: list[Piece] = []
        self._slots: dict[int, Slot] = {}  # by the answer line the block starts on
        self._ids = 0
        self.rev = 0
        self.closed = False

    @property
    def text(self) -> str:
        return self._answer.text

    def feed(self, chunk: str) -> bool:
        """Take the next piece of the answer; whether some block got its verdict with it."""
        if self.closed or not chunk:
            return False
        return self._take(self._answer.feed(chunk))

    def close(self) -> None:
        """The answer is whole: blocks read from the whole text (patches) get theirs; withdrawn blocks go."""
        if self.closed:
            return
        self._take(self._answer.close())
        self.closed = True
        kept = [piece for piece in self.pieces if not (isinstance(piece, Slot) and piece.result is None)]
        if len(kept) != len(self.pieces):
            self.pieces = kept
            self._bump()

    def stop(self) -> None:
        """The answer broke off: what arrived stays as it is, and nothing more comes."""
        self.closed = True
        self._bump()

    def slots(self) -> list[Slot]:
        """The blocks that have ended, in answer order."""
        return [piece for piece in self.pieces if isinstance(piece, Slot) and piece.result is not None]

    def result(self) -> ParseResult:
        return self._answer.result()

    def _take(self, events: list[LiveEvent]) -> bool:
        located = False
        for event in events:
            if isinstance(event, TextEvent):
                self._prose().text += event.text
                self._touch(self.pieces[-1])
            elif isinstance(event, BlockStarted):
                self._place(Slot(self._next_id(), event.line, event.path))
            elif isinstance(event, BlockProgress):
                if (slot_for := self._slots.get(event.line)) is not None:
                    slot_for.sections[event.section] = slot_for.sections.get(event.section, "") + event.added
                    self._touch(slot_for)
            elif isinstance(event, BlockLocated):
                self._locate(event.block, event.result)
                located = True
            elif isinstance(event, BlockWithdrawn):
                if (gone := self._slots.get(event.block.line)) is not None:
                    gone.block = gone.result = None
                    self._touch(gone)
            elif isinstance(event, BlockCompleted) and (done := self._slots.get(event.block.line)) is not None:
                done.block = event.block
        return located

    def _locate(self, block: EditBlock, result: EditResult) -> None:
        slot = self._slots.get(block.line) or self._place(Slot(self._next_id(), block.line, block.path))
        slot.block, slot.result = block, result
        self._touch(slot)

    def _place(self, slot: Slot) -> Slot:
        """A new block after what came before; the prose before it is drawn again (its last lines framed it)."""
        if self.pieces and isinstance(self.pieces[-1], Prose):
            self._touch(self.pieces[-1])
        self._slots[slot.line] = slot
        self.pieces.append(slot)
        self._touch(slot)
        return slot

    def _prose(self) -> Prose:
        if not self.pieces or not isinstance(self.pieces[-1], Prose):
            self.pieces.append(Prose(self._next_id()))
        last = self.pieces[-1]
        assert isinstance(last, Prose)
        return last

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _touch(self, piece: Piece) -> None:
        self._bump()
        piece.rev = self.rev

    def _bump(self) -> None:
        self.rev = self._clock()
