"""`ask --tools`: the model edits through tool calls, which `ToolHandler` runs, until it answers without one.

Each turn streams the model's prose and its tool calls (whose arguments
arrive in pieces and are joined by index); every call is run and its reply
goes back as a `tool` message. With `--yes` the calls edit the project
directly, each one journaled like any apply. Otherwise they run on a scratch
copy in memory laid over the project (a `MemoryStore`: every project file
reads through, nothing reaches the disk); at the end the diffs are shown and,
after a yes, the resulting texts are written in one journaled commit, checked
against the files as the calls first read them (a file changed meanwhile, or
made in the project meanwhile, stops the write). A dry run stops after the
diffs. A file the model deletes in the scratch copy is named, not deleted.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from editblocks.ask.client import Endpoint, ToolCallDelta, stream_answer
from editblocks.ask.display import View
from editblocks.ask.messages import Message, tool_conversation
from editblocks.ask.outcome import AskOptions, AskOutcome, Confirm, Round, Unconfirmed, outside_given, prompt_files
from editblocks.errors import EndpointError, StreamDropped
from editblocks.model import EditResult, TextEvent, counted
from editblocks.plan import FilePlan, Plan
from editblocks.service.live import LiveEvent
from editblocks.service.results import apply_result
from editblocks.service.session import EditSession
from editblocks.workspace.memory import MemoryStore
from editblocks.workspace.reading import FileSnapshot

MAX_TURNS = 25  # a model that keeps calling tools is stopped here


@dataclass
class _Call:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


def ask_with_tools(options: AskOptions, endpoint: Endpoint, view: View, confirm: Confirm, client: Any) -> AskOutcome:
    """Run the tool-call loop; the outcome's rounds are the model's turns."""
    from editblocks.tools import ToolHandler, openai_chat_tools

    session = EditSession.on_disk(options.root, options.apply_options())
    files = prompt_files(session.store, options.paths, options.max_file_bytes)
    direct = options.yes and not options.dry_run
    scratch = None if direct else MemoryStore(base=session.store)
    outcome = AskOutcome()
    handler = ToolHandler(options=session.options, store=scratch if scratch is not None else session.store)
    messages: list[Message] = tool_conversation(options.instruction, files)
    tools = openai_chat_tools()
    edits: list[EditResult] = []  # every block the calls' runs decided, in order: the pending edits' counts
    for number in range(1, MAX_TURNS + 1):
        current = Round(number)
        outcome.rounds.append(current)
        calls = _stream_turn(endpoint, client, messages, tools, view, outcome, current)
        if not calls:
            view.round_finished(current)
        if calls is None:
            return outcome
        if not calls:
            outcome.settled = True
            break
        messages.append({"role": "assistant", "content": current.answer or None, "tool_calls": [
            {"id": call.call_id, "type": "function",
             "function": {"name": call.name, "arguments": "".join(call.arguments)}} for call in calls]})
        for call in calls:
            reply = handler.call(call.name, "".join(call.arguments))
            current.tool_calls.append({"name": call.name, "input": "".join(call.arguments), "ok": reply.ok,
                                       "reply": reply.text})
            if reply.result is not None and not reply.result.dry_run:
                edits += reply.result.results
            mark = "✓" if reply.ok else "✗"
            view.note(f"{mark} {call.name} {_summary(call)}: {reply.text.splitlines()[0] if reply.text else ''}")
            if direct and reply.result is not None and reply.result.written:
                for path in reply.result.paths_changed:
                    if path not in outcome.written:
                        outcome.written.append(path)
            messages.append({"role": "tool", "tool_call_id": call.call_id, "content": reply.text})
        view.round_finished(current)
    else:
        outcome.notes.append(f"stopped after {MAX_TURNS} turns of tool calls")
    if scratch is not None:
        given = {file.path for file in files}
        _settle_scratch(options, session, scratch, edits, view, confirm, given, outcome)
    return outcome


def _stream_turn(endpoint: Endpoint, client: Any, messages: list[Message], tools: Sequence[dict[str, Any]],
                 view: View, outcome: AskOutcome, current: Round) -> list[_Call] | None:
    """One turn: the prose shown as it comes, the tool calls gathered; None if the turn did not arrive whole."""
    view.round_started(current.number, f"asking {endpoint.model} (tool calls)")
    calls: dict[int, _Call] = {}
    prose = _Prose()
    complete = False
    try:
        for piece in stream_answer(client, endpoint, messages, announce=view.note, tools=tools):
            if isinstance(piece, ToolCallDelta):
                call = calls.setdefault(piece.index, _Call())
                call.call_id = call.call_id or piece.call_id
                call.name = call.name or piece.name
                call.arguments.append(piece.arguments)
            else:
                view.chunk(piece, prose.feed(piece))
        view.chunk("", prose.close())
        complete = True
    except (KeyboardInterrupt, StreamDropped, EndpointError) as error:
        code = getattr(error, "code", "interrupted" if isinstance(error, KeyboardInterrupt) else "stream-dropped")
        message = str(error) or "interrupted while the answer was streaming"
        outcome.stopped = (code, f"{message}; the tool calls of this turn were not run")
        view.note(outcome.stopped[1])
        return None
    finally:
        view.stream_ended(complete)
        current.answer = prose.text
    return [calls[index] for index in sorted(calls)]


class _Prose:
    """A turn's text, handed to the view as whole lines (the last one when the turn ends), as the parser would."""

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._pending = ""
        self._line = 1

    @property
    def text(self) -> str:
        return "".join(self._pieces)

    def feed(self, piece: str) -> list[LiveEvent]:
        self._pieces.append(piece)
        self._pending += piece
        cut = self._pending.rfind("\n") + 1
        return self._take(cut) if cut else []

    def close(self) -> list[LiveEvent]:
        return self._take(len(self._pending)) if self._pending else []

    def _take(self, end: int) -> list[LiveEvent]:
        lines, self._pending = self._pending[:end], self._pending[end:]
        event = TextEvent(lines, self._line)
        self._line += lines.count("\n")
        return [event]


def _settle_scratch(options: AskOptions, session: EditSession, scratch: MemoryStore, edits: Sequence[EditResult],
                    view: View, confirm: Confirm, given: set[str], outcome: AskOutcome) -> None:
    """Show what the tool calls changed in the scratch copy (counted by the blocks their runs decided), and write
    it to the project after a yes."""
    changed: list[tuple[FileSnapshot, str]] = []
    for before, after in scratch.layer():
        if after is None:
            if before.text is not None:
                outcome.notes.append(f"the model deleted {before.rel} in the scratch copy; editblocks does not "
                                     "delete it here")
            continue
        if after != before.text:
            changed.append((before, after))
    plan = Plan(tuple(edits), tuple(FilePlan(before.rel, before.text, after) for before, after in changed))
    result = replace(apply_result(plan, {before.rel: before for before, _ in changed}, written=False),
                     dry_run=options.dry_run)
    if outcome.rounds:
        outcome.rounds[-1].result = result
    if not changed:
        outcome.notes.append("the tool calls changed no file")
        return
    view.round_report(result, state="dry run, nothing written" if options.dry_run else "not written yet")
    if options.dry_run:
        return
    decision = confirm(result, outside_given(result, given))
    if decision is False or isinstance(decision, Unconfirmed):
        outcome.stopped = (decision.code, decision.message) if isinstance(decision, Unconfirmed) else (
            "declined", "not applied: the edits were declined; nothing was written")
        outcome.settled = False
        view.note(outcome.stopped[1])
        return
    written = session.write(changed)
    if not written.written:
        outcome.stopped = ("not-written", f"not written: {'; '.join(written.notes)}")
        outcome.settled = False
        view.note(outcome.stopped[1])
        return
    outcome.written += [before.rel for before, _ in changed]
    if outcome.rounds:
        outcome.rounds[-1].result = replace(result, written=True, run_id=written.run_id)
    view.note(f"wrote {counted(len(changed), 'file')}: " + ", ".join(before.rel for before, _ in changed))


def _summary(call: _Call) -> str:
    """`str_replace app.py` for a text editor call, else the tool's path argument if it has one."""
    try:
        args = json.loads("".join(call.arguments))
    except ValueError:
        return ""
    if not isinstance(args, dict):
        return ""
    return " ".join(str(args[key]) for key in ("command", "path") if isinstance(args.get(key), str))
