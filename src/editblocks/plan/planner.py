"""Planning: apply blocks, in order, to in-memory copies of the files, and decide each block's fate.

Pure: the caller reads the files (the workspace) and hands over their texts;
the plan says what every block did and what every changed file becomes.
Nothing is written until every block has been decided, and with the `abort`
policy a single failure means nothing is written at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from editblocks.model import FRONT_END_FORMATS, BlockKind, EditBlock, EditResult, Policy, Reason, Status
from editblocks.parsing.filenames import closest_paths
from editblocks.plan.duplicates import identical_twins, twins_in_place
from editblocks.plan.edits import create, edit
from editblocks.plan.files import add, delete, move, moving_sections, section_result, whole
from editblocks.plan.hunks import scoped_edit
from editblocks.plan.outcomes import locate_options
from editblocks.plan.state import (
    FileBuffer,
    FilePlan,
    FileState,
    Plan,
    PlanOptions,
    Source,
    StateOf,
    default_policy,
)
from editblocks.text.document import Document


def plan_edits(
    blocks: Sequence[EditBlock], sources: Mapping[str, Source], options: PlanOptions = PlanOptions(),
    existing: Sequence[str] = (),
) -> Plan:
    """Decide every block against the current in-memory text of its file.

    ``existing`` lists files under the root (as far as the caller knows them), to suggest the path a model meant
    when the file it names does not exist.
    """
    states: dict[str, FileState] = {}
    results: list[EditResult] = []
    abort = False

    def state_of(path: str) -> FileState:
        # a block may name a second file (a move's target) the caller did not read: refuse it, never raise
        source = sources.get(path) or Source(path, None, refusal=f"{path} was not read for this plan",
                                             refusal_code="unreadable")
        state = states.get(source.key)
        if state is None:
            buffer = FileBuffer(Document.from_text(source.text)) if source.text is not None else None
            state = states[source.key] = FileState(source, buffer)
        return state

    sections = moving_sections(blocks)
    failed_sections: dict[int, int] = {}  # move block index -> line of its section's first failed hunk
    twins = identical_twins(blocks)
    decided: dict[int, EditResult] = {}  # later copies of a block applied together with the first
    for index, block in enumerate(blocks):
        state = state_of(block.path)
        source = sources.get(block.path, state.source)
        result = decided.pop(index, None) or section_result(blocks, index, sections, failed_sections, state, state_of) \
            or _plan_block(block, state, options, existing, state_of)
        if result.code is Reason.AMBIGUOUS and index in twins and twins[index][0] == index:
            together = twins_in_place([blocks[twin] for twin in twins[index]], state,
                                      locate_options(block, state, options))
            if together is not None:
                result = together[0]
                decided.update(zip(twins[index][1:], together[1:]))
        if not source.refusal:
            result = replace(result, file=source.key)
        if result.status is Status.FAILED and index in sections:
            failed_sections.setdefault(sections[index], block.line)
        if result.status is Status.FAILED:
            policy = options.policy or default_policy(block.format)
            abort = abort or policy is Policy.ABORT
            if state.failed_at is None:
                state.failed_at = block.line
        results.append(result)
    plan = Plan(tuple(results), _changed_files(states))
    if abort:
        failed_lines = [r.block.line for r in results if r.status is Status.FAILED]
        return abort_plan(plan, f"block at line {failed_lines[0]} failed and the policy is abort")
    return plan


def abort_plan(plan: Plan, why: str) -> Plan:
    """Nothing is written: blocks that would have applied are reported as skipped, saying why."""
    results = tuple(
        replace(r, status=Status.SKIPPED, code=Reason.ABORTED, reason=f"not applied: {why}; nothing was written")
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
        if state.moved_from is not None and state.source.text is None:
            files.append(FilePlan(key, None, text, moved_from=state.moved_from))
        elif text != state.source.text:
            files.append(FilePlan(key, state.source.text, text))
    return tuple(files)


def _plan_block(block: EditBlock, state: FileState, options: PlanOptions, existing: Sequence[str],
                state_of: StateOf) -> EditResult:
    source = state.source
    if source.refusal:
        return EditResult(block, Status.FAILED, source.refusal, Reason.REFUSED, refusal=source.refusal_code)
    if state.failed_at is not None and (options.policy or default_policy(block.format)) is Policy.SKIP_FILE:
        return EditResult(
            block, Status.SKIPPED, f"skipped: an earlier block for {source.key} (line {state.failed_at}) failed",
            Reason.SKIPPED_AFTER_FAILURE,
        )
    if block.kind is BlockKind.CREATE and block.format not in FRONT_END_FORMATS:
        return create(block, state)
    if block.kind is not BlockKind.EDIT or block.scope is not None:
        return _plan_patch_block(block, state, options, state_of)
    if state.buffer is None:
        reason = f"file not found: {block.path}"
        suggestions = closest_paths(block.path, existing)
        if suggestions:
            reason += "; did you mean " + " or ".join(f"`{path}`" for path in suggestions) + "?"
        return EditResult(block, Status.FAILED, reason, Reason.FILE_NOT_FOUND)
    return edit(block, state, options)


def _plan_patch_block(block: EditBlock, state: FileState, options: PlanOptions, state_of: StateOf) -> EditResult:
    """Decide a block that is not a plain edit: a scoped hunk, a delete, a move or a whole file."""
    if block.kind is BlockKind.DELETE:
        return delete(block, state)
    if block.kind is BlockKind.MOVE:
        return move(block, state, state_of)
    if block.kind is BlockKind.WHOLE:
        return whole(block, state)
    if block.kind is BlockKind.CREATE:
        return add(block, state)
    return scoped_edit(block, state, options)
