"""Operations on whole files: a patch's new file, deleting, moving (with the hunks of its section), whole files.

Deleting and moving a file change which files exist in the plan; the
workspace carries them out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from editblocks.locate.elision import is_placeholder
from editblocks.model import BlockKind, EditBlock, EditResult, Format, ResultCode, Status
from editblocks.plan.edits import create
from editblocks.plan.guards import EDIT_MARKER, EMPTY_CONTENT, PLACEHOLDER, introduced_marker, marker_reason
from editblocks.plan.state import BOM, FileState, StateOf, lines_of
from editblocks.text.document import Document


def add(block: EditBlock, state: FileState) -> EditResult:
    """A patch's new file: as any created file, but a refusal says how a patch changes an existing file. A diff may
    create it without a final line break, with CRLF line breaks, or executable."""
    marker = introduced_marker([], lines_of(block.new))
    if marker is not None:
        return EditResult(block, Status.FAILED, marker_reason(marker, block.path), ResultCode.REFUSED,
                          refusal=EDIT_MARKER)
    result = create(block, state)
    if result.status is Status.APPLIED:
        if block.scope is not None and block.scope.final_newline is False:
            state.end_with_newline(False)
        if block.mode is not None:
            state.make_executable(executable(block.mode))
    if result.code is not ResultCode.FILE_EXISTS:
        return result
    key = state.source.key
    if block.format is Format.V4A:
        how = f"change it with `*** Update File: {key}` and hunks, or delete it first with `*** Delete File: {key}`"
    else:
        how = "write the diff against its current content (`--- a/path`), not as a new file (`--- /dev/null`)"
    return replace(result, reason=f"cannot add {key}: it already exists and is not empty; {how}")


def executable(mode: int) -> bool:
    """Whether a git mode (`100755`) makes the file executable."""
    return bool(mode & 0o111)


def set_mode(block: EditBlock, state: FileState) -> EditResult:
    """A diff's mode change: only the executable bit is applied (never set-ID bits or others)."""
    assert block.mode is not None
    if state.buffer is None:
        return missing(block, state, "change the mode of")
    wanted = executable(block.mode)
    now = state.executable if state.executable is not None else state.source.executable
    key = state.source.key
    what = "executable" if wanted else "not executable"
    if now == wanted:
        return EditResult(block, Status.SKIPPED, f"already applied: {key} is already {what}",
                          ResultCode.ALREADY_APPLIED, strategy="mode", similarity=1.0)
    state.make_executable(wanted)
    return EditResult(block, Status.APPLIED, f"made {key} {what}", ResultCode.NONE, strategy="mode", similarity=1.0)


def _by_link(block: EditBlock, state: FileState, doing: str) -> EditResult:
    """Deleting or moving a symlink by its name would act on its target; editblocks does not change links."""
    return EditResult(block, Status.FAILED,
                      f"refused: cannot {doing} {block.path}: it is a symlink to {state.source.key} (or leads through "
                      f"one), and this would {doing} {state.source.key} instead; nothing was changed; {doing} "
                      f"{state.source.key} by its own name if that is meant", ResultCode.REFUSED)


def missing(block: EditBlock, state: FileState, doing: str) -> EditResult:
    gone = " (an earlier block of this answer removed it)" if state.removed else ""
    return EditResult(block, Status.FAILED, f"cannot {doing} {state.source.key}: no such file{gone}",
                      ResultCode.FILE_NOT_FOUND)


def delete(block: EditBlock, state: FileState) -> EditResult:
    buffer = state.buffer
    if buffer is None:
        return missing(block, state, "delete")
    if block.path in state.links:
        return _by_link(block, state, "delete")
    if block.old:
        expected = lines_of(block.old)
        if expected and expected[0].startswith(BOM):
            expected[0] = expected[0][1:]
        actual = [line.rstrip() for line in buffer.lines]
        if actual and actual[0].startswith(BOM):
            actual[0] = actual[0][1:]
        if [line.rstrip() for line in expected] != actual:
            differs = next((n for n, (a, b) in enumerate(zip(expected, actual), 1) if a.rstrip() != b),
                           min(len(expected), len(actual)) + 1)
            return EditResult(block, Status.FAILED,
                              f"cannot delete {state.source.key}: the lines the diff removes are not the whole file "
                              f"as it is (they differ from line {differs} on); nothing was deleted",
                              ResultCode.NOT_FOUND, closest=(differs, differs))
    state.remove()
    return EditResult(block, Status.APPLIED, f"deleted {state.source.key}", ResultCode.NONE, strategy="delete",
                      similarity=1.0)


def moving_sections(blocks: Sequence[EditBlock]) -> dict[int, EditBlock]:
    """The hunks that belong to a move (a V4A `Update File` + `Move to` section, a git rename with hunks): the index
    of each such hunk block mapped to its move block.

    A front-end emits a section's hunks right before its move, each after the section's own first line.
    """
    owner: dict[int, EditBlock] = {}
    for index, move in enumerate(blocks):
        if move.kind is not BlockKind.MOVE:
            continue
        hunk = index - 1
        while hunk >= 0 and blocks[hunk].kind is BlockKind.EDIT and blocks[hunk].path == move.path \
                and blocks[hunk].format is move.format and blocks[hunk].line > move.line:
            owner[hunk] = move
            hunk -= 1
    return owner


def section_result(block: EditBlock, section: EditBlock | None, failed_hunk: int | None, state: FileState,
                   state_of: StateOf) -> EditResult | None:
    """A section that edits and moves a file is one operation: its hunks fail when its move (``section``) would be
    refused, and its move is not made when one of its hunks failed (the first at line ``failed_hunk``). None when
    the block is planned as usual."""
    if section is not None and not state.source.refusal and state.buffer is not None:
        refused = move_refusal(section, state, state_of)
        if refused is not None:
            return EditResult(block, Status.FAILED, f"not applied: this hunk's section also moves the file, and "
                                                    f"{refused.reason}", refused.code, refusal=refused.refusal)
    if block.kind is BlockKind.MOVE and failed_hunk is not None and state.buffer is not None \
            and move_refusal(block, state, state_of) is None:
        return EditResult(block, Status.SKIPPED, f"not moved: the hunk at line {failed_hunk} of the same section "
                                                 f"failed, so {state.source.key} stays where it is",
                          ResultCode.SKIPPED_AFTER_FAILURE)
    return None


def move_refusal(block: EditBlock, state: FileState, state_of: StateOf) -> EditResult | None:
    """Why the move ``block`` cannot be made from where its file is now, if it cannot: checked before the hunks of
    its section too, so that a section never edits a file it then fails to move."""
    assert block.move_to is not None
    if block.path in state.links:
        return _by_link(block, state, "move")
    target = state_of(block.move_to)
    if block.move_to in target.links:
        return EditResult(block, Status.FAILED, f"refused: cannot move {state.source.key} to {block.move_to}: that "
                                                f"path leads through a symlink (to {target.source.key}); nothing was "
                                                "moved", ResultCode.REFUSED)
    if target.source.refusal:
        return EditResult(block, Status.FAILED, f"cannot move {state.source.key} to {block.move_to}: "
                                                f"{target.source.refusal}", ResultCode.REFUSED,
                          refusal=target.source.refusal_code)
    if target is not state and target.buffer is not None:
        return EditResult(block, Status.FAILED, f"cannot move {state.source.key} to {target.source.key}: "
                                                f"{target.source.key} already exists; nothing was moved",
                          ResultCode.FILE_EXISTS)
    return None


def move(block: EditBlock, state: FileState, state_of: StateOf) -> EditResult:
    assert block.move_to is not None
    if state.buffer is None:
        return missing(block, state, "move")
    refused = move_refusal(block, state, state_of)
    if refused is not None:
        return refused
    target = state_of(block.move_to)
    if target is state:
        return EditResult(block, Status.SKIPPED, f"no change: {state.source.key} is moved onto itself",
                          ResultCode.NO_OP)
    state.move_to(target)
    return EditResult(block, Status.APPLIED, f"renamed {state.source.key} → {target.source.key}", ResultCode.NONE,
                      strategy="move", similarity=1.0)


def whole(block: EditBlock, state: FileState) -> EditResult:
    """The complete new content of a file: replaces it, or creates it; refused if it leaves code out."""
    new_lines = lines_of(block.new.removeprefix(BOM))
    buffer = state.buffer
    marker = introduced_marker(buffer.lines if buffer is not None else [], new_lines)
    if marker is not None:
        return EditResult(block, Status.FAILED, marker_reason(marker, state.source.key), ResultCode.REFUSED,
                          refusal=EDIT_MARKER)
    if buffer is None:
        state.fill(Document.new_file("".join(line + "\n" for line in new_lines)))
        return EditResult(block, Status.APPLIED, "", ResultCode.NONE, 1 if new_lines else None, len(new_lines) or None,
                          "whole", 1.0)
    current = list(buffer.lines)
    if current and current[0].startswith(BOM):
        current[0] = current[0][1:]
    if current == new_lines:
        return EditResult(block, Status.SKIPPED, f"already applied: {state.source.key} already has exactly this "
                                                 "content", ResultCode.ALREADY_APPLIED, 1, len(new_lines), "whole", 1.0)
    if not new_lines and any(line.strip() for line in current):
        return EditResult(
            block, Status.FAILED,
            f"refused: the new content of {state.source.key} is empty, and replacing the file would delete all of "
            "it; send the complete file, or delete the file if that is meant", ResultCode.REFUSED,
            refusal=EMPTY_CONTENT)
    own = {line.strip() for line in current}
    elided = next((number for number, line in enumerate(new_lines, 1)
                   if is_placeholder(line) and line.strip() not in own), None)
    if elided is not None:
        return EditResult(
            block, Status.FAILED,
            f"refused: line {elided} of the new content of {state.source.key} (`{new_lines[elided - 1].strip()}`) "
            "stands for code it leaves out, and replacing the file would delete that code; send the complete file, "
            "or edit blocks that quote only the lines to change", ResultCode.REFUSED, refusal=PLACEHOLDER)
    state.splice(0, len(buffer.lines), new_lines, [None] * len(new_lines))
    return EditResult(block, Status.APPLIED, "replaced the whole file", ResultCode.NONE, 1, max(1, len(current)),
                      "whole", 1.0)


