"""What `editblocks eval` shows a person: progress with rate and ETA, a line per case, the failures, the summary.

Lines are never wrapped: a case name stays whole however narrow the
terminal, so it can be copied or searched for. Everything here reads a
`Summary` (bounded) or one outcome at a time, so the report of a run of
millions of cases costs no more memory than that of a hundred.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from editblocks.eval.judge import PASSING, CaseOutcome, Verdict
from editblocks.eval.summary import KEPT_FAILURES, Summary
from editblocks.model import counted

SHOWN_DIFFERENCE_LINES = 20
FAILURES_ONLY_ABOVE = 200
"""Above this many cases only the ones that did not pass are listed, unless --all-cases asks for every one."""
TABLE_WIDTH = 1000
"""The summary table is as wide as its names need: a narrow terminal must not cut a model's name."""
PROGRESS_LINES = 10
"""Without a terminal, progress is this many plain lines on stderr over the run."""

STYLES = {
    Verdict.CORRECT: "green",
    Verdict.REFUSED_OK: "green",
    Verdict.MISSED: "yellow",
    Verdict.FALSE_REFUSAL: "yellow",
    Verdict.WRONG: "bold red",
    Verdict.MISREPORTED: "magenta",
    Verdict.ERROR: "red",
}


def console() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)


class RateColumn(ProgressColumn):
    """Cases per second, over the last stretch of the run."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} cases/s" if speed else "", style="progress.data.speed")


@contextmanager
def progress(total: int, *, show: bool) -> Iterator[Callable[[bool], None]]:
    """A callback to call once per case (with whether it passed): on stderr, a bar with the rate and the time
    left in a terminal, otherwise a few plain lines (a log keeps them)."""
    if not show:
        yield lambda _passed: None
    elif sys.stderr.isatty():
        bar = Progress(TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                       TextColumn("eta"), TimeRemainingColumn(), TimeElapsedColumn(),
                       console=Console(stderr=True, emoji=False), transient=True)
        task = bar.add_task("cases", total=total)
        with bar:
            yield lambda _passed: bar.advance(task)
    else:
        yield _progress_lines(total)


def _progress_lines(total: int) -> Callable[[bool], None]:
    """A callback that prints `evaluated 300 of 3000 cases, 2 not passing, 950 cases/s` every tenth of the run."""
    step = max(1, -(-total // PROGRESS_LINES))
    done, failing, started = 0, 0, time.perf_counter()

    def advance(passed: bool) -> None:
        nonlocal done, failing
        done += 1
        failing += not passed
        if done % step == 0 and done < total:
            rate = done / max(time.perf_counter() - started, 1e-9)
            click.echo(f"evaluated {done} of {counted(total, 'case')}, {failing} not passing, {rate:,.0f} cases/s",
                       err=True)

    return advance


def case_line(outcome: CaseOutcome) -> Text:
    """`correct         12 ms  cases-md/a01  applied 1 block`: fixed-width verdict and time, then name and detail."""
    return Text.assemble((f"{outcome.verdict.value:<13}", STYLES[outcome.verdict]),
                         f" {outcome.seconds * 1000:>6.0f} ms  ", outcome.name, ("  " + outcome.detail, "dim"))


def print_failures(out: Console, summary: Summary) -> None:
    """Each kept failure with its reason and the start of its difference; how many more there were."""
    for outcome in summary.failures:
        out.print()
        out.print(Text.assemble((outcome.verdict.value, STYLES[outcome.verdict]), " ", outcome.name, ": ",
                                outcome.detail))
        if outcome.why:
            out.print(Text(f"  why: {outcome.why}", style="dim"))
        shown = outcome.difference[:SHOWN_DIFFERENCE_LINES]
        for line in shown:
            out.print(Text("  " + line))
        if len(outcome.difference) > len(shown):
            out.print(f"  ... {counted(len(outcome.difference) - len(shown), 'more line')} (see --json)")
    more = summary.failing - len(summary.failures)
    if more > 0:
        out.print(f"\n... and {counted(more, 'more failing case')}, not shown (the first {KEPT_FAILURES} are; "
                  "--jsonl OUT records every case)")


def print_groups(out: Console, summary: Summary) -> None:
    """Verdicts by model and format, when the cases have more than one of either."""
    rows = summary.group_rows()
    if len(rows) < 2:
        return
    table = Table(title="verdicts by model and format", title_justify="left", box=None, pad_edge=False)
    table.add_column("model")
    table.add_column("format")
    shown = [verdict for verdict in Verdict if summary.totals[verdict]]
    for verdict in shown:
        table.add_column(verdict.value, justify="right", style=STYLES[verdict])
    table.add_column("passing", justify="right")
    for model, fmt, counts in rows:
        total = sum(counts.values())
        passing = sum(counts[verdict.value] for verdict in PASSING)
        table.add_row(model, fmt, *(f"{counts[verdict.value]:,}" for verdict in shown), f"{passing / total:.0%}")
    out.print()
    out.print(table, width=TABLE_WIDTH, crop=False)


def print_totals(out: Console, summary: Summary, *, seconds: float, jobs: int, backend: str,
                 listed_failures_only: bool) -> None:
    passing = summary.cases - summary.failing
    if listed_failures_only and passing:
        out.print(f"\n{counted(passing, 'passing case')} not listed (--all-cases lists every case)")
    totals = ", ".join(f"{count} {verdict}" for verdict, count in summary.verdict_totals().items() if count)
    rate = f", {summary.cases / seconds:,.0f} cases/s" if seconds > 0 and summary.cases > 1 else ""
    out.print(f"\n{counted(summary.cases, 'case')}: {totals} in {seconds:.2f} s "
              f"({counted(jobs, 'job')}, {backend}{rate})")
