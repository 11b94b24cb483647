"""What every `editblocks` command shares: exit statuses, the one-line input error, errors as JSON.

Exit status 0 means every block parsed or applied (a block already applied
counts), 1 that some block failed or was skipped or a report could not be
written after the run, 2 bad usage or unusable input, with nothing written.
"""

from __future__ import annotations

import os
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
    """An exit-2 error of a command run with `--json`: `{"schema_version", "error": {"code", "message"}}` on stdout
    (with `--jsonl`: the same as one `error` event line).

    A script reading stdout gets a JSON document whatever happened; the usual
    one-line message still goes to stderr for a person watching.
    """

    exit_code = EXIT_USAGE  # every error worth a JSON object ends the command before it wrote anything

    def __init__(self, error: click.ClickException, *, lines: bool = False) -> None:
        super().__init__(error.format_message())
        self.code = error.code if isinstance(error, InputError) else "usage"
        self.lines = lines

    def show(self, file: IO[Any] | None = None) -> None:
        if self.lines:
            from editblocks.report.events import error_event, event_line

            click.echo(event_line(error_event(self.code, self.message)))
        else:
            from editblocks.report.serialize import error_json, json_text

            click.echo(json_text(error_json(self.code, self.message)))
        click.echo(f"Error: {self.message}", err=True)


def _options(args: list[str]) -> list[str]:
    return args[: args.index("--")] if "--" in args else args


def asks_for_json(args: list[str]) -> bool:
    """Whether raw command-line arguments hold `--json` or `--jsonl`, known before (and even if) parsing them
    fails."""
    return any(flag in _options(args) for flag in ("--json", "--jsonl"))


def asks_for_lines(args: list[str]) -> bool:
    """Whether raw command-line arguments hold `--jsonl` (events, one per line) rather than `--json`."""
    return "--jsonl" in _options(args) and "--json" not in _options(args)


ASKS_FOR_JSON = "editblocks.asks_for_json"  # keys in the group context's `meta`
ASKS_FOR_LINES = "editblocks.asks_for_lines"


class JsonAwareGroup(click.Group):
    """The main group: remembers whether the command line asks for JSON, for errors raised before a command runs."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[ASKS_FOR_JSON] = asks_for_json(args)
        ctx.meta[ASKS_FOR_LINES] = asks_for_lines(args)
        return super().parse_args(ctx, args)


class JsonAwareCommand(click.Command):
    """A command with a `--json` flag whose errors, even bad usage caught while parsing, come out as JSON."""

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        as_json, lines = asks_for_json(args), asks_for_lines(args)  # before parsing consumes args
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.ClickException as error:
            if as_json:
                raise JsonError(error, lines=lines) from None
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as error:
            lines = bool(ctx.params.get("as_jsonl")) and not ctx.params.get("as_json")
            if (ctx.params.get("as_json") or lines) and not isinstance(error, JsonError):
                raise JsonError(error, lines=lines) from None
            raise


JSON_HELP = "Print JSON (its shape: the JSON Schema shipped with the package, printed by `editblocks schema`)."
JSONL_HELP = ("Print one JSON object per line for each event as the run goes (block parsed, located, applied or "
              "failed, ...; their schema: `editblocks schema events`).")
FORMAT_CHOICES = [fmt.value for fmt in Format]

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def console() -> Console:
    """The terminal for results: no markup guessing, no emoji codes (`x:warning:.py` is a path, not a sign)."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True, emoji=False)


def emit_json(data: dict[str, Any]) -> None:
    from editblocks.report.serialize import json_text

    click.echo(json_text(data))


def emit_event(data: dict[str, Any]) -> None:
    """One `--jsonl` event on stdout, flushed at once so a pipeline sees it as it happens."""
    from editblocks.report.events import event_line

    click.echo(event_line(data))


def json_or_lines(as_json: bool, as_jsonl: bool) -> None:
    """`--json` (one document at the end) and `--jsonl` (events as they come) are two answers to one question."""
    if as_json and as_jsonl:
        raise click.UsageError("give --json (one document at the end) or --jsonl (one event per line), not both")


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
