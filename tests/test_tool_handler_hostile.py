"""`ToolHandler.call` never raises: hostile values of every JSON type in every argument of every tool, as a dict
and as the JSON text Chat Completions sends, get a reply (an `Error: …` line when the call cannot run)."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from editblocks.cli import main
from editblocks.tools import TOOL_NAMES, ToolHandler, tool_specs
from editblocks.tools.definitions import TEXT_EDITOR_COMMANDS

EDITOR = "str_replace_based_edit_tool"
APP = "def main():\n    print('hi')\n"
DEEP = 50_000


@contextmanager
def project() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="editblocks-hostile-"))
    try:
        root = folder / "project"
        root.mkdir()
        (root / "app.py").write_text(APP)
        yield root
    finally:
        shutil.rmtree(folder)


def replied(handler: ToolHandler, name: str, arguments: object) -> str:
    reply = handler.call(name, arguments)
    assert isinstance(reply.text, str) and reply.text
    assert reply.ok or reply.text.startswith(("Error", "No edit blocks", "Nothing", "The edit block")) or \
        "How to continue" in reply.text, reply.text
    if reply.text.startswith("Error"):
        assert "\n" not in reply.text.split("\n", 1)[0]
    return reply.text


def nested(depth: int, *, kind: str) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value] if kind == "list" else {"a": value}
    return value


NO_NUMBERS = ["--1", "²", "9" * 5000, "1e3", "0x10", "½", " ", "", "٣٣", 1e300, float("nan"), float("inf"), 2.5,
              10**5000, -(10**30), True, [3], {"n": 3}]


@pytest.mark.parametrize("value", NO_NUMBERS, ids=[f"value-{index}" for index in range(len(NO_NUMBERS))])
def test_insert_line_that_is_no_number_is_an_error_reply(value: object) -> None:
    with project() as root:
        handler = ToolHandler(root)
        text = replied(handler, EDITOR, {"command": "insert", "path": "app.py", "insert_line": value, "new_str": "x"})
        assert text.startswith("Error: str_replace_based_edit_tool: the argument `insert_line` must be an integer")
        assert "send `insert_line` as an integer" in text
        assert (root / "app.py").read_text() == APP
        assert replied(handler, EDITOR, {"command": "view", "path": "app.py", "view_range": [value, 2]}).startswith(
            "Error: str_replace_based_edit_tool: the argument `view_range` must be two integers")


@pytest.mark.parametrize(("view_range", "given"), [
    ([1, None], "an array whose second item is null"),
    (["a", 2], "an array whose first item is the string 'a'"),
    ([1, 2, 3], "an array of 3"),
    ({"from": 1}, "an object"),
])
def test_a_bad_view_range_is_named_for_what_it_holds(view_range: object, given: str) -> None:
    with project() as root:
        text = replied(ToolHandler(root), EDITOR, {"command": "view", "path": "app.py", "view_range": view_range})
        assert f"the argument `view_range` must be two integers, not {given}; send `view_range` as two" in text


def test_numbers_too_long_to_read_in_json_text_are_an_error_reply() -> None:
    with project() as root:
        handler = ToolHandler(root)
        for text in ('{"command": "insert", "path": "app.py", "new_str": "x", "insert_line": ' + "9" * 5000 + "}",
                     '{"command": "view", "path": "app.py", "view_range": [1, -' + "9" * 5000 + "]}"):
            assert replied(handler, EDITOR, text).startswith("Error: str_replace_based_edit_tool: the arguments")


def test_whole_numbers_written_otherwise_are_read() -> None:
    with project() as root:
        handler = ToolHandler(root)
        for value in ("1", " 2 ", "+0", 1.0):
            assert handler.call(EDITOR, {"command": "insert", "path": "app.py", "insert_line": value,
                                         "new_str": "# x"}).ok


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_arguments_nested_fifty_thousand_deep(kind: str) -> None:
    deep = nested(DEEP, kind=kind)
    text = ("[" * DEEP + "]" * DEEP) if kind == "list" else ('{"a":' * DEEP + "1" + "}" * DEEP)
    with project() as root:
        handler = ToolHandler(root, stale_reads=True)
        for name in TOOL_NAMES:
            replied(handler, name, deep)
            replied(handler, name, text)
            replied(handler, name, '{"edits": ' + text + ', "input": ' + text + "}")
            for argument in tool_specs([name])[0].parameters["properties"]:
                replied(handler, name, {argument: deep, "command": "view", "path": "app.py"})
        replied(handler, "apply_patch", {"operation": text})
        assert (root / "app.py").read_text() == APP


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=10**17, max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30)
    | st.sampled_from(["app.py", "../x", "/etc/passwd", "", ".", "-1", "²", "x" * 300, "app.py\n", *TEXT_EDITOR_COMMANDS,
                       "*** Begin Patch\n*** End Patch\n", "create_file", "update_file", "delete_file", "auto", "v4a"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def arguments_for(name: str) -> st.SearchStrategy[dict[str, Any]]:
    names = [*tool_specs([name])[0].parameters["properties"], "operation", "type", "path", "diff", "patch",
             "insert_text"]
    return st.dictionaries(st.sampled_from(names), json_values, max_size=6)


@settings(max_examples=300)
@given(st.data())
def test_every_json_type_in_every_argument_of_every_tool_gets_a_reply(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from([*TOOL_NAMES, "str_replace_editor", "no_such_tool"]))
    arguments = data.draw(arguments_for(name if name in TOOL_NAMES else EDITOR))
    with project() as root:
        handler = ToolHandler(root, stale_reads=data.draw(st.booleans()))
        replied(handler, name, arguments)
        replied(handler, name, json.dumps(arguments))
        for path in root.parent.iterdir():
            assert path == root  # nothing was written outside the root


def test_ask_tools_answers_a_call_with_a_list_for_format_and_goes_on(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    use_local_endpoint(monkeypatch)
    (tmp_path / "app.py").write_text(APP)
    monkeypatch.chdir(tmp_path)
    edits = "app.py\n<<<<<<< SEARCH\n    print('hi')\n=======\n    print('hello')\n>>>>>>> REPLACE\n"
    bad = {"id": "call_1", "name": "apply_edits", "arguments": {"edits": edits, "format": []}}
    good = {"id": "call_2", "name": "apply_edits", "arguments": {"edits": edits}}
    with scripted([Answer("", tool_calls=(bad,)), Answer("", tool_calls=(good,)), Answer("Done.\n")]) as server:
        result = CliRunner().invoke(main, ["ask", "Say hello", "app.py", "--model", "m", "--base-url", server.base_url,
                                           "--api-key-env", "TEST_KEY", "--tools", "--yes"])
    assert result.exit_code == 0 and result.exception is None, result.output
    told = server.requests[1]["body"]["messages"][-1]["content"]
    assert told.startswith("Error: apply_edits: the argument `format` must be a string, not an array; send `format` as")
    assert (tmp_path / "app.py").read_text() == APP.replace("'hi'", "'hello'")
