"""Tool definitions for agents that edit through tool calls, and the checking of a call's arguments.

One description of each tool (name, purpose, JSON Schema of its input) is
rendered in the three shapes the vendors' APIs take: OpenAI Chat Completions
(`{"type": "function", "function": {...}}`), the OpenAI Responses API
(`{"type": "function", "name": ...}`, with the built-in `{"type": "apply_patch"}`),
and Anthropic's Messages API (`{"name", "description", "input_schema"}`, with
the built-in text editor tool). Pure: `ToolHandler` (editblocks.tools) runs the calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from editblocks.errors import ArgumentError
from editblocks.model import Format

TEXT_EDITOR = "str_replace_based_edit_tool"
TEXT_EDITOR_ALIASES = frozenset({TEXT_EDITOR, "str_replace_editor"})  # the name of the older tool versions
ANTHROPIC_TEXT_EDITOR_TYPE = "text_editor_20250728"
APPLY_PATCH = "apply_patch"
APPLY_EDITS = "apply_edits"
CHECK_EDITS = "check_edits"
UNDO = "undo"
EDIT = "edit"
MULTI_EDIT = "multi_edit"
VIEW = "view"
TEXT_EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")
PATCH_OPERATIONS = ("create_file", "update_file", "delete_file")


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what it does (for the model) and the JSON Schema of its input."""

    name: str
    description: str
    parameters: dict[str, Any]


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _edits_parameters() -> dict[str, Any]:
    return _object({
        "edits": {"type": "string", "description": "The answer holding the edits: SEARCH/REPLACE blocks, a V4A "
                                                   "patch, a unified diff, whole files, ... (any editblocks format)."},
        "format": {"type": "string", "enum": [fmt.value for fmt in Format],
                   "description": "The format the edits are written in; `auto` (the default) detects it."},
    }, ["edits"])


_FILE_PATH = {"type": "string", "description": "The file's path, relative to the project root."}
_EDIT_FIELDS = {
    "old_string": {"type": "string", "description": "The text to replace, copied exactly from the file."},
    "new_string": {"type": "string", "description": "The text to put in its place (different from old_string)."},
    "replace_all": {"type": "boolean", "default": False,
                    "description": "Replace every occurrence of old_string (default false: it must be unique)."},
}
_VIEW_RANGE: dict[str, Any] = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
               "description": "First and last line to show (1-based; -1 = end of file)."}

_SPECS = (
    ToolSpec(TEXT_EDITOR, (
        "View, create and edit text files of the project. `view` shows a file with numbered lines (or lists a "
        "folder two levels deep); `create` makes a new file (never overwrites one); `str_replace` replaces "
        "`old_str`, which must occur exactly once in the file, by `new_str`; `insert` adds `new_str` after line "
        "`insert_line` (0 = top); `undo_edit` undoes the last edit. Paths are relative to the project root."),
        _object({
            "command": {"type": "string", "enum": list(TEXT_EDITOR_COMMANDS)},
            "path": {"type": "string", "description": "File or folder path, relative to the project root."},
            "view_range": {**_VIEW_RANGE, "description": "For view: " + _VIEW_RANGE["description"]},
            "file_text": {"type": "string", "description": "For create: the whole content of the new file."},
            "old_str": {"type": "string", "description": "For str_replace: the exact text to replace (unique)."},
            "new_str": {"type": "string", "description": "For str_replace and insert: the new text."},
            "insert_line": {"type": "integer", "minimum": 0,
                            "description": "For insert: the line after which to insert (0 = top of the file)."},
        }, ["command", "path"])),
    ToolSpec(APPLY_PATCH, (
        "Apply a patch in the V4A format: `*** Begin Patch`, then `*** Add File: path` (lines starting `+`), "
        "`*** Delete File: path` or `*** Update File: path` (optionally `*** Move to: new path`) with hunks "
        "starting `@@` (lines ` ` context, `-` removed, `+` added), then `*** End Patch`. A hunk whose lines "
        "occur more than once is refused: give enough context to make it unique."),
        _object({"input": {"type": "string", "description": "The whole patch, `*** Begin Patch` to `*** End Patch`."}},
                ["input"])),
    ToolSpec(APPLY_EDITS, (
        "Apply edits written as text in any format editblocks reads (SEARCH/REPLACE blocks, V4A patches, "
        "unified diffs, whole files). The result says what applied and, for what failed, why and the closest "
        "real lines."), _edits_parameters()),
    ToolSpec(CHECK_EDITS, (
        "Check edits (same input as apply_edits) without writing anything: says where each would apply, or "
        "why it would fail."), _edits_parameters()),
    ToolSpec(UNDO, "Undo your most recent edit run (every file it changed, created, deleted or moved); an edit made "
             "since by someone else is left alone.",
             _object({}, [])),
    ToolSpec(EDIT, (
        "Replace text in a file. `old_string` must occur exactly once: quote enough of the surrounding lines to "
        "make it unique, or set `replace_all` to replace every occurrence. Text not found as written is looked "
        "for line by line, tolerating indentation, trailing whitespace and quote differences; when nothing "
        "matches, the reply shows the closest lines. An empty `old_string` creates a new file holding "
        "`new_string`. Paths are relative to the project root."),
        _object({"file_path": _FILE_PATH, **_EDIT_FIELDS,
                 "expected_replacements": {"type": "integer", "minimum": 1, "description": (
                     "How many occurrences to replace; the edit is refused when the count differs.")}},
                ["file_path", "old_string", "new_string"])),
    ToolSpec(MULTI_EDIT, (
        "Make several edits to one file in one step: each works like `edit` on the text the previous ones left, "
        "and either all of them apply or none does."),
        _object({"file_path": _FILE_PATH,
                 "edits": {"type": "array", "minItems": 1, "description": "The edits, applied in order.",
                           "items": _object(dict(_EDIT_FIELDS), ["old_string", "new_string"])}},
                ["file_path", "edits"])),
    ToolSpec(VIEW, (
        "Show a file with numbered lines (`view_range` for part of it), or list a folder two levels deep. Paths "
        "are relative to the project root."),
        _object({"file_path": _FILE_PATH, "view_range": _VIEW_RANGE}, ["file_path"])),
)
TOOL_NAMES = tuple(spec.name for spec in _SPECS)


def tool_specs(names: Iterable[str] | None = None) -> list[ToolSpec]:
    """The tools named (all of them by default), in the order asked; an unknown name raises ValueError."""
    by_name = {spec.name: spec for spec in _SPECS}
    chosen = list(names) if names is not None else list(TOOL_NAMES)
    unknown = [name for name in chosen if name not in by_name]
    if unknown:
        raise ValueError(f"unknown tool {unknown[0]!r}; the tools are {', '.join(TOOL_NAMES)}")
    return [by_name[name] for name in chosen]


def openai_chat_tools(names: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The tools for OpenAI Chat Completions (`tools=`), every one a function tool."""
    return [{"type": "function", "function": {"name": spec.name, "description": spec.description,
                                              "parameters": spec.parameters}} for spec in tool_specs(names)]


def openai_responses_tools(names: Iterable[str] | None = None, *, builtin_apply_patch: bool = True
                           ) -> list[dict[str, Any]]:
    """The tools for the OpenAI Responses API; `apply_patch` is the built-in tool unless told otherwise."""
    tools: list[dict[str, Any]] = []
    for spec in tool_specs(names):
        if spec.name == APPLY_PATCH and builtin_apply_patch:
            tools.append({"type": "apply_patch"})
        else:
            tools.append({"type": "function", "name": spec.name, "description": spec.description,
                          "parameters": spec.parameters})
    return tools


def anthropic_tools(names: Iterable[str] | None = None, *, builtin_text_editor: bool = True,
                    max_characters: int | None = None) -> list[dict[str, Any]]:
    """The tools for Anthropic's Messages API; the text editor is Anthropic's own tool type unless told otherwise."""
    tools: list[dict[str, Any]] = []
    for spec in tool_specs(names):
        if spec.name == TEXT_EDITOR and builtin_text_editor:
            editor: dict[str, Any] = {"type": ANTHROPIC_TEXT_EDITOR_TYPE, "name": TEXT_EDITOR}
            if max_characters is not None:
                editor["max_characters"] = max_characters
            tools.append(editor)
        else:
            tools.append({"name": spec.name, "description": spec.description, "input_schema": spec.parameters})
    return tools


def arguments(raw: object) -> Mapping[str, Any]:
    """A call's input as a mapping: a dict as given, the JSON object text Chat Completions sends, or an SDK's
    model object (anything with `model_dump`, such as a Responses API `apply_patch_call` operation)."""
    dump = getattr(raw, "model_dump", None)
    if callable(dump):
        raw = dump()
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as error:
            raise ArgumentError(f"the arguments are not valid JSON ({error.msg} at character {error.pos})") from None
        except RecursionError:
            raise ArgumentError("the arguments are nested too deeply to read; send a flat JSON object") from None
        except ValueError as error:  # a number with more digits than Python converts
            raise ArgumentError(f"the arguments cannot be read ({error})") from None
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ArgumentError(f"the arguments must be a JSON object, not {type_name(raw)}")
    return raw


def text_argument(args: Mapping[str, Any], name: str, *, required: bool = True, default: str = "") -> str:
    value = args.get(name)
    if value is None:
        if required:
            raise ArgumentError(f"the argument `{name}` is missing", argument=name)
        return default
    if not isinstance(value, str):
        raise ArgumentError(f"the argument `{name}` must be a string, not {type_name(value)}", argument=name)
    return value


def int_argument(args: Mapping[str, Any], name: str) -> int:
    """An integer argument; a whole number sent as a string (`"3"`) or as `3.0` is read as that number."""
    value = args.get(name)
    if value is None:
        raise ArgumentError(f"the argument `{name}` is missing", argument=name)
    number = _integer(value)
    if number is None:
        raise ArgumentError(f"the argument `{name}` must be an integer, not {type_name(value)}", argument=name)
    return number


def view_range_argument(args: Mapping[str, Any]) -> tuple[int, int] | None:
    value = args.get("view_range")
    if value is None:
        return None
    numbers = [_integer(n) for n in value] if isinstance(value, list | tuple) and len(value) == 2 else [None]
    if None in numbers:
        raise ArgumentError(f"the argument `view_range` must be two integers, not {_range_given(value)}",
                            argument="view_range")
    first, last = numbers
    assert first is not None and last is not None
    return first, last


def _range_given(value: object) -> str:
    """What a bad `view_range` is, naming the item that is no integer."""
    if not isinstance(value, list | tuple):
        return type_name(value)
    if len(value) != 2:
        return f"an array of {len(value)}"
    which = "first" if _integer(value[0]) is None else "second"
    item = value[0] if which == "first" else value[1]
    return f"an array whose {which} item is {'null' if item is None else type_name(item)}"


_INTEGER = re.compile(r"\s*[-+]?[0-9]{1,18}\s*")
MAX_INTEGER = 10**18
"""Larger numbers are no line number; refusing them also keeps every reply printable (Python will not turn an
integer of thousands of digits into text)."""


def _integer(value: object) -> int | None:
    """``value`` as an integer of at most 18 digits, if it is one (a bool is not; ASCII digits only in a string)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return value if -MAX_INTEGER <= value <= MAX_INTEGER else None
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return None


def type_name(value: object) -> str:
    if isinstance(value, str) and len(value) <= 20 and value.isprintable():
        return f"the string {value!r}"
    if isinstance(value, int) and not isinstance(value, bool) and not -MAX_INTEGER <= value <= MAX_INTEGER:
        return "a number that large"
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a fractional number"}
    return names.get(type(value), type(value).__name__)


def _one_file_only(body: str, path: str) -> None:
    """An operation names its one file in `path`; a `*** ` line in its diff would open another file's section."""
    for line in body.splitlines():
        if line.startswith("*** ") and line.rstrip() != "*** End of File":
            shown = line if len(line) <= 60 else line[:59] + "…"
            raise ArgumentError(f"the operation's `diff` may only change {path}, but it holds the patch line "
                                f"`{shown}`; send one operation per file")


def operation_patch(operation: Mapping[str, Any]) -> str:
    """The V4A patch text for one operation of the Responses API's `apply_patch` tool.

    `create_file` carries the new content as `+` lines (bare lines are taken as
    content too when none has the prefix); as in OpenAI's reference, a last bare
    `+` line only ends the content with a line break, and CRLF line breaks make
    a CRLF file. `update_file` carries the hunks, and moves the file when it
    names `move_to`; `delete_file` carries nothing.
    """
    kind = text_argument(operation, "type")
    if kind not in PATCH_OPERATIONS:
        raise ArgumentError(f"the operation type must be one of {', '.join(PATCH_OPERATIONS)}, not {kind!r}")
    path = _one_line_path(operation, "path")
    move_to = _one_line_path(operation, "move_to") if operation.get("move_to") is not None else None
    if move_to is not None and kind != "update_file":
        raise ArgumentError(f"`move_to` belongs to an `update_file` operation, not to `{kind}`")
    if kind == "delete_file":
        return f"*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n"
    raw = text_argument(operation, "diff")
    diff = raw.replace("\r\n", "\n")
    body = diff if diff.endswith("\n") or not diff else diff + "\n"
    _one_file_only(body, path)
    if kind == "create_file":
        lines = body.split("\n")[:-1]
        if not any(line.startswith("+") for line in lines):
            lines = [f"+{line}" for line in lines]
        if lines and lines[-1] == "+":
            lines.pop()
        ending = "\r\n" if "\r\n" in raw else "\n"
        return f"*** Begin Patch\n*** Add File: {path}\n" + "".join(line + ending for line in lines) + "*** End Patch\n"
    moving = f"*** Move to: {move_to}\n" if move_to is not None else ""
    return f"*** Begin Patch\n*** Update File: {path}\n{moving}{body}*** End Patch\n"


def _one_line_path(operation: Mapping[str, Any], name: str) -> str:
    """A path argument of an operation: a string of one non-empty line."""
    path = text_argument(operation, name)
    if not path.strip() or "\n" in path or "\r" in path:
        raise ArgumentError(f"the operation's `{name}` must be one non-empty line")
    return path
