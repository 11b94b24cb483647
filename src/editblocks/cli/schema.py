"""`editblocks schema`: print the JSON Schema of the `--json` outputs and `--jsonl` events, so an agent can check
what it reads."""

from __future__ import annotations

import json

import click

from editblocks.report.schema import EVENTS, OUTPUT_NAMES, events_schema, output_schema


@click.command("schema")
@click.argument("name", required=False, type=click.Choice([*OUTPUT_NAMES, EVENTS]))
def schema_command(name: str | None) -> None:
    """Print the JSON Schema (draft 2020-12) of the --json output of NAME, or of every output; `events`: of one
    line of --jsonl.

    The schemas ship inside the package as editblocks/report/schemas/output.schema.json and events.schema.json.
    """
    schema = events_schema() if name == EVENTS else output_schema(name)
    click.echo(json.dumps(schema, ensure_ascii=False, indent=2))
