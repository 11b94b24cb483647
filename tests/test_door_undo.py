"""A door undoes only the runs it made (issues 22 and 25): the MCP server's `undo` and the review page's Undo.

The user's own `editblocks apply` between a door's edit and its undo used to be what the door's undo took back.
Each test makes that sequence for real (the MCP server as a process driven by the official SDK's client, the
page's session and its HTTP API, the page in Chromium) and checks that the command line's run stays, with the
reason said, and that the explicit ways to take back the newest run (`mcp --undo-any-run`, the page's
"Undo newest run") still do.
"""

from __future__ import annotations

import http.client
import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from playwright.sync_api import Browser, expect

from editblocks.cli import main
from editblocks.tools import ToolHandler
from editblocks.web import ReviewState

from helpers_apply import diff_edit
from helpers_web import ANSWER, BROWSER_TIMEOUT_MS, FILES, make_project, read_tree, served

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
expect.set_options(timeout=BROWSER_TIMEOUT_MS)
SRC = str(Path(__file__).resolve().parent.parent / "src")
CLI_EDIT = diff_edit("util.py", ("def half(x):\n", "def halve(x):\n"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return make_project(root)


def cli_apply(project: Path) -> str:
    """`editblocks apply` as the user runs it, between the door's edit and its undo; returns the run's id."""
    answer = project.parent / "cli-answer.md"
    answer.write_text(CLI_EDIT)
    result = CliRunner().invoke(main, ["apply", str(answer), "--root", str(project)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "def halve(x):" in read_tree(project)["util.py"]
    return sorted(path.name for path in (project / ".editblocks" / "journal").iterdir())[-1]


def text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def mcp_session(project: Path, *options: str, between: Any = None) -> dict[str, Any]:
    """A stdio MCP server: the model creates notes.txt, ``between`` runs, then the model calls undo twice."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "editblocks", "mcp", "--root", str(project),
                                                                 *options],
                                   cwd=str(project.parent), env={"PYTHONPATH": SRC})
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            seen["create"] = await client.call_tool("str_replace_based_edit_tool", {
                "command": "create", "path": "notes.txt", "file_text": "from the model\n"})
            seen["between"] = between() if between else None
            seen["undo"] = await client.call_tool("undo", {})
            seen["undo_edit"] = await client.call_tool("str_replace_based_edit_tool", {
                "command": "undo_edit", "path": "util.py"})
            seen["again"] = await client.call_tool("undo", {})

    anyio.run(session)
    return seen


# --- the MCP server ----------------------------------------------------------------------------------------


def test_mcp_undo_leaves_a_cli_run_made_after_its_own_edit_and_says_why(project: Path) -> None:
    runs: list[str] = []
    seen = mcp_session(project, between=lambda: runs.append(cli_apply(project)))
    assert not seen["create"].is_error
    for call in ("undo", "undo_edit", "again"):
        assert seen[call].is_error, text(seen[call])
        assert runs[0] in text(seen[call]) and "not made by this MCP server" in text(seen[call])
        assert "--undo-any-run" in text(seen[call])
    assert "def halve(x):" in read_tree(project)["util.py"]  # the user's run is in place
    assert (project / "notes.txt").read_text() == "from the model\n"  # and so is the model's, under it


def test_mcp_undo_with_no_edit_of_its_own_leaves_the_users_run(project: Path) -> None:
    run = cli_apply(project)
    params = StdioServerParameters(command=sys.executable, args=["-m", "editblocks", "mcp", "--root", str(project)],
                                   cwd=str(project.parent), env={"PYTHONPATH": SRC})
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            seen["undo"] = await client.call_tool("undo", {})

    anyio.run(session)
    assert seen["undo"].is_error and run in text(seen["undo"])
    assert "def halve(x):" in read_tree(project)["util.py"]


def test_mcp_undo_takes_back_its_own_edit(project: Path) -> None:
    seen = mcp_session(project)
    assert not seen["undo"].is_error, text(seen["undo"])
    assert not (project / "notes.txt").exists()
    assert seen["again"].is_error  # nothing of its own is left: the journal's older runs are not its to undo


def test_mcp_with_undo_any_run_undoes_the_newest_run_whoever_made_it(project: Path) -> None:
    seen = mcp_session(project, "--undo-any-run", between=lambda: cli_apply(project))
    assert not seen["undo"].is_error, text(seen["undo"])  # the CLI's run, taken back as asked
    assert not seen["again"].is_error, text(seen["again"])  # then the server's own
    assert read_tree(project) == FILES and not (project / "notes.txt").exists()


def test_a_tool_handler_undoes_only_its_own_runs_unless_told_otherwise(project: Path) -> None:
    handler = ToolHandler(project)
    assert handler.call("str_replace_based_edit_tool", {"command": "create", "path": "n.txt",
                                                        "file_text": "x\n"}).ok
    run = cli_apply(project)
    refused = handler.call("undo", {})
    assert not refused.ok and run in refused.text
    assert "def halve(x):" in read_tree(project)["util.py"]
    anyone = ToolHandler(project, undo_any_run=True).call("undo", {})
    assert anyone.ok, anyone.text
    assert read_tree(project) == FILES
    assert handler.call("undo", {}).ok  # its own run is the newest again
    assert not (project / "n.txt").exists()


# --- the review page -----------------------------------------------------------------------------------------


def test_page_undo_leaves_a_cli_run_and_offers_the_newest_run_separately(project: Path) -> None:
    session = ReviewState(project)
    session.load(ANSWER)
    assert session.apply() is not None
    run = cli_apply(project)
    assert not session.undo()
    view = session.view()
    assert run in view["message"] and "not made on this page" in view["message"]
    assert view["newest_run"] == run and view["applied"]
    assert "def halve(x):" in read_tree(project)["util.py"]
    assert session.undo(newest=True)  # the separate, explicit action
    assert "def halve(x):" not in read_tree(project)["util.py"] and "x + x" in read_tree(project)["util.py"]
    assert session.view()["newest_run"] is None and session.view()["applied"]
    assert session.undo()  # the page's own run is the newest again
    assert read_tree(project) == FILES


def post(port: int, path: str, body: str) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", path, body=body, headers={"content-type": "application/json"})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, json.loads(data)


def test_page_undo_over_http_needs_the_explicit_newest_flag(project: Path) -> None:
    with served(project) as (_, server):
        base = f"/{server.token}/api"
        assert post(server.port, f"{base}/apply", "{}")[0] == 200
        run = cli_apply(project)
        status, view = post(server.port, f"{base}/undo", "{}")
        assert status == 200 and view["newest_run"] == run
        assert "def halve(x):" in read_tree(project)["util.py"]
        status, view = post(server.port, f"{base}/undo", '{"newest": "yes"}')
        assert status == 400  # only a JSON true asks for it
        assert "def halve(x):" in read_tree(project)["util.py"]
        status, view = post(server.port, f"{base}/undo", '{"newest": true}')
        assert status == 200 and view["newest_run"] is None
        assert "def halve(x):" not in read_tree(project)["util.py"]


def test_page_undo_in_the_browser_keeps_the_cli_run_until_asked(browser: Browser, project: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    with served(project) as (_, server):
        page.goto(server.url)
        newest = page.get_by_role("button", name="Undo newest run")
        expect(newest).to_be_hidden()
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(page.get_by_role("button", name="Undo", exact=True)).to_be_enabled()
        run = cli_apply(project)
        page.get_by_role("button", name="Undo", exact=True).click()
        expect(page.get_by_role("status")).to_contain_text("not made on this page")
        expect(newest).to_be_visible()
        expect(newest).to_have_accessible_description(f"takes back run {run}, made by another editblocks command")
        assert "def halve(x):" in read_tree(project)["util.py"]
        newest.click()
        expect(newest).to_be_hidden()
        page.get_by_role("button", name="Undo", exact=True).click()
        expect(page.get_by_role("button", name="Undo", exact=True)).to_be_disabled()
    context.close()
    assert read_tree(project) == FILES
