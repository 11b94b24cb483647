"""Answers that are clear but were refused or misread (issue 12): each shape comes from real model answers or from
other tools' test suites; the file contents here are our own."""

from __future__ import annotations

import itertools
import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks import Severity, StreamParser, parse, render
from editblocks.cli import main

from helpers_apply import make_tree, run, single

SEARCH, SEPARATOR, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"


def block(path: str, body: str, *, fence: bool = True) -> str:
    return f"{path}\n```\n{body}```\n" if fence else f"{path}\n{body}"


def errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity is Severity.ERROR]


def warnings(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity is Severity.WARNING]


def streamed(text: str, size: int):
    parser = StreamParser()
    for position in range(0, len(text), size):
        parser.feed(text[position : position + size])
    parser.close()
    return parser.result()


# --- 1. a byte-order mark copied into SEARCH ----------------------------------------------------------------

BOM = "\ufeff"
CSHARP = b"\xef\xbb\xbfnamespace Shop;\r\n\r\npublic class Cart\r\n{\r\n}\r\n"


def test_a_bom_at_the_start_of_the_old_text_matches_the_start_of_a_bom_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"Cart.cs": CSHARP})
    answer = block("Cart.cs", f"{SEARCH}\n{BOM}namespace Shop;\n{SEPARATOR}\n{BOM}namespace Shop.Orders;\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.status.value == "applied" and "byte-order mark" in result.reason
    assert (tmp_path / "Cart.cs").read_bytes() == CSHARP.replace(b"Shop;", b"Shop.Orders;")


def test_a_bom_in_the_old_text_never_matches_anywhere_but_the_start(tmp_path: Path) -> None:
    original = "// generated\nnamespace Shop;\n"
    make_tree(tmp_path, {"Cart.cs": original})
    answer = block("Cart.cs", f"{SEARCH}\n{BOM}namespace Shop;\n{SEPARATOR}\nnamespace Shop.Orders;\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.code.value == "not-found" and "byte-order mark" in result.reason
    assert (tmp_path / "Cart.cs").read_text() == original


def test_a_new_text_with_a_bom_fills_an_empty_bom_file_with_one_bom(tmp_path: Path) -> None:
    make_tree(tmp_path, {"Empty.cs": b"\xef\xbb\xbf"})
    answer = block("Empty.cs", f"{SEARCH}\n{SEPARATOR}\n{BOM}using System;\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "Empty.cs").read_bytes() == b"\xef\xbb\xbfusing System;\n"


def test_a_new_file_whose_text_starts_with_a_bom_gets_it_once(tmp_path: Path) -> None:
    answer = f"### File: New.cs\n<<<<<<< NEW_FILE\n{BOM}{BOM}using System;\n>>>>>>> NEW_FILE\n"
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "New.cs").read_bytes() == b"\xef\xbb\xbfusing System;\n"


# --- 2. `=======` as the closing marker ----------------------------------------------------------------------


def test_a_second_separator_followed_by_the_fence_and_prose_ends_the_block(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n"})
    answer = f"a.py\n```python\n{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{SEPARATOR}\n```\n\nThis makes x two.\n"
    parsed = parse(answer)
    [edit] = parsed.blocks
    assert (edit.old, edit.new) == ("x = 1\n", "x = 2\n")
    assert not errors(parsed) and "second `=======`" in warnings(parsed)[0]
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "a.py").read_text() == "x = 2\n"


def test_a_second_separator_right_before_the_next_block_ends_the_block_and_keeps_the_next_path() -> None:
    answer = (f"a.py\n{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{SEPARATOR}\n\n"
              f"b.py\n{SEARCH}\ny = 1\n{SEPARATOR}\ny = 2\n{REPLACE}\n")
    parsed = parse(answer)
    assert [(b.path, b.old, b.new) for b in parsed.blocks] == [("a.py", "x = 1\n", "x = 2\n"),
                                                                ("b.py", "y = 1\n", "y = 2\n")]
    assert not errors(parsed)
    assert all(streamed(answer, size) == parsed for size in (1, 3, 7, 64))


def test_a_second_separator_with_block_text_after_it_stays_unclosed() -> None:
    truncated = f"a.py\n{SEARCH}\nx = 1\n{SEPARATOR}\nTitle\n{SEPARATOR}\nmore text of the new file\n"
    parsed = parse(truncated)
    assert parsed.blocks == () and "not closed" in errors(parsed)[0]


def test_two_adjacent_separators_before_the_end_marker_delete_the_old_text(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "import os\nimport sys\n"})
    answer = block("a.py", f"{SEARCH}\nimport os\n{SEPARATOR}\n{SEPARATOR}\n{REPLACE}\n")
    parsed = parse(answer)
    assert not errors(parsed)
    result = single(run(tmp_path, answer))
    assert result.status.value == "applied" and "stray end" in result.reason
    assert (tmp_path / "a.py").read_text() == "import sys\n"


# --- 3. several candidate separators: the file decides ------------------------------------------------------

NOTES = "Release notes\n=======\n\nFirst draft.\n"


def test_of_several_readings_the_one_whose_old_text_the_file_holds_applies(tmp_path: Path) -> None:
    make_tree(tmp_path, {"NOTES.md": NOTES})
    answer = block("NOTES.md", f"{SEARCH}\n{NOTES}{SEPARATOR}\n{NOTES.replace('First', 'Second')}{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.status.value == "applied" and "the only one the file holds" in result.reason
    assert (result.block.old, result.block.new) == (NOTES, NOTES.replace("First", "Second"))
    assert (tmp_path / "NOTES.md").read_text() == NOTES.replace("First", "Second")


def test_a_stray_separator_before_the_end_marker_is_never_written_into_the_file(tmp_path: Path) -> None:
    """The split at the first `=======` would write the second one into the file: no reading at all, so the
    doubled end is the one reading the file holds (aider's reading; it used to be refused as ambiguous)."""
    make_tree(tmp_path, {"a.py": "x = 1\n"})
    answer = block("a.py", f"{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{SEPARATOR}\n{REPLACE}\n")
    parsed = parse(answer)
    assert all(SEPARATOR not in reading.new for reading in parsed.blocks[0].readings)
    result = single(run(tmp_path, answer))
    assert result.status.value == "applied" and "stray end" in result.reason
    assert (tmp_path / "a.py").read_text() == "x = 2\n"


def test_readings_the_file_cannot_tell_apart_are_refused_listing_every_reading(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\nx = 1\n"})
    answer = block("a.py", f"{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{SEPARATOR}\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.code.value == "ambiguous" and "2 ways" in result.reason
    assert "line 5" in result.reason and "line 7" in result.reason and "stray end" in result.reason
    assert (tmp_path / "a.py").read_text() == "x = 1\nx = 1\n"


def test_readings_none_of_which_is_found_are_refused_as_not_found(tmp_path: Path) -> None:
    make_tree(tmp_path, {"t.txt": "q\n"})
    answer = block("t.txt", f"{SEARCH}\na\n{SEPARATOR}\nb\n{SEPARATOR}\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.code.value == "not-found" and "none of them" in result.reason


def test_a_block_left_with_one_reading_says_which_and_why() -> None:
    """Of the splits at `a / b / c`, the first would write the second `=======` into the file."""
    parsed = parse(block("t.txt", f"{SEARCH}\na\n{SEPARATOR}\nb\n{SEPARATOR}\nc\n{REPLACE}\n"))
    [only] = parsed.blocks
    assert (only.old, only.new, only.readings) == (f"a\n{SEPARATOR}\nb\n", "c\n", ())
    assert any("its only reading that does not write a marker line" in message for message in warnings(parsed))


# --- 4. one marker-length rule -------------------------------------------------------------------------------


@pytest.mark.parametrize(("opener", "separator", "closer"), list(itertools.product((7, 8, 9), repeat=3)))
def test_marker_length_matrix(opener: int, separator: int, closer: int) -> None:
    answer = (f"a.py\n{'<' * opener} SEARCH\nx = 1\n{'=' * separator}\nx = 2\n{'>' * closer} REPLACE\n\n"
              f"b.py\n{SEARCH}\ny = 1\n{SEPARATOR}\ny = 2\n{REPLACE}\n")
    parsed = parse(answer)
    assert [(b.path, b.old, b.new) for b in parsed.blocks] == [("a.py", "x = 1\n", "x = 2\n"),
                                                                ("b.py", "y = 1\n", "y = 2\n")]
    assert not errors(parsed)
    mixed = [message for message in warnings(parsed) if "mixes marker lengths" in message]
    assert len(mixed) == (0 if opener == separator == closer else 1)


def test_a_strict_block_ended_at_another_length_never_lends_its_path_to_the_next_block() -> None:
    answer = (f"a.py\n{'<' * 9} SEARCH\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}\n\n"
              f"b.py\n{'<' * 9} SEARCH\ny = 1\n{'=' * 9}\ny = 2\n{'>' * 9} REPLACE\n")
    parsed = parse(answer)
    assert [(b.path, b.old, b.new) for b in parsed.blocks] == [("a.py", "x = 1\n", "x = 2\n"),
                                                                ("b.py", "y = 1\n", "y = 2\n")]
    assert not errors(parsed)
    assert all(streamed(answer, size) == parsed for size in (1, 4, 9))


def test_a_strict_block_keeps_marker_lines_of_other_lengths_as_text() -> None:
    content = f"Title\n{SEPARATOR}\n"
    answer = f"NOTES.md\n{'<' * 8} SEARCH\n{content}{'=' * 8}\nNew {content}{'>' * 8} REPLACE\n"
    [edit] = parse(answer).blocks
    assert (edit.old, edit.new) == (content, "New " + content)


def test_a_separator_line_of_another_length_stays_in_the_text_it_stands_in() -> None:
    search = f"doc.md\n{SEARCH}\nTitle\n{'=' * 9}\n{SEPARATOR}\nNew title\n{'=' * 9}\n{REPLACE}\n"
    [edit] = parse(search).blocks
    assert (edit.old, edit.new) == (f"Title\n{'=' * 9}\n", f"New title\n{'=' * 9}\n")
    anchored = f"doc.md\n<<<<<<< EDIT\nTitle\n-------\nold\n{SEPARATOR}\nnew\n{'=' * 9}\n-------\nend\n>>>>>>>\n"
    [edit] = parse(anchored).blocks
    assert (edit.leading, edit.old, edit.new, edit.trailing) == ("Title\n", "old\n", f"new\n{'=' * 9}\n", "end\n")


def test_a_stray_lt_after_replace_is_accepted_with_a_warning() -> None:
    parsed = parse(f"a.py\n{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}<\n")
    [edit] = parsed.blocks
    assert edit.new == "x = 2\n" and any("stray `<`" in w or "unexpected marker" in w for w in warnings(parsed))


def test_a_ten_character_separator_is_accepted_with_a_warning() -> None:
    parsed = parse(f"a.py\n------- SEARCH\nx = 1\n{'=' * 10}\nx = 2\n+++++++ REPLACE\n")
    [edit] = parsed.blocks
    assert (edit.old, edit.new) == ("x = 1\n", "x = 2\n") and warnings(parsed)


def test_a_long_equals_line_is_text_where_a_block_has_a_separator() -> None:
    ruler = "=" * 12
    [edit] = parse(f"doc.rst\n{SEARCH}\nTitle\n{ruler}\n{SEPARATOR}\nNew title\n{ruler}\n{REPLACE}\n").blocks
    assert (edit.old, edit.new) == (f"Title\n{ruler}\n", f"New title\n{ruler}\n")


# --- 5. Roo Code's line-number hints ------------------------------------------------------------------------

TWICE = "def first():\n    return 1\n\n\ndef second():\n    return 1\n"


def test_a_start_line_header_is_a_hint_never_text() -> None:
    [edit] = parse(f"m.py\n{SEARCH}\n:start_line:6\n-------\n    return 1\n{SEPARATOR}\n    return 2\n{REPLACE}\n").blocks
    assert (edit.old, edit.new, edit.line_hint) == ("    return 1\n", "    return 2\n", 6)


def test_a_line_hint_breaks_a_tie_between_identical_candidates(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWICE})
    answer = f"m.py\n{SEARCH}\n:start_line:6\n-------\n    return 1\n{SEPARATOR}\n    return 2\n{REPLACE}\n"
    result = single(run(tmp_path, answer))
    assert result.status.value == "applied" and result.start_line == 6
    assert (tmp_path / "m.py").read_text() == TWICE[: -len("1\n")] + "2\n"


def test_a_line_hint_pointing_at_no_candidate_leaves_the_block_ambiguous(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWICE})
    answer = f"m.py\n{SEARCH}\n:start_line:40\n-------\n    return 1\n{SEPARATOR}\n    return 2\n{REPLACE}\n"
    result = single(run(tmp_path, answer))
    assert result.code.value == "ambiguous" and "line hint" in result.reason
    assert (tmp_path / "m.py").read_text() == TWICE


def test_a_line_hint_inside_the_replacement_is_an_error_never_written(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": "x = 1\n"})
    answer = f"m.py\n{SEARCH}\n:start_line:1\n-------\nx = 1\n{SEPARATOR}\n:start_line:1\nx = 2\n{REPLACE}\n"
    parsed = parse(answer)
    assert parsed.blocks == () and ":start_line:1" in errors(parsed)[0]
    run(tmp_path, answer)
    assert (tmp_path / "m.py").read_text() == "x = 1\n"


# --- 6. line-number prefixes --------------------------------------------------------------------------------


def test_numbered_old_and_new_lines_lose_their_prefixes(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWICE})
    answer = block("m.py", f"{SEARCH}\n5 | def second():\n6 |     return 1\n{SEPARATOR}\n"
                           f"5 | def second():\n6 |     return 2\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.status.value == "applied" and "line-number prefixes" in result.reason
    assert (tmp_path / "m.py").read_text() == TWICE[: -len("1\n")] + "2\n"


def test_cat_n_numbers_with_tabs_are_taken_off(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWICE})
    answer = block("m.py", f"{SEARCH}\n     5\tdef second():\n     6\t    return 1\n{SEPARATOR}\n"
                           f"def second():\n    return 3\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "m.py").read_text() == TWICE[: -len("1\n")] + "3\n"


def test_a_numbered_line_the_file_really_has_is_matched_as_written(tmp_path: Path) -> None:
    table = "1 | one\n2 | two\n"
    make_tree(tmp_path, {"table.txt": table})
    answer = block("table.txt", f"{SEARCH}\n2 | two\n{SEPARATOR}\n2 | deux\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).reason == ""
    assert (tmp_path / "table.txt").read_text() == "1 | one\n2 | deux\n"


def test_inconsistent_numbering_is_refused_with_a_reason(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWICE})
    answer = block("m.py", f"{SEARCH}\n5 | def second():\n7 |     return 1\n{SEPARATOR}\n"
                           f"def second():\n    return 2\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.code.value == "not-found" and "not consecutive" in result.reason
    assert (tmp_path / "m.py").read_text() == TWICE


# --- 7. escaped markers -------------------------------------------------------------------------------------


def test_an_escaped_separator_inside_a_block_is_the_separator_line(tmp_path: Path) -> None:
    make_tree(tmp_path, {"README.md": "Title\n=======\n\nText.\n"})
    answer = block("README.md", f"{SEARCH}\nTitle\n\\{SEPARATOR}\n{SEPARATOR}\nNew title\n\\{SEPARATOR}\n{REPLACE}\n")
    [edit] = parse(answer).blocks
    assert (edit.old, edit.new) == ("Title\n=======\n", "New title\n=======\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "README.md").read_text() == "New title\n=======\n\nText.\n"


def test_escaped_start_and_end_markers_are_literal_lines() -> None:
    answer = f"doc.md\n{SEARCH}\nexample:\n\\{SEARCH}\n\\{REPLACE}\n{SEPARATOR}\nexample!\n{REPLACE}\n"
    [edit] = parse(answer).blocks
    assert edit.old == f"example:\n{SEARCH}\n{REPLACE}\n"


def test_a_file_that_holds_escaped_lines_takes_the_block_as_written(tmp_path: Path) -> None:
    make_tree(tmp_path, {"escapes.txt": "before\n\\=======\nafter\n"})
    answer = block("escapes.txt", f"{SEARCH}\nbefore\n\\{SEPARATOR}\n{SEPARATOR}\nBEFORE\n\\{SEPARATOR}\n{REPLACE}\n")
    assert single(run(tmp_path, answer)).status.value == "applied"
    assert (tmp_path / "escapes.txt").read_text() == "BEFORE\n\\=======\nafter\n"


# --- 8. internal whitespace ---------------------------------------------------------------------------------

ALIGNED = "WIDTH  = 80\nHEIGHT = 24\nDEPTH\t= 8\n"


def test_runs_of_inner_spaces_and_tabs_compare_as_one_space_and_keep_the_file_bytes(tmp_path: Path) -> None:
    make_tree(tmp_path, {"size.py": ALIGNED})
    answer = block("size.py", f"{SEARCH}\nWIDTH = 80\nHEIGHT = 24\nDEPTH = 8\n{SEPARATOR}\n"
                              f"WIDTH = 80\nHEIGHT = 25\nDEPTH = 8\n{REPLACE}\n")
    result = single(run(tmp_path, answer))
    assert result.strategy == "internal-whitespace"
    assert (tmp_path / "size.py").read_text() == "WIDTH  = 80\nHEIGHT = 25\nDEPTH\t= 8\n"


def test_the_internal_whitespace_rung_demands_a_unique_match(tmp_path: Path) -> None:
    original = "a  = 1\nb = 2\na =  1\n"
    make_tree(tmp_path, {"t.py": original})
    result = single(run(tmp_path, block("t.py", f"{SEARCH}\na = 1\n{SEPARATOR}\na = 3\n{REPLACE}\n")))
    assert result.code.value == "ambiguous" and result.strategy == "internal-whitespace"
    assert (tmp_path / "t.py").read_text() == original


def test_inner_whitespace_is_exact_in_strict_mode(tmp_path: Path) -> None:
    make_tree(tmp_path, {"size.py": ALIGNED})
    result = single(run(tmp_path, block("size.py", f"{SEARCH}\nWIDTH = 80\n{SEPARATOR}\nWIDTH = 81\n{REPLACE}\n"),
                        strict=True))
    assert result.code.value == "not-found"


# --- 9. paths ------------------------------------------------------------------------------------------------


def test_a_leading_backslash_is_a_relative_windows_path(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/app.py": "x = 1\n"})
    answer = block("\\src\\app.py", f"{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}\n")
    assert parse(answer).blocks[0].path == "src/app.py"
    assert single(run(tmp_path, answer)).status.value == "applied"


def test_a_gptme_fence_carries_the_path() -> None:
    answer = "```patch hello.py\n<<<<<<< ORIGINAL\nprint('hi')\n=======\nprint('hello')\n>>>>>>> UPDATED\n```\n"
    [edit] = parse(answer).blocks
    assert (edit.path, edit.new) == ("hello.py", "print('hello')\n")


def test_a_file_header_inside_a_new_file_is_warned_about() -> None:
    answer = "### File: a.py\n<<<<<<< NEW_FILE\nx = 1\n\n### File: b.py\ny = 2\n>>>>>>> NEW_FILE\n"
    parsed = parse(answer)
    assert len(parsed.blocks) == 1 and any("### File: b.py" in w for w in warnings(parsed))
    assert not warnings(parse("### File: a.py\n<<<<<<< NEW_FILE\n# File: a.py\nx = 1\n>>>>>>> NEW_FILE\n"))


def test_a_missing_file_names_the_same_file_name_elsewhere(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/utils/helpers.py": "x = 1\n", "README.md": "hi\n"})
    result = single(run(tmp_path, block("helpers.py", f"{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}\n")))
    assert result.code.value == "file-not-found" and "`src/utils/helpers.py`" in result.reason
    case = single(run(tmp_path, block("readme.md", f"{SEARCH}\nhi\n{SEPARATOR}\nho\n{REPLACE}\n")))
    assert "`README.md`" in case.reason


def test_the_suggestion_reaches_the_feedback_message(tmp_path: Path) -> None:
    from editblocks import feedback_message

    make_tree(tmp_path, {"src/utils/helpers.py": "x = 1\n"})
    outcome = run(tmp_path, block("helpers.py", f"{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}\n"))
    assert "`src/utils/helpers.py`" in feedback_message(outcome)


@pytest.mark.parametrize("source", ["file", "-", "git"])
def test_apply_and_check_take_known_files(tmp_path: Path, source: str) -> None:
    root = tmp_path / "project"
    make_tree(root, {"src/utils/helpers.py": "x = 1\n"})
    answer = tmp_path / "answer.md"
    answer.write_text(block("helpers.py", f"{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}\n"))
    listing = tmp_path / "files.txt"
    listing.write_text("src/utils/helpers.py\n")
    if source == "git":
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    option = {"file": str(listing), "-": "-", "git": "git"}[source]
    given = "src/utils/helpers.py\n" if source == "-" else None
    runner = CliRunner()
    checked = runner.invoke(main, ["check", str(answer), "--root", str(root), "--known-files", option, "--json"],
                            input=given)
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.output)["results"][0]["path"] == "src/utils/helpers.py"
    applied = runner.invoke(main, ["apply", str(answer), "--root", str(root), "--known-files", option], input=given)
    assert applied.exit_code == 0, applied.output
    assert (root / "src/utils/helpers.py").read_text() == "x = 2\n"


def test_known_files_that_cannot_be_read_are_a_usage_error(tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(block("a.py", f"{SEARCH}\nx\n{SEPARATOR}\ny\n{REPLACE}\n"))
    missing = CliRunner().invoke(main, ["apply", str(answer), "--root", str(tmp_path),
                                        "--known-files", str(tmp_path / "nope.txt")])
    assert missing.exit_code == 2 and "known files" in missing.output
    both = CliRunner().invoke(main, ["apply", "-", "--root", str(tmp_path), "--known-files", "-"], input="x")
    assert both.exit_code == 2 and "standard input" in both.output


# --- 10. a later block that lost its start marker ------------------------------------------------------------

HEADLESS = (f"page.html\n```html\n{SEARCH}\n<div id=\"tree\"></div>\n{SEPARATOR}\n<div id=\"tree\"></div>\n"
            f"<ul id=\"why\"></ul>\n{REPLACE}\n```\n\npage.html\n```html\n  load();\n{SEPARATOR}\n  load();\n"
            f"  explain();\n{REPLACE}\n```\n")


def test_a_later_block_without_its_start_marker_leaves_the_complete_block_before_it_alone(tmp_path: Path) -> None:
    """The first block's fence closed and a new one opened before the stray `=======`: that separator is a later
    block's, not evidence that the first block was cut short (it used to be withdrawn with it)."""
    make_tree(tmp_path, {"page.html": '<div id="tree"></div>\n  load();\n'})
    parsed = parse(HEADLESS)
    assert [b.new for b in parsed.blocks] == ['<div id="tree"></div>\n<ul id="why"></ul>\n']
    [error] = errors(parsed)
    assert "line 14" in error and "lost its start marker" in error
    result = run(tmp_path, HEADLESS)
    assert [r.status.value for r in result.results] == ["applied"]
    assert (tmp_path / "page.html").read_text() == '<div id="tree"></div>\n<ul id="why"></ul>\n  load();\n'
    assert all(streamed(HEADLESS, size) == parsed for size in (1, 3, 8))


def test_a_separator_in_a_later_fence_without_an_end_marker_is_just_text() -> None:
    """A git conflict quoted after a block (here read as `diff`, where `<<<<<<< HEAD` starts nothing): its
    `=======` is followed by no end marker, so it is no block and nothing is reported."""
    answer = (f"a.py\n```python\n{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}\n```\n\nA conflict:\n```\n"
              f"<<<<<<< HEAD\na\n{SEPARATOR}\nb\n>>>>>>> main\n```\n")
    parsed = parse(answer, "diff")
    assert len(parsed.blocks) == 1 and parsed.diagnostics == ()


def test_a_stray_end_in_the_same_fence_still_withdraws_the_block_it_cut_short() -> None:
    answer = f"a.py\n```python\n{SEARCH}\nx = 1\n{SEPARATOR}\nx = '''\n{REPLACE}\n'''\n{REPLACE}\n```\n"
    parsed = parse(answer)
    assert parsed.blocks == () and "cut short" in errors(parsed)[0]


# --- streaming and round trips stay as they were ------------------------------------------------------------


@pytest.mark.parametrize("answer", [
    f"a.py\n```python\n{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{SEPARATOR}\n```\nprose\n",
    f"a.py\n{SEARCH}\nx\n{SEPARATOR}\n{SEPARATOR}\n{REPLACE}\n",
    f"m.py\n{SEARCH}\n:start_line:3\n-------\nx\n{SEPARATOR}\ny\n{REPLACE}\n",
    f"a.py\n<<<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\nb.py\n{SEARCH}\nq\n{SEPARATOR}\nr\n{REPLACE}\n",
])
def test_any_chunking_reads_the_recovered_shapes_like_one_shot(answer: str) -> None:
    one_shot = parse(answer)
    assert one_shot.blocks
    for size in (1, 2, 5, 13):
        assert streamed(answer, size) == one_shot


def test_an_ordinary_block_renders_and_parses_back_unchanged() -> None:
    [edit] = parse(block("a.py", f"{SEARCH}\nx = 1\n{SEPARATOR}\nx = 2\n{REPLACE}\n")).blocks
    assert (edit.readings, edit.literal, edit.line_hint) == ((), None, None)
    assert parse(render(edit)).blocks[0] == edit
