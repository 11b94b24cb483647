"""`editblocks apply` and `editblocks check`: decide every block of an answer against the files, then write (or not).

Only what a run needs is loaded: the HTML report, the feedback message and
the patch writer are imported when their option is given.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import replace
from typing import Any

import click

from editblocks.cli.read import read_response
from editblocks.cli.reports import check_report_path, write_report
from editblocks.cli.shared import (
    EXIT_FAILED,
    EXIT_OK,
    JSON_HELP,
    Decorator,
    InputError,
    JsonAwareCommand,
    console,
    emit_json,
    format_option,
    max_bytes_option,
    root_option,
    workspace_error,
)
from editblocks.model import ApplyResult, ParseResult, Policy, Reason, Status, counted
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES


def _known_files_option() -> Decorator:
    return click.option(
        "--known-files", "known_source", default=None, metavar="FILE|-|git",
        help="The project's files: a file with one path per line, - for stdin, or git for `git ls-files` in the "
             "root. A misspelt path maps onto the one file it clearly means; a missing file's likely path is named.",
    )


def read_known(source: str | None, root: str | None, response: str) -> list[str] | None:
    """The paths ``--known-files`` names, or None without the option; unreadable input is a usage error."""
    if source is None:
        return None
    if source == "-" and response == "-":
        raise InputError("the response and --known-files cannot both be read from standard input")
    from editblocks.workspace.project_files import KnownFilesError, read_known_files

    try:
        return read_known_files(source, root or ".")
    except KnownFilesError as error:
        raise InputError(str(error)) from None


def _apply_exit(result: ApplyResult) -> int:
    """0 when every block applied or was already applied (re-running an answer is not an error), else 1."""
    if not result.results:
        return EXIT_FAILED
    clean = all(r.status is Status.APPLIED or r.code is Reason.ALREADY_APPLIED for r in result.results)
    return EXIT_OK if clean and not any(d.severity.value == "error" for d in result.diagnostics) else EXIT_FAILED


def _run_apply(parsed: ParseResult, root: str, *, dry_run: bool, **options: Any) -> ApplyResult:
    from editblocks.service.apply import apply
    from editblocks.workspace import WorkspaceError

    try:
        return apply(parsed, root, dry_run=dry_run, **options)
    except WorkspaceError as error:
        raise workspace_error(error) from None


def _print_apply(result: ApplyResult, *, as_json: bool, show_diffs: bool, dry_run: bool, format_: str) -> None:
    if as_json:
        from editblocks.report.serialize import apply_json

        emit_json(apply_json(result))
        return
    from editblocks.report.display import apply_report

    out = console()
    if not result.results:
        from editblocks.parsing.catalog import nothing_found

        out.print(nothing_found(format_), markup=False)
    out.print(apply_report(result, show_diffs=show_diffs, dry_run=dry_run))


@click.command("check", cls=JsonAwareCommand)
@click.argument("response")
@root_option()
@format_option()
@click.option("--fuzzy", is_flag=True, help="Also accept close (fuzzy) matches.")
@click.option("--strict", is_flag=True, help="Exact matching only, for every format (as apply --strict).")
@click.option("--first-match", is_flag=True, help="Take the first of several matches (as apply --first-match).")
@_known_files_option()
@max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the apply shape when --root is given).")
def check_command(response: str, root: str | None, format_: str, fuzzy: bool, strict: bool, first_match: bool,
                  known_source: str | None, max_bytes: int, as_json: bool) -> None:
    """Validate RESPONSE; with --root, also locate every block without writing anything."""
    from editblocks.parsing.validate import validate

    known = read_known(known_source, root, response)
    text = read_response(response, max_bytes)
    validation = validate(text, format_, known_files=known)
    if root is not None:
        result = _run_apply(validation.result, root, dry_run=True, fuzzy=fuzzy, strict=strict, first_match=first_match,
                            known_files=known)
        from editblocks.service.apply import without_restated_warnings

        result = replace(result, diagnostics=without_restated_warnings(validation.diagnostics, result.results))
        _print_apply(result, as_json=as_json, show_diffs=False, dry_run=True, format_=format_)
        sys.exit(EXIT_OK if validation.ok and _apply_exit(result) == EXIT_OK else EXIT_FAILED)
    if as_json:
        from editblocks.report.serialize import check_json

        data = check_json(ParseResult(validation.result.format, validation.result.blocks,
                                      validation.result.shell, validation.diagnostics), ok=validation.ok)
        emit_json(data)
    else:
        from editblocks.report.display import diagnostics_table

        out = console()
        if validation.diagnostics:
            out.print(diagnostics_table(validation.diagnostics))
        count = len(validation.result.blocks)
        verdict = "ok" if validation.ok else "problems found"
        out.print(f"{count} block{'s' if count != 1 else ''}: {verdict}")
    sys.exit(EXIT_OK if validation.ok else EXIT_FAILED)


@click.command("apply", cls=JsonAwareCommand)
@click.argument("response")
@root_option()
@format_option()
@click.option("--dry-run", is_flag=True, help="Decide every block and show the result; write nothing.")
@click.option("--diff", "show_diffs", is_flag=True, help="Show a unified diff of every changed file.")
@click.option("--strict", is_flag=True, help="Exact matches only (no whitespace, indentation or typography tolerance).")
@click.option("--fuzzy", is_flag=True,
              help="Also accept a clearly best close match (replaces lines the model never quoted exactly).")
@click.option("--first-match", is_flag=True, help="When the old text occurs several times, edit the first occurrence.")
@click.option("--on-failure", type=click.Choice([p.value for p in Policy]), default=None,
              help="After a failed block: continue, skip the file's later blocks, or abort (write nothing). "
                   "Default: skip-file for guillemet, continue otherwise.")
@click.option("--git-add", is_flag=True, help="Stage the changed files with git.")
@click.option("--feedback", "feedback_file", type=click.Path(), default=None,
              help="When a block fails or is skipped, write the message for the model to this file; "
                   "when every block applies, remove the file an earlier run left there.")
@click.option("--html", "html_file", type=click.Path(), default=None,
              help="Write every block's outcome and the diffs, changes highlighted, as one HTML page to this file.")
@click.option("--patch", "patch_file", type=click.Path(dir_okay=False), default=None,
              help="Write the change as a patch `git apply` accepts to this file (with --dry-run too: "
                   "the change that would be made); an empty file when nothing changes.")
@click.option("--keep-runs", type=click.IntRange(min=1), default=KEEP_RUNS, show_default=True,
              help="Keep at most this many runs in the undo journal.")
@click.option("--journal-max-mb", type=click.IntRange(min=0), default=MAX_BYTES >> 20, show_default=True,
              help="Keep the undo journal's saved copies under this many MiB (the newest run always stays).")
@_known_files_option()
@max_bytes_option()
@click.option("--review", is_flag=True,
              help="Write nothing now: serve the review page for RESPONSE on 127.0.0.1 and print its address; "
                   "accept or reject blocks there, then Apply (Ctrl-C stops). Needs editblocks[web].")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def apply_command(response: str, root: str | None, format_: str, dry_run: bool, show_diffs: bool, strict: bool,
                  fuzzy: bool, first_match: bool, on_failure: str | None, git_add: bool, feedback_file: str | None,
                  html_file: str | None, patch_file: str | None, keep_runs: int, journal_max_mb: int,
                  known_source: str | None, max_bytes: int, review: bool, as_json: bool) -> None:
    """Apply the edit blocks in RESPONSE (a file, or - for stdin) to the files under --root."""
    known = read_known(known_source, root, response)
    text = read_response(response, max_bytes)
    if review:
        from editblocks.cli.serve import review as serve_review

        serve_review(text, root or ".", port=0, format_=format_, apply_options=dict(
            policy=on_failure, fuzzy=fuzzy, first_match=first_match, strict=strict, git_add=git_add,
            keep_runs=keep_runs, journal_max_bytes=journal_max_mb << 20, known_files=known))
        return
    for path, what in ((feedback_file, "feedback"), (html_file, "HTML report"), (patch_file, "patch")):
        if path is not None:
            check_report_path(path, what)  # before any project file is written: exit 2 means nothing was
    from editblocks.parsing.stream import parse

    parsed = parse(text, format_, known_files=known)
    result = _run_apply(parsed, root or ".", dry_run=dry_run, policy=on_failure, fuzzy=fuzzy,
                        first_match=first_match, strict=strict, git_add=git_add, keep_runs=keep_runs,
                        journal_max_bytes=journal_max_mb << 20, known_files=known)
    exit_code = _apply_exit(result)
    # From here project files may have changed: a report that cannot be written is named, never hides the results.
    notes: list[str] = []
    failures: list[str] = []
    if feedback_file is not None:
        from editblocks.report.feedback import feedback_message, reply_format

        try:
            if exit_code != EXIT_OK:
                write_report(feedback_file, feedback_message(result, format=reply_format(text, parsed)) + "\n")
            else:
                notes.append(_remove_stale_feedback(feedback_file))
        except OSError as error:
            doing = "write the feedback to" if exit_code != EXIT_OK else "remove the old feedback file"
            failures.append(f"cannot {doing} {feedback_file!r}: {error.strerror or error}")
    if html_file is not None:
        from editblocks.report.html import apply_html

        try:
            write_report(html_file, apply_html(replace(result, notes=result.notes + tuple(failures))))
            notes.append(f"wrote the HTML report to {html_file}")
        except OSError as error:
            failures.append(f"cannot write the HTML report to {html_file!r}: {error.strerror or error}")
    if patch_file is not None:
        from editblocks.report.git_patch import git_patch

        try:
            write_report(patch_file, git_patch(result.diffs))
            notes.append(f"wrote the patch of {counted(len(result.diffs), 'file')} to {patch_file}")
        except OSError as error:
            failures.append(f"cannot write the patch to {patch_file!r}: {error.strerror or error}")
    notes = [note for note in notes if note]
    result = replace(result, notes=result.notes + tuple(failures) + (tuple(notes) if as_json else ()))
    _print_apply(result, as_json=as_json, show_diffs=show_diffs or dry_run, dry_run=dry_run, format_=format_)
    for note in notes if not as_json else ():
        console().print(note, markup=False)
    for failure in failures if as_json else ():
        click.echo(f"Error: {failure}", err=True)
    sys.exit(EXIT_FAILED if failures else exit_code)



def _remove_stale_feedback(path: str) -> str:
    """Remove the feedback an earlier run left at `path`, so a loop that resends while the file exists stops.

    Only a regular file is removed; anything else there is left alone and
    named. Returns the note for a person ("" when there was nothing); raises OSError.
    """
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return f"left {path} in place: not a regular file, so it may still hold an earlier run's feedback"
        os.unlink(path)
    except FileNotFoundError:
        return ""
    return f"removed {path}: every block applied, so the feedback an earlier run left there no longer holds"
