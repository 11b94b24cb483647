"""`editblocks eval`: score the library on case folders and datasets, or import recorded answers as cases.

A module of its own so that the main command module stays about applying
edits; it registers `eval_command` on its group. `eval export`, `eval merge`
and the importers are subcommands (`eval_commands`). Exit status: 0 every
case correct or rightly refused, 1 any other verdict, 2 bad usage or input.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click

from editblocks.cli.eval_commands import SUBCOMMANDS
from editblocks.cli.eval_output import (
    FAILURES_ONLY_ABOVE,
    case_line,
    console,
    print_failures,
    print_groups,
    print_totals,
    progress,
)
from editblocks.cli.shared import EXIT_FAILED, EXIT_OK, InputError, JsonAwareCommand
from editblocks.errors import ReplayError
from editblocks.eval.dataset import Columns
from editblocks.eval.extras import MissingExtra, parquet, ray
from editblocks.eval.judge import CaseOutcome
from editblocks.eval.pipeline import Engine, Run, outcomes
from editblocks.eval.records import case_json, cut_partial_line, line, read_outcomes, write_case
from editblocks.eval.replay import ReplayedCase, import_commit
from editblocks.eval.runner import PARALLEL_THRESHOLD, RunSettings, Shard
from editblocks.eval.sources import Sources
from editblocks.eval.summary import Summary
from editblocks.model import Format, Policy, counted
from editblocks.report.events import event
from editblocks.report.serialize import json_text, versioned

STDOUT = "-"


class EvalCommand(JsonAwareCommand):
    """`eval` itself, and its subcommands when the first argument names one (`eval merge a.jsonl b.jsonl`)."""

    subcommands: dict[str, click.Command] = SUBCOMMANDS

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        if args and args[0] in self.subcommands:
            return self.subcommands[args[0]].make_context(f"{info_name} {args[0]}", args[1:], parent, **extra)
        return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        if ctx.command is not self:
            return ctx.command.invoke(ctx)
        return super().invoke(ctx)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Subcommands (editblocks eval SUBCOMMAND --help)"):
            formatter.write_dl([(name, command.get_short_help_str(80)) for name, command in self.subcommands.items()])


@click.command("eval", cls=EvalCommand)
@click.argument("sources", nargs=-1, type=click.Path(exists=True), metavar="[FOLDER|DATASET]...")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON.")
@click.option("--format", "format_", type=click.Choice([fmt.value for fmt in Format]), default=None,
              help="Parse every response in this format (overrides case.json).")
@click.option("--on-failure", type=click.Choice([policy.value for policy in Policy]), default=None,
              help="Policy after a failed block (overrides case.json).")
@click.option("--strict", is_flag=True, help="Exact matches only, in every case.")
@click.option("--fuzzy", is_flag=True, help="Allow fuzzy matches, in every case.")
@click.option("--first-match", is_flag=True, help="Take the first of several matches, in every case.")
@click.option("--backend", type=click.Choice([engine.value for engine in Engine]), default=Engine.MEMORY.value,
              show_default=True,
              help="Where cases run: in memory, on disk (temporary copies, journal and fsync, as `apply`), or as Ray "
                   "tasks on the cluster `ray.init()` finds (needs editblocks[ray]).")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help=f"Worker processes for runs of more than {PARALLEL_THRESHOLD} cases (default: the number of CPUs).")
@click.option("--columns", "columns", multiple=True, metavar="FIELD=COLUMN",
              help="Read a case field from a dataset column of another name (repeat, or separate with commas); "
                   "ignore=COLUMN leaves a column aside.")
@click.option("--jsonl", "jsonl", type=click.Path(dir_okay=False, allow_dash=True), default=None, metavar="OUT",
              help="Write one JSON line per case to OUT as it finishes (- for standard output).")
@click.option("--resume", is_flag=True, help="With --jsonl OUT: skip the cases OUT already holds, and append.")
@click.option("--shard", default=None, metavar="K/N",
              help="Run only slice K of N (1-based), chosen by a hash of each case's name.")
@click.option("--html", "html", type=click.Path(dir_okay=False), default=None, metavar="OUT",
              help="Write the summary as a page with charts to OUT (it needs no network to view).")
@click.option("--ray-address", default=None, help="With --backend ray: the cluster to join (default: RAY_ADDRESS, "
                                                  "else a local one).")
@click.option("--failures-only/--all-cases", default=None,
              help=f"List only the cases that did not pass, or every case; the totals always "
                   f"(default: every case up to {FAILURES_ONLY_ABOVE} cases, only failures above).")
@click.option("--scratch", type=click.Path(exists=True, file_okay=False), default=None,
              help="With --backend disk: folder for the temporary copies (default: /dev/shm if present).")
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
def eval_command(sources: tuple[str, ...], as_json: bool, format_: str | None, on_failure: str | None,
                 strict: bool, fuzzy: bool, first_match: bool, backend: str, jobs: int | None,
                 columns: tuple[str, ...], jsonl: str | None, resume: bool, shard: str | None, html: str | None,
                 ray_address: str | None, failures_only: bool | None, scratch: str | None, repo: str | None,
                 response: str | None, commit: str | None, out: str | None, run: str | None,
                 round_number: int) -> None:
    """Apply every case under FOLDERs and in DATASETs, and compare the files with each case's expected files.

    A case is a folder holding response.md, before/, after/ and an optional
    case.json, or a row of a JSON Lines or Parquet dataset (see the
    documentation, "Evaluating").
    With --from-git, write one such case from a recorded answer and the commit
    it produced instead.
    """
    if run is not None:
        _from_run(sources, run, round_number, out, as_json)
        return
    if repo is not None or response or commit or out:
        _replay(sources, repo, response, commit, out, as_json)
        return
    if not sources:
        raise click.UsageError("give at least one folder of cases or dataset (or --from-git to import one)")
    plan = _plan(sources, backend, jobs, columns, shard, scratch, ray_address,
                 # A flag left off means "as the case says", not "off": only a given flag overrides case.json.
                 {"format": format_, "on_failure": on_failure, "strict": strict or None, "fuzzy": fuzzy or None,
                  "first_match": first_match or None})
    if resume and jsonl in (None, STDOUT):
        raise click.UsageError("--resume needs --jsonl OUT, the file of the run to resume")
    if as_json and jsonl == STDOUT:
        raise click.UsageError("--json and --jsonl - both print to standard output; give --jsonl a file")
    try:
        count = plan.sources.count()
    except (OSError, MissingExtra) as error:
        raise InputError(f"cannot read the cases: {error}") from None
    if count == 0:
        raise InputError(f"no case folders (folders holding response.md) and no dataset rows in {', '.join(sources)}")
    summary = Summary()
    kept: list[CaseOutcome] | None = [] if as_json else None
    done = _resumed(jsonl, summary, kept) if resume and jsonl is not None else frozenset()
    plan = Run(plan.sources, plan.settings, plan.engine, plan.jobs, plan.shard, done, plan.ray_address)
    listing_all = not as_json and jsonl != STDOUT and not (
        failures_only if failures_only is not None else count > FAILURES_ONLY_ABOVE)
    out_console = console()
    started = time.perf_counter()
    with _events_file(jsonl, resume) as events, progress(count, show=count > PARALLEL_THRESHOLD) as advance:
        if events is not None:
            events.write(line(event("run_started", command="eval", dry_run=True, cases=count)))
        if listing_all:
            out_console.print("editblocks eval", style="bold")
        try:
            for outcome in outcomes(plan, count, lambda: advance(True)):
                summary.add(outcome)
                if events is not None:
                    write_case(events, outcome)
                if kept is not None:
                    kept.append(outcome)
                if listing_all:
                    out_console.print(case_line(outcome))
                advance(outcome.passed)
        except MissingExtra as error:
            raise InputError(str(error)) from None
        seconds = time.perf_counter() - started
        status = EXIT_OK if summary.ok else EXIT_FAILED
        if events is not None:
            events.write(line(event("run_finished", command="eval", exit_code=status, ok=summary.ok,
                                    totals=summary.verdict_totals(), seconds=round(seconds, 3))))
    if html is not None:
        _write_html(html, summary, seconds)
    workers = 1 if plan.engine is Engine.RAY else plan.workers(count)
    if kept is not None:
        click.echo(json_text(versioned(_report(kept, summary, seconds, workers))))
    elif jsonl != STDOUT:
        print_failures(out_console, summary)
        print_groups(out_console, summary)
        print_totals(out_console, summary, seconds=seconds, jobs=workers, backend=plan.engine.value,
                     listed_failures_only=not listing_all)
    sys.exit(status)


def _plan(sources: tuple[str, ...], backend: str, jobs: int | None, columns: tuple[str, ...], shard: str | None,
          scratch: str | None, ray_address: str | None, overrides: dict[str, Any]) -> Run:
    """The run the options ask for, checked before anything runs (exit 2 for a bad one)."""
    from editblocks.eval.evaluate import default_scratch, overrides_of

    try:
        parsed_columns = Columns.parse(columns)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--columns") from None
    try:
        parsed_shard = Shard.parse(shard) if shard is not None else None
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--shard") from None
    split = Sources.split(sources, parsed_columns)
    engine = Engine(backend)
    try:
        if any(path.endswith(".parquet") for path in split.datasets):
            parquet()
        if engine is Engine.RAY:
            ray()
    except MissingExtra as error:
        raise InputError(str(error), code="usage") from None
    folder = scratch if scratch is not None else default_scratch() if engine is Engine.DISK else None
    settings = RunSettings(overrides_of(**overrides), scratch=folder, columns=parsed_columns)
    return Run(Sources(split.folders, split.datasets, parsed_columns), settings, engine, jobs, parsed_shard,
               ray_address=ray_address)


def _resumed(jsonl: str, summary: Summary, kept: list[CaseOutcome] | None) -> frozenset[str]:
    """The names of the cases the events file already holds, each added to the summary (and the kept list)."""
    if not os.path.exists(jsonl):
        return frozenset()
    cut_partial_line(jsonl)
    names: set[str] = set()
    for outcome in read_outcomes(jsonl):
        if outcome.name in names:
            continue
        names.add(outcome.name)
        summary.add(outcome)
        if kept is not None:
            kept.append(outcome)
    return frozenset(names)


@contextmanager
def _events_file(jsonl: str | None, resume: bool) -> Iterator[IO[str] | None]:
    if jsonl is None:
        yield None
    elif jsonl == STDOUT:
        yield sys.stdout
    else:
        try:
            handle = open(jsonl, "a" if resume else "w", encoding="utf-8")
        except OSError as error:
            raise InputError(f"cannot write {jsonl}: {error.strerror or error}") from None
        with handle:
            yield handle


def _write_html(path: str, summary: Summary, seconds: float) -> None:
    from editblocks.eval.html_report import render

    try:
        Path(path).write_text(render(summary, seconds=seconds), encoding="utf-8")
    except OSError as error:
        click.echo(f"Error: cannot write {path}: {error.strerror or error}", err=True)
        sys.exit(EXIT_FAILED)


def _report(outcomes_: list[CaseOutcome], summary: Summary, seconds: float, jobs: int) -> dict[str, Any]:
    """The `--json` shape: the verdict of every case, and the summary."""
    return {"ok": summary.ok, "totals": summary.verdict_totals(), "cases_total": summary.cases,
            "seconds": round(seconds, 3), "jobs": jobs, "cases": [case_json(outcome) for outcome in outcomes_]}


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


def _report_case(case: ReplayedCase, as_json: bool, source: str) -> None:
    """What an imported case holds, as JSON or one line naming where it came from."""
    if as_json:
        click.echo(json.dumps(versioned({"case": str(case.folder), "commit": case.commit,
                                         "before": list(case.before), "after": list(case.after)}), indent=2))
    else:
        click.echo(f"wrote {case.folder} from {source}: {counted(len(case.before), 'file')} before, "
                   f"{len(case.after)} after")

