"""Locating blocks one at a time, as they complete, against in-memory copies of the files.

A live display wants a block's verdict the moment the block ends, not when the
answer does. The planner decides a whole answer at once; here each block is
planned alone against the file as the blocks before it left it, which is
what the planner does in order. The files are read once, through a callback
the caller supplies (the workspace), so this module itself stays pure.

Across feedback rounds the copies carry on: a block the model resends after
it applied in an earlier round is recognised and never applied twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from editblocks.model import ApplyResult, EditBlock, EditResult, FileDiff, Policy, Reason, Status
from editblocks.plan import PlanOptions, Source, default_policy, plan_edits
from editblocks.text.diff import unified_diff


@dataclass(frozen=True)
class Located:
    """A block's verdict and, when it applies, the texts it leaves (taken only once the block is confirmed).

    ``changes`` pairs each file the block changes with its new text, None for a file it deletes (or moves away).
    """

    block: EditBlock
    result: EditResult
    key: str
    changes: tuple[tuple[str, str | None], ...] = ()
    repeat: bool = False  # an earlier round applied this very block: the workspace must not see it again


@dataclass
class _File:
    source: Source
    text: str | None
    round_start: str | None
    failed: bool = False


class LiveLocator:
    """The files an answer edits, held in memory and updated block by block."""

    def __init__(self, source_for: Callable[[str], Source], options: PlanOptions | None = None) -> None:
        self._source_for = source_for
        self._options = options or PlanOptions()
        self._keys: dict[str, str] = {}  # a path as a block wrote it -> the file's canonical key
        self._files: dict[str, _File] = {}
        self._applied: set[tuple[str, str, str]] = set()
        self._round: list[Located] = []

    def locate(self, block: EditBlock) -> Located:
        """The verdict on ``block`` against the current copies; nothing changes until `accept`."""
        state = self._file(block.path)
        key = state.source.key
        if (key, block.search, block.replace) in self._applied:
            result = EditResult(block, Status.SKIPPED, "this very block already applied earlier in this run; "
                                "not applied again", Reason.ALREADY_APPLIED, file=key)
            return Located(block, result, key, repeat=True)
        policy = self._options.policy or default_policy(block.format)
        if state.failed and policy is Policy.SKIP_FILE:
            result = EditResult(block, Status.SKIPPED, f"skipped: an earlier block for {key} failed",
                                Reason.SKIPPED_AFTER_FAILURE, file=key)
            return Located(block, result, key)
        sources = {block.path: replace(state.source, text=state.text)}
        if block.move_to is not None:  # the planner meets the target as the blocks before left it
            target = self._file(block.move_to)
            sources[block.move_to] = replace(target.source, text=target.text)
        plan = plan_edits([block], sources, self._options)
        changes = tuple((file.key, None if file.deleted else file.text) for file in plan.files)
        changes += tuple((file.moved_from, None) for file in plan.files if file.moved_from is not None)
        return Located(block, plan.results[0], key, changes)

    def accept(self, located: Located) -> None:
        """Take a located block into the copies: the next block of its file meets the text it left."""
        state = self._files[located.key]
        for key, text in located.changes:
            changed = self._files.get(key)
            if changed is None:
                changed = self._files[key] = _File(Source(key, None), None, None)
            changed.text = text
        if located.result.status is Status.APPLIED:
            self._applied.add((located.key, located.block.search, located.block.replace))
        elif located.result.status is Status.FAILED:
            state.failed = True
        self._round.append(located)

    def start_round(self) -> None:
        """A new answer begins: its diffs start from the copies as they are, and no file has failed yet."""
        self._round = []
        for state in self._files.values():
            state.round_start = state.text
            state.failed = False

    def reload(self) -> None:
        """Forget the copies (the files were written): the next block reads each file afresh."""
        self._keys.clear()
        self._files.clear()

    def round_blocks(self) -> Sequence[Located]:
        return tuple(self._round)

    def round_result(self, *, dry_run: bool) -> ApplyResult:
        """This round's verdicts and diffs, as `apply` would report them without writing."""
        results = tuple(located.result for located in self._round)
        changed = [(key, state) for key, state in self._files.items() if state.text != state.round_start]
        diffs = tuple(FileDiff(key, state.round_start is None, unified_diff(key, state.round_start, state.text or ""),
                               state.round_start, state.text or "", deleted=state.text is None)
                      for key, state in changed)
        return ApplyResult(
            results=results,
            files_modified=tuple(key for key, state in changed if None not in (state.round_start, state.text)),
            files_created=tuple(key for key, state in changed if state.round_start is None),
            shell=(), diffs=diffs, written=False, dry_run=dry_run,
            files_deleted=tuple(key for key, state in changed if state.text is None),
        )

    def round_files(self) -> dict[str, tuple[str | None, str | None, bool]]:
        """Every file this round touched: its text when the round began, its text now, and whether it has a BOM."""
        return {key: (state.round_start, state.text, state.source.bom) for key, state in self._files.items()
                if not state.source.refusal}

    def _file(self, path: str) -> _File:
        key = self._keys.get(path)
        if key is None:
            source = self._source_for(path)
            key = self._keys[path] = source.key
            if key not in self._files:
                self._files[key] = _File(source, source.text, source.text)
        return self._files[key]
