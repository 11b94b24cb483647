"""editblocks.tools: the tool definitions in each vendor's shape, and ToolHandler running real calls on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from editblocks.text.document import Document
from editblocks.tools import (
    TOOL_NAMES,
    ToolHandler,
    anthropic_tools,
    openai_chat_tools,
    openai_responses_tools,
)
from editblocks.tools.text_editor import LineEdit, Occurrences, joined, replace_once

EDITOR = "str_replace_based_edit_tool"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def f():\n\treturn 1\n\n\ndef g():\n\treturn 1\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_bytes(b"a = 1\r\nb = 2\r\n")
    (tmp_path / "pkg" / "deep").mkdir()
    (tmp_path / "pkg" / "deep" / "hidden_below.py").write_text("x\n")
    (tmp_path / ".secret").write_text("s\n")
    return tmp_path


def edit(handler: ToolHandler, **arguments: object):
    return handler.call(EDITOR, arguments)


# --- definitions ------------------------------------------------------------------------------------


def test_chat_completions_tools_are_function_tools_with_json_schema() -> None:
    tools = openai_chat_tools()
    assert [tool["function"]["name"] for tool in tools] == list(TOOL_NAMES)
    for tool in tools:
        assert tool["type"] == "function"
        assert tool["function"]["parameters"]["type"] == "object"
        assert tool["function"]["description"]
    editor = tools[0]["function"]["parameters"]
    assert editor["required"] == ["command", "path"]
    assert editor["properties"]["command"]["enum"] == ["view", "create", "str_replace", "insert", "undo_edit"]


def test_responses_tools_are_flat_and_apply_patch_is_the_builtin_tool() -> None:
    tools = openai_responses_tools()
    assert {"type": "apply_patch"} in tools
    functions = [tool for tool in tools if tool["type"] == "function"]
    assert {tool["name"] for tool in functions} == set(TOOL_NAMES) - {"apply_patch"}
    assert all("parameters" in tool and "function" not in tool for tool in functions)
    as_function = openai_responses_tools(["apply_patch"], builtin_apply_patch=False)
    assert as_function[0]["name"] == "apply_patch"
    assert as_function[0]["parameters"]["required"] == ["input"]


def test_anthropic_tools_use_input_schema_and_the_builtin_text_editor() -> None:
    tools = anthropic_tools(max_characters=5000)
    assert tools[0] == {"type": "text_editor_20250728", "name": EDITOR, "max_characters": 5000}
    for tool in tools[1:]:
        assert set(tool) == {"name", "description", "input_schema"}
    custom = anthropic_tools([EDITOR], builtin_text_editor=False)[0]
    assert custom["input_schema"]["properties"]["insert_line"]["type"] == "integer"
    with pytest.raises(ValueError, match="unknown tool"):
        anthropic_tools(["rm_rf"])


def test_definitions_are_plain_json() -> None:
    for tools in (openai_chat_tools(), openai_responses_tools(), anthropic_tools()):
        assert json.loads(json.dumps(tools)) == tools


# --- str_replace as text -------------------------------------------------------------------------------


@given(st.text(alphabet="ab\n\x0b\u2028 ", max_size=30), st.text(alphabet="ab\n", min_size=1, max_size=4),
       st.text(alphabet="xb\n", max_size=4))
def test_replace_once_given_the_file_text_decides_as_it_does_from_the_lines(text: str, old: str, new: str) -> None:
    """The text editor hands its file's own text to `replace_once` when the file has no CR (no join needed): it is
    then exactly the lines joined, so every decision is the same."""
    document = Document.from_text(text)
    lines, final_newline = list(document.lines), document.final_newline
    assert joined(lines, final_newline) == text
    assert replace_once(lines, final_newline, old, new, text) == replace_once(lines, final_newline, old, new)


def test_replace_once_works_on_text_inside_lines_and_across_them() -> None:
    assert replace_once(["ab", "cd"], True, "b\nc", "X") == LineEdit(0, 2, ("aXd",))
    assert replace_once(["a", "b"], True, "a\n", "") == LineEdit(0, 1, ())
    assert replace_once(["a", "b"], True, "a\n", "x") == LineEdit(0, 2, ("xb",))
    assert replace_once(["a", "b"], False, "b", "c") == LineEdit(1, 2, ("c",))
    assert replace_once(["aaa"], True, "aa", "x") == Occurrences((1, 1), False)


def test_str_replace_changes_only_the_quoted_text_and_keeps_tabs(project: Path) -> None:
    handler = ToolHandler(project)
    reply = edit(handler, command="str_replace", path="app.py", old_str="def g():\n\treturn 1", new_str="def g():\n\treturn 2")
    assert reply.ok, reply.text
    assert (project / "app.py").read_text() == "def f():\n\treturn 1\n\n\ndef g():\n\treturn 2\n"
    assert "     6\t\treturn 2" in reply.text
    assert reply.result is not None and reply.result.written and reply.result.files_modified == ("app.py",)
    assert reply.result.results[0].start_line == 5


def test_str_replace_of_a_fragment_inside_a_line(project: Path) -> None:
    handler = ToolHandler(project)
    assert edit(handler, command="str_replace", path="pkg/mod.py", old_str="b = ", new_str="beta = ").ok
    assert (project / "pkg" / "mod.py").read_bytes() == b"a = 1\r\nbeta = 2\r\n"


def test_str_replace_refuses_text_that_occurs_twice_naming_every_line(project: Path) -> None:
    before = (project / "app.py").read_bytes()
    reply = edit(ToolHandler(project), command="str_replace", path="app.py", old_str="return 1", new_str="return 2")
    assert not reply.ok
    assert "occurs 2 times" in reply.text and "lines 2 and 6" in reply.text
    assert (project / "app.py").read_bytes() == before


def test_str_replace_not_found_falls_back_to_the_ladder_and_says_which_rung(project: Path) -> None:
    reply = edit(ToolHandler(project), command="str_replace", path="app.py",
                 old_str="def g():\n    return 1\n", new_str="def g():\n    return 3\n")
    assert reply.ok, reply.text
    assert "strategy: indentation" in reply.text
    assert (project / "app.py").read_text().endswith("def g():\n\treturn 3\n")


def test_str_replace_not_found_shows_the_closest_lines(project: Path) -> None:
    reply = edit(ToolHandler(project), command="str_replace", path="app.py",
                 old_str="def g():\n\treturn 11\n", new_str="x")
    assert not reply.ok
    assert "closest text is at lines" in reply.text
    assert "return 1" in reply.text


def test_the_tool_call_never_expands_tabs(project: Path) -> None:
    (project / "t.mk").write_text("all:\n\techo a\n\techo b\n")
    assert edit(ToolHandler(project), command="str_replace", path="t.mk", old_str="echo a", new_str="echo A").ok
    assert (project / "t.mk").read_text() == "all:\n\techo A\n\techo b\n"


# --- view, create, insert, undo ---------------------------------------------------------------------


def test_view_numbers_lines_and_honours_view_range(project: Path) -> None:
    handler = ToolHandler(project)
    assert edit(handler, command="view", path="app.py").text.startswith("     1\tdef f():\n     2\t\treturn 1\n")
    ranged = edit(handler, command="view", path="app.py", view_range=[5, -1])
    assert ranged.text == "     5\tdef g():\n     6\t\treturn 1\n"
    bad = edit(handler, command="view", path="app.py", view_range=[9, 12])
    assert not bad.ok and "has 6 lines" in bad.text


def test_view_of_a_folder_lists_two_levels_without_hidden_files(project: Path) -> None:
    handler = ToolHandler(project)
    listing = edit(handler, command="view", path=".").text
    assert "app.py" in listing and "pkg/" in listing and "pkg/mod.py" in listing and "pkg/deep/" in listing
    assert "hidden_below" not in listing and ".secret" not in listing and ".editblocks" not in listing
    assert "deep/hidden_below.py" in edit(handler, command="view", path="pkg").text


def test_view_refuses_paths_outside_the_root(project: Path) -> None:
    handler = ToolHandler(project)
    for path in ("../", "..", "/etc/passwd", "../x"):
        reply = edit(handler, command="view", path=path)
        assert not reply.ok, path
        assert "outside the project root" in reply.text


def test_create_makes_a_file_and_refuses_an_existing_one(project: Path) -> None:
    handler = ToolHandler(project)
    created = edit(handler, command="create", path="new/dir/c.py", file_text="print(1)")
    assert created.ok and (project / "new" / "dir" / "c.py").read_text() == "print(1)"  # as given
    assert created.result is not None and created.result.files_created == ("new/dir/c.py",)
    (project / "empty.txt").write_text("")
    for path in ("app.py", "empty.txt"):
        refused = edit(handler, command="create", path=path, file_text="x")
        assert not refused.ok and "already exists" in refused.text
    assert (project / "empty.txt").read_text() == ""


def test_insert_after_a_line_and_at_the_top(project: Path) -> None:
    handler = ToolHandler(project)
    assert edit(handler, command="insert", path="pkg/mod.py", insert_line=1, new_str="mid = 0").ok
    assert edit(handler, command="insert", path="pkg/mod.py", insert_line=0, new_str="# top\n").ok
    assert (project / "pkg" / "mod.py").read_bytes() == b"# top\r\na = 1\r\nmid = 0\r\nb = 2\r\n"
    late = edit(handler, command="insert", path="pkg/mod.py", insert_line=9, new_str="x")
    assert not late.ok and "from 0 (the top) to 4" in late.text


def test_insert_inserts_even_when_the_same_line_follows(project: Path) -> None:
    (project / "braces.c").write_text("{\n}\n")
    assert edit(ToolHandler(project), command="insert", path="braces.c", insert_line=1, new_str="}").ok
    assert (project / "braces.c").read_text() == "{\n}\n}\n"


def test_undo_edit_goes_through_the_journal(project: Path) -> None:
    handler = ToolHandler(project)
    assert not edit(handler, command="undo_edit", path="app.py").ok  # nothing to undo yet
    before = (project / "app.py").read_bytes()
    assert edit(handler, command="str_replace", path="app.py", old_str="def f", new_str="def h").ok
    assert edit(handler, command="undo_edit", path="app.py").ok
    assert (project / "app.py").read_bytes() == before
    assert (project / ".editblocks").is_dir()


# --- answers, patches, bad input --------------------------------------------------------------------


ANSWER = "app.py\n```python\n<<<<<<< SEARCH\ndef f():\n=======\ndef first():\n>>>>>>> REPLACE\n```\n"


def test_check_edits_writes_nothing_and_apply_edits_applies(project: Path) -> None:
    handler = ToolHandler(project)
    before = (project / "app.py").read_bytes()
    checked = handler.call("check_edits", {"edits": ANSWER})
    assert checked.ok and checked.result is not None and checked.result.dry_run
    assert (project / "app.py").read_bytes() == before
    applied = handler.call("apply_edits", json.dumps({"edits": ANSWER}))
    assert applied.ok and "Files changed: app.py" in applied.text
    assert (project / "app.py").read_text().startswith("def first():\n")


def test_apply_edits_failure_carries_the_feedback_message(project: Path) -> None:
    reply = ToolHandler(project).call("apply_edits", {"edits": ANSWER.replace("def f():", "def nope():")})
    assert not reply.ok
    assert "not found" in reply.text and "How to continue" in reply.text


@pytest.mark.parametrize(("name", "arguments", "expected"), [
    (EDITOR, {"path": "app.py"}, "`command` is missing"),
    (EDITOR, {"command": "delete", "path": "app.py"}, "must be one of"),
    (EDITOR, {"command": "view", "path": 7}, "`path` must be a string, not a number"),
    (EDITOR, {"command": "str_replace", "path": "app.py", "new_str": "x"}, "`old_str` is missing"),
    (EDITOR, {"command": "str_replace", "path": "app.py", "old_str": "", "new_str": "x"}, "`old_str` is empty"),
    (EDITOR, {"command": "insert", "path": "app.py", "new_str": "x", "insert_line": "two"}, "must be an integer"),
    (EDITOR, {"command": "view", "path": "app.py", "view_range": [1]}, "two integers"),
    (EDITOR, "{not json", "not valid JSON"),
    (EDITOR, ["view"], "must be a JSON object"),
    ("apply_edits", {"edits": ANSWER, "format": "klingon"}, "`format` must be one of"),
    ("apply_edits", {}, "`edits` is missing"),
    ("apply_patch", {"operation": {"type": "rename_file", "path": "a"}}, "operation type must be one of"),
    ("apply_patch", {}, "`input` (the patch"),
    ("apply_patch", {"operation": {"type": "delete_file", "path": "a\n*** Delete File: b"}}, "one non-empty line"),
    ("rm", {}, "there is no tool `rm`"),
])
def test_bad_arguments_get_an_error_reply_never_an_exception(project: Path, name: str, arguments: object,
                                                              expected: str) -> None:
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    reply = ToolHandler(project).call(name, arguments)
    assert not reply.ok and reply.is_error
    assert reply.text.startswith("Error: ") and expected in reply.text
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".editblocks" not in p.parts} == before


def test_undo_edit_refuses_when_the_last_edit_was_to_another_file(project: Path) -> None:
    handler = ToolHandler(project)
    assert edit(handler, command="str_replace", path="pkg/mod.py", old_str="b = 2", new_str="b = 3").ok
    refused = edit(handler, command="undo_edit", path="app.py")
    assert not refused.ok and "changed pkg/mod.py, not app.py" in refused.text
    assert (project / "pkg" / "mod.py").read_bytes() == b"a = 1\r\nb = 3\r\n"
    assert edit(handler, command="undo_edit", path="pkg/mod.py").ok
    assert (project / "pkg" / "mod.py").read_bytes() == b"a = 1\r\nb = 2\r\n"


PATCH = ("*** Begin Patch\n*** Update File: app.py\n@@ def g():\n-\treturn 1\n+\treturn 2\n"
         "*** Delete File: pkg/mod.py\n*** Add File: notes.md\n+# notes\n*** End Patch\n")


def test_apply_patch_takes_v4a_text_and_undo_brings_a_deleted_file_back(project: Path) -> None:
    handler = ToolHandler(project)
    reply = handler.call("apply_patch", {"input": PATCH})
    assert reply.ok, reply.text
    assert "Files changed: notes.md (created), app.py, pkg/mod.py (deleted)." in reply.text
    assert (project / "app.py").read_text().endswith("def g():\n\treturn 2\n")
    assert not (project / "pkg" / "mod.py").exists() and (project / "notes.md").read_text() == "# notes\n"
    assert handler.call("undo").ok
    assert (project / "pkg" / "mod.py").read_bytes() == b"a = 1\r\nb = 2\r\n" and not (project / "notes.md").exists()


def test_apply_patch_takes_the_responses_api_operations(project: Path) -> None:
    handler = ToolHandler(project)
    assert handler.call("apply_patch", {"operation": {"type": "create_file", "path": "n.txt", "diff": "+a\n+b\n"}}).ok
    assert (project / "n.txt").read_text() == "a\nb\n"
    update = {"type": "update_file", "path": "n.txt", "diff": "@@\n a\n-b\n+c\n"}
    assert handler.call("apply_patch", update).ok and (project / "n.txt").read_text() == "a\nc\n"
    assert handler.call("apply_patch", {"type": "delete_file", "path": "n.txt"}).ok
    assert not (project / "n.txt").exists()


def test_apply_patch_refuses_an_ambiguous_hunk_naming_both_places(project: Path) -> None:
    before = (project / "app.py").read_bytes()
    reply = ToolHandler(project).call("apply_patch", {"operation": {
        "type": "update_file", "path": "app.py", "diff": "@@\n-\treturn 1\n+\treturn 2\n"}})
    assert not reply.ok and "lines 2 and 6" in reply.text and "*** Begin Patch" in reply.text
    assert (project / "app.py").read_bytes() == before


def test_a_thousand_occurrences_give_a_bounded_reply(project: Path) -> None:
    (project / "many.txt").write_text("x\n" * 5000)
    reply = edit(ToolHandler(project), command="str_replace", path="many.txt", old_str="x", new_str="y")
    assert not reply.ok and "occurs 1000 or more times" in reply.text and "and 950 more" in reply.text
    assert len(reply.text) < 1000


TWO_FOR_ONE_FILE = ("calc.py\n```python\n<<<<<<< SEARCH\ndef total(xs):\n=======\ndef add_up(xs):\n>>>>>>> REPLACE\n```\n"
                    "calc.py\n```python\n<<<<<<< SEARCH\nprint(total(xs))\n=======\nprint(add_up(xs))\n"
                    ">>>>>>> REPLACE\n```\n")
CALC = "def total(xs):\n    return sum(xs)\n\n\nprint(total([1]))\n"


@pytest.mark.parametrize("hold", [True, False])
def test_apply_edits_with_a_failed_block_leaves_its_file_and_says_what_to_send(tmp_path: Path, hold: bool) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    handler = ToolHandler(tmp_path, hold=hold)
    reply = handler.call("apply_edits", {"edits": TWO_FOR_ONE_FILE})
    assert not reply.ok and (tmp_path / "calc.py").read_text() == CALC  # never renamed without its caller
    assert reply.result is not None and [r.code.value for r in reply.result.results] == ["held", "not-found"]
    if hold:  # the handler keeps the good block: only the failed one is asked for, and it lands with it
        assert "do not send them again: send only the failed blocks" in reply.text
        fixed = ("calc.py\n```python\n<<<<<<< SEARCH\nprint(total([1]))\n=======\nprint(add_up([1]))\n"
                 ">>>>>>> REPLACE\n```\n")
        assert handler.call("apply_edits", {"edits": fixed}).ok
        assert (tmp_path / "calc.py").read_text() == CALC.replace("total", "add_up")
    else:  # a handler that keeps nothing asks for every block of the file again, together
        assert "Nothing was written to `calc.py`: a file is written only when every block for it applies" in reply.text
        assert "Send every block for `calc.py` again, in one reply" in reply.text
        assert handler.session.held is None


def test_str_replace_is_one_edit_and_is_never_held(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    handler = ToolHandler(tmp_path)
    assert handler.call("apply_edits", {"edits": TWO_FOR_ONE_FILE}).result.holding == ("calc.py",)  # type: ignore[union-attr]
    reply = edit(handler, command="str_replace", path="calc.py", old_str="return sum(xs)", new_str="return sum(xs, 0)")
    assert reply.ok and "sum(xs, 0)" in (tmp_path / "calc.py").read_text()
    assert "def total" in (tmp_path / "calc.py").read_text()  # the held block still waits for its caller's fix
