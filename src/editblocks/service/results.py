"""Turning a plan into the `ApplyResult` every door reports: files by what happened to them, diffs, and why a
block that would have applied was not written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial

from editblocks.model import (
    ApplyResult,
    Diagnostic,
    EditBlock,
    EditResult,
    FileDiff,
    ResultCode,
    Severity,
    ShellSuggestion,
    Status,
)
from editblocks.plan import FilePlan, Plan
from editblocks.text.diff import unified_diff
from editblocks.workspace.reading import FileSnapshot


def file_diffs(files: Sequence[FilePlan], snapshots: Mapping[str, FileSnapshot]) -> tuple[FileDiff, ...]:
    """One diff per changed file; a moved file's diff runs from its old path's text and stands for both paths.
    Each is made when first read (most dry runs and applies never show one)."""
    moved = {f.moved_from: f.key for f in files if f.moved_from is not None}
    removed = {f.key: f.original for f in files if f.deleted}
    diffs = []
    for f in files:
        encoding = snapshots[f.key].encoding if f.key in snapshots else "utf-8"
        if f.deleted:
            if f.key not in moved:
                made = partial(unified_diff, f.key, f.original, "", deleted=True)
                diffs.append(FileDiff(f.key, False, made, f.original, "", encoding, deleted=True))
        elif f.moved_from is not None:
            before = removed.get(f.moved_from)
            source = snapshots.get(f.moved_from)
            made = partial(unified_diff, f.key, before, f.text, old_path=f.moved_from)
            diffs.append(FileDiff(f.key, before is None, made, before, f.text,
                                  source.encoding if source is not None else encoding, moved_from=f.moved_from))
        else:
            made = partial(unified_diff, f.key, f.original, f.text)
            diffs.append(FileDiff(f.key, f.original is None, made, f.original, f.text, encoding))
    return tuple(diffs)


def apply_result(plan: Plan, snapshots: Mapping[str, FileSnapshot], *, written: bool,
                 shell: tuple[ShellSuggestion, ...] = (), diagnostics: tuple[Diagnostic, ...] = (),
                 notes: tuple[str, ...] = (), dry_run: bool = False, run_id: str | None = None,
                 held_over: tuple[EditResult, ...] = ()) -> ApplyResult:
    """The result of ``plan``: its block results, its files sorted by what happens to them, and their diffs
    (``run_id``: the journal run that wrote them; ``held_over``: the results of earlier answers' held blocks)."""
    files = plan.files
    moved_away = {f.moved_from for f in files if f.moved_from is not None}
    return ApplyResult(
        results=plan.results,
        files_modified=tuple(f.key for f in files if f.original is not None and not f.deleted),
        files_created=tuple(f.key for f in files if f.original is None and f.moved_from is None),
        files_deleted=tuple(f.key for f in files if f.deleted and f.key not in moved_away),
        files_renamed=tuple((f.moved_from, f.key) for f in files if f.moved_from is not None),
        shell=shell,
        diffs=file_diffs(files, snapshots),
        written=written,
        diagnostics=without_restated_warnings(diagnostics, plan.results),
        notes=notes,
        dry_run=dry_run,
        run_id=run_id,
        held_over=held_over,
    )


def not_written(plan: Plan, changed: tuple[str, ...], error: str) -> Plan:
    """The commit wrote nothing: every block that would have applied says why, and no file changes."""
    changed_set = set(changed)
    results = []
    for result in plan.results:
        if result.status is Status.APPLIED:
            key = result.path
            if key in changed_set:
                result = replace(result, status=Status.FAILED, code=ResultCode.CHANGED_ON_DISK,
                                 reason=f"{key} changed on disk after it was read; nothing was written, apply again")
            elif changed_set:
                result = replace(result, status=Status.SKIPPED, code=ResultCode.CHANGED_ON_DISK,
                                 reason="not written: another file changed on disk after it was read")
            else:
                result = replace(result, status=Status.FAILED, code=ResultCode.WRITE_FAILED, reason=error)
        results.append(result)
    return Plan(tuple(results), (), aborted=True)


def refused_run(blocks: Sequence[EditBlock], why: str, *, shell: tuple[ShellSuggestion, ...] = (),
                diagnostics: tuple[Diagnostic, ...] = ()) -> ApplyResult:
    """Nothing was even planned (the workspace cannot be written now): every block skipped, saying why."""
    results = tuple(EditResult(block, Status.SKIPPED, f"not applied: {why}", ResultCode.ABORTED) for block in blocks)
    return ApplyResult(results, (), (), shell, (), False, diagnostics, (why,))


def without_restated_warnings(diagnostics: Sequence[Diagnostic],
                              results: Sequence[EditResult]) -> tuple[Diagnostic, ...]:
    """The parser's diagnostics minus its no-op warnings for blocks whose result already says "no change".

    A report then states each no-op block once; a no-op block that was not
    found (so its result says something else) keeps the warning.
    """
    restated = {r.block.line for r in results if r.code is ResultCode.NO_OP}
    return tuple(d for d in diagnostics
                 if not (d.severity is Severity.WARNING and d.code == "no-op" and d.line in restated))


def clean(result: ApplyResult) -> bool:
    """Every block applied (or already had), none is held, and the parser found nothing malformed: the exit
    status 0."""
    return bool(result.results) and not any(d.severity is Severity.ERROR for d in result.diagnostics) and all(
        r.status is Status.APPLIED or r.code is ResultCode.ALREADY_APPLIED for r in result.results + result.held_over)
