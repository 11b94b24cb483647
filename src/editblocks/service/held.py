"""Held blocks: what a loop keeps of a file that is not written yet because one of its blocks failed.

With the policy `file`, a file is written only when every block for it
applies. A door that keeps state across rounds (`ask`, the review page, an
MCP session, a `ToolHandler`) keeps the blocks that applied — they are held —
and writes the file when its last block lands, so the model resends only the
failed blocks. Every round decides the held blocks again, first, against the
file as it is then: a file changed meanwhile is located afresh, and a held
block that no longer applies becomes a failure the file waits for, with the
reason. A held file the answer leaves alone keeps waiting; a held block the
model sends again counts as done, never applied twice.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Final

from editblocks.model import EditBlock, EditResult, ResultCode, Status
from editblocks.plan import Plan
from editblocks.plan.planner import Planner
from editblocks.plan.policy import failure_words
from editblocks.record import Record


class HeldFile(Record):
    """A file not written yet: the blocks that applied, in order, and the failed blocks it waits for."""

    __slots__ = ("key", "blocks", "waiting")
    key: Final[str]
    blocks: Final[tuple[EditBlock, ...]]
    waiting: Final[tuple[EditResult, ...]]

    def __init__(self, key: str, blocks: tuple[EditBlock, ...], waiting: tuple[EditResult, ...]) -> None:
        self.key = key
        self.blocks = blocks
        self.waiting = waiting


class HeldBlocks:
    """The held files of one session, by key, in the order they were first held."""

    def __init__(self) -> None:
        self._files: dict[str, HeldFile] = {}

    def __bool__(self) -> bool:
        return bool(self._files)

    @property
    def files(self) -> tuple[HeldFile, ...]:
        return tuple(self._files.values())

    def waiting_for(self, key: str) -> tuple[EditResult, ...]:
        """The failed blocks the held file ``key`` waits for (their latest results)."""
        held = self._files.get(key)
        return held.waiting if held is not None else ()

    def clear(self) -> None:
        self._files.clear()

    def settle(self, results: Sequence[EditResult], untouched: Collection[str] = ()) -> tuple[str, ...]:
        """Keep what a run (held blocks first, then the answer's) left held; a file in ``untouched`` (the answer had
        no block for it) waits for the same failed blocks as before. Returns the held files."""
        kept: dict[str, tuple[list[EditBlock], list[EditResult]]] = {}
        for result in results:
            if result.code is ResultCode.HELD:
                kept.setdefault(result.path, ([], []))[0].append(result.block)
        for result in results:
            if result.status is Status.FAILED and result.path in kept and result.path not in untouched:
                kept[result.path][1].append(result)
        self._files = {key: HeldFile(key, tuple(blocks), self.waiting_for(key) if key in untouched else tuple(waiting))
                       for key, (blocks, waiting) in kept.items()}
        return tuple(self._files)


class HeldRound:
    """One answer planned after the held blocks: they are decided first, and the answer's blocks follow."""

    def __init__(self, held: HeldBlocks | None, planner: Planner) -> None:
        self._files = {file.key: file for file in held.files} if held is not None else {}
        """The held files as the round began (the session's may change once the round is written)."""
        self._touched: set[str] = set()
        self._replayed = 0
        for file in self._files.values():
            for block in file.blocks:
                planner.accept(planner.decide(block))
                self._replayed += 1

    def repeat(self, key: str, block: EditBlock) -> EditResult | None:
        """The result of a block the session already holds, sent again (not to be planned); None for a block of
        the answer's own."""
        held = self._files.get(key)
        if held is not None and any(_same(block, mine) for mine in held.blocks):
            return EditResult(block, Status.SKIPPED, f"already held: this very block is held for {key} from an "
                                                     "earlier answer, so it is not applied twice",
                              ResultCode.ALREADY_APPLIED, file=key)
        return None

    def touch(self, key: str) -> None:
        """A block of the answer's own for the file ``key`` was taken: the file no longer waits for one."""
        self._touched.add(key)

    @property
    def untouched(self) -> tuple[str, ...]:
        """The held files the answer has no block for (so far)."""
        return tuple(key for key in self._files if key not in self._touched)

    def plan(self, planner: Planner, *, keeps: bool) -> tuple[Plan, tuple[EditResult, ...]]:
        """The answer's plan (its own blocks' results) and the held blocks' results; a held file the answer did not
        touch stays unwritten. ``keeps``: the session will keep what stays held, and the reasons say so."""
        waiting = self.untouched
        plan = planner.plan(waiting)
        earlier, own = plan.results[:self._replayed], plan.results[self._replayed:]
        why = self._failures(earlier, own, waiting)
        replayed = tuple(_earlier(result, keeps, why.get(result.path, "")) for result in earlier) + tuple(
            replace(result, reason=f"still waiting: this block of an earlier answer failed and was not sent again "
                                   f"({result.reason})")
            for key in waiting for result in self._files[key].waiting)
        own = tuple(_kept(result, why.get(result.path, "")) if keeps and result.code is ResultCode.HELD else result
                    for result in own)
        return Plan(own, plan.files, plan.aborted), replayed

    def _failures(self, earlier: Sequence[EditResult], own: Sequence[EditResult],
                  waiting: Sequence[str]) -> dict[str, str]:
        """Per held file, what it waits for, in words."""
        words: dict[str, list[str]] = {}
        for key in waiting:
            lines = [result.block.line for result in self._files[key].waiting]
            words.setdefault(key, []).append(failure_words(key, lines, answer="an earlier answer"))
        for result in earlier:
            if result.status is Status.FAILED:
                words.setdefault(result.path, []).append(f"a held block for {result.path} no longer applies")
        own_failed: dict[str, list[int]] = {}
        for result in own:
            if result.status is Status.FAILED:
                own_failed.setdefault(result.path, []).append(result.block.line)
        for key, lines in own_failed.items():
            words.setdefault(key, []).append(failure_words(key, lines))
        return {key: "; ".join(parts) for key, parts in words.items()}


def _same(one: EditBlock, other: EditBlock) -> bool:
    return (one.kind, one.search, one.replace, one.move_to) == (other.kind, other.search, other.replace, other.move_to)


def _kept(result: EditResult, why: str) -> EditResult:
    return replace(result, reason=f"held: it applies, and is kept until every block for {result.path} lands "
                                  f"({why}); do not send it again")


def _earlier(result: EditResult, keeps: bool, why: str) -> EditResult:
    """A held block of an earlier answer, as this round decided it."""
    if result.status is Status.APPLIED:
        return replace(result, reason="; ".join(part for part in (
            f"held from an earlier answer: written now with the other blocks for {result.path}", result.reason)
            if part))
    if result.code is ResultCode.HELD:
        kept = "kept" if keeps else "would be kept"
        return replace(result, reason=f"still held from an earlier answer: {kept} until every block for "
                                      f"{result.path} lands ({why})")
    if result.status is Status.FAILED:
        return replace(result, reason=f"held from an earlier answer, but it no longer applies ({result.path} "
                                      f"changed since): {result.reason}; send it again, fixed")
    return replace(result, reason=f"held from an earlier answer, and done: {result.reason}")
