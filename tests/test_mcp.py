"""`editblocks mcp` end to end: the official SDK's client talks to `python -m editblocks mcp` over stdio (HTTP: test_mcp_http.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

SRC = str(Path(__file__).resolve().parent.parent / "src")
ANSWER = "app.py\n```python\n<<<<<<< SEARCH\nprint('missing')\n=======\nprint('x')\n>>>>>>> REPLACE\n```\n"


def server_params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "editblocks", "mcp", "--root", str(root)],
                                 cwd=str(root.parent), env={"PYTHONPATH": SRC})


def text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def test_the_stdio_server_lists_tools_applies_refuses_and_undoes(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def main():\n    print('hi')\n", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(server_params(root), read_timeout_seconds=60) as client:
            seen["tools"] = [tool.name for tool in (await client.list_tools()).tools]
            seen["apply"] = await client.call_tool("str_replace_based_edit_tool", {
                "command": "str_replace", "path": "app.py", "old_str": "print('hi')", "new_str": "print('hello')"})
            seen["after_apply"] = (root / "app.py").read_text()
            seen["refusal"] = await client.call_tool("apply_edits", {"edits": ANSWER})
            seen["escape"] = await client.call_tool("str_replace_based_edit_tool", {
                "command": "create", "path": "../outside.txt", "file_text": "pwned"})
            seen["absolute"] = await client.call_tool("apply_edits", {
                "edits": ANSWER.replace("app.py", str(outside)).replace("print('missing')\n", "")})
            seen["check"] = await client.call_tool("check_edits", {"edits": ANSWER.replace("missing", "hello")})
            seen["undo"] = await client.call_tool("undo", {})
            seen["prompts"] = [prompt.name for prompt in (await client.list_prompts()).prompts]
            seen["prompt"] = await client.get_prompt("diff")
            seen["resources"] = [str(resource.uri) for resource in (await client.list_resources()).resources]
            seen["formats"] = await client.read_resource("editblocks://formats")

    anyio.run(session)
    assert seen["tools"] == ["str_replace_based_edit_tool", "apply_patch", "apply_edits", "check_edits", "undo"]
    assert not seen["apply"].is_error and "print('hello')" in text(seen["apply"])
    assert seen["after_apply"] == "def main():\n    print('hello')\n"
    assert seen["refusal"].is_error
    assert "not found" in text(seen["refusal"]) and "How to continue" in text(seen["refusal"])
    assert seen["escape"].is_error and "outside the project root" in text(seen["escape"])
    assert seen["absolute"].is_error and "outside the project root" in text(seen["absolute"])
    assert not outside.exists()
    assert not seen["check"].is_error and "would apply" in text(seen["check"])
    assert not seen["undo"].is_error and "restored 1 file" in text(seen["undo"])
    assert (root / "app.py").read_text() == "def main():\n    print('hi')\n"
    assert {"diff", "guillemet", "v4a", "udiff", "whole"} <= set(seen["prompts"])
    assert "<<<<<<< SEARCH" in seen["prompt"].messages[0].content.text
    assert seen["resources"] == ["editblocks://formats"]
    formats = json.loads(seen["formats"].contents[0].text)
    assert {"format", "summary", "example"} <= set(formats[0]) and formats[0]["format"] == "diff"


def test_bad_arguments_come_back_as_an_error_result(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(server_params(tmp_path), read_timeout_seconds=60) as client:
            seen["mistyped"] = await client.call_tool("str_replace_based_edit_tool", {"command": 3, "path": "a"})
            seen["unknown"] = await client.call_tool("str_replace_based_edit_tool", {"command": "rm", "path": "a"})

    anyio.run(session)
    assert seen["mistyped"].is_error and "command" in text(seen["mistyped"])
    assert seen["unknown"].is_error and "must be one of view, create" in text(seen["unknown"])


def test_without_the_extra_the_command_names_it(tmp_path: Path) -> None:
    """Run from the source checkout (src/ on the path), so the extra is installed from it."""
    probe = ("import sys; sys.modules['mcp'] = None\nfrom editblocks.cli import main\n"
             f"main(['mcp', '--root', {str(tmp_path)!r}])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=Path(SRC).parent,
                          env={**os.environ, "PYTHONPATH": SRC}, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["Error: the MCP server needs the mcp package: "
                                                "pip install -e '.[mcp]'"]
