"""How to send an argument, from the tool's own definition: the second half of a one-line argument error."""

from __future__ import annotations

from typing import Any

from editblocks.tools.definitions import tool_specs

_KINDS = {"string": "a string", "integer": "an integer", "boolean": "true or false", "array": "an array",
          "object": "an object"}


def argument_help(tool: str, argument: str) -> str:
    """`send `path`: a string, the file or folder path…` for an argument of ``tool``'s schema, else ""."""
    try:
        spec = tool_specs([tool])[0]
    except ValueError:
        return ""
    schema: dict[str, Any] | None = spec.parameters.get("properties", {}).get(argument)
    if schema is None:
        return ""
    if "enum" in schema:
        return f"send `{argument}` as one of {', '.join(str(value) for value in schema['enum'])}"
    kind = _KINDS.get(str(schema.get("type")), "a value")
    if schema.get("type") == "array" and schema.get("minItems") == schema.get("maxItems") == 2:
        kind = "two integers in an array"
    about = str(schema.get("description", "")).rstrip(".")
    return f"send `{argument}` as {kind}" + (f" ({about[0].lower()}{about[1:]})" if about else "")
