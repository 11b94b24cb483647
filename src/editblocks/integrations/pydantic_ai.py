"""Pydantic AI: a toolset whose tools edit files through editblocks and ask the model to retry on failure.

`EditblocksToolset(root)` goes in `Agent(..., toolsets=[...])`. Its tools are
those of `editblocks.tools` (by default `edit`, `apply_edits`, `apply_patch`
and `view`), with the same JSON Schemas. A call that fails (text not found,
ambiguous, a bad argument) raises `ModelRetry` with editblocks' feedback, so
the model gets the closest real lines and tries again within the agent's
retry budget; nothing is written by a failed call.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import anyio

from editblocks.integrations import missing_extra
from editblocks.service.options import ApplyOptions
from editblocks.tools import ToolHandler, tool_specs
from editblocks.tools.definitions import APPLY_EDITS, APPLY_PATCH, EDIT, VIEW

try:
    from pydantic_ai import ModelRetry, RunContext, ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
    from pydantic_core import SchemaValidator, core_schema
except ImportError as error:  # pragma: no cover - the extra is installed wherever the tests run
    raise ImportError(missing_extra("pydantic-ai-slim", "pydantic-ai")) from error

DEFAULT_TOOLS = (EDIT, APPLY_EDITS, APPLY_PATCH, VIEW)
_ANY_OBJECT = SchemaValidator(core_schema.dict_schema(core_schema.str_schema(), core_schema.any_schema()))
"""The arguments reach the handler as sent: its own checks give the model editblocks' one-line errors."""


class EditblocksToolset(AbstractToolset[Any]):
    """The tools named in ``tools`` (any of `editblocks.tools.TOOL_NAMES`), editing files under ``root`` only, with
    ``options`` (as for `apply`)."""

    def __init__(self, root: str | os.PathLike[str], *, tools: Sequence[str] = DEFAULT_TOOLS,
                 options: ApplyOptions | None = None, max_retries: int | None = None, id: str | None = None) -> None:
        self.handler = ToolHandler(root, options=options)
        self._definitions = [ToolDefinition(name=spec.name, description=spec.description,
                                            parameters_json_schema=spec.parameters) for spec in tool_specs(tools)]
        self._max_retries = max_retries
        self._id = id

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        retries = self._max_retries if self._max_retries is not None else ctx.max_retries
        return {definition.name: ToolsetTool(toolset=self, tool_def=definition, max_retries=retries,
                                             args_validator=_ANY_OBJECT) for definition in self._definitions}

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> str:
        reply = await anyio.to_thread.run_sync(self.handler.call, name, tool_args)
        if not reply.ok:
            raise ModelRetry(reply.text)
        return reply.text
