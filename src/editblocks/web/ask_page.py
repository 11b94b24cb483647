"""`ask --serve`: every round of the answer streams into the review page, and the page's Apply writes it.

`PageView` passes each event to the terminal's view and each chunk of text to
a `ReviewState`, so the open page shows the answer as it arrives (blocks in
progress, then their badges) and starts a new answer for each feedback round.
The page writes through its own Apply (the accepted blocks only, journaled,
undoable from the page): `page_confirm` waits for that click and hands its
result back to the `ask` loop, which then sends the feedback for what failed.
With ``--yes``, `apply_at_once` clicks Apply for the reviewer.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from editblocks.ask.display import View
from editblocks.ask.outcome import Confirm, Round, also_writes
from editblocks.model import FRONT_END_FORMATS, ApplyResult, Format
from editblocks.service.live import LiveEvent
from editblocks.web.review import ReviewState

POLL_SECONDS = 0.25  # how often a wait for the page re-checks (a change on the page wakes it sooner)


class PageView:
    """The terminal's view, and the same answer streamed into the review page."""

    def __init__(self, terminal: View, session: ReviewState, format: Format) -> None:
        self._terminal = terminal
        self._session = session
        # patches and whole files are read from the whole text: the page's stream parser looks for any format
        self._format = Format.AUTO if format in FRONT_END_FORMATS else format

    def round_started(self, number: int, what: str) -> None:
        self._terminal.round_started(number, what)
        note = f"round {number}: the model's answer to the feedback on round {number - 1}" if number > 1 else ""
        self._session.new_answer(self._format, note=note)

    def chunk(self, text: str, events: list[LiveEvent]) -> None:
        self._terminal.chunk(text, events)
        self._session.feed(text)

    def stream_ended(self, complete: bool = True) -> None:
        self._terminal.stream_ended(complete)
        if complete:
            self._session.close_answer()
        else:
            self._session.break_answer("the answer broke off: it is shown, but nothing of it can be applied")

    def note(self, message: str) -> None:
        self._terminal.note(message)

    def round_report(self, result: ApplyResult, *, state: str) -> None:
        self._terminal.round_report(result, state=state)

    def round_finished(self, round: Round) -> None:
        self._terminal.round_finished(round)


def page_confirm(session: ReviewState, announce: View, interrupted: threading.Event) -> Confirm:
    """Wait for the page's Apply on the answer it shows now and take its result as the round's.

    A new answer on the page (a paste) means no for this round; so does Ctrl-C, which also sets ``interrupted``.
    """

    def confirm(preview: ApplyResult, outside: Sequence[str]) -> bool | ApplyResult:
        number = session.answer_number
        if outside:
            announce.note(also_writes(outside))
        announce.note("review the answer on the page: its Apply writes the accepted blocks (Ctrl-C stops)")
        changed = threading.Event()
        unsubscribe = session.subscribe(changed.set)
        try:
            while True:
                changed.clear()
                if session.answer_number != number:
                    announce.note("the page shows another answer now, so this round is not applied")
                    return False
                result = session.page_apply(number)
                if result is not None:
                    return result
                changed.wait(POLL_SECONDS)
        except KeyboardInterrupt:
            interrupted.set()
            return False
        finally:
            unsubscribe()

    return confirm


def apply_at_once(session: ReviewState) -> Confirm:
    """For ``--yes``: apply every block at once, through the page, so the page shows it and its Undo can undo it."""

    def confirm(preview: ApplyResult, outside: Sequence[str]) -> bool | ApplyResult:
        result = session.apply()
        return False if result is None else result

    return confirm
