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
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from editblocks.model import FRONT_END_FORMATS, BlockKind, EditBlock, EditResult, Policy, ResultCode, Status
from editblocks.parsing.filenames import closest_paths
from editblocks.plan.edits import create, edit
from editblocks.plan.files import add, delete, move, moving_sections, section_result, set_mode, whole
from editblocks.plan.hunks import scoped_edit
from editblocks.plan.policy import held_files, held_result, hold_back
from editblocks.plan.state import (
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
from editblocks.text.document import Document


@dataclass(frozen=True)
class Decision:
    """A block's verdict against the files as the accepted blocks left them, and the changes taking it makes."""

    result: EditResult
    changes: tuple[Change, ...] = ()
    section: EditBlock | None = field(default=None, compare=False)  # the move this hunk's section ends with
    generation: int = field(default=0, compare=False)


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
        result = section_result(block, section, self._failed_sections.get(block), state, self._state_of) \
            or self._plan_block(block, state)
        if not source.refusal:
            result = replace(result, file=source.key)
        changes = tuple(self._pending) if result.status is Status.APPLIED else ()
        self._pending.clear()
        if changes and self._policy is Policy.FILE and state.failed_lines:
            result = held_result(result, state.failed_lines)  # taken into the copy all the same
        return Decision(result, changes, section, self._generation)

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
        if result.status is not Status.FAILED:
            return
        block = result.block
        if decision.section is not None:
            self._failed_sections.setdefault(decision.section, block.line)
        self._abort = self._abort or self._policy is Policy.ABORT
        state = self._state_of(block.path)
        if state.failed_at is None:
            state.failed_at = block.line
        state.failed_lines.append(block.line)

    def take(self, blocks: Sequence[EditBlock]) -> list[EditResult]:
        """Decide and accept ``blocks`` in order (a whole answer, or the blocks a patch was read into)."""
        sections = moving_sections(blocks)
        results = []
        for index, block in enumerate(blocks):
            decision = self.decide(block, sections.get(index))
            self.accept(decision)
            results.append(decision.result)
        return results

    @property
    def results(self) -> tuple[EditResult, ...]:
        """The accepted blocks' results, in the order they were accepted."""
        return tuple(self._results)

    def plan(self, waiting: Collection[str] = ()) -> Plan:
        """Every accepted block's result and every changed file. With the `file` policy a file with a failed block
        is not written (nor is a file in ``waiting``: it waits for a block of an earlier answer); with `abort`
        and a failure, nothing is."""
        plan = Plan(tuple(self._results), _changed_files(self._states))
        if self._abort:
            failed_lines = [r.block.line for r in self._results if r.status is Status.FAILED]
            return abort_plan(plan, f"block at line {failed_lines[0]} failed and the policy is abort")
        if self._policy is Policy.FILE:
            return hold_back(plan, held_files(self._states, waiting))
        return plan

    def _state_of(self, path: str) -> FileState:
        source = self.source(path)
        state = self._states.get(source.key)
        if state is None:
            buffer = FileBuffer(Document.from_text(source.text)) if source.text is not None else None
            state = self._states[source.key] = FileState(source, buffer, self._pending)
        state.links.update(source.links)
        return state

    def _plan_block(self, block: EditBlock, state: FileState) -> EditResult:
        options = self._options
        source = state.source
        if source.refusal:
            return EditResult(block, Status.FAILED, source.refusal, ResultCode.REFUSED, refusal=source.refusal_code)
        if state.failed_at is not None and self._policy is Policy.SKIP_FILE:
            return EditResult(
                block, Status.SKIPPED, f"skipped: an earlier block for {source.key} (line {state.failed_at}) failed",
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
