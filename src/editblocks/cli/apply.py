"""`editblocks apply` and `editblocks check`: decide every block of an answer against the files, then write (or not).

Only what a run needs is loaded: the HTML report, the feedback message and
the patch writer are imported when their option is given.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from editblocks.cli.options import apply_options, options_from
from editblocks.cli.read import read_response
from editblocks.cli.reports import check_report_path, write_report
from editblocks.cli.shared import (
    EXIT_FAILED,
    EXIT_OK,
    JSON_HELP,
    JSONL_HELP,
    JsonAwareCommand,
    console,
    draws_plain,
    emit_event,
    emit_json,
    json_or_lines,
    max_bytes_option,
    root_option,
    workspace_error,
)
from editblocks.model import ApplyResult, Diagnostic, Format, ParseResult, counted

if TYPE_CHECKING:
    from editblocks.service.options import ApplyOptions
    from editblocks.service.session import EditSession


def _session(root: str | None, options: ApplyOptions) -> EditSession:
    from editblocks.errors import WorkspaceError
    from editblocks.service.session import EditSession

    try:
        return EditSession.on_disk(root or ".", options)
    except WorkspaceError as error:
        raise workspace_error(error) from None


def _run(session: EditSession, parsed: ParseResult, *, dry_run: bool) -> ApplyResult:
    from editblocks.errors import WorkspaceError

    try:
        return session.preview(parsed) if dry_run else session.apply(parsed)
    except WorkspaceError as error:
        raise workspace_error(error) from None


def _print_apply(result: ApplyResult, *, as_json: bool, show_diffs: bool, dry_run: bool, format_: Format) -> None:
    if as_json:
        from editblocks.report.serialize import apply_json

        emit_json(apply_json(result))
        return
    message = None
    if not result.results:
        from editblocks.parsing.catalog import no_blocks_message

        message = no_blocks_message(format_)
    if message is not None:
        result = replace(result, diagnostics=_without(result.diagnostics, message))
    if draws_plain():
        from editblocks.report.outcome_text import plain_apply_report

        plain = plain_apply_report(result, show_diffs=show_diffs, dry_run=dry_run)
        if plain is not None:
            sys.stdout.write(("" if message is None else message + "\n") + plain)
            return
    from editblocks.report.display import apply_report

    out = console()
    if message is not None:
        out.print(message, markup=False)
    out.print(apply_report(result, show_diffs=show_diffs, dry_run=dry_run))


def _without(diagnostics: tuple[Diagnostic, ...], message: str) -> tuple[Diagnostic, ...]:
    """The diagnostics but ``message``, which is printed on a line of its own (a table would wrap it)."""
    return tuple(diagnostic for diagnostic in diagnostics if diagnostic.message != message)


@click.command("check", cls=JsonAwareCommand)
@click.argument("response")
@root_option()
@apply_options(writes=False)
@max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the apply shape when --root is given).")
def check_command(response: str, root: str | None, max_bytes: int, as_json: bool, **given: Any) -> None:
    """Validate RESPONSE; with --root, also locate every block without writing anything."""
    from editblocks.parsing.validate import validate

    options = options_from(given, root=root, response=response)
    text = read_response(response, max_bytes)
    validation = validate(text, options.format, known_files=options.known_files)
    if root is not None:
        session = _session(root, options)
        from editblocks.service.results import without_restated_warnings

        result = _run(session, validation.result, dry_run=True)
        result = replace(result, diagnostics=without_restated_warnings(validation.diagnostics, result.results))
        _print_apply(result, as_json=as_json, show_diffs=False, dry_run=True, format_=options.format)
        sys.exit(EXIT_OK if validation.ok and session.exit_status(result) == EXIT_OK else EXIT_FAILED)
    if as_json:
        from editblocks.report.serialize import check_json

        data = check_json(ParseResult(validation.result.format, validation.result.blocks,
                                      validation.result.shell, validation.diagnostics), ok=validation.ok)
        emit_json(data)
    else:
        from editblocks.parsing.catalog import no_blocks_message
        from editblocks.report.display import diagnostics_table

        out = console()
        message = no_blocks_message(options.format)
        shown = _without(validation.diagnostics, message)
        if shown:
            out.print(diagnostics_table(shown))
        if not validation.result.blocks:
            out.print(message, markup=False)
        count = len(validation.result.blocks)
        verdict = "ok" if validation.ok else "problems found"
        out.print(f"{count} block{'s' if count != 1 else ''}: {verdict}")
    sys.exit(EXIT_OK if validation.ok else EXIT_FAILED)


@click.command("apply", cls=JsonAwareCommand)
@click.argument("response")
@root_option()
@click.option("--dry-run", is_flag=True, help="Decide every block and show the result; write nothing.")
@click.option("--diff", "show_diffs", is_flag=True, help="Show a unified diff of every changed file.")
@apply_options()
@click.option("--feedback", "feedback_file", type=click.Path(), default=None,
              help="When a block fails or is skipped, write the message for the model to this file; "
                   "when every block applies, remove the file an earlier run left there.")
@click.option("--html", "html_file", type=click.Path(), default=None,
              help="Write every block's outcome and the diffs, changes highlighted, as one HTML page to this file.")
@click.option("--patch", "patch_file", type=click.Path(dir_okay=False), default=None,
              help="Write the change as a patch `git apply` accepts to this file (with --dry-run too: "
                   "the change that would be made); an empty file when nothing changes.")
@max_bytes_option()
@click.option("--review", is_flag=True,
              help="Write nothing now: serve the review page for RESPONSE on 127.0.0.1 and print its address; "
                   "accept or reject blocks there, then Apply (Ctrl-C stops). Needs editblocks[web].")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.option("--jsonl", "as_jsonl", is_flag=True, help=JSONL_HELP)
def apply_command(response: str, root: str | None, dry_run: bool, show_diffs: bool, feedback_file: str | None,
                  html_file: str | None, patch_file: str | None, max_bytes: int, review: bool, as_json: bool,
                  as_jsonl: bool, **given: Any) -> None:
    """Apply the edit blocks in RESPONSE (a file, or - for stdin) to the files under --root."""
    json_or_lines(as_json, as_jsonl)
    if review and as_jsonl:
        raise click.UsageError("--review serves the page and writes from there; it gives no events (drop --jsonl)")
    options = options_from(given, root=root, response=response)
    text = read_response(response, max_bytes)
    if review:
        from editblocks.cli.serve import review as serve_review

        serve_review(text, root or ".", port=0, options=options)
        return
    for path, what in ((feedback_file, "feedback"), (html_file, "HTML report"), (patch_file, "patch")):
        if path is not None:
            check_report_path(path, what)  # before any project file is written: exit 2 means nothing was
    session = _session(root, options)
    parsed = session.parse(text)
    if as_jsonl:
        from editblocks.report import events

        emit_event(events.run_started("apply", dry_run=dry_run))
        for event in events.answer_events(parsed.blocks, parsed.diagnostics, parsed.shell):
            emit_event(event)
    result = _run(session, parsed, dry_run=dry_run)
    exit_code = session.exit_status(result)
    # From here project files may have changed: a report that cannot be written is named, never hides the results.
    notes: list[str] = []
    failures: list[str] = []
    if feedback_file is not None:
        try:
            if exit_code != EXIT_OK:
                write_report(feedback_file, session.feedback(result, text, parsed) + "\n")
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
    exit_code = EXIT_FAILED if failures else exit_code
    machine = as_json or as_jsonl
    result = replace(result, notes=result.notes + tuple(failures) + (tuple(notes) if machine else ()))
    if as_jsonl:
        _print_events(result, exit_code)
    else:
        _print_apply(result, as_json=as_json, show_diffs=show_diffs or dry_run, dry_run=dry_run,
                     format_=options.format)
    for note in notes if not machine else ():
        console().print(note, markup=False)
    for failure in failures if machine else ():
        click.echo(f"Error: {failure}", err=True)
    sys.exit(exit_code)


def _print_events(result: ApplyResult, exit_code: int) -> None:
    """`--jsonl`, after the run: every block located and its outcome, the files written, the notes, the summary."""
    from editblocks.report import events

    for event in events.result_events(result):
        emit_event(event)
    for note in result.notes:
        emit_event(events.note(note))
    emit_event(events.event("run_finished", command="apply", exit_code=exit_code, ok=exit_code == EXIT_OK,
                            counts=events.counts(result), written=result.written))



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
