"""`editblocks parse` and `editblocks formats`: what an answer holds, and what each format looks like."""

from __future__ import annotations

import sys

import click

from editblocks.cli.read import read_response
from editblocks.cli.shared import (
    EXIT_FAILED,
    EXIT_OK,
    JSON_HELP,
    JsonAwareCommand,
    console,
    emit_json,
    format_option,
    max_bytes_option,
)


@click.command("parse", cls=JsonAwareCommand)
@click.argument("response")
@format_option()
@max_bytes_option()
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def parse_command(response: str, format_: str, max_bytes: int, as_json: bool) -> None:
    """List the edit blocks in RESPONSE (a file, or - for stdin); exit 1 if one is malformed or there are none."""
    from editblocks.parsing.stream import parse

    result = parse(read_response(response, max_bytes), format_)
    if as_json:
        from editblocks.report.serialize import parse_json

        emit_json(parse_json(result))
    else:
        from editblocks.parsing.catalog import no_blocks_message
        from editblocks.report.display import parse_report

        console().print(parse_report(result))
        if not result.blocks:
            console().print(no_blocks_message(format_), markup=False)
    sys.exit(EXIT_FAILED if result.errors or not result.blocks else EXIT_OK)


@click.command("formats")
def formats_command() -> None:
    """Describe every edit format with a tiny example."""
    from editblocks.report.display import formats_report

    console().print(formats_report())
