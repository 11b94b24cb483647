"""Adapters that plug editblocks into agent frameworks, one module per framework, each behind its own extra.

- `editblocks.integrations.openai_agents`: an `ApplyPatchEditor` for the OpenAI Agents SDK's `ApplyPatchTool`,
  and `apply_diff`, a drop-in for `agents.apply_diff` that refuses ambiguous hunks (`[openai-agents]`);
- `editblocks.integrations.pydantic_ai`: a toolset with `edit`, `apply_edits`, `apply_patch` and `view` that
  raises `ModelRetry` with the feedback (`[pydantic-ai]`);
- `editblocks.integrations.deepagents`: a filesystem backend whose `edit` goes through editblocks
  (`[deepagents]`);
- `editblocks.integrations.anthropic`: tool objects for the Anthropic SDK's tool runner, the text editor
  `text_editor_20250728` and the agent toolset's `edit` (`[anthropic]`).

Each one runs the calls through `editblocks.tools.ToolHandler`, so every door gives the same verdicts.
"""

from __future__ import annotations

from editblocks.extras import install_command


def missing_extra(package: str, extra: str) -> str:
    """The one-line message for an adapter whose framework is not installed, with the command that adds it."""
    return f"this adapter needs the `{package}` package: {install_command(extra)}"
