"""The incremental planner: decide one block at a time against in-memory copies of its files.

Pure: the caller says how to get a file's text (`TargetFile`); the planner
decides each block against the file as the accepted blocks before it left
it. `decide` gives a block's verdict without taking it, so a live display
can show the verdict the moment the block ends and take the block only when
it is confirmed; `accept` takes it; `plan` says what every accepted block did
and what every changed file becomes. `plan_edits` is the batch call: a loop
over the same three steps. Nothing is written here. With the default policy
(`file`) a file with a failed block is not written at all (`policy`); with
`abort` a single failure means the plan writes nothing.

One verdict needs the blocks that follow: a block whose old text occurs N
times may be the first of N identical blocks, one for each place
(plan/duplicates.py). Such a block is accepted *waiting*: its verdict is
the ambiguity it would be alone, unless the copies for the other places
follow; the last copy edits every place and settles the earlier ones, and
`plan` reports a block still waiting as ambiguous. A waiting block is not a
failure until then, except that under `skip-file` another block of its file
settles it first (so that block's fate never depends on blocks after it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain

from editblocks.model import FRONT_END_FORMATS, BlockKind, EditBlock, EditResult, Policy, ResultCode, Status
from editblocks.parsing.filenames import closest_paths
from editblocks.plan.duplicates import TwinKey, twin_key, twin_places, twins_in_place
from editblocks.plan.edits import create, edit
from editblocks.plan.files import add, delete, move, moving_sections, section_result, set_mode, whole
from editblocks.plan.hunks import scoped_edit
from editblocks.plan.outcomes import locate_options
from editblocks.plan.policy import held_files, held_result, hold_back
from editblocks.plan.state import (
    INDEX_FROM_BLOCK,
    Change,
    FileBuffer,
    FilePlan,
    FileState,
    Plan,
    PlanOptions,
    StateOf,
    TargetFile,
    apply_change,
)


@dataclass(frozen=True)
class Decision:
    """A block's verdict against the files as the accepted blocks left them, and the changes taking it makes.

    With ``awaiting``, the verdict is provisional: the block waits for that many more identical blocks, and
    ``result`` is what it becomes if they do not come. ``settles`` are the final verdicts of earlier waiting
    blocks that taking this one gives.
    """

    result: EditResult
    changes: tuple[Change, ...] = ()
    section: EditBlock | None = field(default=None, compare=False)  # the move this hunk's section ends with
    generation: int = field(default=0, compare=False)
    awaiting: int = 0
    settles: tuple[EditResult, ...] = ()


class Planner:
    """Blocks decided one at a time, in answer order, against in-memory copies of their files.

    ``source_for`` gives what is known of the file a path names (called once per spelling); ``existing`` lists
    the files to suggest from when a block names a file that does not exist (called only then).
    """

    def __init__(self, source_for: Callable[[str], TargetFile], options: PlanOptions = PlanOptions(),
                 existing: Callable[[], Sequence[str]] = tuple) -> None:
        self._source_for = source_for
        self._options = options
        self._policy = options.policy or Policy.FILE
        self._existing = existing
        self._listed: Sequence[str] | None = None
        self._sources: dict[str, TargetFile] = {}
        self._states: dict[str, FileState] = {}
        self._pending: list[Change] = []
        self._results: list[EditResult] = []
        self._failed_sections: dict[EditBlock, int] = {}  # move block -> line of its section's first failed hunk
        self._abort = False
        self._generation = 0
        self._waiting: dict[tuple[str, TwinKey], list[int]] = {}
        self._many: set[str] = set()
        """Paths that the blocks given to `take` name many times: their files are indexed from the first block."""
        """Where the results of blocks waiting for identical copies are, by file key and the copies' identity."""

    @property
    def options(self) -> PlanOptions:
        return self._options

    def source(self, path: str) -> TargetFile:
        """What is known of the file ``path`` names, as the planner first read it."""
        source = self._sources.get(path)
        if source is None:
            source = self._sources[path] = self._source_for(path)
        return source

    def decide(self, block: EditBlock, section: EditBlock | None = None) -> Decision:
        """The verdict on ``block`` (a hunk of ``section``, a move that also edits the file, when given); nothing
        changes until `accept`."""
        self._pending.clear()
        state = self._state_of(block.path)
        source = self.source(block.path)
        key = twin_key(block) if section is None else None
        closed = self._closed_by(block, key, state)
        failed_at = min([*([state.failed_at] if state.failed_at is not None else []),
                         *(self._results[positions[0]].block.line for positions in closed)], default=None)
        result = section_result(block, section, self._failed_sections.get(block), state, self._state_of) \
            or self._plan_block(block, state, failed_at)
        awaiting, settles = 0, tuple(self._results[position] for positions in closed for position in positions)
        if key is not None and result.code is ResultCode.AMBIGUOUS:
            result, awaiting, together = self._twins(block, key, state, result)
            settles += together
        if not source.refusal:
            result = replace(result, file=source.key)
        changes = tuple(self._pending) if result.status is Status.APPLIED else ()
        self._pending.clear()
        if self._policy is Policy.FILE and state.failed_lines:
            if changes:
                result = held_result(result, state.failed_lines)  # taken into the copy all the same
            settles = tuple(held_result(r, state.failed_lines) if r.status is Status.APPLIED else r for r in settles)
        return Decision(result, changes, section, self._generation, awaiting, settles)

    def accept(self, decision: Decision) -> None:
        """Take a decided block: the next block of its file meets the text it leaves, and the plan reports it.

        Raises ValueError for a decision made before another block was accepted (it was decided on other text).
        """
        if decision.generation != self._generation:
            raise ValueError("a decision must be accepted before the next block is accepted")
        self._generation += 1
        for change in decision.changes:
            apply_change(change, self._state_of)
        result = decision.result
        self._results.append(result)
        if decision.settles:
            self._settle(decision.settles)
        if decision.awaiting:
            self._waiting.setdefault(self._twins_key(result.block), []).append(len(self._results) - 1)
            return
        if result.status is Status.FAILED:
            self._failed(result.block, decision.section)

    def waiting(self) -> tuple[EditResult, ...]:
        """The accepted blocks still waiting for identical blocks, each with the verdict `plan` gives it if none
        follow (the old text is ambiguous)."""
        return tuple(self._results[position] for position in sorted(chain.from_iterable(self._waiting.values())))

    def take(self, blocks: Sequence[EditBlock]) -> list[EditResult]:
        """Decide and accept ``blocks`` in order (a whole answer, or the blocks a patch was read into); their
        results (a block still waiting for identical blocks with the verdict `plan` would give it)."""
        sections = moving_sections(blocks)
        start = len(self._results)
        self._many = {path for path, count in Counter(block.path for block in blocks).items()
                      if count >= INDEX_FROM_BLOCK}
        for index, block in enumerate(blocks):
            self.accept(self.decide(block, sections.get(index)))
        return list(self._results[start:])

    @property
    def results(self) -> tuple[EditResult, ...]:
        """The accepted blocks' results, in the order they were accepted."""
        return tuple(self._results)

    def plan(self, waiting: Collection[str] = ()) -> Plan:
        """Every accepted block's result and every changed file. With the `file` policy a file with a failed block
        is not written (nor is a file in ``waiting``: it waits for a block of an earlier answer); with `abort`
        and a failure, nothing is. A block still waiting for identical blocks is ambiguous."""
        plan = Plan(tuple(self._results), _changed_files(self._states))
        unsettled = self.waiting()
        if self._abort or (self._policy is Policy.ABORT and unsettled):
            failed_lines = [r.block.line for r in self._results if r.status is Status.FAILED]
            return abort_plan(plan, f"block at line {failed_lines[0]} failed and the policy is abort")
        if self._policy is Policy.FILE:
            return hold_back(plan, held_files(self._states, waiting, [(r.path, r.block.line) for r in unsettled]))
        return plan

    def forget_lookups(self) -> None:
        """Drop what only speeds up locating more blocks (each file's line index and cached view), so that `plan`
        joins the files' texts without them in memory; a later block builds them again."""
        for state in self._states.values():
            if state.buffer is not None:
                state.buffer.forget_lookups()

    def _state_of(self, path: str) -> FileState:
        source = self.source(path)
        state = self._states.get(source.key)
        if state is None:
            buffer = FileBuffer(source.text) if source.text is not None else None
            state = self._states[source.key] = FileState(source, buffer, self._pending)
        if path in self._many:
            state.many_blocks = True
        state.links.update(source.links)
        return state

    def _failed(self, block: EditBlock, section: EditBlock | None = None) -> None:
        if section is not None:
            self._failed_sections.setdefault(section, block.line)
        self._abort = self._abort or self._policy is Policy.ABORT
        state = self._state_of(block.path)
        if state.failed_at is None:
            state.failed_at = block.line
        state.failed_lines.append(block.line)

    def _twins_key(self, block: EditBlock) -> tuple[str, TwinKey]:
        key = twin_key(block)
        assert key is not None
        return self.source(block.path).key, key

    def _closed_by(self, block: EditBlock, key: TwinKey | None, state: FileState) -> list[list[int]]:
        """The waiting blocks of ``block``'s file that it settles as ambiguous: under `skip-file`, a block that is
        not their copy would be skipped if they fail, so they are decided first."""
        if self._policy is not Policy.SKIP_FILE:
            return []
        return [positions for (file, shared), positions in self._waiting.items()
                if file == state.source.key and shared != key]

    def _twins(self, block: EditBlock, key: TwinKey, state: FileState,
               alone: EditResult) -> tuple[EditResult, int, tuple[EditResult, ...]]:
        """An ambiguous block that may be one of identical blocks, one for each place: its result, how many more
        copies it waits for, and the final results of the earlier copies it settles."""
        earlier = [self._results[position] for position in self._waiting.get((state.source.key, key), [])]
        count = len(earlier) + 1
        places = len(alone.candidates)
        options = locate_options(block, state, self._options)
        if places == count:
            together = twins_in_place([result.block for result in earlier] + [block], state, options)
            if together is not None:
                return together[-1], 0, tuple(together[:-1])
        elif places > count and twin_places(block, places, state, options) is not None:
            return alone, places - count, ()
        return alone, 0, tuple(earlier)  # the copies can no longer match the places: all ambiguous

    def _settle(self, results: Sequence[EditResult]) -> None:
        """Earlier waiting blocks get their final verdicts (the block accepted now completed or closed them)."""
        settled = {result.block: result for result in results}
        for key, positions in list(self._waiting.items()):
            if self._results[positions[0]].block not in settled:
                continue
            del self._waiting[key]
            for position in positions:
                result = self._results[position] = settled[self._results[position].block]
                if result.status is Status.FAILED:
                    self._failed(result.block)

    def _plan_block(self, block: EditBlock, state: FileState, failed_at: int | None) -> EditResult:
        options = self._options
        source = state.source
        if source.refusal:
            return EditResult(block, Status.FAILED, source.refusal, ResultCode.REFUSED, refusal=source.refusal_code)
        if failed_at is not None and self._policy is Policy.SKIP_FILE:
            return EditResult(
                block, Status.SKIPPED, f"skipped: an earlier block for {source.key} (line {failed_at}) failed",
                ResultCode.SKIPPED_AFTER_FAILURE,
            )
        if block.kind is BlockKind.CREATE and block.format not in FRONT_END_FORMATS:
            return create(block, state)
        if block.kind is not BlockKind.EDIT or block.scope is not None:
            return _plan_patch_block(block, state, options, self._state_of)
        if state.buffer is None:
            reason = f"file not found: {block.path}"
            if self._listed is None:
                self._listed = self._existing()
            suggestions = closest_paths(block.path, self._listed)
            if suggestions:
                reason += "; did you mean " + " or ".join(f"`{path}`" for path in suggestions) + "?"
            return EditResult(block, Status.FAILED, reason, ResultCode.FILE_NOT_FOUND)
        return edit(block, state, options)


def plan_edits(
    blocks: Sequence[EditBlock], sources: Mapping[str, TargetFile], options: PlanOptions = PlanOptions(),
    existing: Sequence[str] = (),
) -> Plan:
    """Decide every block against the current in-memory text of its file: `Planner`, fed the whole answer.

    ``existing`` lists files under the root (as far as the caller knows them), to suggest the path a model meant
    when the file it names does not exist.
    """
    planner = Planner(lambda path: sources.get(path) or unread(path), options, lambda: existing)
    planner.take(blocks)
    planner.forget_lookups()
    return planner.plan()


def unread(path: str) -> TargetFile:
    """A file the caller did not read (a move's target it was not told of): refused, never a crash."""
    return TargetFile(path, None, refusal=f"{path} was not read for this plan", refusal_code="unreadable")


def abort_plan(plan: Plan, why: str) -> Plan:
    """Nothing is written: blocks that would have applied are reported as skipped, saying why."""
    results = tuple(
        replace(r, status=Status.SKIPPED, code=ResultCode.ABORTED, reason=f"not applied: {why}; nothing was written")
        if r.status is Status.APPLIED
        else r
        for r in plan.results
    )
    return Plan(results, (), aborted=True)


def _changed_files(states: Mapping[str, FileState]) -> tuple[FilePlan, ...]:
    files = []
    for key, state in states.items():
        if state.buffer is None:
            if state.removed and state.source.text is not None:
                files.append(FilePlan(key, state.source.text, "", deleted=True))
            continue
        text = state.buffer.to_text()
        executable = state.executable if state.executable != state.source.executable else None
        if state.moved_from is not None and state.source.text is None:
            files.append(FilePlan(key, None, text, moved_from=state.moved_from, executable=executable))
        elif text != state.source.text or executable is not None:
            files.append(FilePlan(key, state.source.text, text, executable=executable))
    return tuple(files)


def _plan_patch_block(block: EditBlock, state: FileState, options: PlanOptions, state_of: StateOf) -> EditResult:
    """Decide a block that is not a plain edit: a scoped hunk, a delete, a move or a whole file."""
    if block.kind is BlockKind.DELETE:
        return delete(block, state)
    if block.kind is BlockKind.MOVE:
        return move(block, state, state_of)
    if block.kind is BlockKind.MODE:
        return set_mode(block, state)
    if block.kind is BlockKind.WHOLE:
        return whole(block, state)
    if block.kind is BlockKind.CREATE:
        return add(block, state)
    return scoped_edit(block, state, options)
