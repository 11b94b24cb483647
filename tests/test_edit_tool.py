"""The `edit`, `multi_edit` and `view` tools (Claude Code's shape) through ToolHandler, on real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from editblocks import ApplyOptions, MemoryStore, apply
from editblocks.tools import ToolHandler, anthropic_tools, openai_chat_tools, openai_responses_tools
from editblocks.tools.edit_arguments import StringEdit
from editblocks.tools.string_edits import EditRefused, plan_string_edits


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def f():\n    x = 1\n    x = 1\n    return x\n", encoding="utf-8")
    return tmp_path


def read(project: Path, name: str = "app.py") -> str:
    return (project / name).read_bytes().decode("utf-8")


def test_the_definitions_have_claude_codes_fields_in_every_shape() -> None:
    chat = {tool["function"]["name"]: tool["function"]["parameters"] for tool in openai_chat_tools(["edit", "multi_edit", "view"])}
    assert chat["edit"]["required"] == ["file_path", "old_string", "new_string"]
    assert chat["edit"]["properties"]["replace_all"]["type"] == "boolean"
    assert chat["multi_edit"]["properties"]["edits"]["items"]["required"] == ["old_string", "new_string"]
    assert chat["view"]["required"] == ["file_path"]
    assert openai_responses_tools(["edit"])[0]["parameters"] == chat["edit"]
    assert anthropic_tools(["multi_edit"])[0]["input_schema"] == chat["multi_edit"]


def test_a_unique_old_string_is_replaced_inside_a_line(project: Path) -> None:
    reply = ToolHandler(project).call("edit", {"file_path": "app.py", "old_string": "return x", "new_string": "return -x"})
    assert reply.ok and "line 4" in reply.text
    assert read(project).endswith("    return -x\n")


def test_an_ambiguous_old_string_is_refused_with_every_line_and_nothing_is_written(project: Path) -> None:
    before = read(project)
    reply = ToolHandler(project).call("edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})
    assert reply.is_error and "occurs 2 times" in reply.text and "lines 2 and 3" in reply.text
    assert "replace_all" in reply.text and read(project) == before


@pytest.mark.parametrize("flag", [{"replace_all": True}, {"replace_all": "true"}, {"replace_all": "True"},
                                  {"allow_multiple": True}, {"replaceAll": True}, {"expected_replacements": 2},
                                  {"expected_replacements": "2"}])
def test_replace_all_and_its_spellings_replace_every_occurrence_and_name_the_lines(project: Path, flag: dict) -> None:
    reply = ToolHandler(project).call("edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2", **flag})
    assert reply.ok, reply.text
    assert "Replaced 2 occurrences" in reply.text and "lines 2 and 3" in reply.text
    assert read(project) == "def f():\n    x = 2\n    x = 2\n    return x\n"


def test_expected_replacements_refuses_another_count(project: Path) -> None:
    before = read(project)
    reply = ToolHandler(project).call("edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2",
                                               "expected_replacements": 3})
    assert reply.is_error and "occurs 2 times" in reply.text and "`expected_replacements` is 3" in reply.text
    reply = ToolHandler(project).call("edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2",
                                               "replace_all": True, "expected_replacements": 1})
    assert reply.is_error and read(project) == before


def test_replace_all_replaces_occurrences_sharing_a_line_and_spanning_lines(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("ab ab\nab\nx\n")
    reply = ToolHandler(tmp_path).call("edit", {"file_path": "t.txt", "old_string": "ab", "new_string": "c\nd",
                                                "replace_all": True})
    assert reply.ok and "Replaced 3 occurrences" in reply.text and "lines 1 and 2" in reply.text
    assert (tmp_path / "t.txt").read_text() == "c\nd c\nd\nc\nd\nx\n"


def test_old_text_not_found_as_written_goes_through_the_ladder(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n\tif a:\n\t\treturn 1\n")
    reply = ToolHandler(tmp_path).call("edit", {"file_path": "m.py", "old_string": "    if a:\n        return 1",
                                                "new_string": "    if b:\n        return 2"})
    assert reply.ok and "strategy: indentation" in reply.text
    assert (tmp_path / "m.py").read_text() == "def f():\n\tif b:\n\t\treturn 2\n"


def test_old_text_not_found_names_the_closest_lines_and_how_they_differ(project: Path) -> None:
    reply = ToolHandler(project).call("edit", {"file_path": "app.py", "old_string": "def f():\n    y = 1\n    x = 1\n    return y",
                                               "new_string": "pass"})
    assert reply.is_error and "was not found in app.py" in reply.text
    assert "closest text is at lines 1–4" in reply.text
    diff = reply.text.split("(`-` old_string, `+` the file):\n")[1].splitlines()
    assert any(line.startswith("-") and line.endswith("return y") for line in diff)
    assert "+ 4 |     return x" in diff


def test_a_resent_edit_says_the_new_text_is_already_there(project: Path) -> None:
    handler = ToolHandler(project)
    call = {"file_path": "app.py", "old_string": "    return x\n", "new_string": "    return x * 2\n"}
    assert handler.call("edit", call).ok
    again = handler.call("edit", call)
    assert again.is_error and "already occurs at line 4" in again.text


def test_crlf_bom_and_mixed_endings_are_kept(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\nfour\r\n")
    handler = ToolHandler(tmp_path)
    assert handler.call("edit", {"file_path": "w.txt", "old_string": "two\r\nthree", "new_string": "2\n3\n3b"}).ok
    assert (tmp_path / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\n3b\nfour\r\n"  # new lines take the endings of the lines they replace


def test_multi_edit_applies_in_order_and_all_or_nothing(project: Path) -> None:
    handler = ToolHandler(project)
    before = read(project)
    failed = handler.call("multi_edit", {"file_path": "app.py", "edits": [
        {"old_string": "def f", "new_string": "def g"}, {"old_string": "missing text", "new_string": "q"}]})
    assert failed.is_error and failed.text.startswith("Error: edit 2 of 2:") and "None of the edits" in failed.text
    assert read(project) == before
    done = handler.call("multi_edit", {"file_path": "app.py", "edits": json.dumps([
        {"old_string": "def f", "new_string": "def g"},
        {"old_string": "x = 1", "new_string": "y = 1", "replace_all": "true"},
        {"old_string": "def g():\n", "new_string": "def g():\n    '''doc'''\n"}])})
    assert done.ok and "Made 3 edits" in done.text
    assert read(project) == "def g():\n    '''doc'''\n    y = 1\n    y = 1\n    return x\n"
    assert handler.call("undo").ok and read(project) == before


def test_an_empty_old_string_creates_a_file_but_never_overwrites_one(project: Path) -> None:
    handler = ToolHandler(project)
    assert handler.call("edit", {"file_path": "new/mod.py", "old_string": "", "new_string": "x = 1\n"}).ok
    assert read(project, "new/mod.py") == "x = 1\n"
    refused = handler.call("edit", {"file_path": "app.py", "old_string": "", "new_string": "gone"})
    assert refused.is_error and "already exists" in refused.text and "gone" not in read(project)


@pytest.mark.parametrize(("name", "arguments", "message"), [
    ("edit", {"old_string": "a", "new_string": "b"}, "`file_path` is missing"),
    ("edit", {"file_path": "app.py", "new_string": "b"}, "`old_string` is missing"),
    ("edit", {"file_path": "app.py", "old_string": 3, "new_string": "b"}, "`old_string` must be a string"),
    ("edit", {"file_path": "app.py", "old_string": "x", "new_string": "x"}, "are the same"),
    ("edit", {"file_path": "app.py", "old_string": "x", "new_string": "y", "replace_all": "maybe"}, "true or false"),
    ("edit", {"file_path": "app.py", "old_string": "x", "new_string": "y", "expected_replacements": 0}, "1 or more"),
    ("edit", {"file_path": "app.py", "old_string": "x", "new_string": "y", "expected_replacements": "two"}, "integer"),
    ("edit", {"file_path": "../outside.py", "old_string": "x", "new_string": "y"}, "outside the project root"),
    ("edit", {"file_path": "nope.py", "old_string": "x", "new_string": "y"}, "does not exist"),
    ("edit", "not json", "not valid JSON"),
    ("multi_edit", {"file_path": "app.py"}, "`edits`"),
    ("multi_edit", {"file_path": "app.py", "edits": []}, "non-empty list"),
    ("multi_edit", {"file_path": "app.py", "edits": ["x"]}, "edit 1 of `edits` must be an object"),
    ("multi_edit", {"file_path": "app.py", "edits": [{"old_string": "def", "new_string": "d"}, {"old_string": "x"}]},
     "edit 2: the argument `new_string` is missing"),
    ("multi_edit", {"file_path": "app.py", "edits": [{"old_string": "def", "new_string": "d"}, {"old_string": "", "new_string": "y"}]},
     "empty `old_string`"),
    ("view", {"file_path": "app.py", "view_range": [1]}, "two integers"),
])
def test_bad_arguments_are_a_clear_error_and_nothing_is_written(project: Path, name: str, arguments: object,
                                                                 message: str) -> None:
    before = read(project)
    reply = ToolHandler(project).call(name, arguments)
    assert reply.is_error and reply.text.startswith("Error:") and message in reply.text, reply.text
    assert read(project) == before and not (project / "outside.py").exists()


def test_view_shows_numbered_lines_and_lists_folders(project: Path) -> None:
    handler = ToolHandler(project)
    assert handler.call("view", {"file_path": "app.py", "view_range": [2, 3]}).text == "     2\t    x = 1\n     3\t    x = 1\n"
    assert "app.py" in handler.call("view", {"path": "."}).text


def test_edit_multi_edit_view_and_undo_run_on_a_memory_store_through_the_session() -> None:
    store = MemoryStore({"app.py": "def f():\n    x = 1\n    return x\n"})
    handler = ToolHandler(store=store)
    reply = handler.call("edit", {"file_path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})
    assert reply.ok and reply.replacements == 1 and reply.result is not None and reply.result.run_id is not None
    assert handler.call("multi_edit", {"file_path": "app.py", "edits": [
        {"old_string": "def f", "new_string": "def g"}, {"old_string": "return x", "new_string": "return -x"}]}).ok
    assert handler.call("view", {"file_path": "app.py"}).text.splitlines()[0].endswith("def g():")
    assert handler.call("undo").ok and handler.call("undo").ok
    assert store.read("app.py").text == "def f():\n    x = 1\n    return x\n"  # type: ignore[union-attr]


def test_the_handlers_options_choose_the_ladder_of_an_edit(tmp_path: Path) -> None:
    """`strict` (as for `apply`) leaves only the exact rung: text found only with the indentation shifted is
    refused, and nothing is written."""
    (tmp_path / "m.py").write_text("def f():\n\tif a:\n\t\treturn 1\n")
    call = {"file_path": "m.py", "old_string": "    if a:\n        return 1", "new_string": "    if b:\n        return 2"}
    refused = ToolHandler(tmp_path, options=ApplyOptions(strict=True)).call("edit", call)
    assert refused.is_error and "was not found in m.py" in refused.text
    assert (tmp_path / "m.py").read_text() == "def f():\n\tif a:\n\t\treturn 1\n"
    assert ToolHandler(tmp_path, options=ApplyOptions()).call("edit", call).ok


def test_undo_takes_back_only_the_handlers_own_edits(project: Path) -> None:
    handler = ToolHandler(project)
    assert handler.call("edit", {"file_path": "app.py", "old_string": "return x", "new_string": "return 0"}).ok
    (project / "b.py").write_text("b = 1\n")
    assert apply("b.py\n<<<<<<< SEARCH\nb = 1\n=======\nb = 2\n>>>>>>> REPLACE\n", project).written
    refused = handler.call("undo")
    assert refused.is_error and "not made by this tool handler" in refused.text
    assert (project / "b.py").read_text() == "b = 2\n" and "return 0" in read(project)


def test_the_pure_planner_reports_which_edit_failed() -> None:
    refused = plan_string_edits(["a", "b"], True, [StringEdit("a", "c"), StringEdit("zz", "y")], "f")
    assert isinstance(refused, EditRefused) and refused.index == 1


_TEXT = st.text(alphabet="ab\n ", max_size=40)


@given(_TEXT, st.text(alphabet="ab\n", min_size=1, max_size=4), st.text(alphabet="ab\nc", max_size=4))
def test_replace_all_is_str_replace_and_every_kept_line_is_an_equal_original_line(text: str, old: str, new: str) -> None:
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []
    final = text.endswith("\n")
    planned = plan_string_edits(lines, final, [StringEdit(old, new, replace_all=True)], "f")
    if old not in text:
        return
    assert not isinstance(planned, EditRefused)
    change = planned.change
    result = lines[: change.start] + list(change.new_lines) + lines[change.end :]
    ends = final if change.final_newline is None else change.final_newline
    expected = text.replace(old, new)
    assert "\n".join(result) + ("\n" if result and ends else "") == expected
    assert change.sources is not None
    for line, source in zip(change.new_lines, change.sources):
        assert source is None or lines[source] == line
