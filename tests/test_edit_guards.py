"""What new text may never bring into a file (issue 24, §2): the answer's own edit markers, and placeholders that
stand for code they delete. Every front-end: marker answers, patches, whole files and tool calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from editblocks import Severity, StreamParser, parse
from editblocks.tools import ToolHandler

from helpers_apply import make_tree, run, single

SEARCH, SEPARATOR, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"


def errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity is Severity.ERROR]


def fenced(path: str, body: str) -> str:
    return f"{path}\n```python\n{body}```\n\n"


# --- the block's own markers --------------------------------------------------------------------------------

MIXED = (fenced("calc.py", f"<<<<<<<< SEARCH\nrate = 1\n{SEPARATOR}\nrate = 2\n{REPLACE}\n")
         + fenced("calc.py", f"{SEARCH}\nlimit = 1\n{SEPARATOR}\nlimit = 2\n>>>>>>>> REPLACE\n"))


def test_a_block_with_mixed_marker_lengths_never_writes_the_next_blocks_markers(tmp_path: Path) -> None:
    """An 8-character start and end around 7-character separators: the split at the first separator would
    write `>>>>>>> REPLACE`, `<<<<<<< SEARCH` and `=======` into the file, so it is no reading at all."""
    original = "rate = 1\nlimit = 1\n"
    make_tree(tmp_path, {"calc.py": original})
    parsed = parse(MIXED)
    assert all(REPLACE not in block.new and SEARCH not in block.new for block in parsed.blocks)
    run(tmp_path, MIXED)
    assert (tmp_path / "calc.py").read_text() == original


def test_a_strict_block_whose_only_reading_writes_its_own_marker_is_refused_with_the_reason() -> None:
    """9-character start and end, a 7-character separator: 7 is this block's length too, so a 7-character end
    marker in its new text is one of its markers, not text."""
    answer = fenced("calc.py", f"<<<<<<<<< SEARCH\nrate = 1\n{SEPARATOR}\nrate = 2\n{REPLACE}\n>>>>>>>>> REPLACE\n")
    parsed = parse(answer)
    assert parsed.blocks == ()
    [message] = errors(parsed)
    assert f"would write the marker line `{REPLACE}`" in message and "nothing of it is applied" in message


def test_a_block_with_one_marker_length_keeps_shorter_marker_lines_as_text(tmp_path: Path) -> None:
    make_tree(tmp_path, {"samples.py": "SAMPLES = []\n"})
    answer = fenced("samples.py", f"<<<<<<<<< SEARCH\nSAMPLES = []\n=========\nSAMPLES = ['''\n{REPLACE}\n''']\n"
                                  ">>>>>>>>> REPLACE\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "samples.py").read_text() == f"SAMPLES = ['''\n{REPLACE}\n''']\n"


def test_two_separators_in_the_middle_of_a_block_never_write_both_versions(tmp_path: Path) -> None:
    """Old text, `=======`, a first version, `=======`, a second version: the split at the first separator would
    write a literal `=======` and both versions; the other split's old text is not in the file."""
    original = "def area(r):\n    return 3 * r * r\n"
    make_tree(tmp_path, {"geo.py": original})
    answer = fenced("geo.py", f"{SEARCH}\ndef area(r):\n{SEPARATOR}\ndef area(radius):\n{SEPARATOR}\n"
                              f"def area(radius: float) -> float:\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.status.value == "failed"
    assert (tmp_path / "geo.py").read_text() == original


def test_a_marker_line_the_old_text_has_at_that_place_stays(tmp_path: Path) -> None:
    notes = "Changes\n=======\n\n- one\n"
    make_tree(tmp_path, {"NOTES.rst": notes})
    answer = fenced("NOTES.rst", f"{SEARCH}\n{notes}{SEPARATOR}\n{notes}- two\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "NOTES.rst").read_text() == notes + "- two\n"


def test_an_escaped_marker_line_is_text(tmp_path: Path) -> None:
    make_tree(tmp_path, {"demo.txt": "start\n"})
    answer = fenced("demo.txt", f"{SEARCH}\nstart\n{SEPARATOR}\nstart\n\\{SEPARATOR}\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "demo.txt").read_text() == f"start\n{SEPARATOR}\n"


@pytest.mark.parametrize("size", [1, 2, 5, 17])
def test_the_guard_reads_a_streamed_answer_as_it_reads_it_whole(size: int) -> None:
    parser = StreamParser()
    for position in range(0, len(MIXED), size):
        parser.feed(MIXED[position : position + size])
    parser.close()
    assert parser.result() == parse(MIXED)


# --- other front-ends: another format's markers --------------------------------------------------------------


def test_a_unified_diff_that_adds_edit_markers_is_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"app.py": "a = 1\nb = 2\n"})
    diff = f"--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,4 @@\n a = 1\n+{SEARCH}\n+b = 3\n+{REPLACE}\n b = 2\n"
    result = single(run(tmp_path, diff))
    assert result.code.value == "refused" and f"`{SEARCH}`" in result.reason and "9-character" in result.reason
    assert result.refusal == "edit-marker"
    assert (tmp_path / "app.py").read_text() == "a = 1\nb = 2\n"


def test_a_v4a_patch_that_adds_patch_lines_is_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"app.py": "a = 1\n"})
    patch = "*** Begin Patch\n*** Update File: app.py\n@@\n a = 1\n+*** End Patch\n+b = 2\n*** End Patch\n"
    result = single(run(tmp_path, patch))
    assert result.code.value == "refused" and "`*** End Patch`" in result.reason


def test_a_whole_file_holding_search_replace_markers_is_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"app.py": "a = 1\n"})
    answer = fenced("app.py", f"{SEARCH}\na = 1\n{SEPARATOR}\na = 2\n{REPLACE}\n")
    result = single(_whole(tmp_path, answer))
    assert result.code.value == "refused" and f"`{SEARCH}`" in result.reason
    assert (tmp_path / "app.py").read_text() == "a = 1\n"


def _whole(root: Path, answer: str):
    from editblocks.service.apply import apply

    return apply(parse(answer, "whole"), root)


def test_a_file_that_already_holds_markers_keeps_them_in_a_patch(tmp_path: Path) -> None:
    make_tree(tmp_path, {"conflict.txt": f"{SEARCH}\nold\n"})
    diff = f"--- a/conflict.txt\n+++ b/conflict.txt\n@@ -1,2 +1,2 @@\n {SEARCH}\n-old\n+new\n"
    assert single(run(tmp_path, diff)).status.value == "applied"


@pytest.mark.parametrize("call", [
    {"command": "str_replace", "path": "app.py", "old_str": "a = 1\n", "new_str": f"{SEARCH}\na = 1\n{REPLACE}\n"},
    {"command": "insert", "path": "app.py", "insert_line": 1, "new_str": f"{REPLACE}\n"},
    {"command": "create", "path": "new.py", "file_text": f"{SEARCH}\nx\n{SEPARATOR}\ny\n{REPLACE}\n"},
])
def test_a_text_editor_call_that_writes_edit_markers_is_refused(tmp_path: Path, call: dict[str, object]) -> None:
    make_tree(tmp_path, {"app.py": "a = 1\n"})
    reply = ToolHandler(tmp_path).call("str_replace_based_edit_tool", call)
    assert reply.is_error and "edit marker" in reply.text and "nothing was written" in reply.text
    assert (tmp_path / "app.py").read_text() == "a = 1\n" and not (tmp_path / "new.py").exists()


# --- placeholders that delete code ---------------------------------------------------------------------------

SERVICE = "class Service:\n    def start(self):\n        self.open()\n        self.run()\n\n    def stop(self):\n        pass\n"


def test_a_placeholder_that_takes_the_place_of_code_is_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"service.py": SERVICE})
    answer = fenced("service.py", f"{SEARCH}\n    def start(self):\n        self.open()\n        self.run()\n{SEPARATOR}\n"
                                  f"    def start(self):\n        # ... existing code ...\n        self.log()\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.code.value == "refused" and result.refusal == "placeholder"
    assert "`# ... existing code ...`" in result.reason
    assert "line 2 of the new text" in result.reason and "delete that code" in result.reason
    assert (tmp_path / "service.py").read_text() == SERVICE


@pytest.mark.parametrize("placeholder", ["// ... rest of code", "# existing code here", "(rest of methods ...)"])
def test_every_kind_of_placeholder_is_refused_in_a_unified_diff(tmp_path: Path, placeholder: str) -> None:
    make_tree(tmp_path, {"service.py": SERVICE})
    diff = ("--- a/service.py\n+++ b/service.py\n@@ -5,3 +5,2 @@\n \n-    def stop(self):\n-        pass\n"
            f"+    {placeholder}\n")
    result = single(run(tmp_path, diff))
    assert result.code.value == "refused" and placeholder in result.reason
    assert (tmp_path / "service.py").read_text() == SERVICE


def test_a_placeholder_the_old_text_has_at_that_place_is_matched_piecewise(tmp_path: Path) -> None:
    make_tree(tmp_path, {"service.py": SERVICE})
    answer = fenced("service.py", f"{SEARCH}\n    def start(self):\n        # ...\n        self.run()\n{SEPARATOR}\n"
                                  f"    def start(self):\n        # ...\n        self.run()\n        self.log()\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert "        self.open()\n        self.run()\n        self.log()\n" in (tmp_path / "service.py").read_text()


def test_a_placeholder_that_deletes_nothing_is_not_refused(tmp_path: Path) -> None:
    """The old lines it replaces live on in the new text (their words are all there): nothing is lost."""
    make_tree(tmp_path, {"style.py": "CSS = base\n"})
    answer = fenced("style.py", f"{SEARCH}\nCSS = base\n{SEPARATOR}\nCSS = base + '''\n/* existing styles ... */\n"
                                f"a {{ color: red; }}\n'''\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"


def test_a_bare_ellipsis_is_a_stub_body_in_an_edit(tmp_path: Path) -> None:
    make_tree(tmp_path, {"proto.py": "class Shape:\n    pass\n"})
    answer = fenced("proto.py", f"{SEARCH}\nclass Shape:\n    pass\n{SEPARATOR}\nclass Shape:\n"
                                f"    def area(self) -> float:\n        ...\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"


def test_a_str_replace_that_puts_a_placeholder_in_place_of_code_is_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"service.py": SERVICE})
    reply = ToolHandler(tmp_path).call("str_replace_based_edit_tool", {
        "command": "str_replace", "path": "service.py", "old_str": "        self.open()\n        self.run()\n",
        "new_str": "        # ... rest of the code\n        self.log()\n"})
    assert reply.is_error and "stands for code" in reply.text
    assert (tmp_path / "service.py").read_text() == SERVICE


@pytest.mark.parametrize(("name", "call"), [
    ("edit", {"file_path": "service.py", "old_string": "        self.open()\n        self.run()\n",
              "new_string": "        # ... rest of the code\n        self.log()\n"}),
    ("edit", {"file_path": "service.py", "old_string": "pass", "new_string": f"pass\n{REPLACE}",
              "replace_all": True}),
    ("edit", {"file_path": "fresh.py", "old_string": "", "new_string": f"{SEARCH}\nx\n{SEPARATOR}\ny\n{REPLACE}\n"}),
    ("multi_edit", {"file_path": "service.py", "edits": [
        {"old_string": "    def stop(self):", "new_string": "    def halt(self):"},
        {"old_string": "        self.open()\n        self.run()\n", "new_string": "        // rest of code\n"}]}),
])
def test_an_edit_tool_call_whose_new_text_would_delete_code_or_write_markers_is_refused(
        tmp_path: Path, name: str, call: dict[str, object]) -> None:
    make_tree(tmp_path, {"service.py": SERVICE})
    reply = ToolHandler(tmp_path).call(name, call)
    assert reply.is_error and "nothing was written" in reply.text
    assert ("stands for code" in reply.text) != ("edit marker" in reply.text)
    assert reply.text.startswith("Error: edit 2 of 2: ") == (name == "multi_edit")
    assert (tmp_path / "service.py").read_text() == SERVICE and not (tmp_path / "fresh.py").exists()


def test_a_whole_file_with_a_bracketed_placeholder_is_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"service.py": SERVICE})
    result = single(_whole(tmp_path, fenced("service.py", "class Service:\n    (rest of methods ...)\n")))
    assert result.code.value == "refused" and "(rest of methods ...)" in result.reason


# --- a tolerant rung never re-indents lines that are right ----------------------------------------------------


def test_new_text_already_where_a_tab_indented_search_matched_is_already_applied(tmp_path: Path) -> None:
    """The search is tab-indented; the file (spaces) already holds the new text where it matched: nothing to do
    (the indentation rung used to shift the lines four more columns into broken code)."""
    method = "class Field:\n    def render(self, html):\n        if html.find('x') >= 0:\n            self.add('x')\n"
    make_tree(tmp_path, {"field.py": method})
    answer = fenced("field.py", f"{SEARCH}\n\tif html.find('x') >= 0:\n\t    self.add('x')\n{SEPARATOR}\n"
                                f"        if html.find('x') >= 0:\n            self.add('x')\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.code.value == "already-applied" and (result.start_line, result.end_line) == (3, 4)
    assert (tmp_path / "field.py").read_text() == method
