"""The `editblocks` command line: porcelain for people, `--json` and exit codes for scripts.

Exit status (SPEC §7): 0 every block parsed/applied, 1 some block failed or
was skipped, 2 bad usage or unreadable input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from editblocks.display import diagnostics_table, formats_report, parse_report
from editblocks.model import Format, ParseResult
from editblocks.serialize import parse_json
from editblocks.stream import parse
from editblocks.validate import validate

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
FORMAT_CHOICES = [fmt.value for fmt in Format]


class InputError(click.ClickException):
    """Unreadable or unusable input: one line on stderr, exit 2, never a traceback."""

    exit_code = EXIT_USAGE


def read_response(source: str) -> str:
    """The response text from a file or `-` (stdin); refuses directories, binary and non-UTF-8 input."""
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
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


def _console() -> Console:
    return Console(highlight=False, soft_wrap=False)


def _emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


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
@click.option("--json", "as_json", is_flag=True, help="Print the SPEC §7 JSON shape.")
def parse_command(response: str, format_: str, as_json: bool) -> None:
    """List the edit blocks in RESPONSE (a file, or - for stdin)."""
    result = parse(read_response(response), format_)
    if as_json:
        _emit_json(parse_json(result))
    else:
        _console().print(parse_report(result))
    sys.exit(EXIT_FAILED if result.errors else EXIT_OK)


@main.command("check")
@click.argument("response")
@_format_option()
@click.option("--json", "as_json", is_flag=True, help="Print the diagnostics as JSON.")
def check_command(response: str, format_: str, as_json: bool) -> None:
    """Validate RESPONSE without touching any file."""
    validation = validate(read_response(response), format_)
    if as_json:
        data = parse_json(ParseResult(validation.result.format, validation.result.blocks,
                                      validation.result.shell, validation.diagnostics))
        _emit_json(data)
    else:
        console = _console()
        if validation.diagnostics:
            console.print(diagnostics_table(validation.diagnostics))
        count = len(validation.result.blocks)
        verdict = "ok" if validation.ok else "problems found"
        console.print(f"{count} block{'s' if count != 1 else ''}: {verdict}")
    sys.exit(EXIT_OK if validation.ok else EXIT_FAILED)


@main.command("formats")
def formats_command() -> None:
    """Describe every edit format with a tiny example."""
    _console().print(formats_report())
