"""Stale-read protection in ToolHandler: `view` gives a version, and an edit of a file that changed on disk since the
model last viewed or edited it is refused with the file's current lines where the edit aims."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from editblocks.tools import ToolHandler

EDITOR = "str_replace_based_edit_tool"
APP = "def greet(name):\n    return 'Hello ' + name\n\n\ndef add(a, b):\n    return a + b\n"
VERSION = re.compile(r"\[app\.py version ([0-9a-f]{12})\]\n\Z")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    return tmp_path


def call(handler: ToolHandler, **arguments: object):
    return handler.call(EDITOR, arguments)


def someone_else_edits(path: Path, old: str, new: str) -> None:
    path.write_bytes(path.read_bytes().replace(old.encode(), new.encode()))


def test_view_gives_the_files_version(project: Path) -> None:
    reply = call(ToolHandler(project, stale_reads=True), command="view", path="app.py")
    found = VERSION.search(reply.text)
    assert reply.ok and found is not None
    assert found[1] == reply.version == hashlib.sha256((project / "app.py").read_bytes()).hexdigest()[:12]
    assert "version" not in call(ToolHandler(project), command="view", path="app.py").text  # opt-in


def test_an_edit_after_someone_else_changed_the_file_is_refused_with_its_current_lines(project: Path) -> None:
    handler = ToolHandler(project, stale_reads=True)
    call(handler, command="view", path="app.py")
    someone_else_edits(project / "app.py", "return a + b", "return sum((a, b))")
    changed = (project / "app.py").read_text()
    reply = call(handler, command="str_replace", path="app.py", old_str="    return a + b", new_str="    return b + a")
    assert not reply.ok and (project / "app.py").read_text() == changed
    assert reply.text.startswith("Error: app.py changed since you viewed it (you saw version ")
    assert "nothing was written" in reply.text
    assert "     6\t    return sum((a, b))\n" in reply.text  # the current lines where the edit aims
    assert "     1\tdef greet" not in reply.text  # not the whole file
    # the refusal showed the file as it is now: the next edit, made on those lines, goes ahead
    again = call(handler, command="str_replace", path="app.py", old_str="return sum((a, b))", new_str="return b + a")
    assert again.ok and "return b + a" in (project / "app.py").read_text()


def test_the_models_own_edits_keep_its_copy_current(project: Path) -> None:
    handler = ToolHandler(project, stale_reads=True)
    call(handler, command="view", path="app.py")
    first = call(handler, command="str_replace", path="app.py", old_str="'Hello '", new_str="'Hi '")
    assert first.ok and first.version == hashlib.sha256((project / "app.py").read_bytes()).hexdigest()[:12]
    assert call(handler, command="insert", path="app.py", insert_line=0, new_str="import math").ok
    someone_else_edits(project / "app.py", "import math", "import cmath")
    refused = call(handler, command="insert", path="app.py", insert_line=1, new_str="import os")
    assert not refused.ok and "changed since you viewed it" in refused.text
    assert "     1\timport cmath\n" in refused.text and "import os" not in (project / "app.py").read_text()


def test_crlf_and_bom_files_keep_their_versions_through_edits(tmp_path: Path) -> None:
    (tmp_path / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    (tmp_path / "utf16.txt").write_bytes("one\ntwo\n".encode("utf-16"))
    handler = ToolHandler(tmp_path, stale_reads=True)
    for name in ("win.txt", "utf16.txt"):
        assert call(handler, command="view", path=name).ok
        assert call(handler, command="str_replace", path=name, old_str="two", new_str="2").ok
        second = call(handler, command="str_replace", path=name, old_str="one", new_str="1")
        assert second.ok, second.text
        assert second.version == hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()[:12]
    assert (tmp_path / "win.txt").read_bytes() == b"\xef\xbb\xbf1\r\n2\r\nthree\r\n"


def test_a_file_never_viewed_is_not_checked_and_protection_is_off_by_default(project: Path) -> None:
    someone_else_edits(project / "app.py", "'Hello '", "'Hey '")
    assert call(ToolHandler(project, stale_reads=True), command="str_replace", path="app.py", old_str="'Hey '",
                new_str="'Hi '").ok
    plain = ToolHandler(project)
    call(plain, command="view", path="app.py")
    someone_else_edits(project / "app.py", "'Hi '", "'Yo '")
    assert call(plain, command="str_replace", path="app.py", old_str="'Yo '", new_str="'Hello '").ok


def test_the_ladder_and_answers_keep_the_copy_current_and_are_checked_too(project: Path) -> None:
    handler = ToolHandler(project, stale_reads=True)
    call(handler, command="view", path="app.py")
    tolerant = call(handler, command="str_replace", path="app.py", old_str="def add(a, b):  \n    return a + b\n",
                    new_str="def add(a, b):\n    return b + a\n")  # trailing blanks: found by the ladder
    assert tolerant.ok and "strategy" in tolerant.text
    answer = ("app.py\n```python\n<<<<<<< SEARCH\n    return b + a\n=======\n    return a + b\n"
              ">>>>>>> REPLACE\n```\n")
    assert handler.call("apply_edits", {"edits": answer}).ok  # its own edit was seen: not stale
    someone_else_edits(project / "app.py", "return a + b", "return a - b")
    assert handler.call("check_edits", {"edits": answer.replace("a + b", "a - b")}).ok  # writes nothing: no check
    refused = handler.call("apply_edits", {"edits": answer.replace("a + b", "a - b")})
    assert not refused.ok and "app.py changed since you viewed it" in refused.text
    assert "    return a - b" in refused.text and "return a - b" in (project / "app.py").read_text()


def test_after_an_undo_the_restored_file_is_not_held_to_a_version(project: Path) -> None:
    handler = ToolHandler(project, stale_reads=True)
    call(handler, command="view", path="app.py")
    assert call(handler, command="str_replace", path="app.py", old_str="'Hello '", new_str="'Hi '").ok
    assert handler.call("undo", {}).ok
    assert call(handler, command="str_replace", path="app.py", old_str="'Hello '", new_str="'Hey '").ok


def test_a_target_that_is_gone_is_said_plainly(project: Path) -> None:
    handler = ToolHandler(project, stale_reads=True)
    call(handler, command="view", path="app.py")
    (project / "app.py").write_text("print('rewritten entirely')\n")
    reply = call(handler, command="str_replace", path="app.py", old_str="completely different words here",
                 new_str="x")
    assert not reply.ok and "The text your edit replaces is nowhere in it now." in reply.text
