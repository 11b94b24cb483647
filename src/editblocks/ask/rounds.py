"""The round trip: ask, stream, locate live, confirm, apply, and send the feedback back until the edits land.

Each round streams one answer through the service's `LiveAnswer`, so every
block has its verdict before the answer ends. The round's blocks are then
written by the session in one apply (after a confirmation unless told yes;
never with a dry run). When
some block failed, the feedback message goes back as the next user turn, up
to ``retries`` more rounds; a round that applies nothing new ends the loop.
A block an earlier round applied is never handed to the workspace again. The
session holds the blocks of a file whose other block failed and writes the
file once its last block lands, so the model resends only the failed blocks;
every round joins the first one in the journal, so one `undo` takes back the
whole run.

An answer that breaks off (Ctrl-C, a dropped connection) or an endpoint that
cannot answer ends the run with nothing of that round written, and says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from editblocks.ask.client import Endpoint, make_client, stream_answer
from editblocks.ask.display import View
from editblocks.ask.messages import Message, conversation, feedback_turns
from editblocks.ask.outcome import (
    AskOptions,
    AskOutcome,
    Confirm,
    Round,
    Unconfirmed,
    missing_note,
    outside_given,
    prompt_files,
)
from editblocks.errors import EndpointError, StreamDropped, WorkspaceError
from editblocks.model import ApplyResult, EditResult, ResultCode, Status, counted
from editblocks.report.serialize import apply_json, json_text
from editblocks.service.live import LiveAnswer, LiveLocator, Located
from editblocks.service.results import clean
from editblocks.service.session import EditSession
from editblocks.workspace import Workspace
from editblocks.workspace.run_records import RunRecord, start_record


def ask(options: AskOptions, endpoint: Endpoint, view: View, confirm: Confirm, *,
        client: Any = None, session: EditSession | None = None) -> AskOutcome:
    """Run the whole round trip; raises AskInputError (nothing sent) and WorkspaceError (unusable root).
    ``session`` is one the caller shares (the review page's, for `ask --serve`); by default a session of rounds."""
    session = session or rounds_session(options)
    workspace = session.store
    assert isinstance(workspace, Workspace)
    files = prompt_files(workspace, options.paths, options.max_file_bytes)
    missing = missing_note(files)
    if missing is not None:
        view.note(missing)
    given = {file.path for file in files}
    messages = conversation(options.instruction, files, options.format, editor=options.editor)
    try:
        client = client or make_client(endpoint)
    except EndpointError as error:
        return AskOutcome(stopped=(error.code, str(error)))
    outcome = AskOutcome()
    record = _start_record(workspace, outcome, view)
    _save(record, "run.json", _run_json(options, endpoint, outcome))
    if options.tools:
        from editblocks.ask.tool_loop import ask_with_tools

        tool_outcome = ask_with_tools(options, endpoint, view, confirm, client)
        tool_outcome.run_folder = outcome.run_folder
        turns = [{"turn": r.number, "answer": r.answer, "tool_calls": r.tool_calls} for r in tool_outcome.rounds]
        _save(record, "turns.json", json.dumps(turns, ensure_ascii=False, indent=1))
        _save(record, "run.json", _run_json(options, endpoint, tool_outcome))
        _finish(workspace, options, tool_outcome, view)
        return tool_outcome
    locator = session.live_locator()
    for number in range(1, options.retries + 2):
        current = Round(number)
        outcome.rounds.append(current)
        _save(record, f"round-{number}.messages.json", json.dumps(messages, ensure_ascii=False, indent=1))
        another = _round(options, session, endpoint, client, messages, locator, view, confirm, given, outcome,
                         current, record)
        view.round_finished(current)
        if not another:
            break
        assert current.feedback is not None
        messages = messages + feedback_turns(current.answer, current.feedback)
    _save(record, "run.json", _run_json(options, endpoint, outcome))
    _finish(workspace, options, outcome, view)
    return outcome


def rounds_session(options: AskOptions) -> EditSession:
    """The session of one `ask` run: it holds blocks from round to round, and its rounds are one undo."""
    return EditSession.on_disk(options.root, options.apply_options(), hold=True, one_undo=True)


def _round(options: AskOptions, session: EditSession, endpoint: Endpoint, client: Any, messages: list[Message],
           locator: LiveLocator, view: View, confirm: Confirm, given: set[str], outcome: AskOutcome,
           current: Round, record: RunRecord | None) -> bool:
    """Ask, stream, settle one round; whether another round follows (its feedback is then in ``current``)."""
    answer = _stream_round(session, endpoint, client, messages, locator, view, outcome, current)
    _save(record, f"round-{current.number}.answer.md", current.answer)
    if answer is None:
        return False
    result = _settle_round(options, session, locator, answer, view, confirm, given, outcome, current, record)
    if result is None or clean(result) or current.number > options.retries:
        return False
    progress = any(r.status is Status.APPLIED or r.code is ResultCode.HELD for r in result.results)
    if current.number > 1 and not progress:
        outcome.notes.append(f"round {current.number} applied nothing new, so no further round was asked for")
        return False
    current.feedback = session.feedback(result)
    return True


def _finish(workspace: Workspace, options: AskOptions, outcome: AskOutcome, view: View) -> None:
    if options.git_commit and outcome.written and not options.dry_run:
        _commit(workspace, options, outcome)
    for note in outcome.notes:
        view.note(note)


def _stream_round(session: EditSession, endpoint: Endpoint, client: Any, messages: list[Message],
                  locator: LiveLocator, view: View, outcome: AskOutcome, current: Round) -> LiveAnswer | None:
    """Stream one answer with live verdicts; None (and ``outcome.stopped`` set) if it did not arrive whole."""
    locator.start_round()
    live = session.live(locator=locator)
    view.round_started(current.number, f"asking {endpoint.model} at {endpoint.shown}")
    stopped: tuple[str, str] | None = None
    complete = False
    try:
        for piece in stream_answer(client, endpoint, messages, announce=view.note):
            if isinstance(piece, str):
                view.chunk(piece, live.feed(piece))
        view.chunk("", live.close())
        complete = True
    except KeyboardInterrupt:
        stopped = ("interrupted", "interrupted while the answer was streaming")
    except StreamDropped as error:
        stopped = ("stream-dropped", str(error))
    except EndpointError as error:
        stopped = (error.code, str(error))
    finally:
        view.stream_ended(complete)
        current.answer = live.text
    if stopped is None:
        return live
    nothing = "nothing of this answer was written" + (" (earlier rounds' edits stay)" if outcome.written else "")
    outcome.stopped = (stopped[0], f"{stopped[1]}; {nothing}")
    view.note(outcome.stopped[1])
    return None


def _settle_round(options: AskOptions, session: EditSession, locator: LiveLocator, live: LiveAnswer, view: View,
                  confirm: Confirm, given: set[str], outcome: AskOutcome, current: Round,
                  record: RunRecord | None) -> ApplyResult | None:
    """Show the round's verdicts and diffs, confirm, write; the round's result (None: stop here)."""
    parsed = live.result()
    preview = locator.round_result(dry_run=True, parsed=parsed)
    files = {key: {"before": before, "after": after, "bom": bom}
             for key, (before, after, bom) in locator.round_files().items()}
    _save(record, f"round-{current.number}.files.json", json.dumps(files, ensure_ascii=False))
    if not parsed.blocks and not parsed.errors:
        current.result = preview
        outcome.stopped = ("no-blocks", "the answer holds no edit blocks; nothing to apply")
        view.note(outcome.stopped[1])
        return None
    result = replace(preview, dry_run=options.dry_run)
    state = "dry run, nothing written" if options.dry_run else "writing" if options.yes else "not written yet"
    view.round_report(result, state=state)
    held = any(r.code is ResultCode.HELD for r in preview.results + preview.held_over)
    if not options.dry_run and (preview.count(Status.APPLIED) or held):
        decision = True if options.yes or not preview.diffs else confirm(preview, outside_given(preview, given))
        if decision is False or isinstance(decision, Unconfirmed):
            current.result = preview
            outcome.stopped = (decision.code, decision.message) if isinstance(decision, Unconfirmed) else (
                "declined", "not applied: the edits were declined; nothing of this answer was written")
            view.note(outcome.stopped[1])
            return None
        result = decision if isinstance(decision, ApplyResult) else _write(session, locator.round_blocks(), preview)
        locator.reload()
        touched = result.paths_changed
        for path in touched:
            if result.written and path not in outcome.written:
                outcome.written.append(path)
        if result.written and touched:
            view.note(f"wrote {counted(len(touched), 'file')}: " + ", ".join(touched))
        if [r.status for r in result.results] != [r.status for r in preview.results]:
            view.round_report(result, state="as written")
    current.result = result
    _save(record, f"round-{current.number}.results.json", json_text(apply_json(result)))
    return result


def _write(session: EditSession, located: Sequence[Located], preview: ApplyResult) -> ApplyResult:
    """Apply the round's blocks to the disk (the ones an earlier round applied left out), results in block order."""
    fresh = [item.block for item in located if not item.repeat]
    try:
        written = session.apply(fresh)
    except WorkspaceError as error:
        reason = f"not written: {error}"
        refused = tuple(replace(r, status=Status.SKIPPED, code=ResultCode.ABORTED, reason=reason)
                        if r.status is Status.APPLIED else r for r in preview.results)
        return replace(preview, results=refused, written=False, dry_run=False, notes=(reason,))
    by_block = iter(written.results)
    results: list[EditResult] = [item.result if item.repeat else next(by_block) for item in located]
    return replace(written, results=tuple(results), shell=preview.shell,
                   diagnostics=preview.diagnostics + written.diagnostics)


def _commit(workspace: Workspace, options: AskOptions, outcome: AskOutcome) -> None:
    from editblocks.errors import GitError
    from editblocks.workspace.git_commit import commit_files

    try:
        outcome.commit = commit_files(workspace.root, outcome.written, options.instruction, hooks=options.git_hooks)
        outcome.notes.append(f"committed {counted(len(outcome.written), 'file')} as {outcome.commit}")
    except GitError as error:
        outcome.notes.append(f"not committed: {error}")


def _start_record(workspace: Workspace, outcome: AskOutcome, view: View) -> RunRecord | None:
    try:
        record = start_record(workspace.root)
    except OSError as error:
        view.note(f"the run is not saved: {error.strerror or error}")
        return None
    outcome.run_folder = os.path.relpath(record.path, os.getcwd())
    return record


def _save(record: RunRecord | None, name: str, text: str) -> None:
    """Keep a file of the run record; a record that cannot be written never stops the run."""
    if record is None:
        return
    try:
        record.put(name, text.encode("utf-8", "surrogatepass"))
    except OSError:
        pass


def _run_json(options: AskOptions, endpoint: Endpoint, outcome: AskOutcome) -> str:
    return json.dumps({
        "instruction": options.instruction, "files": list(options.paths), "model": endpoint.model,
        "base_url": endpoint.shown_url, "format": options.format.value, "dry_run": options.dry_run,
        "rounds": len(outcome.rounds), "written": outcome.written,
        "stopped": {"code": outcome.stopped[0], "message": outcome.stopped[1]} if outcome.stopped else None,
    }, ensure_ascii=False, indent=1) + "\n"
