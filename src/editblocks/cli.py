"""The `editblocks` command line: porcelain for people, `--json` and exit codes for scripts.

Exit status (SPEC §7): 0 every block parsed/applied, 1 some block failed or
was skipped, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from editblocks.apply import LOCK_WAIT_SECONDS, apply
from editblocks.cli_eval import eval_command
from editblocks.cli_prompt import prompt_command
from editblocks.cli_schema import schema_command
from editblocks.cli_shared import EXIT_FAILED, EXIT_OK, InputError
from editblocks.report.display import apply_report, diagnostics_table, formats_report, parse_report
from editblocks.report.feedback import feedback_message, reply_format
from editblocks.report.git_patch import git_patch, write_patch
from editblocks.report.html import apply_html
from editblocks.model import ApplyResult, Format, ParseResult, Status
from editblocks.plan import Policy
from editblocks.report.serialize import apply_json, check_json, parse_json, undo_json
from editblocks.parsing.stream import parse
from editblocks.parsing.validate import validate
from editblocks.project_files import KnownFilesError, read_known_files
from editblocks.workspace import UndoOutcome, Workspace, WorkspaceError

DEFAULT_MAX_BYTES = 32 * 1024 * 1024  # far above any real answer; a guard against runaway or hostile input
FORMAT_CHOICES = [fmt.value for fmt in Format]


def read_response(source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The response text from a file or `-` (stdin); refuses directories, binary, non-UTF-8 and oversized input."""
    try:
        data = _read_bounded(source, max_bytes)
    except IsADirectoryError:
        raise InputError(f"cannot read response {source!r}: it is a directory") from None
    except OSError as error:
        raise InputError(f"cannot read response {source!r}: {error.strerror or error}") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(f"response {source!r} looks binary (NUL byte at offset {nul}); expected text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"response {source!r} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None


def _read_bounded(source: str, max_bytes: int) -> bytes:
    """Read at most `max_bytes`; anything larger is refused before it is held in memory."""
    if source == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise InputError(f"response from stdin is larger than the limit of {max_bytes} bytes (--max-bytes)")
        return data
    path = Path(source)
    size = path.stat().st_size
    if size > max_bytes and path.is_file():
        raise InputError(f"response {source!r} has {size} bytes, more than the limit of {max_bytes} bytes (--max-bytes)")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(f"response {source!r} is larger than the limit of {max_bytes} bytes (--max-bytes)")
    return data


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _max_bytes_option() -> Any:
    return click.option(
        "--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True,
        help="Refuse a response larger than this many bytes.",
    )


def _format_option() -> Any:
    return click.option(
        "--format", "format_", type=click.Choice(FORMAT_CHOICES), default="auto", show_default=True,
        help="Edit format of the response (auto detects it).",
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="editblocks")
def main() -> None:
    """Parse a language model's edit blocks and apply them safely to files."""


@main.command("parse")
@click.argument("response")
@_format_option()
@_max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (its schema: `editblocks schema parse`).")
def parse_command(response: str, format_: str, max_bytes: int, as_json: bool) -> None:
    """List the edit blocks in RESPONSE (a file, or - for stdin)."""
    result = parse(read_response(response, max_bytes), format_)
    if as_json:
        _emit_json(parse_json(result))
    else:
        _console().print(parse_report(result))
    sys.exit(EXIT_FAILED if result.errors else EXIT_OK)


def _root_option(required: bool = False) -> Any:
    return click.option(
        "--root", type=click.Path(file_okay=False, dir_okay=True, exists=True), default=None if not required else ".",
        help="Project root; nothing outside it is ever read or written (default: current folder).",
    )


def _known_files_option() -> Any:
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
    try:
        return read_known_files(source, root or ".")
    except KnownFilesError as error:
        raise InputError(str(error)) from None


def _apply_exit(result: ApplyResult) -> int:
    if not result.results:
        return EXIT_FAILED
    clean = all(r.status is Status.APPLIED for r in result.results)
    return EXIT_OK if clean and not any(d.severity.value == "error" for d in result.diagnostics) else EXIT_FAILED


def _run_apply(parsed: ParseResult, root: str, *, dry_run: bool, **options: Any) -> ApplyResult:
    try:
        return apply(parsed, root, dry_run=dry_run, **options)
    except WorkspaceError as error:
        raise InputError(str(error)) from None


def _print_apply(result: ApplyResult, *, as_json: bool, show_diffs: bool, dry_run: bool) -> None:
    if as_json:
        _emit_json(apply_json(result))
        return
    console = _console()
    if not result.results:
        console.print("no edit blocks found")
    console.print(apply_report(result, show_diffs=show_diffs, dry_run=dry_run))


@main.command("check")
@click.argument("response")
@_root_option()
@_format_option()
@click.option("--fuzzy", is_flag=True, help="Also accept close (fuzzy) matches.")
@click.option("--strict", is_flag=True, help="Exact matching only, for every format (as apply --strict).")
@click.option("--first-match", is_flag=True, help="Take the first of several matches (as apply --first-match).")
@_known_files_option()
@_max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the apply shape when --root is given).")
def check_command(response: str, root: str | None, format_: str, fuzzy: bool, strict: bool, first_match: bool,
                  known_source: str | None, max_bytes: int, as_json: bool) -> None:
    """Validate RESPONSE; with --root, also locate every block without writing anything."""
    known = read_known(known_source, root, response)
    text = read_response(response, max_bytes)
    validation = validate(text, format_, known_files=known)
    if root is not None:
        result = _run_apply(validation.result, root, dry_run=True, fuzzy=fuzzy, strict=strict, first_match=first_match,
                            known_files=known)
        result = replace(result, diagnostics=validation.diagnostics)
        _print_apply(result, as_json=as_json, show_diffs=False, dry_run=True)
        sys.exit(EXIT_OK if validation.ok and _apply_exit(result) == EXIT_OK else EXIT_FAILED)
    if as_json:
        data = check_json(ParseResult(validation.result.format, validation.result.blocks,
                                      validation.result.shell, validation.diagnostics), ok=validation.ok)
        _emit_json(data)
    else:
        console = _console()
        if validation.diagnostics:
            console.print(diagnostics_table(validation.diagnostics))
        count = len(validation.result.blocks)
        verdict = "ok" if validation.ok else "problems found"
        console.print(f"{count} block{'s' if count != 1 else ''}: {verdict}")
    sys.exit(EXIT_OK if validation.ok else EXIT_FAILED)


@main.command("apply")
@click.argument("response")
@_root_option()
@_format_option()
@click.option("--dry-run", is_flag=True, help="Decide every block and show the result; write nothing.")
@click.option("--diff", "show_diffs", is_flag=True, help="Show a unified diff of every changed file.")
@click.option("--strict", is_flag=True, help="Exact matches only (no whitespace, indentation or typography tolerance).")
@click.option("--fuzzy", is_flag=True, help="Also accept a clearly best close match (replaces lines the model never quoted exactly).")
@click.option("--first-match", is_flag=True, help="When the old text occurs several times, edit the first occurrence.")
@click.option("--on-failure", type=click.Choice([p.value for p in Policy]), default=None,
              help="After a failed block: continue, skip the file's later blocks, or abort (write nothing). "
                   "Default: skip-file for guillemet, continue otherwise.")
@click.option("--git-add", is_flag=True, help="Stage the changed files with git.")
@click.option("--feedback", "feedback_file", type=click.Path(dir_okay=False, writable=True), default=None,
              help="When a block fails or is skipped, write the message for the model to this file; "
                   "when every block applies, remove the file an earlier run left there.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write every block's outcome and the diffs, changes highlighted, as one HTML page to this file.")
@click.option("--patch", "patch_file", type=click.Path(dir_okay=False), default=None,
              help="Write the change as a patch `git apply` accepts to this file (with --dry-run too: "
                   "the change that would be made); an empty file when nothing changes.")
@_known_files_option()
@_max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (its schema: `editblocks schema apply`).")
def apply_command(response: str, root: str | None, format_: str, dry_run: bool, show_diffs: bool, strict: bool,
                  fuzzy: bool, first_match: bool, on_failure: str | None, git_add: bool, feedback_file: str | None,
                  html_file: str | None, patch_file: str | None, known_source: str | None, max_bytes: int,
                  as_json: bool) -> None:
    """Apply the edit blocks in RESPONSE (a file, or - for stdin) to the files under --root."""
    known = read_known(known_source, root, response)
    text = read_response(response, max_bytes)
    parsed = parse(text, format_, known_files=known)
    result = _run_apply(parsed, root or ".", dry_run=dry_run, policy=on_failure, fuzzy=fuzzy,
                        first_match=first_match, strict=strict, git_add=git_add, known_files=known)
    exit_code = _apply_exit(result)
    reports: list[str] = []  # what became of the report files: after the summary, or in the JSON's notes
    if feedback_file is not None and exit_code != EXIT_OK:
        _write_file(feedback_file, feedback_message(result, format=reply_format(text, parsed)) + "\n", "feedback file")
    elif feedback_file is not None:
        reports.append(_remove_stale_feedback(feedback_file))
    if html_file is not None:
        _write_file(html_file, apply_html(result), "HTML report")
        reports.append(f"wrote the HTML report to {html_file}")
    if patch_file is not None:
        patch_note, patch_written = _save_patch(patch_file, result)
        reports.append(patch_note)
        exit_code = exit_code if patch_written else EXIT_FAILED
    reports = [line for line in reports if line]
    if as_json:
        result = replace(result, notes=result.notes + tuple(reports))
    _print_apply(result, as_json=as_json, show_diffs=show_diffs or dry_run, dry_run=dry_run)
    for line in reports if not as_json else ():
        _console().print(line, markup=False)
    sys.exit(exit_code)


def _write_file(path: str, text: str, what: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write {what} {path!r}: {error.strerror or error}") from None


def _save_patch(path: str, result: ApplyResult) -> tuple[str, bool]:
    """Write the run's patch; the note for the output, and whether it was written.

    Not an exit-2 error: by now the project's files may have been written,
    so the results are still printed, with the failure named in the notes.
    """
    try:
        write_patch(path, git_patch(result.diffs))
    except OSError as error:
        return f"cannot write the patch file {path!r}: {error.strerror or error}", False
    changed = len(result.diffs)
    return f"wrote the patch of {changed} file{'s' if changed != 1 else ''} to {path}", True


def _remove_stale_feedback(path: str) -> str:
    """Remove the feedback an earlier run left at `path`, so a loop that resends while the file exists stops.

    Only a regular file is removed; anything else there is left alone and
    named. Returns the note for a person ("" when there was nothing).
    """
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return f"left {path} in place: not a regular file, so it may still hold an earlier run's feedback"
        os.unlink(path)
    except FileNotFoundError:
        return ""
    except OSError as error:
        raise InputError(f"cannot remove the old feedback file {path!r}: {error.strerror or error}") from None
    return f"removed {path}: every block applied, so the feedback an earlier run left there no longer holds"


@main.command("undo")
@_root_option()
@click.option("--force", is_flag=True, help="Also restore files that were edited after the run wrote them.")
@click.option("--json", "as_json", is_flag=True, help="Print what was restored as JSON.")
def undo_command(root: str | None, force: bool, as_json: bool) -> None:
    """Undo the last apply under --root, byte for byte."""
    try:
        workspace = Workspace(root or ".")
        if workspace.has_journal():
            with workspace.lock(wait=LOCK_WAIT_SECONDS):
                outcome = workspace.undo(force=force)
        else:
            outcome = UndoOutcome((), (), (), "nothing to undo", ok=False)  # and no journal folder created for it
    except WorkspaceError as error:
        raise InputError(str(error)) from None
    if as_json:
        _emit_json(undo_json(outcome))
    else:
        console = _console()
        for path in outcome.restored:
            console.print(f"restored {path}", markup=False)
        for path in outcome.removed:
            console.print(f"removed  {path}", markup=False)
        for path in outcome.refused:
            console.print(f"left as is (changed since the run): {path}", style="yellow", markup=False)
        console.print(outcome.message, markup=False)
    sys.exit(EXIT_OK if outcome.ok else EXIT_FAILED)


main.add_command(prompt_command)
main.add_command(eval_command)
main.add_command(schema_command)


@main.command("formats")
def formats_command() -> None:
    """Describe every edit format with a tiny example."""
    _console().print(formats_report())
