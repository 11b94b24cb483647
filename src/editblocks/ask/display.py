"""What a person sees while `editblocks ask` runs: a live terminal view, plain progress lines, or nothing (JSON).

Both views print the answer's prose line by line (blank lines kept, fence
lines dimmed) and each block's verdict at the block: what arrives after a
block ends but before its verdict (its closing fence, mostly) waits for the
verdict. The live view adds a small rich `Live` region below, showing the line
being written and the block growing (its path and lines so far). The region
is redrawn by rich's own timer from the view's state, so a streamed chunk
costs a string append, not a redraw.
"""

from __future__ import annotations

import re
import sys
from typing import Protocol, overload

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from editblocks.ask.outcome import Round
from editblocks.model import (
    ApplyResult,
    BlockProgress,
    BlockStarted,
    DiagnosticEvent,
    EditResult,
    Severity,
    ShellSuggested,
    Status,
    TextEvent,
    counted,
)
from editblocks.report.diffs import render_diff
from editblocks.service.live import BlockLocated, BlockWaiting, BlockWithdrawn, LiveEvent
from editblocks.text.diff import printable

REFRESHES_PER_SECOND = 12
PARTIAL_CHARS = 200  # the line being written is shown up to this many characters (its end)
_FENCE_LINE = re.compile(r"\s*(```|~~~)")


class View(Protocol):
    def round_started(self, number: int, what: str) -> None: ...
    def chunk(self, text: str, events: list[LiveEvent]) -> None: ...
    def stream_ended(self, complete: bool = True) -> None:
        """The answer ended: whole (``complete``), or broken off (Ctrl-C, a dropped connection, an endpoint error)."""
    def note(self, message: str) -> None: ...
    def round_report(self, result: ApplyResult, *, state: str) -> None: ...
    def round_finished(self, round: Round) -> None:
        """The round (a turn, with --tools) is over: its result, feedback and tool calls are final."""


def verdict_line(result: EditResult) -> Text:
    """`✓ src/app.py:12-14  block at line 5  exact` or `✗ src/app.py  block at line 9  the old text was not found…`."""
    found = result.status is Status.APPLIED
    failed = result.status is Status.FAILED
    mark, style = ("✓", "green") if found else (("✗", "bold red") if failed else ("–", "yellow"))
    where = printable(result.path)
    if result.start_line is not None:
        span = f"{result.start_line}" if result.end_line in (None, result.start_line) else \
            f"{result.start_line}-{result.end_line}"
        where += f":{span}"
    why = (result.strategy or "found") if found else result.reason
    text = Text.assemble((mark, style), " ", (where, "cyan"), (f"  block at line {result.block.line}  ", "dim"))
    text.append(printable(why.split("\n", 1)[0]), style="dim" if found else "")
    return text


def waiting_line(event: BlockWaiting) -> Text:
    """`… src/app.py  block at line 5  the old text occurs at lines 3 and 8: waiting for 1 more identical block…`."""
    lines = event.result.candidates
    where = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
    text = Text.assemble(("…", "yellow"), " ", (printable(event.result.path), "cyan"),
                         (f"  block at line {event.block.line}  ", "dim"))
    text.append(f"the old text occurs at lines {where}: waiting for {counted(event.awaiting, 'more identical block')}"
                ", one for each place (else it is ambiguous)")
    return text


class PlainView:
    """Progress as plain lines (no terminal, a log, CI): the answer's prose, each verdict and note, the reports."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._in_block = False  # a block started and has no verdict yet
        self._waiting: list[Text] = []  # lines that came after that block ended, shown after its verdict

    def round_started(self, number: int, what: str) -> None:
        self._in_block, self._waiting = False, []
        self._console.print(Text(f"round {number}: {what}"))

    def chunk(self, text: str, events: list[LiveEvent]) -> None:
        for event in events:
            if isinstance(event, TextEvent):
                self._show(*answer_lines(event.text))
            elif isinstance(event, BlockStarted):
                self._release()
                self._in_block = True
            elif isinstance(event, BlockLocated | BlockWaiting | BlockWithdrawn):
                self._console.print(event_line(event))
                self._release()
            else:
                line = event_line(event)
                if line is not None:
                    self._show(line)

    def stream_ended(self, complete: bool = True) -> None:
        self._release()

    def note(self, message: str) -> None:
        self._console.print(Text(printable(message)))

    def round_report(self, result: ApplyResult, *, state: str) -> None:
        self._console.print(round_report(result, state=state))

    def round_finished(self, round: Round) -> None:
        pass

    def _show(self, *lines: Text) -> None:
        if self._in_block:
            self._waiting += lines
            return
        for line in lines:
            self._console.print(line)

    def _release(self) -> None:
        """The open block has its verdict (or will have none): show what came after it."""
        self._in_block = False
        waiting, self._waiting = self._waiting, []
        self._show(*waiting)


class QuietView:
    """For `--json`: stdout carries one document at the end; notes (retries, errors) go to stderr."""

    def round_started(self, number: int, what: str) -> None:
        pass

    def chunk(self, text: str, events: list[LiveEvent]) -> None:
        pass

    def stream_ended(self, complete: bool = True) -> None:
        pass

    def note(self, message: str) -> None:
        print(printable(message), file=sys.stderr)

    def round_report(self, result: ApplyResult, *, state: str) -> None:
        pass

    def round_finished(self, round: Round) -> None:
        pass


class LiveView(PlainView):
    """The terminal view: prose and verdicts scroll by, the line being written and the open block stay below."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self._partial = ""
        self._open: tuple[str, int] | None = None  # the growing block: its path and first line
        self._open_lines = 0
        self._live: Live | None = None

    def round_started(self, number: int, what: str) -> None:
        super().round_started(number, what)
        self._partial, self._open, self._open_lines = "", None, 0
        self._live = Live(console=self._console, get_renderable=self._region, transient=True,
                          refresh_per_second=REFRESHES_PER_SECOND)
        self._live.start()

    def chunk(self, text: str, events: list[LiveEvent]) -> None:
        cut = text.rfind("\n")
        self._partial = text[cut + 1 :] if cut != -1 else self._partial + text
        for event in events:
            if isinstance(event, BlockStarted):
                self._open, self._open_lines = (event.path or "(no path yet)", event.line), 0
            elif isinstance(event, BlockProgress):
                self._open_lines += event.added.count("\n")
            elif isinstance(event, BlockLocated | BlockWaiting | BlockWithdrawn):
                self._open = None
        super().chunk(text, events)

    def stream_ended(self, complete: bool = True) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        super().stream_ended(complete)
        if not complete and self._partial.strip():  # a whole answer's last line already came as text
            self._console.print(Text(printable(self._partial)))
        self._partial, self._open = "", None

    def _region(self) -> RenderableType:
        parts: list[RenderableType] = []
        if self._open is not None:
            path, line = self._open
            parts.append(Text.assemble(("▸ ", "bold blue"), (printable(path), "cyan"),
                                       (f"  block at line {line}, {counted(self._open_lines, 'line')} so far", "dim")))
        if self._partial:
            parts.append(Text(printable(self._partial[-PARTIAL_CHARS:]), style="dim"))
        return Group(*parts)


def answer_lines(text: str) -> list[Text]:
    """A piece of the answer's prose as shown, line by line: blank lines kept, fence lines dimmed."""
    lines = (text[:-1] if text.endswith("\n") else text).split("\n")
    return [Text(printable(line), style="dim" if _FENCE_LINE.match(line) else "") for line in lines]


def round_report(result: ApplyResult, *, state: str) -> RenderableType:
    """After an answer: why each block that will not apply failed (with the closest lines), the diffs, the counts.

    The blocks that apply were already shown, one verdict line each, while the answer streamed.
    """
    from editblocks.report.display import diagnostics_table, outcome_lines, shell_table
    from editblocks.report.outcome_text import summary_counts

    parts: list[RenderableType] = [outcome_lines(r) for r in result.results if r.status is not Status.APPLIED]
    if result.diagnostics:
        parts.append(diagnostics_table(result.diagnostics))
    parts += [render_diff(diff.unified) for diff in result.diffs]
    if result.shell:
        parts.append(Text("Suggested shell commands (not run):", style="bold"))
        parts.append(shell_table(result.shell))
    parts.append(Text.assemble(("Summary: ", "bold"), summary_counts(result), (f" · {state}", "yellow")))
    return Group(*parts)


@overload
def event_line(event: BlockLocated | BlockWaiting | BlockWithdrawn) -> Text: ...
@overload
def event_line(event: LiveEvent) -> Text | None: ...
def event_line(event: LiveEvent) -> Text | None:
    """The line an event of the answer gets of its own: a verdict, a wait for identical blocks, a withdrawal, a
    diagnostic, a shell suggestion."""
    if isinstance(event, BlockLocated):
        return verdict_line(event.result)
    if isinstance(event, BlockWaiting):
        return waiting_line(event)
    if isinstance(event, BlockWithdrawn):
        return Text(f"✗ block at line {event.block.line} withdrawn: a marker line inside it cut it short",
                    style="bold red")
    if isinstance(event, DiagnosticEvent):
        diagnostic = event.diagnostic
        style = "bold red" if diagnostic.severity is Severity.ERROR else "yellow"
        return Text(f"line {diagnostic.line}: {diagnostic.severity.value}: {printable(diagnostic.message)}",
                    style=style)
    if isinstance(event, ShellSuggested):
        return Text(f"$ {printable(event.suggestion.command)}  (suggested, not run)", style="magenta")
    return None
