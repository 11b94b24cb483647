"""`editblocks mcp` end to end: the official SDK's client talks to `python -m editblocks mcp` over stdio (HTTP: test_mcp_http.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters

from editblocks import ApplyOptions
from editblocks.model import Policy

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
    assert seen["tools"] == ["str_replace_based_edit_tool", "apply_patch", "apply_edits", "check_edits", "undo", "edit",
                             "multi_edit", "view"]
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


def test_a_session_holds_the_good_hunks_of_a_file_and_writes_it_when_the_failed_one_lands(tmp_path: Path) -> None:
    """An `apply_patch` call whose second hunk for app.py fails writes nothing to app.py and keeps its first hunk;
    the next call sends only the fixed hunk, and app.py gets both."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("def main():\n    print('hi')\n\n\nPORT = 8000\n", encoding="utf-8")
    patch = ("*** Begin Patch\n*** Update File: app.py\n@@\n-    print('hi')\n+    print('hello')\n@@\n-PORT = 9999\n"
             "+PORT = 8080\n*** End Patch\n")
    fixed = "*** Begin Patch\n*** Update File: app.py\n@@\n-PORT = 8000\n+PORT = 8080\n*** End Patch\n"
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(server_params(root), read_timeout_seconds=60) as client:
            seen["first"] = await client.call_tool("apply_patch", {"input": patch})
            seen["between"] = (root / "app.py").read_text()
            seen["second"] = await client.call_tool("apply_patch", {"input": fixed})

    anyio.run(session)
    first = text(seen["first"])
    assert seen["first"].is_error and seen["between"] == "def main():\n    print('hi')\n\n\nPORT = 8000\n"
    assert "Nothing was written to `app.py` yet" in first and "send only the failed blocks" in first
    assert not seen["second"].is_error, text(seen["second"])
    assert (root / "app.py").read_text() == "def main():\n    print('hello')\n\n\nPORT = 8080\n"


# --- MCP done right: schemas, hints, structured results, errors, version, root ------------------------------------


def in_process(root: Path, calls: Callable[[Client], Awaitable[Any]], **options: Any) -> Any:
    """Run ``calls`` with the SDK's client connected in-process to a server on ``root``."""
    from editblocks.mcp.server import build_server

    found: dict[str, Any] = {}

    async def session() -> None:
        async with Client(build_server(root, **options)) as client:
            found["result"] = await calls(client)

    anyio.run(session)
    return found["result"]


def test_tools_are_listed_with_editblocks_schemas_titles_and_hints(tmp_path: Path) -> None:
    from editblocks.mcp.results import OUTPUT_SCHEMA
    from editblocks.tools import TOOL_NAMES, tool_specs
    from editblocks.tools.hints import tool_hints

    async def listed(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = in_process(tmp_path, listed)
    assert [tool.name for tool in tools] == list(TOOL_NAMES)
    for tool, spec in zip(tools, tool_specs(), strict=True):
        hints = tool_hints(tool.name)
        assert tool.title == hints.title and tool.annotations is not None and tool.annotations.title == hints.title
        assert tool.annotations.read_only_hint is hints.read_only
        assert tool.annotations.destructive_hint is hints.destructive
        assert tool.annotations.idempotent_hint is hints.idempotent and tool.annotations.open_world_hint is False
        assert tool.input_schema == spec.parameters and "anyOf" not in json.dumps(tool.input_schema)
        assert tool.output_schema == OUTPUT_SCHEMA
        Draft202012Validator.check_schema(tool.output_schema)
    by_name = {tool.name: tool for tool in tools}
    assert by_name["check_edits"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert by_name["apply_edits"].annotations.read_only_hint is False  # type: ignore[union-attr]
    assert by_name["view"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert by_name["edit"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert {"edit", "multi_edit", "view"} <= set(by_name)
    command = by_name["str_replace_based_edit_tool"].input_schema["properties"]["command"]
    assert command == {"type": "string", "enum": ["view", "create", "str_replace", "insert", "undo_edit"]}


def test_every_result_carries_structured_content_the_output_schema_accepts(tmp_path: Path) -> None:
    from editblocks.mcp.results import OUTPUT_SCHEMA

    (tmp_path / "app.py").write_text("def main():\n    print('hi')\n", encoding="utf-8")
    good = ANSWER.replace("missing", "hi")
    calls = [("str_replace_based_edit_tool", {"command": "view", "path": "app.py"}),
             ("check_edits", {"edits": good + ANSWER}),
             ("apply_edits", {"edits": good + ANSWER}),
             ("str_replace_based_edit_tool", {"command": "str_replace", "path": "app.py", "old_str": "x()",
                                              "new_str": "y()"}),
             ("str_replace_based_edit_tool", {"command": "insert", "path": "app.py", "insert_line": 0,
                                              "new_str": "import os"}),
             ("undo", {}),
             ("str_replace_based_edit_tool", {"command": "view"}),
             ("no_such_tool", {}),
             ("view", {"file_path": "app.py"}),
             ("edit", {"file_path": "app.py", "old_string": "(", "new_string": "[", "replace_all": True}),
             ("multi_edit", {"file_path": "app.py", "edits": [{"old_string": "main[", "new_string": "main("},
                                                              {"old_string": "nowhere", "new_string": "x"}]})]

    async def run(client: Client) -> list[Any]:
        return [await client.call_tool(name, arguments) for name, arguments in calls]

    results = in_process(tmp_path, run, options=ApplyOptions(on_failure=Policy.CONTINUE))  # a partial result's shape
    validator = Draft202012Validator(OUTPUT_SCHEMA)
    for result in results:
        validator.validate(result.structured_content)
        assert (result.structured_content["status"] == "failed") is (result.is_error and not
                                                                     result.structured_content["counts"]["applied"])
    view, check, apply, missing, insert, undo, no_path, unknown, viewed, edited, refused = (
        r.structured_content for r in results)
    assert viewed["status"] == "ok" and len(viewed["version"]) == 12 and edited["version"] != viewed["version"]
    assert edited["status"] == "ok" and edited["written"] and edited["replacements"] == 2
    assert refused["status"] == "failed" and not refused["written"] and "replacements" not in refused
    assert view["status"] == "ok" and len(view["version"]) == 12 and view["results"] == []
    assert check["status"] == "partial" and check["counts"] == {"applied": 1, "failed": 1, "skipped": 0}
    assert check["written"] is False and check["results"][1]["code"] == "not-found"
    assert apply["status"] == "partial" and apply["written"] is True and apply["files_changed"] == ["app.py"]
    assert apply["results"][0] == {"path": "app.py", "status": "applied", "block_line": 3, "start_line": 2,
                                   "end_line": 2, "strategy": "indentation", "reason": apply["results"][0]["reason"]}
    assert apply["run_id"] and "code" not in apply["results"][0]
    assert missing["status"] == "failed" and not missing["written"]
    assert insert["status"] == "ok" and insert["written"] and insert["counts"]["applied"] == 1
    assert undo["status"] == "ok" and no_path["status"] == unknown["status"] == "failed"


def test_bad_arguments_get_editblocks_one_line_error_never_the_sdks_validation_dump(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    bad = [({"command": "insert", "path": "app.py", "insert_line": "after two", "new_str": "y = 2"},
            "the argument `insert_line` must be an integer, not the string 'after two'; send `insert_line` as an "
            "integer"),
           ({"command": "view"}, "the argument `path` is missing; send `path` as a string"),
           ({"path": "app.py"}, "the argument `command` is missing; send `command` as one of view, create, "
                                "str_replace, insert, undo_edit."),
           ({"command": "view", "path": "app.py", "view_range": "1-2"},
            "the argument `view_range` must be two integers, not the string '1-2'; send `view_range` as two "
            "integers in an array"),
           ({"command": "str_replace", "path": ["app.py"], "old_str": "x", "new_str": "y"},
            "the argument `path` must be a string, not an array")]
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(server_params(tmp_path), read_timeout_seconds=60) as client:
            seen["results"] = [await client.call_tool("str_replace_based_edit_tool", arguments)
                               for arguments, _ in bad]

    anyio.run(session)
    for result, (_, expected) in zip(seen["results"], bad, strict=True):
        reply = text(result)
        assert result.is_error and "\n" not in reply, reply
        assert reply.startswith("Error: str_replace_based_edit_tool: " + expected), reply
        assert "validation error" not in reply and "Input should be" not in reply and "pydantic" not in reply
    assert (tmp_path / "app.py").read_text() == "x = 1\n"


def test_the_server_reports_the_package_version(tmp_path: Path) -> None:
    async def info(client: Client) -> Any:
        return client.server_info

    server_info = in_process(tmp_path, info)
    assert server_info is not None and server_info.name == "editblocks"
    assert server_info.version == version("editblocks")


def test_stale_reads_are_refused_by_default_and_can_be_allowed(tmp_path: Path) -> None:
    app = tmp_path / "app.py"

    async def view_then_edit(client: Client) -> Any:
        app.write_text("x = 1\ny = 2\n", encoding="utf-8")
        await client.call_tool("str_replace_based_edit_tool", {"command": "view", "path": "app.py"})
        app.write_text("x = 1\ny = 3\n", encoding="utf-8")  # the user's editor saves meanwhile
        return await client.call_tool("str_replace_based_edit_tool", {
            "command": "str_replace", "path": "app.py", "old_str": "x = 1", "new_str": "x = 0"})

    refused = in_process(tmp_path, view_then_edit)
    assert refused.is_error and "app.py changed since you viewed it" in text(refused)
    assert "     2\ty = 3\n" in text(refused) and app.read_text() == "x = 1\ny = 3\n"
    allowed = in_process(tmp_path, view_then_edit, stale_reads=False)
    assert not allowed.is_error and app.read_text() == "x = 0\ny = 3\n"


def test_stale_reads_hold_for_the_view_edit_and_multi_edit_tools_too(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text("x = 1\ny = 2\n", encoding="utf-8")

    async def run(client: Client) -> list[Any]:
        seen = [await client.call_tool("view", {"file_path": "app.py"})]
        app.write_text("x = 1\ny = 3\n", encoding="utf-8")  # saved by the user's editor meanwhile
        seen.append(await client.call_tool("edit", {"file_path": "app.py", "old_string": "x = 1",
                                                    "new_string": "x = 0"}))
        seen.append(await client.call_tool("multi_edit", {"file_path": "app.py", "edits": [
            {"old_string": "x = 1", "new_string": "x = 0"}]}))  # the refusal showed the file: it is current now
        app.write_text("x = 5\ny = 3\n", encoding="utf-8")
        seen.append(await client.call_tool("multi_edit", {"file_path": "app.py", "edits": [
            {"old_string": "y = 3", "new_string": "y = 4"}]}))
        return seen

    viewed, stale, made, stale_again = in_process(tmp_path, run)
    assert text(viewed).endswith(f"[app.py version {viewed.structured_content['version']}]\n")
    assert stale.is_error and "app.py changed since you viewed it" in text(stale) and "     1\tx = 1\n" in text(stale)
    assert not made.is_error and made.structured_content["replacements"] == 1
    assert stale_again.is_error and "app.py changed since you viewed it" in text(stale_again)
    assert "     2\ty = 3\n" in text(stale_again) and app.read_text() == "x = 5\ny = 3\n"


@pytest.mark.parametrize("where", ["/", "home"])
def test_without_root_in_slash_or_the_home_folder_it_refuses_and_asks_for_root(tmp_path: Path, where: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = subprocess.run([sys.executable, "-m", "editblocks", "mcp"], capture_output=True, text=True, timeout=60,
                          cwd="/" if where == "/" else home, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": SRC, "HOME": str(home)})
    assert done.returncode == 2 and done.stdout == ""
    message = done.stderr.strip()
    assert message.startswith("Error: no --root, and the server was started in ") and "pass --root" in message
    assert "\n" not in message


def test_the_client_configurations_in_the_docs_start_a_working_server(tmp_path: Path) -> None:
    """Each stdio configuration of docs/mcp.md, with its example paths pointed at this venv and a project here."""
    page = (Path(SRC).parent / "docs" / "mcp.md").read_text(encoding="utf-8")
    blocks = [json.loads(block) for block in re.findall(r"^```json\n(.*?)^```$", page, re.DOTALL | re.MULTILINE)]
    entries = [entry for block in blocks for entry in (block.get("mcpServers") or block.get("servers") or {}).values()
               if "command" in entry]
    assert len(entries) == 3 and all(Path(entry["command"]).is_absolute() for entry in entries)
    assert any(entry["command"].endswith("/uvx") and entry["args"][:4] == ["--from", "editblocks[mcp]", "editblocks",
                                                                             "mcp"] for entry in entries)
    (tmp_path / "app.py").write_text("x = 1\n", encoding="utf-8")
    substitutes = {"/home/you/project": str(tmp_path), "${workspaceFolder}": str(tmp_path)}
    local = [entry for entry in entries if entry["command"].endswith("/editblocks")]
    assert len(local) == 2
    for entry in local:
        args = [substitutes.get(arg, arg) for arg in entry["args"]]
        assert args[:2] == ["mcp", "--root"] and Path(args[2]).is_absolute()
        params = StdioServerParameters(command=str(Path(sys.executable).parent / "editblocks"), args=args,
                                       cwd="/", env={"PYTHONPATH": SRC})
        assert "     1\tx = 1\n" in text(anyio.run(view_app, params))


async def view_app(params: StdioServerParameters) -> Any:
    async with Client(params, read_timeout_seconds=60) as client:
        return await client.call_tool("str_replace_based_edit_tool", {"command": "view", "path": "app.py"})
