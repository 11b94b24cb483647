"""What every `editblocks` command shares: exit statuses, the one-line input error, errors as JSON.

Exit status 0 means every block parsed or applied (a block already applied
counts), 1 that some block failed or was skipped or a report could not be
written after the run, 2 bad usage or unusable input, with nothing written.
"""

from __future__ import annotations

from typing import IO, Any

import click

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


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

    def __init__(self, error: click.ClickException) -> None:
        super().__init__(error.format_message())
        self.exit_code = error.exit_code
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
