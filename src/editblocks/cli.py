"""The `editblocks` command line: porcelain for people, `--json` and exit codes for scripts.

Exit status (README, "Command line"): 0 every block parsed/applied (or was
already applied), 1 some block failed or was skipped, 2 bad usage or
unreadable input, with nothing written.
"""

from __future__ import annotations

import codecs
import os
import stat
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from editblocks.workspace.apply import LOCK_WAIT_SECONDS, apply, without_restated_warnings
from editblocks.cli_config import add_environment_variables, project_defaults
from editblocks.cli_eval import eval_command
from editblocks.cli_prompt import prompt_command
from editblocks.cli_reports import check_report_path, write_report
from editblocks.cli_schema import schema_command
from editblocks.cli_shared import (
    ASKS_FOR_JSON,
    EXIT_FAILED,
    EXIT_OK,
    InputError,
    JsonAwareCommand,
    JsonAwareGroup,
    JsonError,
)
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES
from editblocks.model import ApplyResult, Format, ParseResult, Reason, Status, counted
from editblocks.parsing.stream import parse
from editblocks.parsing.validate import validate
from editblocks.plan import Policy
from editblocks.report.diffs import printable
from editblocks.report.display import apply_report, diagnostics_table, formats_report, parse_report
from editblocks.report.feedback import feedback_message, reply_format
from editblocks.report.git_patch import git_patch
from editblocks.report.html import apply_html
from editblocks.report.serialize import apply_json, check_json, json_text, parse_json, undo_json
from editblocks.workspace import UndoOutcome, Workspace, WorkspaceBusy, WorkspaceError

DEFAULT_MAX_BYTES = 32 * 1024 * 1024  # far above any real answer; a guard against runaway or hostile input
FORMAT_CHOICES = [fmt.value for fmt in Format]
JSON_HELP = "Print JSON (its shape: the JSON Schema shipped with the package, printed by `editblocks schema`)."


WIDE_BOMS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
"""Byte-order marks of the wide encodings a response may arrive in (a PowerShell `>` writes UTF-16 with one)."""


def read_response(source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The response text from a file or `-` (stdin): UTF-8, or UTF-16/32 with a byte-order mark.

    Refuses directories, binary, other encodings and oversized input.
    """
    try:
        data = _read_bounded(source, max_bytes)
    except IsADirectoryError:
        raise InputError(f"cannot read response {source!r}: it is a directory") from None
    except OSError as error:
        raise InputError(f"cannot read response {source!r}: {error.strerror or error}") from None
    for bom, codec, name in WIDE_BOMS:
        if data.startswith(bom):
            return _decode_wide(source, data, len(bom), codec, name)
    nul = data.find(b"\x00")
    if nul >= 0 and _looks_utf16(data):
        raise InputError(f"response {source!r} looks like UTF-16 without a byte-order mark (NUL byte at offset "
                         f"{nul}); save it as UTF-8, or as UTF-16 with a byte-order mark")
    if nul >= 0:
        raise InputError(f"response {source!r} looks binary (NUL byte at offset {nul}); expected text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"response {source!r} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None


def _decode_wide(source: str, data: bytes, bom: int, codec: str, name: str) -> str:
    """The text after a ``bom``-byte mark; wide text has NUL bytes, so only a decoded NUL character means binary."""
    try:
        text = data[bom:].decode(codec)
    except UnicodeDecodeError as error:
        raise InputError(f"response {source!r} starts with a {name} byte-order mark but is not valid {name} "
                         f"(at offset {bom + error.start})") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(f"response {source!r} looks binary (NUL character at character {nul} of its {name} text); "
                         "expected text")
    return text


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a byte-order mark: mostly ASCII text, so every other byte (and only those) is mostly NUL."""
    sample = data[:4096]
    odd, even = sample[1::2].count(0), sample[0::2].count(0)
    return len(sample) >= 4 and min(odd, even) == 0 and max(odd, even) * 4 >= len(sample)


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
        raise InputError(f"response {source!r} has {size} bytes, more than the limit of {max_bytes} bytes "
                         "(--max-bytes)")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(f"response {source!r} is larger than the limit of {max_bytes} bytes (--max-bytes)")
    return data


def _console() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)  # `x:warning:.py` is a path, not a sign


def _emit_json(data: Any) -> None:
    click.echo(json_text(data))


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


@click.group(cls=JsonAwareGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="editblocks")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Parse a language model's edit blocks and apply them safely to files.

    Option defaults can be set in [tool.editblocks] of the nearest pyproject.toml
    and in EDITBLOCKS_<COMMAND>_<OPTION> variables (see the README).
    """
    try:
        ctx.default_map = project_defaults(main, Path.cwd())
    except InputError as error:
        raise (JsonError(error) if ctx.meta.get(ASKS_FOR_JSON) else error) from None


@main.command("parse", cls=JsonAwareCommand)
@click.argument("response")
@_format_option()
@_max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def parse_command(response: str, format_: str, max_bytes: int, as_json: bool) -> None:
    """List the edit blocks in RESPONSE (a file, or - for stdin); exit 1 if one is malformed or there are none."""
    result = parse(read_response(response, max_bytes), format_)
    if as_json:
        _emit_json(parse_json(result))
    else:
        _console().print(parse_report(result))
        if not result.blocks:
            _console().print("no edit blocks found")
    sys.exit(EXIT_FAILED if result.errors or not result.blocks else EXIT_OK)


def _root_option() -> Any:
    return click.option(
        "--root", type=click.Path(), default=None, callback=_existing_folder,
        help="Project root; nothing outside it is ever read or written (default: current folder).",
    )


def _existing_folder(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    """`--root` must name a folder: said in one line (exit 2), not in click's usage block."""
    if value is not None and not os.path.isdir(value):
        problem = "is not a folder" if os.path.exists(value) else "does not exist"
        raise InputError(f"--root {value!r} {problem}", code="usage")
    return value


def _apply_exit(result: ApplyResult) -> int:
    """0 when every block applied or was already applied (re-running an answer is not an error), else 1."""
    if not result.results:
        return EXIT_FAILED
    clean = all(r.status is Status.APPLIED or r.code is Reason.ALREADY_APPLIED for r in result.results)
    return EXIT_OK if clean and not any(d.severity.value == "error" for d in result.diagnostics) else EXIT_FAILED


def _run_apply(parsed: ParseResult, root: str, *, dry_run: bool, **options: Any) -> ApplyResult:
    try:
        return apply(parsed, root, dry_run=dry_run, **options)
    except WorkspaceError as error:
        raise _workspace_error(error) from None


def _workspace_error(error: WorkspaceError) -> InputError:
    return InputError(str(error), code="workspace-busy" if isinstance(error, WorkspaceBusy) else "workspace")


def _print_apply(result: ApplyResult, *, as_json: bool, show_diffs: bool, dry_run: bool) -> None:
    if as_json:
        _emit_json(apply_json(result))
        return
    console = _console()
    if not result.results:
        console.print("no edit blocks found")
    console.print(apply_report(result, show_diffs=show_diffs, dry_run=dry_run))


@main.command("check", cls=JsonAwareCommand)
@click.argument("response")
@_root_option()
@_format_option()
@click.option("--fuzzy", is_flag=True, help="Also accept close (fuzzy) matches.")
@click.option("--strict", is_flag=True, help="Exact matching only, for every format (as apply --strict).")
@click.option("--first-match", is_flag=True, help="Take the first of several matches (as apply --first-match).")
@_max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the apply shape when --root is given).")
def check_command(response: str, root: str | None, format_: str, fuzzy: bool, strict: bool, first_match: bool,
                  max_bytes: int, as_json: bool) -> None:
    """Validate RESPONSE; with --root, also locate every block without writing anything."""
    text = read_response(response, max_bytes)
    validation = validate(text, format_)
    if root is not None:
        result = _run_apply(validation.result, root, dry_run=True, fuzzy=fuzzy, strict=strict, first_match=first_match)
        result = replace(result, diagnostics=without_restated_warnings(validation.diagnostics, result.results))
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


@main.command("apply", cls=JsonAwareCommand)
@click.argument("response")
@_root_option()
@_format_option()
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
              envvar="EDITBLOCKS_KEEP_RUNS", help="Keep at most this many runs in the undo journal.")
@click.option("--journal-max-mb", type=click.IntRange(min=0), default=MAX_BYTES >> 20, show_default=True,
              envvar="EDITBLOCKS_JOURNAL_MAX_MB",
              help="Keep the undo journal's saved copies under this many MiB (the newest run always stays).")
@_max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def apply_command(response: str, root: str | None, format_: str, dry_run: bool, show_diffs: bool, strict: bool,
                  fuzzy: bool, first_match: bool, on_failure: str | None, git_add: bool, feedback_file: str | None,
                  html_file: str | None, patch_file: str | None, keep_runs: int, journal_max_mb: int,
                  max_bytes: int, as_json: bool) -> None:
    """Apply the edit blocks in RESPONSE (a file, or - for stdin) to the files under --root."""
    text = read_response(response, max_bytes)
    for path, what in ((feedback_file, "feedback"), (html_file, "HTML report"), (patch_file, "patch")):
        if path is not None:
            check_report_path(path, what)  # before any project file is written: exit 2 means nothing was
    parsed = parse(text, format_)
    result = _run_apply(parsed, root or ".", dry_run=dry_run, policy=on_failure, fuzzy=fuzzy,
                        first_match=first_match, strict=strict, git_add=git_add, keep_runs=keep_runs,
                        journal_max_bytes=journal_max_mb << 20)
    exit_code = _apply_exit(result)
    # From here project files may have changed: a report that cannot be written is named, never hides the results.
    notes: list[str] = []
    failures: list[str] = []
    if feedback_file is not None:
        try:
            if exit_code != EXIT_OK:
                write_report(feedback_file, feedback_message(result, format=reply_format(text, parsed)) + "\n")
            else:
                notes.append(_remove_stale_feedback(feedback_file))
        except OSError as error:
            doing = "write the feedback to" if exit_code != EXIT_OK else "remove the old feedback file"
            failures.append(f"cannot {doing} {feedback_file!r}: {error.strerror or error}")
    if html_file is not None:
        try:
            write_report(html_file, apply_html(replace(result, notes=result.notes + tuple(failures))))
            notes.append(f"wrote the HTML report to {html_file}")
        except OSError as error:
            failures.append(f"cannot write the HTML report to {html_file!r}: {error.strerror or error}")
    if patch_file is not None:
        try:
            write_report(patch_file, git_patch(result.diffs))
            notes.append(f"wrote the patch of {counted(len(result.diffs), 'file')} to {patch_file}")
        except OSError as error:
            failures.append(f"cannot write the patch to {patch_file!r}: {error.strerror or error}")
    notes = [note for note in notes if note]
    result = replace(result, notes=result.notes + tuple(failures) + (tuple(notes) if as_json else ()))
    _print_apply(result, as_json=as_json, show_diffs=show_diffs or dry_run, dry_run=dry_run)
    for note in notes if not as_json else ():
        _console().print(note, markup=False)
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


@main.command("undo", cls=JsonAwareCommand)
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
        raise _workspace_error(error) from None
    if as_json:
        _emit_json(undo_json(outcome))
    else:
        console = _console()
        for path in outcome.restored:
            console.print(f"restored {printable(path)}", markup=False)
        for path in outcome.removed:
            console.print(f"removed  {printable(path)}", markup=False)
        for path in outcome.refused:
            console.print(f"left as is (changed since the run): {printable(path)}", style="yellow", markup=False)
        console.print(printable(outcome.message), markup=False)
    sys.exit(EXIT_OK if outcome.ok else EXIT_FAILED)


main.add_command(prompt_command)
main.add_command(eval_command)
main.add_command(schema_command)


@main.command("formats")
def formats_command() -> None:
    """Describe every edit format with a tiny example."""
    _console().print(formats_report())


add_environment_variables(main)
