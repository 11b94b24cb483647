"""`ask --tools`: the model edits through tool calls, which `ToolHandler` runs, until it answers without one.

Each turn streams the model's prose and its tool calls (whose arguments
arrive in pieces and are joined by index); every call is run and its reply
goes back as a `tool` message. With `--yes` the calls edit the project
directly, each one journaled like any apply. Otherwise they run on a scratch
copy of the given files, to which any other project file a call names is
copied before the call runs (so `create` sees that it exists); at the end the
diffs are shown and, after a yes, the resulting texts are written in one
journaled commit, checked against the files as they were read (a file changed
meanwhile stops the write, and so does a file the copy did not hold that the
project has). A dry run stops after the diffs. A file the model deletes in the
scratch copy is named, not deleted.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from editblocks.ask.client import Endpoint, EndpointError, StreamDropped, ToolCallDelta, stream_answer
from editblocks.ask.display import View
from editblocks.ask.messages import Message, tool_conversation
from editblocks.ask.outcome import AskOptions, AskOutcome, Confirm, Round, prompt_files
from editblocks.model import ApplyResult, FileDiff, Format, counted
from editblocks.parsing.stream import parse
from editblocks.service.apply import LOCK_WAIT_SECONDS
from editblocks.text.diff import unified_diff
from editblocks.tools.definitions import APPLY_PATCH
from editblocks.workspace import FileSnapshot, PlannedWrite, Workspace
from editblocks.workspace.project_files import walk_files

MAX_TURNS = 25  # a model that keeps calling tools is stopped here
FORMATS = {fmt.value for fmt in Format}


@dataclass
class _Call:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def ask_with_tools(options: AskOptions, endpoint: Endpoint, view: View, confirm: Confirm, client: Any) -> AskOutcome:
    """Run the tool-call loop; the outcome's rounds are the model's turns."""
    from editblocks.tools import ToolHandler, openai_chat_tools

    workspace = Workspace(options.root)
    files = prompt_files(workspace, options.paths, options.max_file_bytes)
    direct = options.yes and not options.dry_run
    scratch = None if direct else Path(tempfile.mkdtemp(prefix="editblocks-ask-"))
    outcome = AskOutcome()
    try:
        snapshots = _copy(workspace, [file.path for file in files], scratch) if scratch is not None else {}
        handler = ToolHandler(scratch if scratch is not None else workspace.root)
        messages: list[Message] = tool_conversation(options.instruction, files)
        tools = openai_chat_tools()
        for number in range(1, MAX_TURNS + 1):
            current = Round(number)
            outcome.rounds.append(current)
            calls = _stream_turn(endpoint, client, messages, tools, view, outcome, current)
            if calls is None:
                return outcome
            if not calls:
                outcome.settled = True
                break
            messages.append({"role": "assistant", "content": current.answer or None, "tool_calls": [
                {"id": call.call_id, "type": "function",
                 "function": {"name": call.name, "arguments": "".join(call.arguments)}} for call in calls]})
            for call in calls:
                if scratch is not None:
                    _fetch(workspace, _named_paths(call), scratch, snapshots)
                reply = handler.call(call.name, "".join(call.arguments))
                current.tool_calls.append({"name": call.name, "input": "".join(call.arguments), "ok": reply.ok,
                                           "reply": reply.text})
                mark = "✓" if reply.ok else "✗"
                view.note(f"{mark} {call.name} {_summary(call)}: {reply.text.splitlines()[0] if reply.text else ''}")
                if direct and reply.result is not None and reply.result.written:
                    for path in reply.result.paths_changed:
                        if path not in outcome.written:
                            outcome.written.append(path)
                messages.append({"role": "tool", "tool_call_id": call.call_id, "content": reply.text})
        else:
            outcome.notes.append(f"stopped after {MAX_TURNS} turns of tool calls")
        if scratch is not None:
            _settle_scratch(options, workspace, scratch, snapshots, view, confirm, outcome)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    return outcome


def _stream_turn(endpoint: Endpoint, client: Any, messages: list[Message], tools: Sequence[dict[str, Any]],
                 view: View, outcome: AskOutcome, current: Round) -> list[_Call] | None:
    """One turn: the prose shown as it comes, the tool calls gathered; None if the turn did not arrive whole."""
    view.round_started(current.number, f"asking {endpoint.model} (tool calls)")
    calls: dict[int, _Call] = {}
    text: list[str] = []
    try:
        for piece in stream_answer(client, endpoint, messages, announce=view.note, tools=tools):
            if isinstance(piece, ToolCallDelta):
                call = calls.setdefault(piece.index, _Call())
                call.call_id = call.call_id or piece.call_id
                call.name = call.name or piece.name
                call.arguments.append(piece.arguments)
            else:
                text.append(piece)
                view.chunk(piece, [])
    except (KeyboardInterrupt, StreamDropped, EndpointError) as error:
        code = getattr(error, "code", "interrupted" if isinstance(error, KeyboardInterrupt) else "stream-dropped")
        message = str(error) or "interrupted while the answer was streaming"
        outcome.stopped = (code, f"{message}; the tool calls of this turn were not run")
        view.note(outcome.stopped[1])
        return None
    finally:
        view.stream_ended()
        current.answer = "".join(text)
    return [calls[index] for index in sorted(calls)]


def _copy(workspace: Workspace, paths: Sequence[str], scratch: Path) -> dict[str, FileSnapshot]:
    """Copy the given files into the scratch folder; their snapshots, to commit against later."""
    snapshots: dict[str, FileSnapshot] = {}  # prompt_files refused every path that is not a file
    _fetch(workspace, paths, scratch, snapshots)
    return snapshots


def _fetch(workspace: Workspace, paths: Sequence[str], scratch: Path, snapshots: dict[str, FileSnapshot]) -> None:
    """Copy each project file not yet in the scratch folder (or record its absence), before a call uses it."""
    for path in paths:
        read = workspace.read(path)
        if not isinstance(read, FileSnapshot) or read.rel in snapshots:
            continue
        target = scratch / read.rel
        if target.exists():  # the model made it before any call named it: `_settle_scratch` weighs it
            continue
        snapshots[read.rel] = read
        data = read.data()  # the bytes read and checked, never the path read again
        if data is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def _named_paths(call: _Call) -> list[str]:
    """The files a tool call names: its `path` (`file_path`), and every file of the patch or edits it carries."""
    try:
        args = json.loads("".join(call.arguments))
    except ValueError:
        return []
    if not isinstance(args, dict):
        return []
    given = args.get("operation")
    operation: dict[str, Any] = given if isinstance(given, dict) else {}
    named = (args.get("path"), args.get("file_path"), args.get("filePath"), operation.get("path"),
             operation.get("move_to"))
    paths = [value for value in named if isinstance(value, str)]
    requested = args.get("format")
    fmt = Format.V4A if call.name == APPLY_PATCH else Format(requested) if requested in FORMATS else Format.AUTO
    for key in ("input", "patch", "edits"):
        if isinstance(args.get(key), str):
            blocks = parse(args[key], format=fmt).blocks
            paths += [path for block in blocks for path in (block.path, block.move_to) if path is not None]
    return paths


def _settle_scratch(options: AskOptions, workspace: Workspace, scratch: Path, snapshots: dict[str, FileSnapshot],
                    view: View, confirm: Confirm, outcome: AskOutcome) -> None:
    """Show what the tool calls changed in the scratch copy, and write it to the project after a yes."""
    scratch_space = Workspace(scratch)
    writes: list[PlannedWrite] = []
    diffs: list[FileDiff] = []
    clashes: list[str] = []
    for rel in sorted(set(walk_files(scratch)) | set(snapshots)):
        after = scratch_space.read(rel)
        before = snapshots.get(rel) or workspace.read(rel)
        if not isinstance(before, FileSnapshot) or not isinstance(after, FileSnapshot):
            continue
        if rel not in snapshots and before.text is not None:  # made in the copy, yet the project has it
            clashes.append(rel)
            continue
        if after.text is None and before.text is not None:
            outcome.notes.append(f"the model deleted {rel} in the scratch copy; editblocks does not delete it here")
            continue
        if after.text is None or after.text == before.text:
            continue
        writes.append(PlannedWrite(before, after.text))
        diffs.append(FileDiff(rel, before.text is None, unified_diff(rel, before.text, after.text), before.text,
                              after.text))
    result = ApplyResult((), tuple(d.path for d in diffs if not d.created), tuple(d.path for d in diffs if d.created),
                         (), tuple(diffs), False, dry_run=options.dry_run)
    if outcome.rounds:
        outcome.rounds[-1].result = result
    if clashes:
        outcome.stopped = ("not-written", f"not written: the tool calls created {', '.join(clashes)} in the scratch "
                                          "copy, but the project already has it; nothing was written")
        outcome.settled = False
        view.note(outcome.stopped[1])
        return
    if not writes:
        outcome.notes.append("the tool calls changed no file")
        return
    view.round_report(result, state="dry run, nothing written" if options.dry_run else "not written yet")
    if options.dry_run:
        return
    if not confirm(result):
        outcome.stopped = ("declined", "not applied: the edits were declined; nothing was written")
        outcome.settled = False
        return
    with workspace.lock(wait=LOCK_WAIT_SECONDS):
        committed = workspace.commit(writes)
    if not committed.written:
        outcome.stopped = ("not-written", f"not written: {committed.error}")
        outcome.settled = False
        return
    outcome.written += [w.snapshot.rel for w in writes]
    view.note(f"wrote {counted(len(writes), 'file')}: " + ", ".join(w.snapshot.rel for w in writes))


def _summary(call: _Call) -> str:
    """`str_replace app.py` for a text editor call, else the tool's path argument if it has one."""
    try:
        args = json.loads("".join(call.arguments))
    except ValueError:
        return ""
    if not isinstance(args, dict):
        return ""
    return " ".join(str(args[key]) for key in ("command", "path") if isinstance(args.get(key), str))
