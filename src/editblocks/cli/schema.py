"""`editblocks schema`: print the JSON Schema of the `--json` outputs, so an agent can check what it reads."""

from __future__ import annotations

import json

import click

from editblocks.report.schema import OUTPUT_NAMES, output_schema


@click.command("schema")
@click.argument("name", required=False, type=click.Choice(OUTPUT_NAMES))
def schema_command(name: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of the --json output of NAME, or of every output.

    The schema ships inside the package as editblocks/report/schemas/output.schema.json.
    """
    click.echo(json.dumps(output_schema(name), ensure_ascii=False, indent=2))
