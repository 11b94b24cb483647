"""The text editor tool does exactly what its reference does: `create` writes `file_text` as given, `insert` of
nothing is one empty line, `str_replace` is a string replacement (an unterminated last line replaced by nothing
leaves the line before it whole), and an edit that changes nothing says so and is no edit to undo."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from editblocks.tools import ToolHandler

EDITOR = "str_replace_based_edit_tool"


def call(handler: ToolHandler, **arguments: object):
    return handler.call(EDITOR, arguments)


def runs(root: Path) -> int:
    journal = root / ".editblocks" / "journal"
    return len([p for p in journal.iterdir() if not p.name.startswith(".")]) if journal.is_dir() else 0


@pytest.mark.parametrize("text", ["a\r\nb", "a\r\nb\r\n", "x", "", "line\n", "no\nfinal", "mixed\r\nends\n"])
def test_create_writes_file_text_exactly(tmp_path: Path, text: str) -> None:
    handler = ToolHandler(tmp_path)
    reply = call(handler, command="create", path="new.txt", file_text=text)
    assert reply.ok, reply.text
    assert (tmp_path / "new.txt").read_bytes() == text.encode()
    assert handler.call("undo").ok and not (tmp_path / "new.txt").exists()


def test_insert_of_an_empty_new_str_inserts_one_empty_line(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    handler = ToolHandler(tmp_path)
    reply = call(handler, command="insert", path="a.py", insert_line=1, new_str="")
    assert reply.ok and "Inserted 1 line after line 1" in reply.text
    assert (tmp_path / "a.py").read_text() == "x = 1\n\ny = 2\n"
    missing = call(handler, command="insert", path="a.py", insert_line=1)
    assert missing.is_error and "the argument `new_str` is missing" in missing.text
    older = call(handler, command="insert", path="a.py", insert_line=0, insert_text="# top")  # the older versions
    assert older.ok and (tmp_path / "a.py").read_text().startswith("# top\n")


def test_identical_old_and_new_text_is_a_no_op_and_no_edit_to_undo(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    handler = ToolHandler(tmp_path)
    assert call(handler, command="str_replace", path="a.py", old_str="y = 2", new_str="y = 3").ok
    before = runs(tmp_path)
    assert before == 1
    same = call(handler, command="str_replace", path="a.py", old_str="x = 1", new_str="x = 1")
    assert same.ok and same.text.startswith("Nothing changed: a.py already reads that way at line 1")
    assert "Replaced" not in same.text and same.result is None and runs(tmp_path) == before
    undo = call(handler, command="undo_edit", path="a.py")  # the model's latest edit changed nothing
    assert undo.ok and undo.text.startswith("Nothing undone: your latest edit, of a.py, changed nothing")
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3\n"  # the earlier, real edit stays
    assert call(handler, command="undo_edit", path="a.py").ok  # asked again: that one goes
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 2\n"
    absent = call(handler, command="str_replace", path="a.py", old_str="z = 9", new_str="z = 9")
    assert absent.is_error and "would change nothing" in absent.text


@pytest.mark.parametrize(("before", "old", "after"), [
    (b"a\nb", "b", b"a\n"),
    (b"a\r\nb", "b", b"a\r\n"),
    (b"a\nb\nc", "c", b"a\nb\n"),
    (b"a\nb\n", "b\n", b"a\n"),
    (b"a\nb", "\nb", b"a"),
    (b"one\ntwo", "two", b"one\n"),
])
def test_replacing_an_unterminated_last_line_with_nothing_keeps_the_line_break_before_it(
        tmp_path: Path, before: bytes, old: str, after: bytes) -> None:
    (tmp_path / "f.txt").write_bytes(before)
    assert call(ToolHandler(tmp_path), command="str_replace", path="f.txt", old_str=old, new_str="").ok
    assert (tmp_path / "f.txt").read_bytes() == after


@given(st.text(alphabet="ab \n", max_size=24), st.data())
def test_str_replace_is_a_string_replacement(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, max(0, len(text) - 1)))
    end = data.draw(st.integers(start + 1, max(start + 1, len(text))))
    old = text[start:end]
    assume(sum(text.startswith(old, i) for i in range(len(text))) == 1)  # once, overlapping places counted
    new = data.draw(st.text(alphabet="abc\n", max_size=8))
    root = Path(tempfile.mkdtemp())
    try:
        (root / "f.txt").write_bytes(text.encode())
        reply = call(ToolHandler(root), command="str_replace", path="f.txt", old_str=old, new_str=new)
        assert reply.ok, reply.text
        assert (root / "f.txt").read_bytes() == (text[:start] + new + text[end:]).encode()
    finally:
        shutil.rmtree(root)


def test_a_multi_edit_that_changes_nothing_is_no_edit_to_undo_either(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    handler = ToolHandler(tmp_path)
    assert handler.call("edit", {"file_path": "a.py", "old_string": "y = 2", "new_string": "y = 3"}).ok
    there_and_back = [{"old_string": "x = 1", "new_string": "x = 2"}, {"old_string": "x = 2", "new_string": "x = 1"}]
    same = handler.call("multi_edit", {"file_path": "a.py", "edits": there_and_back})
    assert same.ok and same.text.startswith("Nothing changed") and runs(tmp_path) == 1
    assert handler.call("undo").text.startswith("Nothing undone: your latest edit, of a.py, changed nothing")
    assert (tmp_path / "a.py").read_text() == "x = 1\ny = 3\n"
