"""The arguments of the `edit`, `multi_edit` and `view` tools, read as leniently as models send them.

Claude Code's names (`file_path`, `old_string`, `new_string`, `replace_all`),
opencode's camelCase ones, gemini-cli's `allow_multiple` and
`expected_replacements`, and booleans sent as the text "true" or "false" all
mean what they say; anything else is an `ArgumentError` naming the argument.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from editblocks.errors import ArgumentError
from editblocks.tools.definitions import int_argument, text_argument, type_name


@dataclass(frozen=True)
class StringEdit:
    """Replace ``old`` by ``new``: once, every time (``replace_all``), or exactly ``expected`` times."""

    old: str
    new: str
    replace_all: bool = False
    expected: int | None = None


_TRUE, _FALSE = frozenset({"true", "yes", "1"}), frozenset({"false", "no", "0", ""})


def flag_argument(args: Mapping[str, Any], *names: str) -> bool:
    """A yes/no argument under the first of ``names`` given; `"true"` and `"false"` as strings too (some clients
    send booleans as text)."""
    for name in names:
        value = args.get(name)
        if value is None:
            continue
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise ArgumentError(f"the argument `{name}` must be true or false, not {type_name(value)}")
    return False


def path_argument(args: Mapping[str, Any]) -> str:
    """The file an `edit`, `multi_edit` or `view` call names (`file_path`; `path` and `filePath` are read too)."""
    for name in ("file_path", "path", "filePath"):
        if args.get(name) is not None:
            return text_argument(args, name)
    raise ArgumentError("the argument `file_path` is missing")


def string_edit_argument(args: Mapping[str, Any], where: str = "") -> StringEdit:
    """One edit: `old_string`, `new_string`, `replace_all` (gemini-cli's `allow_multiple` too) and
    `expected_replacements`; camelCase spellings are read as well."""
    old = _either(args, "old_string", "oldString", where)
    new = _either(args, "new_string", "newString", where)
    replace_all = flag_argument(args, "replace_all", "replaceAll", "allow_multiple")
    expected = None
    if args.get("expected_replacements") is not None:
        expected = int_argument(args, "expected_replacements")
        if expected < 1:
            raise ArgumentError(f"{where}`expected_replacements` must be 1 or more, not {expected}")
    if old == new:
        raise ArgumentError(f"{where}`old_string` and `new_string` are the same, so there is nothing to change")
    return StringEdit(old.replace("\r\n", "\n"), new.replace("\r\n", "\n"), replace_all, expected)


def string_edits_argument(args: Mapping[str, Any]) -> list[StringEdit]:
    """The `edits` of a `multi_edit` call, each checked as `edit` checks its own arguments."""
    value = args.get("edits")
    if value is None:
        raise ArgumentError("the argument `edits` (a list of {old_string, new_string, replace_all}) is missing")
    if isinstance(value, str):  # the list sent as JSON text
        value = _json_list(value)
    if not isinstance(value, list) or not value:
        raise ArgumentError("the argument `edits` must be a non-empty list of {old_string, new_string, "
                            f"replace_all}} objects, not {type_name(value)}")
    edits = []
    for number, item in enumerate(value, start=1):
        if not isinstance(item, Mapping):
            raise ArgumentError(f"edit {number} of `edits` must be an object, not {type_name(item)}")
        edits.append(string_edit_argument(item, f"edit {number}: "))
    return edits


def _either(args: Mapping[str, Any], name: str, alias: str, where: str) -> str:
    try:
        return text_argument(args, alias if args.get(name) is None and args.get(alias) is not None else name)
    except ArgumentError as error:
        raise ArgumentError(f"{where}{error}") from None


def _json_list(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
