"""What each tool does to the project, in the words protocols ask for: a title, and whether it only reads, may
destroy or rewrite what is there, and gives the same result when called twice.

MCP clients show these hints (a read-only tool may run without asking the user)
as `ToolAnnotations`; they describe the tool, whatever its arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from editblocks.tools.definitions import (
    APPLY_EDITS,
    APPLY_PATCH,
    CHECK_EDITS,
    EDIT,
    MULTI_EDIT,
    TEXT_EDITOR,
    TOOL_NAMES,
    UNDO,
    VIEW,
)


@dataclass(frozen=True)
class ToolHints:
    title: str
    read_only: bool = False
    destructive: bool = True  # it may change or remove what is there, not only add
    idempotent: bool = False  # a second identical call changes nothing more


HINTS = {
    TEXT_EDITOR: ToolHints("View, create and edit files"),
    APPLY_PATCH: ToolHints("Apply a V4A patch"),
    APPLY_EDITS: ToolHints("Apply edits in any format"),
    CHECK_EDITS: ToolHints("Check edits without writing", read_only=True, destructive=False, idempotent=True),
    UNDO: ToolHints("Undo the last edit"),
    EDIT: ToolHints("Replace text in a file"),
    MULTI_EDIT: ToolHints("Make several edits to one file"),
    VIEW: ToolHints("View a file or folder", read_only=True, destructive=False, idempotent=True),
}


def tool_hints(name: str) -> ToolHints:
    """The hints of the tool ``name`` (one of `TOOL_NAMES`)."""
    if name not in HINTS:
        raise ValueError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")
    return HINTS[name]
