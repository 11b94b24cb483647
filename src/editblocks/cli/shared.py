"""What every `editblocks` command shares: exit statuses, the one-line input error, errors as JSON.

Exit status 0 means every block parsed or applied (a block already applied
counts), 1 that some block failed or was skipped or a report could not be
written after the run, 2 bad usage or unusable input, with nothing written.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

import click

from editblocks.model import Format

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_MAX_BYTES = 32 * 1024 * 1024  # far above any real answer; a guard against runaway or hostile input


class InputError(click.ClickException):
    """Unreadable or unusable input: one line on stderr, exit 2, never a traceback.

    ``code`` names the kind of problem in the `--json` error object, so a
    script can tell a busy workspace from a missing file without reading prose.
    """

    exit_code = EXIT_USAGE

    def __init__(self, message: str, code: str = "bad-input") -> None:
        super().__init__(message)
        self.code = code


class JsonError(click.ClickException):
    """An exit-2 error of a command run with `--json`: `{"schema_version", "error": {"code", "message"}}` on stdout.

    A script reading stdout gets a JSON document whatever happened; the usual
    one-line message still goes to stderr for a person watching.
    """

    exit_code = EXIT_USAGE  # every error worth a JSON object ends the command before it wrote anything

    def __init__(self, error: click.ClickException) -> None:
        super().__init__(error.format_message())
        self.code = error.code if isinstance(error, InputError) else "usage"

    def show(self, file: IO[Any] | None = None) -> None:
        from editblocks.report.serialize import error_json, json_text

        click.echo(json_text(error_json(self.code, self.message)))
        click.echo(f"Error: {self.message}", err=True)


def asks_for_json(args: list[str]) -> bool:
    """Whether raw command-line arguments hold `--json`, known before (and even if) parsing them fails."""
    return "--json" in (args[: args.index("--")] if "--" in args else args)


ASKS_FOR_JSON = "editblocks.asks_for_json"  # key in the group context's `meta`


class JsonAwareGroup(click.Group):
    """The main group: remembers whether the command line asks for JSON, for errors raised before a command runs."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[ASKS_FOR_JSON] = asks_for_json(args)
        return super().parse_args(ctx, args)


class JsonAwareCommand(click.Command):
    """A command with a `--json` flag whose errors, even bad usage caught while parsing, come out as JSON."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        as_json = asks_for_json(args)  # before parsing consumes args
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as error:
            if as_json:
                raise JsonError(error) from None
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as error:
            if ctx.params.get("as_json") and not isinstance(error, JsonError):
                raise JsonError(error) from None
            raise


JSON_HELP = "Print JSON (its shape: the JSON Schema shipped with the package, printed by `editblocks schema`)."
FORMAT_CHOICES = [fmt.value for fmt in Format]

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def console() -> Console:
    """The terminal for results: no markup guessing, no emoji codes (`x:warning:.py` is a path, not a sign)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, emoji=False)


def draws_plain() -> bool:
    """Whether `console()` would print to a file rather than a terminal (the same test `rich` makes), so
    plain text can be written without loading it."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "0"
    force_color = os.environ.get("FORCE_COLOR")
    if force_color is not None:
        return force_color == ""
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:  # a closed stream, which rich treats as no terminal too
        return True


def emit_json(data: dict[str, Any]) -> None:
    from editblocks.report.serialize import json_text

    click.echo(json_text(data))


def max_bytes_option() -> Decorator:
    return click.option(
        "--max-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_BYTES, show_default=True,
        help="Refuse a response larger than this many bytes.",
    )


def format_option() -> Decorator:
    return click.option(
        "--format", "format_", type=click.Choice(FORMAT_CHOICES), default="auto", show_default=True,
        help="Edit format of the response (auto detects it).",
    )


def root_option() -> Decorator:
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


def workspace_error(error: Exception) -> InputError:
    """A workspace that cannot be used (busy, a linked state folder, not writable): one line, exit 2."""
    from editblocks.workspace import WorkspaceBusy

    return InputError(str(error), code="workspace-busy" if isinstance(error, WorkspaceBusy) else "workspace")
