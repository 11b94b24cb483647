"""The workbench: one project, a conversation with the model about it, and the review of every block it brings.

A person sends an instruction with the files the model should see; the
answer streams in and each block gets its verdict the moment it closes
(`LiveVerdicts`, the service's live planner, which `ask` uses). When blocks
fail, the feedback goes back to the model on its own, round after round up to
the retry limit, while the blocks that were fine are held (`editblocks.web.hold`):
nothing is written until Apply, which writes every held block the reviewer
accepted, from every round, as one journaled run that one Undo takes back.
Everything that reads, plans, writes, undoes or phrases feedback goes through
the project's `EditSession`, with the one set of `ApplyOptions`.

The state is guarded by one lock and every change is stamped with the next
version, so each open page is sent only what changed since it last looked
(`workbench_view`). Rounds run in a thread of their own; a page's requests
never wait for the model.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from editblocks.ask.client import make_client
from editblocks.ask.messages import conversation, feedback_turns, request
from editblocks.ask.outcome import prompt_files
from editblocks.errors import AskInputError, EndpointError, WorkspaceError
from editblocks.model import ApplyResult, Format, Policy, Status, counted
from editblocks.plan import Plan
from editblocks.prompts import PROMPT_FORMATS
from editblocks.service.options import ApplyOptions
from editblocks.service.results import apply_result, clean
from editblocks.service.session import EditSession
from editblocks.web.block_changes import change_count
from editblocks.web.chat import ModelSettings, stream_turn
from editblocks.web.conversation import Conversation, Entry, Turn
from editblocks.web.excerpt import excerpt
from editblocks.web.file_picker import Listing, list_project
from editblocks.web.highlight import lexer_for
from editblocks.web.history import ConversationLog, load, reopen_log, saved_list
from editblocks.web.hold import HoldPolicy, hold_applied
from editblocks.web.listeners import Listener, Listeners
from editblocks.web.live_round import LiveRound
from editblocks.web.verdicts import LiveVerdicts
from editblocks.web.watcher import FileWatcher
from editblocks.workspace import Workspace

APPLY_LOCK_WAIT_SECONDS = 2.0
"""How long Apply and Undo wait for another process's apply on the same project before saying it is busy."""
MAX_INSTRUCTION_CHARS = 100_000


class Refused(Exception):
    """A request the workbench will not carry out now; the message says why, in one line (the page shows it)."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


class Workbench:
    """The workbench of the project under ``root``; safe to call from any thread."""

    def __init__(self, root: str | os.PathLike[str], settings: ModelSettings, *, options: ApplyOptions | None = None,
                 format: Format | str | None = None, hold: HoldPolicy = hold_applied,
                 client_factory: Callable[[Any], Any] = make_client) -> None:
        """``options`` say how blocks are decided and written, as for `editblocks apply` (Apply and Undo wait at most
        `APPLY_LOCK_WAIT_SECONDS` for the project); the model is asked for ``format``, else the options' format
        (`diff` for `auto`). ``hold`` decides which blocks of a round are kept for Apply. Raises WorkspaceError for
        a root that cannot be used."""
        options = options or ApplyOptions()
        asked = Format(format) if format is not None else options.format
        self.format: Format = asked if asked is not Format.AUTO else Format.DIFF
        self.session = EditSession.on_disk(
            root, replace(options, format=self.format, lock_wait=min(options.lock_wait, APPLY_LOCK_WAIT_SECONDS)))
        workspace = self.session.store
        assert isinstance(workspace, Workspace)
        self.workspace = workspace
        self.root = str(workspace.root)
        self.settings = settings
        self._hold = hold
        self._client_factory = client_factory
        self._lock = threading.RLock()
        self._listeners = Listeners()
        self.version = 0
        self.review_version = 0  # what Apply must have seen: the choices, verdicts and writes so far
        self.files_rev = 0
        self._whole_files = options.on_failure in (None, Policy.FILE)
        self.conversation = Conversation(whole_files=self._whole_files)
        self._log: ConversationLog | None = None
        self.verdicts = LiveVerdicts(self.session)
        self.preview: ApplyResult | None = None
        self.message = ""
        self.notice = ""  # files changed on disk
        self._last_apply: tuple[list[Entry], str | None] | None = None  # its blocks and its run in the journal
        self._runner: threading.Thread | None = None
        self._stop = threading.Event()
        self._client: Any = None
        self._applying = threading.Lock()
        self._listing: Listing | None = None
        self.watcher = FileWatcher(self.workspace.root, self._watched_paths, self._files_changed, self._lock)

    # --- asking ------------------------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._runner is not None

    def send(self, instruction: str, files: list[str]) -> None:
        """Ask the model: ``instruction`` about ``files`` (paths inside the root), in the conversation on screen.

        Raises `Refused` when a round is running, no model is set, or a file cannot be sent; nothing is sent then.
        """
        with self._lock:
            self._check_can_ask()
            if not instruction.strip():
                raise Refused("the instruction is empty: say what to change", 400)
            if len(instruction) > MAX_INSTRUCTION_CHARS:
                raise Refused(f"the instruction is longer than {MAX_INSTRUCTION_CHARS} characters", 400)
            try:
                prompt = prompt_files(self.workspace, files, self.settings.max_file_bytes, self.verdicts.text_of)
            except AskInputError as error:
                raise Refused(str(error), 400) from None
            editor = self.settings.editor
            last = self.conversation.last
            if last is None:
                messages = conversation(instruction, prompt, self.format, editor=editor)
            else:
                messages = self._history_of(last) + [request(instruction, prompt, self.format, editor=editor)]
            self._start(("instruction", instruction, tuple(f.path for f in prompt)), messages)
        self._listeners.notify()

    def send_feedback(self) -> None:
        """Send the feedback on the last round's accepted failed blocks now (after the automatic rounds ran out)."""
        with self._lock:
            self._check_can_ask()
            last = self.conversation.last
            feedback = self._feedback(last) if last is not None and last.whole else None
            if last is None or feedback is None:
                raise Refused("no accepted block of the last round failed: there is no feedback to send")
            self._start(("feedback", feedback, last.files), self._history_of(last, feedback=feedback))
        self._listeners.notify()

    def stop(self) -> None:
        """Stop the round that is streaming; nothing of its answer will be applied."""
        with self._lock:
            if self._runner is None:
                raise Refused("no round is running")
            self._stop.set()
            client = self._client
        if client is not None:
            try:
                client.close()  # ends a read that is waiting for the model
            except Exception:  # a client that cannot be closed from here is left to its own timeout
                pass

    def set_format(self, value: str) -> None:
        if value not in PROMPT_FORMATS:
            raise Refused(f"unknown format {value!r}; the formats are {', '.join(PROMPT_FORMATS)}", 400)
        with self._lock:
            self.format = Format(value)
            self.message = f"the next instruction asks for the {value} format"
            self._tick()
        self._listeners.notify()

    # --- reviewing ---------------------------------------------------------------------------------------------

    def decide(self, numbers: list[int], accept: bool) -> None:
        """Accept or reject blocks by number; for a failed block accepting means sending the model its feedback."""
        with self._lock:
            self._check_idle()
            missing = [number for number in numbers if self.conversation.entry(number) is None]
            if missing:
                raise Refused(f"there is no block {missing[0]} in this conversation", 400)
            for number in numbers:
                entry = self.conversation.entry(number)
                if entry is not None and not entry.applied and entry.accepted != accept:
                    entry.accepted, entry.refused = accept, frozenset()
                    entry.rev = self._tick()
            self.message = ""
            self._replan()
        self._listeners.notify()

    def decide_change(self, number: int, change: int, accept: bool) -> None:
        """Keep or refuse one change inside block ``number``; refusing its last kept change rejects the block."""
        with self._lock:
            self._check_idle()
            entry = self.conversation.entry(number)
            if entry is None or entry.applied or not 1 <= change <= change_count(entry.block):
                raise Refused(f"block {number} has no change {change} that can be chosen", 400)
            total = set(range(1, change_count(entry.block) + 1))
            refused = set(entry.refused) if entry.accepted else set(total)
            refused = refused - {change} if accept else refused | {change}
            entry.accepted, entry.refused = refused != total, frozenset(refused if refused != total else ())
            entry.rev = self._tick()
            self.message = ""
            self._replan()
        self._listeners.notify()

    def apply(self, seen: int | None = None) -> ApplyResult | None:
        """Write every held block the reviewer accepted, from every round, as one run (Undo takes it back whole).

        ``seen`` is the review version the page showed: a page that missed a change (another tab's choice or
        Apply) is refused. Raises `Refused` when nothing can be applied now; a busy project is a message.
        """
        if not self._applying.acquire(blocking=False):
            raise Refused("another tab is applying to this project right now; nothing was written by this one")
        try:
            with self._lock:
                self._check_idle()
                if seen is not None and seen != self.review_version:
                    raise Refused("nothing written: this tab was out of date (another tab changed the review or "
                                  "applied it); look at it again, then Apply")
                chosen = self.conversation.for_apply()
                if not chosen:
                    raise Refused("nothing to apply: no accepted block is ready")
                result = self._write([entry for _, entry in chosen])
            self._listeners.notify()
            return result
        finally:
            self._applying.release()

    def undo(self) -> None:
        """Take back the last Apply, every round of it at once, byte for byte."""
        with self._lock:
            self._check_idle()
            if self._last_apply is None:
                raise Refused("nothing to undo: this workbench has not applied anything yet")
            entries, run = self._last_apply
            try:
                outcome = self.session.undo(runs={run} if run else set())
            except WorkspaceError as error:
                raise Refused(f"nothing undone: {error}") from None
            if outcome.not_ours:
                raise Refused(f"nothing undone: the newest run, {outcome.not_ours}, was not made here (another "
                              "editblocks command wrote after this Apply); `editblocks undo` takes it back")
            self.message = outcome.message
            if outcome.ok:
                for entry in entries:
                    entry.applied, entry.rev = False, self._tick()
                self._last_apply = None
                self._replan()
                self.watcher.rebase()
                self._save_conversation()
            self._tick()
        self._listeners.notify()

    # --- conversations -----------------------------------------------------------------------------------------

    def new_conversation(self) -> None:
        with self._lock:
            self._check_idle()
            self.conversation = Conversation(whole_files=self._whole_files)
            self._log = None
            self.message = "a new conversation: the next instruction starts it"
            self._replan()
        self._listeners.notify()

    def open_saved(self, name: str) -> None:
        """Show the saved conversation ``name`` (its rounds decided again against the files as they are now), to
        review or continue."""
        with self._lock:
            self._check_idle()
            saved = load(self.root, name)
            if saved is None:
                raise Refused(f"there is no saved conversation {name!r}", 404)
            self.conversation = reopened = Conversation(name, whole_files=self._whole_files)
            verdicts = LiveVerdicts(self.session)
            for kept in saved.turns:
                fmt = Format(kept.format) if kept.format in PROMPT_FORMATS else Format.DIFF
                turn = Turn(kept.number, kept.kind, kept.text, kept.files, fmt,
                            LiveRound(verdicts.answer(fmt), self._tick), list(kept.messages), kept.state, kept.note)
                reopened.turns.append(turn)
                turn.live.feed(kept.answer)
                if turn.whole:
                    turn.live.close()
                else:
                    turn.live.stop()
                turn.rev = self._tick()
                self._take_entries(turn, verdicts)
            for number, entry in reopened.numbered():
                accepted, refused = saved.decisions.get(number, (True, ()))
                entry.accepted, entry.refused = accepted, frozenset(refused)
                entry.applied = number in saved.applied
            for turn, following in zip(reopened.turns, reopened.turns[1:]):
                if following.kind == "feedback":  # the feedback named this round's accepted blocks that failed
                    for entry in reopened.of_turn(turn):
                        if entry.accepted and entry.verdict.status is not Status.APPLIED:
                            entry.sent_back = following.number
            self._log = reopen_log(self.root, name)
            self.message = f"reopened the conversation of {name}: its blocks decided again against the files now"
            self._replan()
        self._listeners.notify()

    def history(self) -> list[dict[str, Any]]:
        return saved_list(self.root)

    def listing(self, refresh: bool = False) -> Listing:
        """The project's files for the picker (listed once, again when asked)."""
        with self._lock:
            if self._listing is None or refresh:
                self._listing = list_project(self.root)
            return self._listing

    # --- publishing --------------------------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after every change (from whichever thread made it); returns the unsubscribe call."""
        return self._listeners.subscribe(listener)

    def wake(self) -> None:
        """Call the listeners without a change (a server stopping its event streams)."""
        self._listeners.notify()

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    def start(self) -> None:
        """Start watching the files on disk (the server calls it when it starts), and have the highlighter find its
        lexers now: the first lookup reads every lexer's file patterns, which would hold up the first verdict."""
        self.watcher.start()
        threading.Thread(target=lexer_for, args=("warm-up.py",), name="editblocks-warm-up", daemon=True).start()

    def close(self) -> None:
        """Stop a running round and the watcher (the server calls it when it stops)."""
        self.watcher.stop()
        if self._runner is not None:
            try:
                self.stop()
            except Refused:  # it ended meanwhile
                pass
        runner = self._runner
        if runner is not None:
            runner.join(10)

    # --- the rounds --------------------------------------------------------------------------------------------

    def _start(self, first: tuple[str, str, tuple[str, ...]], messages: list[dict[str, Any]]) -> None:
        self._stop.clear()
        self.message = ""
        self._runner = threading.Thread(target=self._run, args=(first, messages, self.format),
                                        name="editblocks-workbench-round", daemon=True)
        self._runner.start()
        self._tick()

    def _run(self, first: tuple[str, str, tuple[str, ...]], messages: list[dict[str, Any]], fmt: Format) -> None:
        kind, text, files = first
        try:
            try:
                client = self._client = self._client_factory(self.settings.endpoint())
            except EndpointError as error:
                turn = self._begin_turn(kind, text, files, messages, fmt)
                self._end_turn(turn, "error", f"{error}; nothing was written")
                return
            for attempt in range(self.settings.retries + 1):
                turn = self._begin_turn(kind, text, files, messages, fmt)
                state, note = stream_turn(client, self.settings, messages, partial(self._on_text, turn),
                                          partial(self._announce, turn), self._stop)
                feedback = self._end_turn(turn, state, note)
                if feedback is None or attempt == self.settings.retries or self._stop.is_set():
                    break
                if attempt and not any(entry.held for entry in self.conversation.of_turn(turn)):
                    self._announce(turn, f"round {turn.number} applied nothing new, so no further round was asked for")
                    break
                self._mark_sent_back(turn)
                messages = messages + feedback_turns(turn.live.text, feedback)
                kind, text = "feedback", feedback
        finally:
            with self._lock:
                self._runner = self._client = None
                self._tick()
            self._listeners.notify()

    def _begin_turn(self, kind: str, text: str, files: tuple[str, ...], messages: list[dict[str, Any]],
                    fmt: Format) -> Turn:
        with self._lock:
            if self._log is None:
                self._log = ConversationLog.start(self.root)
                self.conversation.name = self._log.name
                if self._log.problem:
                    self.message = self._log.problem
            turn = Turn(len(self.conversation.turns) + 1, kind, text, files, fmt,
                        LiveRound(self.verdicts.answer(fmt), self._tick), messages,
                        note=f"asking {self.settings.model} at {self.settings.where}")
            turn.rev = self._tick()
            self.conversation.turns.append(turn)
            self.watcher.track()
        self._listeners.notify()
        return turn

    def _on_text(self, turn: Turn, chunk: str) -> None:
        with self._lock:
            if turn.state == "asking":
                turn.state, turn.note, turn.rev = "streaming", "", self._tick()
            if turn.live.feed(chunk):
                self._take_entries(turn)
        self._listeners.notify()

    def _announce(self, turn: Turn, note: str) -> None:
        with self._lock:
            turn.note, turn.rev = note, self._tick()
        self._listeners.notify()

    def _end_turn(self, turn: Turn, state: str, note: str) -> str | None:
        """Close the round; the feedback for the model when some accepted block of a whole answer failed."""
        with self._lock:
            if state == "done":
                turn.live.close()
            else:
                turn.live.stop()
            self._take_entries(turn)
            turn.state, turn.note, turn.rev = state, note, self._tick()
            for entry in self.conversation.of_turn(turn):  # how the round ended is part of every block's status
                entry.rev = turn.rev
            if self._log is not None:
                self._log.save_round(turn, self.verdicts)
            self._replan()
            feedback = self._feedback(turn) if turn.whole else None
            self._save_conversation()
        self._listeners.notify()
        return feedback

    def _take_entries(self, turn: Turn, verdicts: LiveVerdicts | None = None) -> None:
        """Entries for the blocks that got their verdict, a failed one with the file's lines it is shown beside."""
        new = self.conversation.take_new(turn, self._tick())
        for entry in new:
            entry.excerpt = excerpt(entry.verdict, (verdicts or self.verdicts).text_of(entry.verdict.path))
        if new:
            self.watcher.track()

    def _feedback(self, turn: Turn) -> str | None:
        """What to tell the model about ``turn``: its accepted blocks' verdicts (a rejected block is not sent).
        The workbench keeps every block that applies for Apply, so the model is told they are taken (not a dry
        run, which would ask for them again), and a file waiting for a fix is named as holding its good blocks."""
        entries = [entry for entry in self.conversation.of_turn(turn) if entry.accepted]
        parsed = turn.live.result()
        results = tuple(entry.verdict for entry in entries)
        holding = tuple(dict.fromkeys(entry.verdict.path for entry in entries if entry.waits))
        round_result = replace(apply_result(Plan(results, ()), {}, written=False, shell=parsed.shell,
                                            diagnostics=parsed.diagnostics), holding=holding)
        if not results and not parsed.diagnostics or clean(round_result):
            return None
        return self.session.feedback(round_result, turn.live.text, parsed)

    def _mark_sent_back(self, turn: Turn) -> None:
        with self._lock:
            for entry in self.conversation.of_turn(turn):
                if entry.accepted and not entry.held and entry.verdict.status is not Status.APPLIED:
                    entry.sent_back, entry.rev = turn.number + 1, self._tick()

    def _history_of(self, last: Turn, feedback: str | None = None) -> list[dict[str, Any]]:
        """The messages so far, with the last answer, ready for one more user turn (the feedback, when given)."""
        messages = list(last.messages)
        if last.live.text:
            messages.append({"role": "assistant", "content": last.live.text})
        elif messages and messages[-1].get("role") == "user":
            messages.pop()  # that request got no answer: the next one takes its place
        if feedback is not None:
            messages.append({"role": "user", "content": feedback})
        return messages

    # --- deciding again, and writing ---------------------------------------------------------------------------

    def _replan(self) -> None:
        """Decide every block again, in conversation order, against the files as they are now; the session's hold
        policy then says which to keep. A block the policy lets go is left out and the rest decided again."""
        let_go: set[int] = set()
        for _ in range(len(self.conversation.entries()) + 1):
            verdicts = LiveVerdicts(self.session)
            released = self._replay(verdicts, let_go)
            if released <= let_go:
                break
            let_go |= released
        self.verdicts = verdicts
        self._refresh_preview()
        self.review_version += 1
        self._tick()

    def _replay(self, verdicts: LiveVerdicts, let_go: set[int]) -> set[int]:
        released: set[int] = set()
        for turn in self.conversation.turns:
            entries = self.conversation.of_turn(turn)
            chosen = [entry for entry in entries if turn.whole and entry.accepted and not entry.applied
                      and id(entry) not in let_go]
            taken = set(map(id, chosen))
            results = verdicts.replay([entry.chosen_block() for entry in chosen])
            kept = self._hold(results)
            for entry, result, held in zip(chosen, results, kept):
                if result != entry.verdict or entry.excerpt is None and result.status is Status.FAILED:
                    entry.verdict = result
                    entry.excerpt = excerpt(result, verdicts.text_of(result.path))
                    entry.rev = self._tick()
                if result.status is Status.APPLIED and not held:
                    released.add(id(entry))
                self._set_held(entry, held)
            for entry in entries:
                if id(entry) not in taken:
                    self._set_held(entry, False)
        return released

    def _set_held(self, entry: Entry, held: bool) -> None:
        if entry.held != held:
            entry.held, entry.rev = held, self._tick()

    def _refresh_preview(self) -> None:
        """What Apply would write now (a dry run of the held, accepted blocks): the diffs and each block's fate."""
        chosen = [entry for _, entry in self.conversation.for_apply()]
        preview: ApplyResult | None = None
        if chosen:
            try:
                preview = self.session.preview([entry.chosen_block() for entry in chosen])
            except WorkspaceError as error:
                self.message = f"cannot read the files: {error}"
        results = dict(zip(map(id, chosen), preview.results)) if preview is not None else {}
        waiting = self.conversation.waiting_files()
        for entry in self.conversation.entries():
            result = results.get(id(entry))
            waits = entry.held and not entry.applied and entry.verdict.path in waiting
            if result != entry.preview or waits != entry.waits:
                entry.preview, entry.waits, entry.rev = result, waits, self._tick()
        self.preview = preview
        self.files_rev = self._tick()

    def _write(self, entries: list[Entry]) -> ApplyResult | None:
        try:
            result = self.session.apply([entry.chosen_block() for entry in entries])
        except WorkspaceError as error:  # the project busy (`WorkspaceBusy`) or unusable
            raise Refused(f"nothing written: {error}") from None
        written = [entry for entry, r in zip(entries, result.results) if result.written and r.status is Status.APPLIED]
        if written and result.paths_changed:
            for entry in written:
                entry.applied, entry.rev = True, self._tick()
            self._last_apply = (written, result.run_id)
            count = len(result.paths_changed) - len(result.files_renamed)
            self.message = f"applied: {counted(count, 'file')} written ({counted(len(written), 'block')})"
        else:
            self.message = "nothing written: " + (result.notes[0] if result.notes else next(
                (r.reason for r in result.results if r.status is not Status.APPLIED), "no accepted block applies"))
        self._replan()
        self.watcher.rebase()
        self._save_conversation()
        return result

    # --- files changing on disk ----------------------------------------------------------------------------------

    def _watched_paths(self) -> list[str]:
        paths = {entry.verdict.path for entry in self.conversation.entries() if entry.verdict.file}
        paths.update(path for turn in self.conversation.turns for path in turn.files)
        return sorted(paths)

    def _files_changed(self, paths: list[str]) -> None:
        """Some files the page shows changed on disk (the watcher holds the lock): say so, and decide again."""
        last = self.conversation.last
        streaming = last is not None and not last.ended  # its end decides every block again anyway
        self.notice = f"{', '.join(paths)} changed on disk: " + (
            "the blocks will be decided again when the answer ends" if streaming
            else "every block was decided again against the new text")
        self._listing = None
        if streaming:
            self._tick()
        else:
            self._replan()
        self._listeners.notify()

    # --- inside ------------------------------------------------------------------------------------------------

    def _save_conversation(self) -> None:
        if self._log is not None:
            self._log.save_conversation(self.conversation, self.settings, self.format)

    def _check_can_ask(self) -> None:
        if self._runner is not None:
            raise Refused("a round is still running: wait for it to end, or Stop it")
        if self.settings.problem:
            raise Refused(self.settings.problem)

    def _check_idle(self) -> None:
        if self._runner is not None:
            raise Refused("a round is still running: wait for it to end (or Stop it), then choose")

    def _tick(self) -> int:
        with self._lock:
            self.version += 1
            return self.version
