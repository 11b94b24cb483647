"""One review: an answer, the reviewer's accept/reject choices, what applying them would do and what it did.

The state lives here, apart from the web server, so that the page, the
command line and `ask --serve` drive it the same way: `feed`/`close_answer`
while an answer streams, `decide`, `apply`, `undo`. Every change bumps a
version and wakes the listeners (the page's event streams); the page's view
of the state is built once per version, on demand.

Everything runs through the service's `EditSession`: a block's verdict comes
from its live planner as soon as the block ends (the verdict `ask` shows in
the terminal), and Apply writes the accepted blocks only, through the
ordinary planner and workspace: atomic, journaled, inside the root.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from editblocks.errors import WorkspaceError
from editblocks.model import ApplyResult, EditResult, Format, ParseResult, counted
from editblocks.service.options import ApplyOptions
from editblocks.service.session import EditSession
from editblocks.web.answer import AnswerFeed
from editblocks.web.listeners import Listener, Listeners
from editblocks.web.view import BlockOutcome, Outcome, build_view


@dataclass(frozen=True)
class _Run:
    """An apply or a dry run of some of the answer's blocks: their indexes and the result, in the same order."""

    indexes: tuple[int, ...]
    result: ApplyResult


class ReviewState:
    """The review of one answer at a time against the files under ``root``; safe to call from any thread.

    ``options`` say how the answer is read and applied (the same options as `editblocks apply`); ``format``,
    when given, overrides their format. ``session`` runs the review on a session of the caller's (over a
    `MemoryStore`, say, or the one `ask` holds blocks in) instead of the files under ``root``; by default the
    review holds the blocks of a file whose other block failed until the file's last block lands.
    ``apply_options`` (a mapping) is the deprecated spelling of ``options``.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, *, format: Format | str | None = None,
                 options: ApplyOptions | None = None, apply_options: Mapping[str, Any] | None = None,
                 session: EditSession | None = None) -> None:
        if options is None:
            options = ApplyOptions.from_mapping(apply_options) if apply_options is not None else (
                session.options if session is not None else ApplyOptions())
        if format is not None:
            options = replace(options, format=Format(format))
        if session is not None:
            session = session.with_options(options)  # the caller's held blocks and run go on
        elif root is not None:
            session = EditSession.on_disk(root, options, hold=True)  # WorkspaceError for a root that is no folder
        else:
            raise TypeError("ReviewState needs a root or a session")
        self.session = session
        self.workspace = session.store
        self.root = str(getattr(session.store, "root", root))
        self._format = options.format
        self._lock = threading.RLock()
        self._listeners = Listeners()
        self._version = 0
        self._cached: tuple[int, str] | None = None
        self._answer = AnswerFeed(session.live(self._format))
        self._answer.close()
        self._rejected: set[int] = set()
        self._preview: _Run | None = None
        self._applied: _Run | None = None
        self._message = ""
        self._answers = 0  # counts the answers shown, so a caller waiting on the page's Apply knows which it saw
        self._page_apply: tuple[int, ApplyResult] | None = None  # the last `apply` and the answer it was made on
        self._broken = ""  # why the live answer cannot be applied (it broke off), or ""
        self._newest_run: str | None = None  # the newest run, made elsewhere, that Undo refused to take back

    # --- the answer -------------------------------------------------------------------------------------------

    def load(self, text: str) -> None:
        """Show a whole answer (as `apply --review` and `serve RESPONSE` do)."""
        with self._lock:
            self._reset()
            self._answer.feed(text)
            self._finish()
        self._changed()

    def new_answer(self, format: Format | str | None = None, *, note: str = "") -> int:
        """Start a live answer: the page shows what `feed` adds as it arrives (for `ask --serve`).

        ``note`` is shown as the page's message (which round this is); returns the answer's number.
        """
        with self._lock:
            self._reset(Format(format) if format is not None else None)
            self._message = note
            number = self._answers
        self._changed()
        return number

    def feed(self, chunk: str) -> None:
        """Add the next piece of the live answer's text; blocks show as in progress until they complete."""
        with self._lock:
            self._answer.feed(chunk)
        self._changed()

    def close_answer(self) -> None:
        """The live answer is complete: every block is located against the files and gets its badge."""
        with self._lock:
            self._finish()
        self._changed()

    def break_answer(self, reason: str) -> None:
        """The live answer broke off (Ctrl-C, a dropped connection): show what arrived, but never apply it."""
        with self._lock:
            self._answer.close()
            self._preview = None
            self._broken = self._message = reason
        self._changed()

    @property
    def answer_number(self) -> int:
        """Which answer the page shows: a new one (`new_answer`, `load`, a paste) takes the next number."""
        with self._lock:
            return self._answers

    def page_apply(self, number: int) -> ApplyResult | None:
        """The result of the Apply made on answer ``number`` (on the page or by `apply`), None until there is one."""
        with self._lock:
            if self._page_apply is None or self._page_apply[0] != number:
                return None
            return self._page_apply[1]

    @property
    def answer_text(self) -> str:
        with self._lock:
            return self._answer.text

    # --- the review ----------------------------------------------------------------------------------------------

    def decide(self, numbers: Sequence[int], accept: bool) -> None:
        """Accept or reject blocks by number (1-based, as the page names them: "Reject block 2"); unknown numbers
        are ignored. A rejected block is never written."""
        with self._lock:
            if self._broken:
                self._message = self._broken
            elif self._applied is not None or not self._answer.closed:
                self._message = "undo the apply first to change what is accepted" if self._applied else ""
            else:
                count = len(self._answer.blocks())
                chosen = {number - 1 for number in numbers if 1 <= number <= count}
                self._rejected = self._rejected - chosen if accept else self._rejected | chosen
                self._preview = self._dry_run()
                self._message = ""
        self._changed()

    def apply(self) -> ApplyResult | None:
        """Write the accepted blocks (all or nothing, journaled); None when there was nothing to apply."""
        with self._lock:
            if self._applied is not None or not self._answer.closed or self._broken:
                self._message = self._broken or (
                    "already applied: undo first" if self._applied else "the answer is still arriving")
                self._changed()
                return None
            indexes = self._accepted()
            if not indexes:
                self._message = "no block is accepted: nothing to apply"
                self._changed()
                return None
            try:
                result = self.session.apply(self._edits(indexes))
            except WorkspaceError as error:
                self._message = f"nothing written: {error}"
                self._changed()
                return None
            self._page_apply = (self._answers, result)
            written = _files_written(result)
            if written:
                self._applied = _Run(indexes, result)  # Undo now undoes this run
                self._message = f"applied: {counted(written, 'file')} written" + _holding(result)
            else:  # no run was journaled, so there is nothing for Undo to undo
                self._preview = _Run(indexes, result)
                self._message = ("nothing written yet" + _holding(result) if result.holding else "nothing written: "
                                 + (result.notes[0] if result.notes else "no accepted block applies"))
        self._changed()
        return result

    def record_apply(self, result: ApplyResult) -> None:
        """Show an apply made elsewhere (a program that writes through `editblocks.apply` itself) on this answer's
        blocks, matched by value, so the page's badges and Undo cover it."""
        with self._lock:
            blocks = self._answer.blocks()
            indexes = tuple(blocks.index(r.block) if r.block in blocks else -1 for r in result.results)
            if -1 in indexes:
                return
            if _files_written(result):
                self._applied = _Run(indexes, result)
            else:  # nothing was journaled: Undo must not undo an earlier run
                self._preview = _Run(indexes, result)
        self._changed()

    def undo(self, *, newest: bool = False) -> bool:
        """Undo the page's last apply (the workspace's own undo, so byte for byte); False if nothing was undone.

        A run made since by another process (`editblocks apply`) is newer, so it is left alone and named; only
        ``newest`` (the page's separate "Undo newest run") takes back the newest run, whoever made it.
        """
        with self._lock:
            if self._applied is None and not newest:
                self._message = "nothing to undo on this page"
                self._changed()
                return False
            mine = self._applied.result.run_id if self._applied is not None else None
            try:
                outcome = self.session.undo(runs=None if newest else {mine} if mine else set())
            except WorkspaceError as error:
                self._message = f"nothing undone: {error}"
                self._changed()
                return False
            self._newest_run = outcome.not_ours or None
            self._message = outcome.message if not outcome.not_ours else (
                f"nothing undone: the newest run, {outcome.not_ours}, was not made on this page (another editblocks "
                "command made it after this page's apply), so Undo leaves it as it is; “Undo newest run” takes it "
                "back")
            if outcome.ok and outcome.run_id == mine:
                self._applied = None
                self._preview = self._dry_run()
        self._changed()
        return outcome.ok

    # --- what the page shows ----------------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._version

    def view_json(self) -> tuple[int, str]:
        """(version, the page's view of the state as JSON), built once per version."""
        with self._lock:
            if self._cached is None or self._cached[0] != self._version:
                self._cached = (self._version, json.dumps(self._view(), separators=(",", ":")))
            return self._cached

    def view(self) -> dict[str, Any]:
        return dict(json.loads(self.view_json()[1]))

    def wake(self) -> None:
        """Call the listeners without a change (a server stopping its event streams)."""
        self._listeners.notify()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after every change (from whichever thread made it); returns the unsubscribe call."""
        return self._listeners.subscribe(listener)

    # --- inside -----------------------------------------------------------------------------------------------

    def _reset(self, format: Format | None = None) -> None:
        self._answer = AnswerFeed(self.session.live(format or self._format))
        self._rejected = set()
        self._preview = None
        self._applied = None
        self._newest_run = None
        self._message = ""
        self._broken = ""
        self._answers += 1

    def _finish(self) -> None:
        self._answer.close()
        self._preview = self._dry_run()

    def _accepted(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self._answer.blocks())) if i not in self._rejected)

    def _edits(self, indexes: tuple[int, ...]) -> ParseResult:
        parsed = self._answer.result()
        return ParseResult(parsed.format, tuple(parsed.blocks[i] for i in indexes), parsed.shell, parsed.diagnostics)

    def _dry_run(self) -> _Run | None:
        indexes = self._accepted()
        if not indexes:
            return None
        try:
            return _Run(indexes, self.session.preview(self._edits(indexes)))
        except WorkspaceError as error:
            self._message = f"cannot read the files: {error}"
            return None

    def _view(self) -> dict[str, Any]:
        blocks = self._answer.blocks()
        run = self._applied or self._preview
        if run is not None:
            results: dict[int, EditResult] = dict(zip(run.indexes, run.result.results))
        else:  # still arriving (or nothing accepted): each block's live verdict, given the moment it ended
            verdicts = self._answer.verdicts
            results = {i: verdicts[block] for i, block in enumerate(blocks) if block in verdicts}
        outcomes = [BlockOutcome(block, results.get(i), i not in self._rejected) for i, block in enumerate(blocks)]
        result = run.result if run else None
        streaming = not self._answer.closed
        feedback = "" if result is None or streaming or result.ok else \
            self.session.feedback(result, self._answer.text, self._answer.result())
        outcome = Outcome(
            answer=self._answer, blocks=outcomes, result=result, applied=self._applied is not None,
            streaming=streaming, message=self._message, version=self._version, locked=bool(self._broken),
            feedback=feedback, newest_run=self._newest_run, holds=self.session.held is not None,
        )
        return build_view(outcome, self._read)

    def _read(self, path: str) -> str | None:
        snapshot = self.session.store.read(path)
        return getattr(snapshot, "text", None)

    def _changed(self) -> None:
        with self._lock:
            self._version += 1
        self.wake()


def _files_written(result: ApplyResult) -> int:
    """How many files the apply changed on disk: a delete or a rename is a write that Undo can take back."""
    if not result.written:
        return 0
    return len(result.paths_changed) - len(result.files_renamed)  # a rename is one file written, not two


def _holding(result: ApplyResult) -> str:
    """What the session keeps for the next answer, for the page's message ("" when it keeps nothing)."""
    if not result.holding:
        return ""
    return (f"; held until their failed blocks land: {', '.join(result.holding)} (paste an answer with the fixed "
            "blocks only)")


def __getattr__(name: str) -> Any:
    if name == "ReviewSession":  # the old name, kept for one minor version
        warnings.warn("ReviewSession is deprecated: use ReviewState", DeprecationWarning, stacklevel=2)
        return ReviewState
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
