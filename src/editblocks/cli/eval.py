"""`editblocks eval`: score the library on a corpus of case folders, or import a recorded answer as a case.

A module of its own so that the main command module stays about applying
edits; it registers `eval_command` on its group. Exit status: 0 every case
correct or rightly refused, 1 any other verdict, 2 bad usage or input.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from editblocks.cli.shared import EXIT_FAILED, EXIT_OK, InputError, JsonAwareCommand
from editblocks.errors import ReplayError
from editblocks.eval.evaluate import (
    PARALLEL_THRESHOLD,
    CaseOutcome,
    EvalReport,
    Verdict,
    evaluate_cases,
    find_cases,
    report_json,
)
from editblocks.eval.replay import ReplayedCase, import_commit
from editblocks.model import Format, Policy, counted
from editblocks.report.serialize import json_text, versioned

SHOWN_DIFFERENCE_LINES = 20
FAILURES_ONLY_ABOVE = 200
"""Above this many cases only the ones that did not pass are listed, unless --all-cases asks for every one."""
PROGRESS_LINES = 10
"""Without a terminal, progress is this many plain lines on stderr over the run."""

_STYLES = {
    Verdict.CORRECT: "green",
    Verdict.REFUSED_OK: "green",
    Verdict.MISSED: "yellow",
    Verdict.FALSE_REFUSAL: "yellow",
    Verdict.WRONG: "bold red",
    Verdict.MISREPORTED: "magenta",
    Verdict.ERROR: "red",
}


@click.command("eval", cls=JsonAwareCommand)
@click.argument("folders", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@click.option("--format", "format_", type=click.Choice([fmt.value for fmt in Format]), default=None,
              help="Parse every response in this format (overrides case.json).")
@click.option("--on-failure", type=click.Choice([policy.value for policy in Policy]), default=None,
              help="Policy after a failed block (overrides case.json).")
@click.option("--strict", is_flag=True, help="Exact matches only, in every case.")
@click.option("--fuzzy", is_flag=True, help="Allow fuzzy matches, in every case.")
@click.option("--first-match", is_flag=True, help="Take the first of several matches, in every case.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help=f"Worker processes for runs of more than {PARALLEL_THRESHOLD} cases (default: the number of CPUs).")
@click.option("--failures-only/--all-cases", default=None,
              help=f"List only the cases that did not pass, or every case; the totals always "
                   f"(default: every case up to {FAILURES_ONLY_ABOVE} cases, only failures above).")
@click.option("--scratch", type=click.Path(exists=True, file_okay=False), default=None,
              help="Folder for the temporary copies of before/ (default: /dev/shm if present, else the temp folder).")
@click.option("--from-git", "repo", type=click.Path(exists=True, file_okay=False), default=None,
              help="Instead of evaluating: make a case from a commit of this git repository.")
@click.option("--response", type=click.Path(exists=True, dir_okay=False), default=None,
              help="With --from-git: the recorded model answer that produced the commit.")
@click.option("--commit", default=None, help="With --from-git: the commit the answer produced.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="With --from-git or --from-run: the case folder to create (must not exist or be empty).")
@click.option("--from-run", "run", type=click.Path(exists=True, file_okay=False), default=None,
              help="Instead of evaluating: make a case from a run `editblocks ask` saved (.editblocks/runs/TIME).")
@click.option("--round", "round_number", type=click.IntRange(min=1), default=1, show_default=True,
              help="With --from-run: which round of the run becomes the case.")
def eval_command(folders: tuple[str, ...], as_json: bool, format_: str | None, on_failure: str | None,
                 strict: bool, fuzzy: bool, first_match: bool, jobs: int | None, failures_only: bool | None,
                 scratch: str | None, repo: str | None, response: str | None, commit: str | None,
                 out: str | None, run: str | None, round_number: int) -> None:
    """Apply every case under FOLDERS and compare the files with each case's after/ folder.

    A case is a folder holding response.md, before/, after/ and an optional
    case.json (see the documentation, "Evaluating").
    With --from-git, write one such case from a recorded answer and the commit
    it produced instead.
    """
    if run is not None:
        _from_run(folders, run, round_number, out, as_json)
        return
    if repo is not None or response or commit or out:
        _replay(folders, repo, response, commit, out, as_json)
        return
    if not folders:
        raise click.UsageError("give at least one folder of cases (or --from-git to import one)")
    count = len(find_cases(folders))
    if count == 0:
        raise InputError(f"no case folders (folders holding response.md) under {', '.join(folders)}")
    # A flag left off means "as the case says", not "off": only a given flag overrides case.json.
    with _progress(count, show=count > PARALLEL_THRESHOLD) as advance:
        report = evaluate_cases(folders, format=format_, on_failure=on_failure, strict=strict or None,
                                fuzzy=fuzzy or None, first_match=first_match or None, jobs=jobs, scratch=scratch,
                                progress=advance)
    if as_json:
        click.echo(json_text(versioned(report_json(report))))
    else:
        _print_report(report, failures_only=failures_only if failures_only is not None else count > FAILURES_ONLY_ABOVE)
    sys.exit(EXIT_OK if report.ok else EXIT_FAILED)


def _replay(folders: tuple[str, ...], repo: str | None, response: str | None, commit: str | None,
            out: str | None, as_json: bool) -> None:
    if folders:
        raise click.UsageError("--from-git makes a case; it does not take case folders to evaluate")
    missing = [name for name, value in (("--from-git", repo), ("--response", response), ("--commit", commit),
                                        ("--out", out)) if not value]
    if missing:
        raise click.UsageError(f"importing a case needs {', '.join(missing)} as well")
    assert repo and response and commit and out
    try:
        case = import_commit(repo, response, commit, out)
    except ReplayError as error:
        raise InputError(str(error)) from None
    _report_case(case, as_json, f"commit {case.commit[:12]}")


def _from_run(folders: tuple[str, ...], run: str, round_number: int, out: str | None, as_json: bool) -> None:
    from editblocks.eval.from_run import import_run

    if folders or out is None:
        raise click.UsageError("--from-run makes one case: give --out CASE and no case folders")
    try:
        case = import_run(run, out, round_number)
    except ReplayError as error:
        raise InputError(str(error)) from None
    _report_case(case, as_json, f"round {round_number} of run {case.commit}")


@contextmanager
def _progress(total: int, *, show: bool) -> Iterator[Callable[[CaseOutcome], None] | None]:
    """Progress on stderr for long runs: a bar in a terminal, otherwise a few plain lines (a log keeps them)."""
    if not show:
        yield None
    elif sys.stderr.isatty():
        bar = Progress(TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       console=Console(stderr=True, emoji=False), transient=True)
        task = bar.add_task("cases", total=total)
        with bar:
            yield lambda _outcome: bar.advance(task)
    else:
        yield _progress_lines(total)


def _progress_lines(total: int) -> Callable[[CaseOutcome], None]:
    """A callback that prints `evaluated 300 of 3000 cases, 2 not passing` every tenth of the run."""
    step = max(1, -(-total // PROGRESS_LINES))
    done, failing = 0, 0

    def advance(outcome: CaseOutcome) -> None:
        nonlocal done, failing
        done += 1
        failing += not outcome.passed
        if done % step == 0 and done < total:
            click.echo(f"evaluated {done} of {counted(total, 'case')}, {failing} not passing", err=True)

    return advance


def _print_report(report: EvalReport, *, failures_only: bool) -> None:
    """One plain line per case (or per failure), each failure's difference, the totals.

    Lines are never wrapped: a case name stays whole however narrow the
    terminal, so it can be copied or searched for.
    """
    console = Console(highlight=False, soft_wrap=True, emoji=False)
    if not failures_only:
        console.print("editblocks eval", style="bold")
        for outcome in report.outcomes:
            console.print(_case_line(outcome))
    for outcome in report.failures:
        console.print()
        console.print(Text.assemble((outcome.verdict.value, _STYLES[outcome.verdict]), " ", outcome.name, ": ",
                                    outcome.detail))
        if outcome.why:
            console.print(Text(f"  why: {outcome.why}", style="dim"))
        shown = outcome.difference[:SHOWN_DIFFERENCE_LINES]
        for line in shown:
            console.print(Text("  " + line))
        if len(outcome.difference) > len(shown):
            console.print(f"  ... {counted(len(outcome.difference) - len(shown), 'more line')} (see --json)")
    passing = len(report.outcomes) - len(report.failures)
    if failures_only and passing:
        console.print(f"\n{counted(passing, 'passing case')} not listed (--all-cases lists every case)")
    totals = ", ".join(f"{count} {verdict}" for verdict, count in report.totals.items() if count)
    console.print(f"\n{counted(len(report.outcomes), 'case')}: {totals} in {report.seconds:.2f} s "
                  f"({counted(report.jobs, 'job')})")


def _case_line(outcome: CaseOutcome) -> Text:
    """`correct         12 ms  cases-md/a01  applied 1 block`: fixed-width verdict and time, then name and detail."""
    return Text.assemble((f"{outcome.verdict.value:<13}", _STYLES[outcome.verdict]),
                         f" {outcome.seconds * 1000:>6.0f} ms  ", outcome.name, ("  " + outcome.detail, "dim"))


def _report_case(case: ReplayedCase, as_json: bool, source: str) -> None:
    """What an imported case holds, as JSON or one line naming where it came from."""
    if as_json:
        click.echo(json.dumps(versioned({"case": str(case.folder), "commit": case.commit,
                                         "before": list(case.before), "after": list(case.after)}), indent=2))
    else:
        click.echo(f"wrote {case.folder} from {source}: {counted(len(case.before), 'file')} before, "
                   f"{len(case.after)} after")
