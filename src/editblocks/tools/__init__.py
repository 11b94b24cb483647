"""Tool calling: tool definitions for the vendors' APIs, and `ToolHandler`, which runs the calls.

The definitions are pure (`editblocks.tools.definitions`); `ToolHandler` works
on a project root through the workspace, so it is loaded on first use only.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from editblocks.tools.definitions import (
    TOOL_NAMES,
    ToolSpec,
    anthropic_tools,
    openai_chat_tools,
    openai_responses_tools,
    tool_specs,
)

if TYPE_CHECKING:
    from editblocks.service.tool_handler import ToolHandler, ToolReply

_LAZY = {"ToolHandler": "editblocks.service.tool_handler", "ToolReply": "editblocks.service.tool_handler"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'editblocks.tools' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "TOOL_NAMES",
    "ToolHandler",
    "ToolReply",
    "ToolSpec",
    "anthropic_tools",
    "openai_chat_tools",
    "openai_responses_tools",
    "tool_specs",
]
