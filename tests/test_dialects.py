"""The dialects agents write edits in (issue 27, §4): Zed's `<old_text>` edits, Cline's `<replace_in_file>` and Roo
Code's `<apply_diff>` tool calls around SEARCH/REPLACE blocks, and aider's first markers. Each is detected by `auto`,
listed by `editblocks formats`, applies, and streams into exactly the blocks of a one-shot parse."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks import Format, Severity, StreamParser, parse
from editblocks.cli import main
from editblocks.parsing.validate import validate

from helpers_apply import make_tree, run

SPREAD = "x = 1\n" + "pad = 0\n" * 8 + "x = 1\n"
"""Two identical lines 9 lines apart: a line hint can tell them apart."""
APP = "def total(items):\n    return sum(items)\n\n\ndef mean(items):\n    return total(items) / len(items)\n"

ZED = """I'll make both functions accept an empty list.

src/stats.py
<edits>

<old_text line=2>
    return sum(items)
</old_text>
<new_text>
    return sum(items, start=0)
</new_text>

<old_text>
    return total(items) / len(items)
</old_text>
<new_text>
    return total(items) / len(items) if items else 0.0
</new_text>

</edits>
"""
CLINE = """<replace_in_file>
<path>src/stats.py</path>
<diff>
------- SEARCH
    return sum(items)
=======
    return sum(items, start=0)
+++++++ REPLACE
------- SEARCH
    return total(items) / len(items)
=======
    return total(items) / len(items) if items else 0.0
+++++++ REPLACE
</diff>
</replace_in_file>
"""
ROO = """<apply_diff>
<args>
<file>
<path>src/stats.py</path>
<diff>
<content><![CDATA[
<<<<<<< SEARCH
:start_line:2
-------
    return sum(items)
=======
    return sum(items, start=0)
>>>>>>> REPLACE
]]></content>
<start_line>2</start_line>
</diff>
<diff>
<content>
<<<<<<< SEARCH
:start_line:6
-------
    return total(items) / len(items)
=======
    return total(items) / len(items) if items else 0.0
>>>>>>> REPLACE
</content>
</diff>
</file>
</args>
</apply_diff>
"""
AIDER_FIRST = """src/stats.py
```python
<<<<<<< ORIGINAL
    return sum(items)
=======
    return sum(items, start=0)
>>>>>>> UPDATED
```

src/stats.py
```python
<<<<<<< HEAD
    return total(items) / len(items)
=======
    return total(items) / len(items) if items else 0.0
>>>>>>> updated
```
"""
EXPECTED = APP.replace("sum(items)", "sum(items, start=0)").replace(
    "total(items) / len(items)", "total(items) / len(items) if items else 0.0")
ANSWERS = {Format.ZED: ZED, Format.CLINE: CLINE, Format.ROO: ROO, Format.ORIGINAL_UPDATED: AIDER_FIRST}
DETECTED = {Format.ZED: Format.ZED, Format.CLINE: Format.CLINE, Format.ROO: Format.ROO,
            Format.ORIGINAL_UPDATED: Format.DIFF}


@pytest.mark.parametrize("fmt", list(ANSWERS))
def test_each_dialect_is_detected_by_auto_and_applies(fmt: Format, tmp_path: Path) -> None:
    answer = ANSWERS[fmt]
    for asked, detected in ((Format.AUTO, DETECTED[fmt]), (fmt, fmt)):
        parsed = parse(answer, asked)
        assert parsed.diagnostics == () and parsed.format == detected
        assert [(b.path, b.format) for b in parsed.blocks] == [("src/stats.py", detected)] * 2
    make_tree(tmp_path, {"src/stats.py": APP})
    result = run(tmp_path, answer)
    assert [r.status.value for r in result.results] == ["applied", "applied"]
    assert (tmp_path / "src/stats.py").read_text() == EXPECTED


@pytest.mark.parametrize("fmt", list(ANSWERS))
def test_every_chunk_size_streams_the_blocks_of_a_one_shot_parse(fmt: Format) -> None:
    answer = ANSWERS[fmt]
    whole = parse(answer)
    for size in range(1, len(answer) + 1):
        parser = StreamParser()
        completed = []
        for position in range(0, len(answer), size):
            completed += [e.block for e in parser.feed(answer[position : position + size]) if hasattr(e, "block")]
        completed += [e.block for e in parser.close() if hasattr(e, "block")]
        assert parser.result() == whole, size
        assert tuple(completed) == whole.blocks, size


def test_formats_lists_every_dialect() -> None:
    listed = CliRunner().invoke(main, ["formats"]).output
    for name, sample in (("original-updated", "<<<<<<< ORIGINAL"), ("cline", "<replace_in_file>"),
                         ("roo", "<apply_diff>"), ("zed", "<old_text>")):
        assert f"\n{name}  " in listed and sample in listed


# --- Zed --------------------------------------------------------------------------------------------------


def test_a_zed_line_hint_picks_one_of_identical_places(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": SPREAD})
    answer = "a.py\n<edits>\n<old_text line=10>\nx = 1\n</old_text>\n<new_text>\nx = 3\n</new_text>\n</edits>\n"
    [result] = run(tmp_path, answer).results
    assert result.status.value == "applied" and result.block.line_hint == 10
    assert (tmp_path / "a.py").read_text() == SPREAD[:-6] + "x = 3\n"


def test_zeds_search_line_hint_picks_one_of_identical_places(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": SPREAD})
    answer = "a.py\n```\n<<<<<<< SEARCH line=10\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n```\n"
    parsed = parse(answer)
    assert parsed.diagnostics == () and parsed.blocks[0].line_hint == 10
    run(tmp_path, answer)
    assert (tmp_path / "a.py").read_text() == SPREAD[:-6] + "x = 3\n"


def test_a_zed_edit_with_empty_old_text_creates_a_file(tmp_path: Path) -> None:
    answer = "notes/todo.md\n<edits>\n<old_text>\n</old_text>\n<new_text>\n# Todo\n</new_text>\n</edits>\n"
    [result] = run(tmp_path, answer).results
    assert result.status.value == "applied" and (tmp_path / "notes/todo.md").read_text() == "# Todo\n"


def test_marker_lines_inside_a_zed_edit_are_text(tmp_path: Path) -> None:
    make_tree(tmp_path, {"doc.md": "Title\n=====\n"})
    answer = ("doc.md\n<edits>\n<old_text>\nTitle\n=====\n</old_text>\n<new_text>\nTitle\n=====\n\n"
              "<<<<<<< SEARCH\n>>>>>>> REPLACE\n</new_text>\n</edits>\n")
    parsed = parse(answer)
    assert parsed.diagnostics == () and parsed.blocks[0].new.endswith("<<<<<<< SEARCH\n>>>>>>> REPLACE\n")


def test_a_zed_edit_without_a_path_says_where_the_path_goes() -> None:
    parsed = parse("<edits>\n<old_text>\nx\n</old_text>\n<new_text>\ny\n</new_text>\n</edits>\n")
    [error] = [d.message for d in parsed.diagnostics if d.severity is Severity.ERROR]
    assert "has no file path" in error and "the line before `<edits>`" in error


def test_text_between_old_and_new_text_refuses_the_edit() -> None:
    parsed = parse("a.py\n<edits>\n<old_text>\nx\n</old_text>\nand now\n<new_text>\ny\n</new_text>\n</edits>\n")
    assert parsed.blocks == () and "between `</old_text>` and `<new_text>`" in parsed.errors[0].message


def test_a_zed_edit_cut_off_is_reported_like_any_block() -> None:
    report = validate("a.py\n<edits>\n<old_text>\nx\n</old_text>\n<new_text>\ny\n")
    assert any("not closed" in d.message for d in report.errors)
    assert any("Mismatched <old_text>/</new_text>" in d.message for d in report.errors)


# --- Cline and Roo --------------------------------------------------------------------------------------------


def test_clines_wrapper_with_classic_markers_and_two_files(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    answer = "".join(f"<replace_in_file>\n<path>{name}</path>\n<diff>\n<<<<<<< SEARCH\n{var} = 1\n=======\n"
                     f"{var} = 2\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>\n\n"
                     for name, var in (("a.py", "a"), ("b.py", "b")))
    parsed = parse(answer)
    assert [(b.path, b.format) for b in parsed.blocks] == [("a.py", Format.CLINE), ("b.py", Format.CLINE)]
    run(tmp_path, answer)
    assert (tmp_path / "a.py").read_text() == "a = 2\n" and (tmp_path / "b.py").read_text() == "b = 2\n"


def test_roos_single_file_form_with_a_start_line_hint(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": SPREAD})
    answer = ("<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:10\n-------\nx = 1\n=======\n"
              "x = 3\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n")
    parsed = parse(answer)
    assert parsed.format == "roo" and parsed.blocks[0].line_hint == 10
    run(tmp_path, answer)
    assert (tmp_path / "a.py").read_text() == SPREAD[:-6] + "x = 3\n"


def test_a_block_after_the_wrapper_closes_is_not_in_the_wrappers_dialect() -> None:
    answer = (CLINE + "\nsrc/other.py\n```python\n<<<<<<< SEARCH\nq = 1\n=======\nq = 2\n>>>>>>> REPLACE\n```\n")
    assert [b.format for b in parse(answer).blocks] == [Format.CLINE, Format.CLINE, Format.DIFF]


# --- aider's first markers -------------------------------------------------------------------------------------

CONFLICT = "The merge left this in `conf.py`:\n\n```\n<<<<<<< HEAD\nlimit = 10\n=======\nlimit = 20\n>>>>>>> topic\n```\n"


def test_a_git_conflict_shown_in_prose_is_text_not_a_block() -> None:
    parsed = parse(CONFLICT)
    assert parsed.blocks == () and parsed.errors == ()
    assert any("starts a git conflict" in d.message for d in parsed.warnings)
    assert validate(CONFLICT).errors[0].message.startswith("no edit blocks found")


def test_a_git_conflict_after_an_edit_block_leaves_the_block_alone(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/stats.py": APP})
    answer = AIDER_FIRST + "\n" + CONFLICT
    parsed = parse(answer)
    assert len(parsed.blocks) == 2 and parsed.errors == ()
    assert not validate(answer).errors
    assert [r.status.value for r in run(tmp_path, answer).results] == ["applied", "applied"]


def test_head_is_a_start_marker_only_under_auto_and_its_own_format() -> None:
    answer = "a.py\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> updated\n"
    assert len(parse(answer).blocks) == len(parse(answer, "original-updated").blocks) == 1
    assert parse(answer, "diff").blocks == ()


def test_feedback_on_a_malformed_zed_edit_answers_in_zeds_dialect(tmp_path: Path) -> None:
    from editblocks.report.feedback import feedback_message, reply_format
    from editblocks.service.apply import apply

    answer = "a.py\n<edits>\n<old_text>\nx\n</old_text>\nprose\n<new_text>\ny\n</new_text>\n</edits>\n"
    parsed = parse(answer)
    assert reply_format(answer, parsed) is Format.ZED
    message = feedback_message(apply(parsed, tmp_path, dry_run=True), format=reply_format(answer, parsed))
    assert "`<old_text>`" in message and "SEARCH" not in message
