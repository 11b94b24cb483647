"""The OpenAI Agents SDK: an `ApplyPatchEditor` whose edits go through editblocks, and a safer `apply_diff`.

`EditblocksEditor(root)` is what `ApplyPatchTool(editor=...)` takes: each
`create_file` / `update_file` / `delete_file` operation the model sends runs as
the `apply_patch` tool of `editblocks.tools` (located with the ladder, unique
or refused with every candidate, written atomically and journaled, inside the
root; `move_to` renames). A refused operation is an
`ApplyPatchResult(status="failed")` whose output is the feedback, so the
model sees what is really in the file and tries again.

`apply_diff` is a drop-in for `agents.apply_diff` on text in memory: the SDK's
takes the first place a hunk's lines occur; this one refuses a hunk that
matches more than one place, naming the lines.
"""

from __future__ import annotations

import os
from typing import Literal

from editblocks.integrations import missing_extra
from editblocks.model import Format, Policy, Status
from editblocks.parsing.stream import parse
from editblocks.plan import PlanOptions, TargetFile, plan_edits
from editblocks.service.options import ApplyOptions
from editblocks.tools import ToolHandler
from editblocks.tools.definitions import APPLY_PATCH, operation_patch

try:
    from agents import ApplyPatchOperation, ApplyPatchResult
except ImportError as error:  # pragma: no cover - the extra is installed wherever the tests run
    raise ImportError(missing_extra("openai-agents", "openai-agents")) from error

ApplyDiffMode = Literal["default", "create"]
_IN_MEMORY = "input"  # the name the text in memory goes by in a refusal


class EditblocksEditor:
    """An `agents.ApplyPatchEditor` editing files under ``root`` only, with ``options`` (as for `apply`)."""

    def __init__(self, root: str | os.PathLike[str], *, options: ApplyOptions | None = None) -> None:
        self.handler = ToolHandler(root, options=options)

    def create_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return self._run(operation)

    def update_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return self._run(operation)

    def delete_file(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        return self._run(operation)

    def _run(self, operation: ApplyPatchOperation) -> ApplyPatchResult:
        given = {"type": operation.type, "path": operation.path, "diff": operation.diff, "move_to": operation.move_to}
        reply = self.handler.call(APPLY_PATCH, {"operation": {k: v for k, v in given.items() if v is not None}})
        return ApplyPatchResult(status="completed" if reply.ok else "failed", output=reply.text)


class PatchRefused(ValueError):
    """The diff cannot be applied to the text (`agents.apply_diff` raises ValueError too); the message says why,
    with the candidate lines of an ambiguous hunk or the closest lines of a missing one."""


def apply_diff(input: str, diff: str, mode: ApplyDiffMode = "default") -> str:
    """The text ``input`` with the V4A ``diff`` applied (``mode="create"``: the new file ``diff`` adds).

    Pure. Raises `PatchRefused` when a hunk is not found, matches more than
    one place, or the diff is malformed; the text's line endings are kept
    line by line.
    """
    if mode not in ("default", "create"):
        raise PatchRefused(f"mode must be 'default' or 'create', not {mode!r}")
    kind = "create_file" if mode == "create" else "update_file"
    try:
        patch = operation_patch({"type": kind, "path": _IN_MEMORY, "diff": diff})
    except ValueError as error:
        raise PatchRefused(f"the diff cannot be read: {error}") from None
    parsed = parse(patch, format=Format.V4A)
    if parsed.errors:
        raise PatchRefused("the diff cannot be read: " + "; ".join(d.message for d in parsed.errors))
    if not parsed.blocks:
        return input
    source = TargetFile(_IN_MEMORY, None if mode == "create" else input)
    plan = plan_edits(parsed.blocks, {_IN_MEMORY: source}, PlanOptions(policy=Policy.ABORT))
    failed = [result for result in plan.results if result.status is Status.FAILED]
    if failed:
        raise PatchRefused("\n".join(result.reason + (f"\n{result.hint}" if result.hint else "") for result in failed))
    changed = [file.text for file in plan.files if file.key == _IN_MEMORY]
    return changed[0] if changed else input


class EditblocksPatchFormat:
    """A `PatchFormat` for the SDK's sandbox workspace editor: V4A, applied by `apply_diff` above."""

    apply_diff = staticmethod(apply_diff)
