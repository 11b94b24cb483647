"""The Anthropic SDK: tool objects for its tool runner, editing through editblocks.

`EditblocksTextEditor(root)` answers Anthropic's text editor tool
(`text_editor_20250728`, named `str_replace_based_edit_tool`; its
`max_characters` cuts what `view` returns) and `EditblocksEditTool(root)` the
`edit {file_path, old_string, new_string, replace_all}` tool of the agent
toolset. Pass them in `tools=[...]` to `client.beta.messages.tool_runner(...)`:
a failed call raises `ToolError` with editblocks' feedback, which the runner
sends back as an error result, so the model sees the closest real lines.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, cast

from editblocks.integrations import missing_extra
from editblocks.service.options import ApplyOptions
from editblocks.tools import ToolHandler, anthropic_tools
from editblocks.tools.definitions import EDIT, TEXT_EDITOR
from editblocks.tools.text_editor import cut_view

try:
    from anthropic.lib.tools import BetaBuiltinFunctionTool, ToolError
    from anthropic.types.beta import BetaToolUnionParam
except ImportError as error:  # pragma: no cover - the extra is installed wherever the tests run
    raise ImportError(missing_extra("anthropic", "anthropic")) from error


class _HandlerTool(BetaBuiltinFunctionTool):
    """One tool of `editblocks.tools`, run by a `ToolHandler` on ``root`` with ``options`` (as for `apply`)."""

    tool_name = ""

    def __init__(self, root: str | os.PathLike[str], *, options: ApplyOptions | None = None) -> None:
        super().__init__()
        self.handler = ToolHandler(root, options=options)

    def to_dict(self) -> BetaToolUnionParam:
        return cast(BetaToolUnionParam, anthropic_tools([self.tool_name])[0])

    def call(self, input: object) -> str:
        reply = self.handler.call(self.tool_name, input)
        if not reply.ok:
            raise ToolError(reply.text)
        return reply.text


class EditblocksTextEditor(_HandlerTool):
    """Anthropic's text editor tool (`view`, `create`, `str_replace`, `insert`), editing files under ``root``."""

    tool_name = TEXT_EDITOR

    def __init__(self, root: str | os.PathLike[str], *, max_characters: int | None = None,
                 options: ApplyOptions | None = None) -> None:
        super().__init__(root, options=options)
        if max_characters is not None and (isinstance(max_characters, bool) or max_characters < 1):
            raise ValueError(f"max_characters must be a positive number, not {max_characters!r}")
        self.max_characters = max_characters

    def to_dict(self) -> BetaToolUnionParam:
        return cast(BetaToolUnionParam, anthropic_tools([TEXT_EDITOR], max_characters=self.max_characters)[0])

    def call(self, input: object) -> str:
        text = super().call(input)
        if self.max_characters is not None and _command(input) == "view":
            return cut_view(text, self.max_characters)
        return text


class EditblocksEditTool(_HandlerTool):
    """The agent toolset's `edit` (Claude Code's shape, plus `expected_replacements`), for files under ``root``."""

    tool_name = EDIT


def _command(input: object) -> Any:
    return input.get("command") if isinstance(input, Mapping) else None
