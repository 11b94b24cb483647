"""A workbench conversation as data: its rounds (who asked what, how the answer went) and every block in them.

Each round is a pair of cards: what was sent (the user's instruction, or the
feedback the workbench sent on its own) and the answer (`LiveRound`). Every
block that has ended is an `Entry`, numbered across the whole conversation
in reading order, with its verdict, the reviewer's choices (the block, and
each change inside it) and whether the session holds it for Apply or has
written it.

Which blocks are held is the hold policy's to say (`editblocks.web.hold`),
not decided here or on the page.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from editblocks.model import EditBlock, EditResult, Format, Status
from editblocks.web.block_changes import without_changes
from editblocks.web.live_round import LiveRound, Slot

ENDED = ("done", "stopped", "broken", "error")


@dataclass(eq=False)
class Entry:
    """One block that has ended, and everything the session knows about it."""

    turn: int
    slot: Slot
    verdict: EditResult
    accepted: bool = True
    refused: frozenset[int] = frozenset()  # numbers of the changes inside the block the reviewer refused
    held: bool = False
    waits: bool = False  # held, but its file waits for the model's fix of another block (`waiting_files`)
    applied: bool = False
    preview: EditResult | None = None  # what Apply would do with it now (a dry run of every held block)
    sent_back: int | None = None  # the round whose feedback named it
    excerpt: dict[str, Any] | None = None  # the file's lines near a failed block (closest text or candidates)
    rev: int = 0

    @property
    def block(self) -> EditBlock:
        assert self.slot.block is not None
        return self.slot.block

    def chosen_block(self) -> EditBlock:
        """The block as the reviewer keeps it: refused changes put back."""
        return without_changes(self.block, self.refused)


@dataclass(eq=False)
class Turn:
    """One round: what was sent and the answer that came back."""

    number: int
    kind: str  # "instruction" (the user's) or "feedback" (sent by the workbench after failed blocks)
    text: str
    files: tuple[str, ...]
    format: Format
    live: LiveRound
    messages: list[dict[str, Any]] = field(default_factory=list)
    state: str = "asking"  # asking, streaming, then one of ENDED
    note: str = ""  # one line: why it stopped, an endpoint's error, a retry
    rev: int = 0

    @property
    def ended(self) -> bool:
        return self.state in ENDED

    @property
    def whole(self) -> bool:
        """The answer arrived whole, so its blocks may be held and written."""
        return self.state == "done"


class Conversation:
    """The rounds of one conversation and its blocks, in order."""

    def __init__(self, name: str | None = None, *, whole_files: bool = True) -> None:
        self.name = name  # its run folder under .editblocks/runs, once saved
        self.whole_files = whole_files  # policy `file`: a file with a failed block waits for its fix
        self.turns: list[Turn] = []
        self._entries: dict[tuple[int, int], Entry] = {}

    def entries(self) -> list[Entry]:
        """Every block that has ended, in conversation order (its position is its number, from 1)."""
        return [entry for turn in self.turns for slot in turn.live.slots()
                if (entry := self._entries.get((turn.number, slot.id))) is not None]

    def numbered(self) -> Iterator[tuple[int, Entry]]:
        return enumerate(self.entries(), 1)

    def entry(self, number: int) -> Entry | None:
        entries = self.entries()
        return entries[number - 1] if 1 <= number <= len(entries) else None

    def of_turn(self, turn: Turn) -> list[Entry]:
        return [entry for entry in self.entries() if entry.turn == turn.number]

    def take_new(self, turn: Turn, rev: int) -> list[Entry]:
        """Entries for the blocks of ``turn`` that got their verdict since last asked."""
        new = []
        for slot in turn.live.slots():
            key = (turn.number, slot.id)
            if key not in self._entries and slot.result is not None:
                entry = self._entries[key] = Entry(turn.number, slot, slot.result, rev=rev)
                new.append(entry)
        return new

    def number_of(self, entry: Entry) -> int:
        return self.entries().index(entry) + 1

    @property
    def last(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    def waiting_files(self) -> set[str]:
        """The files that wait for the model's fix: the last whole round with an accepted block for the file has an
        accepted block for it that failed. A file is written only when every block for it applies, so the held
        blocks of such a file wait with it (a failed block the reviewer rejected waits for nothing). Under another
        policy no file waits."""
        if not self.whole_files:
            return set()
        latest: dict[str, int] = {}
        failed: dict[str, set[int]] = {}
        whole = {turn.number for turn in self.turns if turn.whole}
        for entry in self.entries():
            if entry.accepted and not entry.applied and entry.turn in whole:
                key = entry.verdict.path
                latest[key] = max(latest.get(key, 0), entry.turn)
                if entry.verdict.status is Status.FAILED:
                    failed.setdefault(key, set()).add(entry.turn)
        return {key for key, turn in latest.items() if turn in failed.get(key, ())}

    def for_apply(self) -> list[tuple[int, Entry]]:
        """The blocks Apply writes, numbered: held, accepted, not yet written, and of a file that waits for no fix."""
        waiting = self.waiting_files()
        return [(number, entry) for number, entry in self.numbered()
                if entry.held and entry.accepted and not entry.applied and entry.verdict.path not in waiting]
