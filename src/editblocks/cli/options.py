"""The apply options as command-line options: one click option per `ApplyOptions` field, spelt the same.

Every command that applies answers (`apply`, `check`, `serve`, `mcp`, `ask`)
takes them from here, so an option means the same at every door, and the
config file (`on-failure = "abort"` in `[tool.editblocks]`) sets it for all
of them at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from editblocks.cli.shared import Decorator, InputError, format_option
from editblocks.model import Policy
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES

FORMAT = "format_"
WRITING = ("git_add", "keep_runs", "journal_max_mb")
"""The options that only matter when files are written (`check` writes nothing)."""


def _choices() -> dict[str, Decorator]:
    return {
        "on_failure": click.option(
            "--on-failure", type=click.Choice([p.value for p in Policy]), default=None,
            help="After a failed block: file (the default) writes a file only when every block for it applies, so "
                 "no file is left half-edited (on 2,511 files of real model answers: 3 wrong where continue left "
                 "39); continue writes the blocks that applied; skip-file skips the file's later blocks; abort "
                 "writes nothing."),
        "fuzzy": click.option(
            "--fuzzy", is_flag=True,
            help="Also accept a clearly best close match (replaces lines the model never quoted exactly)."),
        "strict": click.option(
            "--strict", is_flag=True, help="Exact matches only (no whitespace, indentation or typography tolerance)."),
        "first_match": click.option(
            "--first-match", is_flag=True, help="When the old text occurs several times, edit the first occurrence."),
        "git_add": click.option("--git-add", is_flag=True, help="Stage the changed files with git."),
        "keep_runs": click.option(
            "--keep-runs", type=click.IntRange(min=1), default=KEEP_RUNS, show_default=True,
            help="Keep at most this many runs in the undo journal."),
        "journal_max_mb": click.option(
            "--journal-max-mb", type=click.IntRange(min=0), default=MAX_BYTES >> 20, show_default=True,
            help="Keep the undo journal's saved copies under this many MiB (the newest run always stays)."),
        "known_files": click.option(
            "--known-files", "known_files", default=None, metavar="FILE|-|git",
            help="The project's files: a file with one path per line, - for stdin, or git for `git ls-files` in the "
                 "root. A misspelt path maps onto the one file it clearly means; a missing file's likely path is "
                 "named."),
    }


def apply_options(*, writes: bool = True, with_format: bool = True) -> Callable[[Callable[..., Any]], Any]:
    """The apply options for a command (without those that only matter when writing, for one that never writes;
    without `--format` for one that has its own)."""
    chosen = [decorator for name, decorator in _choices().items() if writes or name not in WRITING]
    if with_format:
        chosen.insert(0, format_option())

    def decorate(command: Callable[..., Any]) -> Any:
        for decorator in reversed(chosen):
            command = decorator(command)
        return command

    return decorate


def options_from(given: dict[str, Any], *, root: str | None, response: str | None = None) -> Any:
    """The `ApplyOptions` the command line gave (the keywords click passed for `apply_options`), with the known
    files read; unreadable input is a usage error."""
    from editblocks.service.options import ApplyOptions

    values = dict(given)
    if FORMAT in values:
        values["format"] = values.pop(FORMAT)
    values["known_files"] = read_known(values.get("known_files"), root, response)
    return ApplyOptions.from_mapping(values)


def read_known(source: str | None, root: str | None, response: str | None) -> list[str] | None:
    """The paths ``--known-files`` names, or None without the option."""
    if source is None:
        return None
    if source == "-" and response == "-":
        raise InputError("the response and --known-files cannot both be read from standard input")
    from editblocks.errors import KnownFilesError
    from editblocks.workspace.project_files import read_known_files

    try:
        return read_known_files(source, root or ".")
    except KnownFilesError as error:
        raise InputError(str(error)) from None
