"""The subcommands of `editblocks eval`: export cases as a dataset, merge shard outputs, import what users have.

`export` writes case folders (or another dataset) as one JSON Lines or
Parquet file; `merge` reads the `--jsonl` outputs of shards and prints one
summary; `import-codex` and `import-aider-history` turn Codex's apply-patch
scenarios and an aider chat history with its repository into cases. Every
writer takes `--out` as a `.jsonl` or `.parquet` file, or a folder of case
folders.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import click

from editblocks.cli.eval_output import console, print_failures, print_groups, print_totals
from editblocks.cli.shared import EXIT_FAILED, EXIT_OK, InputError
from editblocks.errors import ReplayError
from editblocks.eval.cases import Case
from editblocks.eval.dataset import Columns
from editblocks.eval.extras import MissingExtra
from editblocks.eval.judge import CaseOutcome
from editblocks.eval.records import read_outcomes, write_case
from editblocks.eval.runner import RunSettings, ref_of
from editblocks.eval.sources import Sources
from editblocks.eval.summary import Summary
from editblocks.model import counted

OUT_HELP = "Where to write: a .jsonl or .parquet file (replaced), or a folder for case folders (new or empty)."


def _write(cases: Iterable[Case], out: str, passed_over: list[str]) -> None:
    """Write the cases, then say how many and what was passed over; exit 2 when nothing could be written."""
    from editblocks.eval.export import write_cases

    try:
        written = write_cases(cases, out)
    except (OSError, MissingExtra, ReplayError) as error:
        raise InputError(f"cannot write {out}: {getattr(error, 'strerror', None) or error}") from None
    for reason in passed_over:
        click.echo(f"passed over {reason}", err=True)
    click.echo(f"wrote {counted(written, 'case')} to {out}"
               + (f"; passed over {len(passed_over)} (listed above)" if passed_over else ""))
    if not written:
        raise InputError("nothing to write: no case could be read")
    sys.exit(EXIT_FAILED if passed_over else EXIT_OK)


@click.command("export")
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True), metavar="FOLDER|DATASET...")
@click.option("--out", required=True, type=click.Path(), help=OUT_HELP)
@click.option("--columns", multiple=True, metavar="FIELD=COLUMN", help="As for `eval`: a dataset's column names.")
def export_command(sources: tuple[str, ...], out: str, columns: tuple[str, ...]) -> None:
    """Write the cases under FOLDERs (and in DATASETs) as one dataset, or as case folders.

    One row per case, in the schema `editblocks eval` reads (see the
    documentation, "Evaluating"); a case that cannot be read is passed over
    and named.
    """
    try:
        parsed = Columns.parse(columns)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--columns") from None
    split = Sources.split(sources, parsed)
    if Path(out).resolve() in {Path(path).resolve() for path in split.datasets}:
        raise click.UsageError("--out must not be one of the datasets read")
    passed_over: list[str] = []
    _write(_loaded(split, passed_over), out, passed_over)


def _loaded(sources: Sources, passed_over: list[str]) -> Iterator[Case]:
    settings = RunSettings(columns=sources.columns)
    for item in sources.items():
        ref = ref_of(item, sources.columns)
        if ref is None:
            continue
        case = ref.load(settings)
        if isinstance(case, CaseOutcome):
            passed_over.append(f"{case.name}: {case.detail}")
        else:
            yield case


@click.command("merge")
@click.argument("outputs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False),
                metavar="JSONL...")
@click.option("--jsonl", "jsonl", type=click.Path(dir_okay=False), default=None, metavar="OUT",
              help="Also write every case of the outputs, once each, to OUT.")
@click.option("--html", type=click.Path(dir_okay=False), default=None, metavar="OUT",
              help="Write the summary as a page with charts to OUT.")
def merge_command(outputs: tuple[str, ...], jsonl: str | None, html: str | None) -> None:
    """Combine the --jsonl outputs of several runs (the shards of one evaluation) into one summary.

    A case found in more than one output counts once (the first found). Exit
    status 0 when every case passed, 1 otherwise.
    """
    summary = Summary()
    names: set[str] = set()
    combined = open(jsonl, "w", encoding="utf-8") if jsonl is not None else None
    try:
        for output in outputs:
            for outcome in read_outcomes(output):
                if outcome.name not in names:
                    names.add(outcome.name)
                    summary.add(outcome)
                    if combined is not None:
                        write_case(combined, outcome)
    finally:
        if combined is not None:
            combined.close()
    if not summary.cases:
        raise InputError(f"no case in {', '.join(outputs)} (they are written by `editblocks eval --jsonl OUT`)")
    if html is not None:
        from editblocks.eval.html_report import render

        Path(html).write_text(render(summary, title="editblocks eval (merged)"), encoding="utf-8")
    out = console()
    print_failures(out, summary)
    print_groups(out, summary)
    print_totals(out, summary, seconds=summary.case_seconds, jobs=len(outputs), backend="merged",
                 listed_failures_only=True)
    sys.exit(EXIT_OK if summary.ok else EXIT_FAILED)


@click.command("import-codex")
@click.argument("scenarios", type=click.Path(exists=True, file_okay=False))
@click.option("--out", required=True, type=click.Path(), help=OUT_HELP)
def import_codex_command(scenarios: str, out: str) -> None:
    """Make cases of Codex's apply-patch scenarios (input/, patch.txt, expected/ in each folder under SCENARIOS).

    In a checkout of openai/codex they are codex-rs/apply-patch/tests/fixtures/scenarios.
    """
    from editblocks.eval.codex_scenarios import import_scenarios

    passed_over: list[str] = []
    _write(import_scenarios(scenarios, passed_over), out, passed_over)


@click.command("import-aider-history")
@click.argument("repo", type=click.Path(exists=True, file_okay=False))
@click.option("--history", type=click.Path(exists=True, dir_okay=False), default=None,
              help="The chat history (default: REPO/.aider.chat.history.md).")
@click.option("--out", required=True, type=click.Path(), help=OUT_HELP)
def import_aider_history_command(repo: str, history: str | None, out: str) -> None:
    """Make a case of each answer in an aider chat history that aider committed in REPO.

    The case holds the answer, the files the commit changed as its parent
    held them and as the commit left them, and the model and edit format the
    history names.
    """
    from editblocks.eval.aider_history import Imported, import_history

    found = Imported()
    try:
        _write(import_history(repo, history, found), out, found.passed_over)
    finally:
        if found.answers == 0:
            click.echo("no answer in the history is followed by a commit of aider's", err=True)


SUBCOMMANDS: dict[str, click.Command] = {
    "export": export_command,
    "merge": merge_command,
    "import-codex": import_codex_command,
    "import-aider-history": import_aider_history_command,
}
