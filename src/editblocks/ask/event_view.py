"""`ask --jsonl`: the run as events on stdout, one JSON object per line, as it happens (report/events)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from editblocks.ask.outcome import Round
from editblocks.model import ApplyResult, DiagnosticEvent, ShellSuggested
from editblocks.report import events
from editblocks.service.live import BlockLocated, BlockWithdrawn, LiveEvent
from editblocks.text.diff import printable

Emit = Callable[[dict[str, Any]], None]


class EventView:
    """Each round's start, its blocks as they are read and located, their outcomes, the tool calls, the notes."""

    def __init__(self, emit: Emit, model: str) -> None:
        self._emit = emit
        self._model = model
        self._round: int | None = None

    def round_started(self, number: int, what: str) -> None:
        self._round = number
        self._emit(events.event("round_started", round=number, model=self._model))

    def chunk(self, text: str, found: list[LiveEvent]) -> None:
        for item in found:
            for event in self._events(item):
                self._emit(event)

    def _events(self, item: LiveEvent) -> list[dict[str, Any]]:
        """Every block gets exactly one `BlockLocated`, the moment it ends (the parser's `BlockCompleted` may come a
        step later): a block is parsed, then located, there."""
        if isinstance(item, BlockLocated):
            located = events.block_located(item.result, self._round)
            return [events.block_parsed(item.block, self._round), *([located] if located is not None else [])]
        if isinstance(item, BlockWithdrawn):
            return [events.block_withdrawn(item.block, self._round)]
        if isinstance(item, DiagnosticEvent):
            return [events.diagnostic_event(item.diagnostic, self._round)]
        if isinstance(item, ShellSuggested):
            return [events.shell_event(item.suggestion, self._round)]
        return []

    def stream_ended(self, complete: bool = True) -> None:
        pass

    def note(self, message: str) -> None:
        """A note is an event, and a line on stderr for a person watching (as with `--json`)."""
        self._emit(events.note(message, self._round))
        print(printable(message), file=sys.stderr)

    def round_report(self, result: ApplyResult, *, state: str) -> None:
        pass

    def round_finished(self, round: Round) -> None:
        for call in round.tool_calls:
            self._emit(events.event("tool_called", round=round.number, name=call["name"], input=call["input"],
                                    ok=call["ok"], reply=call["reply"]))
        result = round.result
        if result is not None:
            for event in events.result_events(result, round.number, located=False):
                self._emit(event)
        self._emit(events.event("round_finished", round=round.number,
                                counts=events.counts(result) if result is not None else None,
                                written=bool(result is not None and result.written), feedback=round.feedback))
