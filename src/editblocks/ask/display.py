"""What a person sees while `editblocks ask` runs: a live terminal view, plain progress lines, or nothing (JSON).

The live view prints each line of prose and each block's verdict above a small
rich `Live` region that shows the line being written and the block growing
(its path and lines so far). The region is redrawn by rich's own timer from
the view's state, so a streamed chunk costs a string append, not a redraw.
"""

from __future__ import annotations

import sys
from typing import Protocol

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

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


class View(Protocol):
    def round_started(self, number: int, what: str) -> None: ...
    def chunk(self, text: str, events: list[LiveEvent]) -> None: ...
    def stream_ended(self, complete: bool = True) -> None:
        """The answer ended: whole (``complete``), or broken off (Ctrl-C, a dropped connection, an endpoint error)."""
    def note(self, message: str) -> None: ...
    def round_report(self, result: ApplyResult, *, state: str) -> None: ...


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
    """Progress as plain lines (no terminal, a log, CI): one line per round, block verdict and note."""

    def __init__(self, console: Console) -> None:
        self._console = console

    def round_started(self, number: int, what: str) -> None:
        self._console.print(Text(f"round {number}: {what}"))

    def chunk(self, text: str, events: list[LiveEvent]) -> None:
        for event in events:
            line = _event_line(event)
            if line is not None:
                self._console.print(line)

    def stream_ended(self, complete: bool = True) -> None:
        pass

    def note(self, message: str) -> None:
        self._console.print(Text(printable(message)))

    def round_report(self, result: ApplyResult, *, state: str) -> None:
        self._console.print(round_report(result, state=state))


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
            if isinstance(event, TextEvent):
                self._console.print(Text(printable(event.text.rstrip("\n"))))
            elif isinstance(event, BlockStarted):
                self._open, self._open_lines = (event.path or "(no path yet)", event.line), 0
            elif isinstance(event, BlockProgress):
                self._open_lines += event.added.count("\n")
            else:
                line = _event_line(event)
                if line is not None:
                    self._console.print(line)
                if isinstance(event, BlockLocated | BlockWaiting | BlockWithdrawn):
                    self._open = None

    def stream_ended(self, complete: bool = True) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        if self._partial.strip():
            self._console.print(Text(printable(self._partial)))
        self._partial = ""

    def _region(self) -> RenderableType:
        parts: list[RenderableType] = []
        if self._open is not None:
            path, line = self._open
            parts.append(Text.assemble(("▸ ", "bold blue"), (printable(path), "cyan"),
                                       (f"  block at line {line}, {counted(self._open_lines, 'line')} so far", "dim")))
        if self._partial:
            parts.append(Text(printable(self._partial[-PARTIAL_CHARS:]), style="dim"))
        return Group(*parts)


def round_report(result: ApplyResult, *, state: str) -> RenderableType:
    """After an answer: why each block that will not apply failed (with the closest lines), the diffs, the counts.

    The blocks that apply were already shown, one verdict line each, while the answer streamed.
    """
    from editblocks.report.display import diagnostics_table, outcome_lines, shell_table, summary_counts

    parts: list[RenderableType] = [outcome_lines(r) for r in result.results if r.status is not Status.APPLIED]
    if result.diagnostics:
        parts.append(diagnostics_table(result.diagnostics))
    parts += [render_diff(diff.unified) for diff in result.diffs]
    if result.shell:
        parts.append(Text("Suggested shell commands (not run):", style="bold"))
        parts.append(shell_table(result.shell))
    parts.append(Text.assemble(("Summary: ", "bold"), summary_counts(result), (f" · {state}", "yellow")))
    return Group(*parts)


def _event_line(event: LiveEvent) -> Text | None:
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
