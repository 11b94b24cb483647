"""The JSON Schema of every `--json` output, shipped as package data and printed by `editblocks schema`.

One file holds a `$defs` entry per command's output; the schema of one
command is that file with its top level pointed at the command's entry, so
it stands alone (every shared definition comes along).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

SCHEMA_FILE = "report/schemas/output.schema.json"
OUTPUT_NAMES = ("parse", "check", "apply", "undo", "eval", "eval-import", "error", "ask", "config")


def output_schema(name: str | None = None) -> dict[str, Any]:
    """The whole schema (any output), or the schema of the output called `name` (one of `OUTPUT_NAMES`)."""
    schema: dict[str, Any] = json.loads(resources.files("editblocks").joinpath(SCHEMA_FILE).read_text("utf-8"))
    if name is None:
        return schema
    if name not in OUTPUT_NAMES:
        raise ValueError(f"no output called {name!r}; choose one of {', '.join(OUTPUT_NAMES)}")
    described = schema["$defs"][name].get("description", "")
    return {"$schema": schema["$schema"], "title": f"editblocks {name} --json output", "description": described,
            "$ref": f"#/$defs/{name}", "$defs": schema["$defs"]}
