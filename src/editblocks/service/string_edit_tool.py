"""The `edit` and `multi_edit` tools against one store: the pure planner of `editblocks.tools` decides on the
text as read, and the text editor commits the result once through the session (atomic, journaled, all edits or
none), with the ladder the session's options choose."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from editblocks.locate.types import LocateOptions
from editblocks.model import counted
from editblocks.service.text_editor import Decided, EditorReply, PlannedEdit, TextEditor
from editblocks.tools.edit_arguments import StringEdit
from editblocks.tools.string_edits import EditDone, EditRefused, plan_string_edits
from editblocks.tools.text_editor import at_lines


def run_string_edits(editor: TextEditor, path: str, edits: Sequence[StringEdit]) -> EditorReply:
    """Make ``edits`` to ``path`` in order; an empty old text in a lone edit creates the file instead."""
    plan_options = editor.session.options.plan_options()
    options = LocateOptions(rungs=plan_options.rungs(), first_match=plan_options.first_match)
    empty = [number for number, edit in enumerate(edits, start=1) if not edit.old]
    if empty and len(edits) > 1:
        return EditorReply(f"Error: edit {empty[0]} has an empty `old_string`; quote the text each edit replaces "
                           "(an empty one only creates a new file, in `edit`).", False)
    read: list[bool] = []
    planned_reports: list[EditDone] = []

    def decide(lines: list[str], final_newline: bool, _text: str | None) -> Decided:
        read.append(True)
        if empty:
            return EditorReply(f"Error: `old_string` is empty, but {path} already exists and is never "
                               "overwritten; quote the text to replace (`view` the file first).", False)
        planned = plan_string_edits(lines, final_newline, edits, path, options)
        if isinstance(planned, EditRefused):
            which = f"edit {planned.index + 1} of {len(edits)}: " if len(edits) > 1 else ""
            undone = " None of the edits was made." if len(edits) > 1 else ""
            return EditorReply(f"Error: {which}{planned.reason}.{undone}", False)
        change = planned.change
        if change.start == change.end and not change.new_lines and change.final_newline is None:
            return EditorReply(f"Nothing changed: the edits leave {path} as it was.", True)
        planned_reports.extend(planned.done)
        return PlannedEdit(change, _summary(planned.done, path))

    reply = editor.edit(path, decide, old=edits[0].old)  # where the first edit aims, should the file be stale
    if empty and not read:
        return editor.create(path, edits[0].new)
    if reply.ok and reply.result is not None and reply.result.written:
        return replace(reply, replacements=sum(report.count for report in planned_reports))
    return reply


def _summary(done: Sequence[EditDone], path: str) -> str:
    if len(done) == 1:
        return _one(done[0], path) + "."
    steps = "; ".join(f"{number}. {_one(report, path)}" for number, report in enumerate(done, start=1))
    return f"Made {counted(len(done), 'edit')} to {path}: {steps}."


def _one(report: EditDone, path: str) -> str:
    if report.strategy != "exact":
        return (f"`old_string` does not occur in {path} as written; read as whole lines it was found at line "
                f"{report.lines[0]} (strategy: {report.strategy}) and replaced")
    if report.count == 1:
        return f"Replaced the text at line {report.lines[0]} of {path}"
    return f"Replaced {report.count} occurrences in {path} (at {at_lines(report.lines)})"
