"""The JSON Schemas of the `--json` outputs and `--jsonl` events, shipped in the package, printed by `schema`.

One file holds a `$defs` entry per command's output; the schema of one
command is that file with its top level pointed at the command's entry, so
it stands alone (every shared definition comes along). The events have a
file of their own that refers to the outputs' file for the shapes they share
(`output.schema.json#/$defs/result`); printed, it stands alone too: the
outputs' schema rides inside it as an embedded resource with that `$id`.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

SCHEMA_FILE = "report/schemas/output.schema.json"
EVENTS_SCHEMA_FILE = "report/schemas/events.schema.json"
OUTPUT_NAMES = ("parse", "check", "apply", "undo", "eval", "eval-import", "error", "ask", "config")
EVENTS = "events"
"""`editblocks schema events`: the schema of one line of `--jsonl`."""


def _load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(resources.files("editblocks").joinpath(name).read_text("utf-8"))
    return loaded


def output_schema(name: str | None = None) -> dict[str, Any]:
    """The whole schema (any output), or the schema of the output called `name` (one of `OUTPUT_NAMES`)."""
    schema = _load(SCHEMA_FILE)
    if name is None:
        return schema
    if name not in OUTPUT_NAMES:
        raise ValueError(f"no output called {name!r}; choose one of {', '.join(OUTPUT_NAMES)}")
    described = schema["$defs"][name].get("description", "")
    return {"$schema": schema["$schema"], "title": f"editblocks {name} --json output", "description": described,
            "$ref": f"#/$defs/{name}", "$defs": schema["$defs"]}


def events_schema() -> dict[str, Any]:
    """The schema of one `--jsonl` event, standing alone: the outputs' schema is embedded as the resource its
    references name."""
    schema = _load(EVENTS_SCHEMA_FILE)
    outputs = {key: value for key, value in _load(SCHEMA_FILE).items() if key != "$schema"}
    return {**schema, "$defs": {**schema["$defs"], "output-schema": {"$id": "output.schema.json", **outputs}}}
