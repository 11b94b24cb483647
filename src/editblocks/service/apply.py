"""`apply`: read the target files, plan every block, write the result atomically (or not at all).

This is the one place where the pure core (parse → plan) meets the disk
(the workspace). It holds the workspace lock from the first read to the
last write, so a concurrent run can neither interleave nor overwrite.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import replace

from editblocks.model import (
    ApplyResult,
    BlockKind,
    Diagnostic,
    EditBlock,
    EditResult,
    FileDiff,
    ParseResult,
    Policy,
    Reason,
    Severity,
    ShellSuggestion,
    Status,
)
from editblocks.parsing.assemble import no_op_warning
from editblocks.plan import FilePlan, Plan, PlanOptions, Source, abort_plan, plan_edits
from editblocks.text.diff import unified_diff
from editblocks.workspace.commit import PlannedWrite
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES
from editblocks.workspace.paths import Refusal
from editblocks.workspace.project_files import walk_files
from editblocks.workspace.reading import FileSnapshot
from editblocks.workspace.workspace import Workspace

LOCK_WAIT_SECONDS = 30.0


def apply(
    edits: ParseResult | Sequence[EditBlock],
    root: str | os.PathLike[str],
    *,
    policy: Policy | str | None = None,
    dry_run: bool = False,
    fuzzy: bool = False,
    first_match: bool = False,
    strict: bool = False,
    git_add: bool = False,
    lock_wait: float = LOCK_WAIT_SECONDS,
    keep_runs: int = KEEP_RUNS,
    journal_max_bytes: int = MAX_BYTES,
    known_files: Collection[str] | None = None,
) -> ApplyResult:
    """Apply edit blocks to the files under `root`; nothing outside it is ever touched.

    Raises `WorkspaceBusy` if another process holds the workspace for longer
    than `lock_wait` seconds, and `WorkspaceError` if its undo journal cannot
    be used (the root is not writable, or `.editblocks/` is a symlink);
    everything a model can get wrong comes back as a status and a reason in
    the result. The journal keeps the newest `keep_runs` runs, within
    `journal_max_bytes` of saved copies (the newest run always stays).
    ``known_files`` (the project's files, as given to `parse`) is where a missing file's likely intended
    path is looked up; without it, the root's files are listed for that, only when some file was not found.
    """
    blocks, shell, diagnostics = _unpack(edits)
    options = PlanOptions(policy=Policy(policy) if policy else None, fuzzy=fuzzy,
                          first_match=first_match, strict=strict)
    workspace = Workspace(root, keep_runs=keep_runs, journal_max_bytes=journal_max_bytes)
    if dry_run:
        return _run(workspace, blocks, shell, diagnostics, options, write=False, git_add=False,
                    known_files=known_files)
    with workspace.lock(wait=lock_wait):
        interrupted = workspace.interrupted_run()
        if interrupted is not None:
            why = (f"a previous apply was interrupted (journal run {interrupted}); "
                   "run `editblocks undo` to restore its files first")
            return _refused_run(blocks, shell, diagnostics, why)
        return _run(workspace, blocks, shell, diagnostics, options, write=True, git_add=git_add,
                    known_files=known_files)


def _unpack(edits: ParseResult | Sequence[EditBlock]) -> tuple[
    tuple[EditBlock, ...], tuple[ShellSuggestion, ...], tuple[Diagnostic, ...]
]:
    if isinstance(edits, ParseResult):
        return edits.blocks, edits.shell, edits.diagnostics
    return tuple(edits), (), ()


def _run(
    workspace: Workspace,
    blocks: tuple[EditBlock, ...],
    shell: tuple[ShellSuggestion, ...],
    diagnostics: tuple[Diagnostic, ...],
    options: PlanOptions,
    *,
    write: bool,
    git_add: bool,
    known_files: Collection[str] | None = None,
) -> ApplyResult:
    snapshots: dict[str, FileSnapshot] = {}
    sources: dict[str, Source] = {}
    for path in dict.fromkeys(block.path for block in blocks):
        sources[path] = _source(workspace, path, snapshots)
    for block in blocks:
        if block.move_to is not None and block.move_to not in sources:
            sources[block.move_to] = _source(workspace, block.move_to, snapshots)
    sources = _with_links(workspace, sources)
    plan = plan_edits(blocks, sources, options, _existing_files(workspace, blocks, sources, known_files))
    malformed = [d for d in diagnostics if d.severity is Severity.ERROR]
    if options.policy is Policy.ABORT and malformed and not plan.aborted:
        plan = abort_plan(plan, f"the response has a malformed block (line {malformed[0].line})")
    diffs = file_diffs(plan.files, snapshots)
    if not write or not plan.files:
        return _result(plan, shell, diffs, diagnostics, written=False, dry_run=not write)
    modes = {f.key: snapshots[f.moved_from].mode for f in plan.files if f.moved_from is not None}
    outcome = workspace.commit([PlannedWrite(snapshots[f.key], f.text, f.deleted, modes.get(f.key))
                                for f in plan.files], git_add=git_add)
    notes = (outcome.git_error,) if outcome.git_error else ()
    if outcome.written:
        return _result(plan, shell, diffs, diagnostics, written=True, notes=notes, run_id=outcome.run_id)
    return _result(_not_written(plan, outcome.changed_on_disk, outcome.error), shell, diffs, diagnostics,
                   written=False, notes=notes)


def file_diffs(files: Sequence[FilePlan], snapshots: dict[str, FileSnapshot]) -> tuple[FileDiff, ...]:
    """One diff per changed file; a moved file's diff runs from its old path's text and stands for both paths."""
    moved = {f.moved_from: f.key for f in files if f.moved_from is not None}
    removed = {f.key: f.original for f in files if f.deleted}
    diffs = []
    for f in files:
        encoding = snapshots[f.key].encoding
        if f.deleted:
            if f.key not in moved:
                diffs.append(FileDiff(f.key, False, unified_diff(f.key, f.original, "", deleted=True), f.original,
                                      "", encoding, deleted=True))
        elif f.moved_from is not None:
            before = removed.get(f.moved_from)
            diffs.append(FileDiff(f.key, before is None, unified_diff(f.key, before, f.text, old_path=f.moved_from),
                                  before, f.text, snapshots[f.moved_from].encoding, moved_from=f.moved_from))
        else:
            diffs.append(FileDiff(f.key, f.original is None, unified_diff(f.key, f.original, f.text), f.original,
                                  f.text, encoding))
    return tuple(diffs)


def _source(workspace: Workspace, path: str, snapshots: dict[str, FileSnapshot]) -> Source:
    read = workspace.read(path)
    if isinstance(read, Refusal):
        return Source(path, None, read.reason, read.code.value)
    snapshots[read.rel] = read
    return Source(read.rel, read.text, bom=read.encoding != "utf-8")


def _with_links(workspace: Workspace, sources: dict[str, Source]) -> dict[str, Source]:
    """Each source told which of its spellings reach it through a symlink, so the planner refuses to delete or
    move the link's target by the link's name."""
    links: dict[str, set[str]] = {}
    for path, source in sources.items():
        if not source.refusal and workspace.through_link(path, source.key):
            links.setdefault(source.key, set()).add(path)
    if not links:
        return sources
    return {path: replace(source, links=frozenset(links[source.key])) if source.key in links else source
            for path, source in sources.items()}


def _existing_files(workspace: Workspace, blocks: Sequence[EditBlock], sources: dict[str, Source],
                    known_files: Collection[str] | None) -> Sequence[str]:
    """The files to suggest from when a block's file does not exist: the known files, else the root's (listed
    only then: most runs never need it)."""
    missing = any(block.kind is BlockKind.EDIT and sources[block.path].text is None
                  and not sources[block.path].refusal for block in blocks)
    if not missing:
        return ()
    return tuple(known_files) if known_files is not None else walk_files(workspace.root)


def _not_written(plan: Plan, changed: tuple[str, ...], error: str) -> Plan:
    """The commit wrote nothing: every block that would have applied says why."""
    changed_set = set(changed)
    results = []
    for result in plan.results:
        if result.status is Status.APPLIED:
            key = result.path
            if key in changed_set:
                result = replace(result, status=Status.FAILED, code=Reason.CHANGED_ON_DISK,
                                 reason=f"{key} changed on disk after it was read; nothing was written, apply again")
            elif changed_set:
                result = replace(result, status=Status.SKIPPED, code=Reason.CHANGED_ON_DISK,
                                 reason="not written: another file changed on disk after it was read")
            else:
                result = replace(result, status=Status.FAILED, code=Reason.WRITE_FAILED, reason=error)
        results.append(result)
    return Plan(tuple(results), (), aborted=True)


def _refused_run(blocks: tuple[EditBlock, ...], shell: tuple[ShellSuggestion, ...],
                 diagnostics: tuple[Diagnostic, ...], why: str) -> ApplyResult:
    results = tuple(EditResult(block, Status.SKIPPED, f"not applied: {why}", Reason.ABORTED) for block in blocks)
    return ApplyResult(results, (), (), shell, (), False, diagnostics, (why,))


def without_restated_warnings(diagnostics: Sequence[Diagnostic],
                              results: Sequence[EditResult]) -> tuple[Diagnostic, ...]:
    """The parser's diagnostics minus its no-op warnings for blocks whose result already says "no change".

    A report then states each no-op block once; a no-op block that was not
    found (so its result says something else) keeps the warning.
    """
    restated = {no_op_warning(r.block.line) for r in results if r.code is Reason.NO_OP}
    return tuple(d for d in diagnostics if not (d.severity is Severity.WARNING and d.message in restated))


def _result(plan: Plan, shell: tuple[ShellSuggestion, ...], diffs: tuple[FileDiff, ...],
            diagnostics: tuple[Diagnostic, ...], *, written: bool, notes: tuple[str, ...] = (),
            dry_run: bool = False, run_id: str | None = None) -> ApplyResult:
    files: tuple[FilePlan, ...] = plan.files
    moved_away = {f.moved_from for f in files if f.moved_from is not None}
    return ApplyResult(
        results=plan.results,
        files_modified=tuple(f.key for f in files if f.original is not None and not f.deleted),
        files_created=tuple(f.key for f in files if f.original is None and f.moved_from is None),
        files_deleted=tuple(f.key for f in files if f.deleted and f.key not in moved_away),
        files_renamed=tuple((f.moved_from, f.key) for f in files if f.moved_from is not None),
        shell=shell,
        diffs=diffs if files else (),
        written=written,
        diagnostics=without_restated_warnings(diagnostics, plan.results),
        notes=notes,
        dry_run=dry_run,
        run_id=run_id,
    )
