"""The parsing cases P1–P24 of CASES.md, with our own response texts."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from editblocks import BlockKind, Format, Severity, StreamParser, parse


def fence(body: str, lang: str = "python", ticks: str = "```") -> str:
    return f"{ticks}{lang}\n{body}{ticks}\n"


def sr(old: str, new: str, run: int = 7) -> str:
    return f"{'<' * run} SEARCH\n{old}{'=' * run}\n{new}{'>' * run} REPLACE\n"


def errors(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity is Severity.ERROR]


def warnings(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity is Severity.WARNING]


# --- P1 ---------------------------------------------------------------------------


def test_p1_empty_replace_then_next_search_gives_two_blocks():
    text = "inventory.py\n" + fence(sr("stock = {}\n", "") + sr("count = 0\n", "count = 10\n"))
    result = parse(text)
    assert [(b.old, b.new) for b in result.blocks] == [("stock = {}\n", ""), ("count = 0\n", "count = 10\n")]
    assert all(b.path == "inventory.py" for b in result.blocks)
    assert not result.diagnostics


# --- P2 ---------------------------------------------------------------------------


def test_p2_separator_inside_a_string_is_content():
    text = "banner.py\n" + fence(sr('line = "======="\n', 'line = "-------"\n'))
    [block] = parse(text).blocks
    assert block.old == 'line = "======="\n'
    assert block.new == 'line = "-------"\n'


def test_p2_whole_line_separator_in_markdown_content_is_read_every_way_never_truncated():
    old = "Release notes\n=======\n\nFirst draft.\n"
    new = "Release notes\n=======\n\nSecond draft.\n"
    result = parse("NOTES.md\n" + fence(sr(old, new), "markdown"))
    [block] = result.blocks
    # the split at the first `=======` would write the others into the file as new lines: no reading at all
    assert [(r.old, r.new) for r in block.readings][0] == (old, new) and len(block.readings) == 2
    assert all("=======" not in reading.new or reading.new == new for reading in block.readings)
    assert (block.old, block.new) == (block.readings[0].old, block.readings[0].new)
    [message] = warnings(result)
    assert "3 separator lines" in message and not errors(result)


def test_p2_more_separators_than_readings_are_still_reported():
    text = "NOTES.md\n" + sr("a\n=======\nb\n=======\nc\n", "d\n=======\ne\n=======\nf\n")
    result = parse(text)
    assert result.blocks == ()
    [message] = errors(result)
    assert "5 separator lines" in message and "9-character markers" in message


def test_p2_nine_character_markers_make_the_content_separator_plain_text():
    old = "Release notes\n=======\n\nFirst draft.\n"
    new = "Release notes\n=======\n\nSecond draft.\n"
    result = parse("NOTES.md\n" + fence(sr(old, new, run=9), "markdown"))
    [block] = result.blocks
    assert (block.old, block.new) == (old, new)
    assert not result.diagnostics


# --- P3 ---------------------------------------------------------------------------


def test_p3_marker_lengths_five_to_nine_mixed_in_one_response():
    text = (
        "a.py\n" + fence(sr("one = 1\n", "one = 11\n", run=5))
        + "b.py\n" + fence(sr("two = 2\n", "two = 22\n", run=9))
        + "c.py\n" + fence(sr("three = 3\n", "three = 33\n", run=7))
    )
    result = parse(text)
    assert [(b.path, b.new) for b in result.blocks] == [("a.py", "one = 11\n"), ("b.py", "two = 22\n"), ("c.py", "three = 33\n")]
    assert not result.diagnostics


def test_p3_search_marker_with_stray_angle_bracket():
    text = "a.py\n<<<<<<< SEARCH>\nold = 1\n=======\nold = 2\n>>>>>>> REPLACE\n"
    [block] = parse(text).blocks
    assert block.old == "old = 1\n"


def test_markers_with_trailing_whitespace_are_markers():
    text = "a.py\n<<<<<<< SEARCH   \nold = 1\n=======\t\nold = 2\n>>>>>>> REPLACE \n"
    [block] = parse(text).blocks
    assert (block.old, block.new) == ("old = 1\n", "old = 2\n")


# --- P4 ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "separator", "end", "warned"),
    [
        ("<<<<<<<SEARCH", "=======", ">>>>>>>REPLACE", True),
        ("<<<<<<< search", "=======", ">>>>>>> replace", True),
        ("<<<< SEARCH", "====", ">>>> REPLACE", True),
        ("<<<<<<< ORIGINAL", "=======", ">>>>>>> UPDATED", False),
        ("------- SEARCH", "=======", "+++++++ REPLACE", False),
    ],
)
def test_p4_near_markers_accepted_when_unambiguous(start, separator, end, warned):
    text = f"tool.py\n{start}\nlimit = 5\n{separator}\nlimit = 6\n{end}\n"
    result = parse(text)
    [block] = result.blocks
    assert (block.old, block.new) == ("limit = 5\n", "limit = 6\n")
    assert bool(warnings(result)) is warned
    assert not errors(result)


def test_p4_marker_with_extra_text_is_reported_with_its_line():
    text = "tool.py\n<<<<<<< SEARCH tool.py\nlimit = 5\n=======\nlimit = 6\n>>>>>>> REPLACE\n"
    result = parse(text)
    assert result.blocks == ()
    lines = {d.line for d in result.diagnostics}
    assert 2 in lines  # the near-marker
    assert 6 in lines  # the orphaned end marker


def test_p4_short_separator_without_short_start_is_reported():
    text = "tool.py\n<<<<<<< SEARCH\nlimit = 5\n====\nlimit = 6\n>>>>>>> REPLACE\n"
    result = parse(text)
    assert result.blocks == ()
    assert errors(result) == ["block at line 2 has no separator"]


# --- P5, P6, P7 ------------------------------------------------------------------------


def test_p5_truncated_response_keeps_earlier_blocks_and_reports_the_open_one():
    text = "a.py\n" + fence(sr("x = 1\n", "x = 2\n")) + "b.py\n```python\n<<<<<<< SEARCH\ny = 1\n=======\ny = "
    result = parse(text)
    assert [b.path for b in result.blocks] == ["a.py"]
    assert errors(result) == ["block at line 11 is not closed (response truncated?)"]


def test_p6_response_ending_with_replace_marker_and_no_newline():
    text = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE"
    [block] = parse(text).blocks
    assert block.new == "x = 2\n"


def test_p7_middle_block_without_separator_is_reported_and_others_parse():
    text = (
        "a.py\n" + fence(sr("first = 1\n", "first = 2\n"))
        + "a.py\n```python\n<<<<<<< SEARCH\nsecond = 1\nsecond = 2\n>>>>>>> REPLACE\n```\n"
        + "a.py\n" + fence(sr("third = 1\n", "third = 2\n"))
    )
    result = parse(text)
    assert [b.old for b in result.blocks] == ["first = 1\n", "third = 1\n"]
    assert errors(result) == ["block at line 11 has no separator"]


# --- P8, P9, P10 -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path_line",
    [
        "**src/app.py**",
        "`src/app.py`",
        "### File: src/app.py",
        "# src/app.py",
        "src/app.py:",
        '"src/app.py"',
        "**File:** `src/app.py`",
        "// src/app.py",
        "- `src/app.py`",
        "`src/app.py`:",
        "Filename: src/app.py",
    ],
)
def test_p8_decorated_filenames_are_cleaned(path_line):
    [block] = parse(f"{path_line}\n" + fence(sr("a = 1\n", "a = 2\n"))).blocks
    assert block.path == "src/app.py"


def test_p8_underscores_inside_names_survive():
    [block] = parse("pkg/__init__.py\n" + fence(sr("a = 1\n", "a = 2\n"))).blocks
    assert block.path == "pkg/__init__.py"


@pytest.mark.parametrize(
    ("header", "path"),
    [
        ("### File: __init__.py", "__init__.py"),
        ("File: __main__.py", "__main__.py"),
        ("**File:** __tests__/app.test.js", "__tests__/app.test.js"),
        ("### File: _config.yml", "_config.yml"),
        ("_File:_ app.py", "app.py"),
        ("### File: .env", ".env"),
        ("### File: .github/workflows/ci.yml", ".github/workflows/ci.yml"),
        ("### File: VERSION", "VERSION"),
        ("### File: CODEOWNERS", "CODEOWNERS"),
        ("# .gitignore", ".gitignore"),
        ("`docs/release notes.md`", "docs/release notes.md"),
        ("src/app.py:12", "src/app.py"),
    ],
)
def test_p8_labelled_dotfiles_extensionless_and_underscored_names(header, path):
    [block] = parse(f"{header}\n" + fence(sr("a = 1\n", "a = 2\n"), lang="")).blocks
    assert block.path == path


def test_p8_a_file_header_for_a_dotfile_never_falls_back_to_the_previous_path():
    text = (
        "### File: app.py\n" + sr("import os\n", "import sys\n")
        + "\n### File: .env\n" + sr("DEBUG = True\n", "DEBUG = False\n")
    )
    assert [b.path for b in parse(text).blocks] == ["app.py", ".env"]


def test_p8_a_file_header_that_names_no_usable_path_is_an_error_not_a_carry_over():
    text = (
        "### File: app.py\n" + sr("import os\n", "import sys\n")
        + "\n### File: the settings module\n" + sr("DEBUG = True\n", "DEBUG = False\n")
    )
    result = parse(text)
    assert [b.path for b in result.blocks] == ["app.py"]
    assert "has no file path" in errors(result)[0] and "File:" in errors(result)[0]


def test_p8_a_path_on_the_fence_line_after_a_language():
    [block] = parse("```python:src/a.py\n" + sr("a = 1\n", "a = 2\n") + "```\n").blocks
    assert block.path == "src/a.py"


def test_prose_in_backticks_with_spaces_is_not_a_path():
    result = parse("`notes for v1.2`\n" + fence(sr("a = 1\n", "a = 2\n")))
    assert result.blocks == () and "has no file path" in errors(result)[0]


@pytest.mark.parametrize(
    "prose",
    ["Here is the change for utils.py:", "Update the helper:", "Now let's fix the loop in utils.py."],
)
def test_p9_prose_is_never_a_filename(prose):
    result = parse(f"{prose}\n" + fence(sr("a = 1\n", "a = 2\n")))
    assert result.blocks == ()
    assert errors(result) and "has no file path" in errors(result)[0]


def test_p9_prose_naming_another_file_does_not_silently_reuse_the_previous_path():
    text = "src/first.py\n" + fence(sr("a = 1\n", "a = 2\n")) + "And the same for second.py:\n" + fence(sr("b = 1\n", "b = 2\n"))
    result = parse(text)
    assert [b.path for b in result.blocks] == ["src/first.py"]
    assert "second.py" in errors(result)[0]


def test_p9_neutral_prose_between_blocks_keeps_the_previous_path():
    text = "src/first.py\n" + fence(sr("a = 1\n", "a = 2\n")) + "Next, the loop:\n" + fence(sr("b = 1\n", "b = 2\n"))
    assert [b.path for b in parse(text).blocks] == ["src/first.py", "src/first.py"]


def test_p10_language_tag_is_never_a_filename():
    result = parse("Some prose.\n```python\n" + sr("a = 1\n", "a = 2\n") + "```\n")
    assert result.blocks == ()
    assert "has no file path" in errors(result)[0]


@pytest.mark.parametrize("name", ["php", "sql", "Makefile"])
def test_p10_files_really_named_like_languages_still_work(name):
    [block] = parse(f"{name}\n" + fence(sr("a\n", "b\n"), lang="")).blocks
    assert block.path == name
    [labelled] = parse(f"### File: {name}\n" + sr("a\n", "b\n")).blocks
    assert labelled.path == name


# --- P11, P12, P13 --------------------------------------------------------------------------


def test_p11_filename_inside_outside_and_mixed():
    outside = "src/out.py\n```python\n" + sr("o = 1\n", "o = 2\n") + "```\n"
    inside = "```python\nsrc/in.py\n" + sr("i = 1\n", "i = 2\n") + "```\n"
    result = parse(outside + "\n" + inside)
    assert [(b.path, b.format) for b in result.blocks] == [
        ("src/out.py", Format.DIFF),
        ("src/in.py", Format.DIFF_FENCED),
    ]


def test_p12_quad_backtick_fence_around_markdown_with_triple_backticks():
    old = "Install:\n\n```bash\npip install demo\n```\n"
    new = "Install:\n\n```bash\npip install demo==2.0\n```\n"
    text = "README.md\n" + fence(sr(old, new), lang="markdown", ticks="````")
    [block] = parse(text, fence=("```", "```")).blocks
    assert (block.old, block.new) == (old, new)


def test_p12_markdown_with_triple_backticks_inside_a_triple_fence_still_parses():
    old = "```bash\nmake\n```\n"
    new = "```bash\nmake all\n```\n"
    text = "README.md\n```markdown\n" + sr(old, new) + "```\n"
    [block] = parse(text).blocks
    assert block.new == new


def test_p13_second_block_in_same_fence_reuses_the_filename():
    text = "src/calc.py\n```python\n" + sr("a = 1\n", "a = 2\n") + "\n" + sr("b = 1\n", "b = 2\n") + "```\n"
    assert [b.path for b in parse(text).blocks] == ["src/calc.py", "src/calc.py"]


# --- P14 -------------------------------------------------------------------------------------


def test_p14_bash_fence_is_a_shell_suggestion():
    result = parse("Then run:\n```bash\n# tests first\npytest -q\npip install \\\n  rich\n```\n")
    assert [(s.command, s.line) for s in result.shell] == [("pytest -q", 4), ("pip install rich", 5)]
    assert result.blocks == ()


def test_p14_sh_fence_holding_an_edit_for_a_shell_script_is_an_edit():
    text = "```sh\ndeploy.sh\n" + sr("echo start\n", "echo begin\n") + "```\n"
    result = parse(text)
    [block] = result.blocks
    assert block.path == "deploy.sh"
    assert result.shell == ()


def test_p14_shell_session_is_a_transcript_and_shader_is_not_shell():
    text = "```shell-session\n$ make test\nok 12 tests\n```\n```shader\nvoid main() {}\n```\n"
    assert [s.command for s in parse(text).shell] == ["make test"]


def test_p14_inline_commands_in_prose():
    text = "Delete it with `git rm old/util.py` and `git mv a.py b.py`; also `mkdir -p out` and `rm -rf tmp`.\n"
    assert [s.command for s in parse(text).shell] == ["git rm old/util.py", "git mv a.py b.py", "mkdir -p out", "rm -rf tmp"]


# --- P15 -------------------------------------------------------------------------------------


def test_p15_two_hundred_blocks_over_twenty_files():
    parts = []
    for file_no in range(20):
        parts.append(f"src/module_{file_no}.py\n```python\n")
        for edit_no in range(10):
            parts.append(sr(f"value_{edit_no} = {edit_no}\n", f"value_{edit_no} = {edit_no * 10}\n"))
        parts.append("```\n\n")
    result = parse("".join(parts))
    assert len(result.blocks) == 200
    assert {b.path for b in result.blocks} == {f"src/module_{n}.py" for n in range(20)}
    assert result.blocks[-1].new == "value_9 = 90\n"


def test_p15_ten_thousand_character_line_crlf_unicode_and_tabs():
    long_line = "data = '" + "x" * 10_000 + "'\n"
    text = ("story.py\n" + fence(sr(long_line + "\tgreet = 'héllo 🌍'\n", "\tgreet = 'こんにちは'\n"))).replace("\n", "\r\n")
    [block] = parse(text).blocks
    assert block.old == long_line + "\tgreet = 'héllo 🌍'\n"
    assert block.new == "\tgreet = 'こんにちは'\n"
    assert "\r" not in block.old + block.new


# --- P16 -------------------------------------------------------------------------------------

RESPONSE = (
    "<think>\nmaybe a.py\n<<<<<<< SEARCH\nnope\n=======\nno\n>>>>>>> REPLACE\n</think>\n"
    "I'll update two files.\n\nsrc/a.py\n```python\n" + sr("x = 1\n", "x = 2\n") + sr("y = 1\n", "") + "```\n"
    "```python\nsrc/b.py\n" + sr("", "print('new')\n") + "```\n"
    "```bash\npytest\n```\nUse `git rm src/c.py`.\n"
    "src/d.py\n<<<<<<< EDIT\ndef f():\n-------\n    pass\n=======\n    return 1\n-------\n>>>>>>>\n"
    "src/e.py\n««« EDIT\nimport os\nimport sys\n═══════ REPL\nimport os\nimport re\n»»» EDIT END\n"
    "src/f.py\n<<<<<<< SEARCH\nbroken = 1\n>>>>>>> REPLACE\n"
    "src/g.py\n<<<<<<< SEARCH\ntrunc"
)


def _stream(text: str, sizes) -> tuple:
    parser = StreamParser()
    position = 0
    for size in sizes:
        if position >= len(text):
            break
        parser.feed(text[position : position + size])
        position += size
    parser.feed(text[position:])
    parser.close()
    return parser.result()


@pytest.mark.parametrize("size", [1, 2, 7])
def test_p16_fixed_chunk_sizes_give_the_one_shot_result(size):
    assert _stream(RESPONSE, [size] * len(RESPONSE)) == parse(RESPONSE)


def test_p16_random_chunks_give_the_one_shot_result():
    rng = random.Random(1234)
    for _ in range(50):
        sizes = [rng.randint(1, 40) for _ in range(len(RESPONSE))]
        assert _stream(RESPONSE, sizes) == parse(RESPONSE)


def test_p16_the_response_under_test_exercises_every_kind_of_result():
    result = parse(RESPONSE)
    assert len(result.blocks) == 5 and result.shell and errors(result)


# --- P17, P18 ------------------------------------------------------------------------------------


def test_p17_guillemet_anchor_is_the_common_prefix():
    text = "src/steps.py\n««« EDIT\ndef process():\n    step_one()\n    step_two()\n═══════ REPL\ndef process():\n    step_one()\n    step_two_updated()\n»»» EDIT END\n"
    [block] = parse(text).blocks
    assert block.leading == "def process():\n    step_one()\n"
    assert block.old == "    step_two()\n"
    assert block.new == "    step_two_updated()\n"
    assert block.format is Format.GUILLEMET and block.trailing == ""


def test_p17_guillemet_no_op_is_reported():
    text = "src/steps.py\n««« EDIT\nkeep = 1\n═══════ REPL\nkeep = 1\n»»» EDIT END\n"
    result = parse(text)
    [block] = result.blocks
    assert block.is_noop
    assert "changes nothing" in warnings(result)[0]


ANCHORED_OPERATIONS = {
    "modify": ("def calculate(a, b):\n", "    return a + b\n", "    return a * b\n", "\ndef other_function():\n", BlockKind.EDIT),
    "insert": ("def existing():\n    pass\n", "", "\ndef new_function():\n    return 42\n", "\ndef another():\n", BlockKind.EDIT),
    "delete": ("def main():\n", "    deprecated_call()\n", "", "    important_call()\n", BlockKind.EDIT),
    "create": ("", "", '"""New module."""\n\ndef hello():\n    print("Hello!")\n', "", BlockKind.CREATE),
    "append": ("    return final_value\n", "", "\ndef appended_function():\n    pass\n", "", BlockKind.EDIT),
    "insert at start": ("", "", '"""Module docstring."""\n\n', "import os\n", BlockKind.EDIT),
}


@pytest.mark.parametrize("operation", list(ANCHORED_OPERATIONS))
def test_p18_anchored_operations(operation):
    leading, old, new, trailing, kind = ANCHORED_OPERATIONS[operation]
    text = f"src/utils.py\n<<<<<<< EDIT\n{leading}-------\n{old}=======\n{new}-------\n{trailing}>>>>>>>\n"
    result = parse(text)
    [block] = result.blocks
    assert (block.leading, block.old, block.new, block.trailing, block.kind) == (leading, old, new, trailing, kind)
    assert block.format is Format.ANCHORED and block.line == 2
    assert not result.diagnostics


# --- P19 .. P24 ------------------------------------------------------------------------------------


def test_p19_new_file_and_search_replace_in_one_response():
    text = (
        "### File: src/config.ts\n<<<<<<< NEW_FILE\nexport const retries = 3;\n>>>>>>> NEW_FILE\n\n"
        "### File: src/app.ts\n" + sr("const a = 1;\n", "const a = 10;\n")
    )
    result = parse(text)
    assert [(b.path, b.kind, b.format) for b in result.blocks] == [
        ("src/config.ts", BlockKind.CREATE, Format.SEARCH_REPLACE),
        ("src/app.ts", BlockKind.EDIT, Format.SEARCH_REPLACE),
    ]
    assert result.format == "search-replace"


def test_p20_windows_separators_are_normalised():
    [block] = parse("Models\\Offer.cs\n" + fence(sr("int a;\n", "int b;\n"), "csharp")).blocks
    assert block.path == "Models/Offer.cs"


@pytest.mark.parametrize(
    ("written", "path"),
    [
        ("src\\__tests__\\app.js", "src/__tests__/app.js"),
        ("src\\_internal\\x.py", "src/_internal/x.py"),
        ("my\\_file.py", "my_file.py"),
    ],
)
def test_p20_windows_separators_before_underscores_and_markdown_escapes(written, path):
    [block] = parse(f"{written}\n" + fence(sr("a = 1\n", "a = 2\n"))).blocks
    assert block.path == path


def test_p21_xml_source_fence_is_not_a_path():
    text = "src/api.ts\n<source>typescript\n" + sr("let a = 1;\n", "let a = 2;\n") + "</source>\n"
    [block] = parse(text).blocks
    assert block.path == "src/api.ts"


def test_p22_path_between_two_fence_lines():
    text = "```csharp\nsrc/A.cs\n```csharp\n" + sr("int x;\n", "int y;\n") + "```\n"
    [block] = parse(text).blocks
    assert block.path == "src/A.cs"


def test_p23_drafts_inside_think_are_ignored():
    text = (
        "<think>\nFirst idea:\nsrc/a.py\n" + sr("x = 1\n", "x = 100\n") + "Hmm, no.\n</think>\n"
        "src/a.py\n" + fence(sr("x = 1\n", "x = 2\n"))
    )
    result = parse(text)
    [block] = result.blocks
    assert block.new == "x = 2\n"
    assert not result.diagnostics


def test_p24_identical_search_and_replace_is_reported():
    result = parse("a.py\n" + fence(sr("same = 1\n", "same = 1\n")))
    [block] = result.blocks
    assert block.is_noop
    assert "changes nothing" in warnings(result)[0]


# --- beyond the list -----------------------------------------------------------------------------


def test_empty_search_means_create():
    [block] = parse("src/new.py\n" + fence(sr("", "print('hi')\n"))).blocks
    assert block.kind is BlockKind.CREATE


def test_whitespace_only_search_means_create():
    [block] = parse("src/new.py\n" + fence(sr("\n  \n", "print('hi')\n"))).blocks
    assert block.kind is BlockKind.CREATE


def test_known_files_map_basename_and_case_but_not_for_creation():
    known = ["src/util/helpers.py", "README.md"]
    text = "helpers.py\n" + fence(sr("a\n", "b\n")) + "readme.md\n" + fence(sr("c\n", "d\n")) + "tests/helpers.py\n" + fence(sr("", "e\n"))
    assert [b.path for b in parse(text, known_files=known).blocks] == ["src/util/helpers.py", "README.md", "tests/helpers.py"]


def test_known_files_ambiguous_basename_is_left_alone():
    known = ["a/util.py", "b/util.py"]
    [block] = parse("util.py\n" + fence(sr("a\n", "b\n")), known_files=known).blocks
    assert block.path == "util.py"


def test_block_indented_inside_a_markdown_list_loses_the_list_indent():
    text = "1. Change the greeting:\n\n   src/hi.py\n   ```python\n   <<<<<<< SEARCH\n   def hi():\n       return 'hi'\n   =======\n   def hi():\n       return 'hello'\n   >>>>>>> REPLACE\n   ```\n"
    [block] = parse(text).blocks
    assert block.old == "def hi():\n    return 'hi'\n"
    assert block.new == "def hi():\n    return 'hello'\n"


def test_indented_separator_in_unindented_block_is_content():
    text = "doc.rst\n<<<<<<< SEARCH\nTitle\n    =======\n=======\nTitle!\n    =======\n>>>>>>> REPLACE\n"
    [block] = parse(text).blocks
    assert block.old == "Title\n    =======\n"


def test_unclosed_block_followed_by_a_new_block():
    text = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n"
    result = parse(text)
    assert [b.old for b in result.blocks] == ["y = 1\n"]
    assert result.blocks[0].path == "a.py"
    assert errors(result) == ["block at line 2 is not closed before the next block at line 6"]


def test_strict_block_keeps_seven_character_markers_as_content():
    content = "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"
    text = "docs/format.md\n" + sr(content, content.replace("old", "older"), run=9)
    [block] = parse(text).blocks
    assert block.old == content and "older" in block.new


def test_format_option_ignores_other_families_with_a_warning():
    text = "a.py\n<<<<<<< EDIT\n-------\nx\n=======\ny\n-------\n>>>>>>>\n"
    result = parse(text, format="diff")
    assert result.blocks == ()
    assert "ignored" in warnings(result)[0]


def test_format_option_sets_block_format():
    [block] = parse("a.py\n" + fence(sr("x\n", "y\n")), format="editor-diff").blocks
    assert block.format is Format.EDITOR_DIFF


def test_stray_replace_marker_is_warned():
    result = parse("Some text\n>>>>>>> REPLACE\n")
    assert "without a block start" in warnings(result)[0]


def test_never_raises_on_garbage():
    for text in ["", "\n", "<<<<<<<", "=======\n" * 50, ">>>>>>> REPLACE\n" * 3, "```\n" * 7, "\r\r\n\x00", "««« EDIT"]:
        parse(text)


def test_line_numbers_point_at_the_start_marker():
    text = "intro\n\nsrc/a.py\n```python\n" + sr("x\n", "y\n") + "```\n"
    [block] = parse(text).blocks
    assert text.split("\n")[block.line - 1] == "<<<<<<< SEARCH"
    assert replace(block, line=1).line == 1


def test_other_family_start_markers_inside_a_block_are_content():
    strict = "doc.md\n<<<<<<<<< SEARCH\n««« EDIT\n=========\n««« EDIT!\n>>>>>>>>> REPLACE\n"
    [block] = parse(strict).blocks
    assert (block.old, block.new) == ("««« EDIT\n", "««« EDIT!\n")
    guillemet = "doc.md\n««« EDIT\n<<<<<<< SEARCH\n═══════ REPL\n<<<<<<< EDIT\n»»» EDIT END\n"
    [block] = parse(guillemet).blocks
    assert (block.old, block.new) == ("<<<<<<< SEARCH\n", "<<<<<<< EDIT\n")


def test_a_same_family_start_still_ends_an_unclosed_block():
    text = "a.py\n<<<<<<< EDIT\n-------\nx\n=======\ny\n-------\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n"
    result = parse(text)
    assert [b.old for b in result.blocks] == ["q\n"]
    assert "not closed before the next block" in errors(result)[0]


def test_marker_lines_inside_a_seven_character_block_never_half_apply():
    content_old = 'TEMPLATE = """\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"""\n'
    content_new = content_old.replace("old\n", "old code\n")
    result = parse("prompts/example.py\n" + sr(content_old, content_new))
    assert result.blocks == ()
    assert any("cut short" in message for message in errors(result))


def test_end_marker_inside_replace_withdraws_the_block():
    new = 'SAMPLES = [\n    """\n>>>>>>> REPLACE\n    """,\n]\n'
    result = parse("samples.py\n" + sr("SAMPLES = []\n", new))
    assert result.blocks == ()
    assert "cut short" in errors(result)[0] and "9-character markers" in errors(result)[0]


def test_a_held_block_is_confirmed_by_the_next_block_and_streamed_only_then():
    parser = StreamParser()
    first = parser.feed("a.py\n" + sr("x\n", "y\n"))
    assert not [e for e in first if type(e).__name__ == "BlockCompleted"]
    second = parser.feed("b.py\n<<<<<<< SEARCH\n")
    assert [e.block.path for e in second if type(e).__name__ == "BlockCompleted"] == ["a.py"]


def test_longer_start_with_standard_separator_and_end_is_read_with_standard_rules():
    text = "a.py\n<<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\nb.py\n" + sr("y = 1\n", "y = 2\n")
    result = parse(text)
    assert [(b.path, b.new) for b in result.blocks] == [("a.py", "x = 2\n"), ("b.py", "y = 2\n")]
    assert not errors(result)


# --- found by auditing ------------------------------------------------------------------------------


def test_an_indented_start_marker_does_not_swallow_the_rest_of_the_response():
    text = (
        "a.py\n <<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"
        "b.py\n" + fence(sr("y = 1\n", "y = 2\n")) + "c.py\n" + fence(sr("z = 1\n", "z = 2\n"))
    )
    result = parse(text)
    assert [(b.path, b.new) for b in result.blocks] == [("a.py", "x = 2\n"), ("b.py", "y = 2\n"), ("c.py", "z = 2\n")]
    assert not errors(result)


def test_content_indented_deeper_than_its_block_stays_content():
    old = "Title\n    =======\n"
    [block] = parse("NOTES.md\n" + fence(sr(old, "Title!\n    =======\n"), "markdown")).blocks
    assert block.old == old


def test_shell_continuation_lines_join_into_one_command():
    result = parse("```bash\npip install \\\n  rich \\\n  click\necho done\n```\n")
    assert [(s.command, s.line) for s in result.shell] == [("pip install rich click", 2), ("echo done", 5)]


def test_reasoning_tag_with_attributes_hides_draft_blocks():
    text = '<think effort="high">\na.py\n' + fence(sr("x\n", "draft\n")) + "</think>\na.py\n" + fence(sr("x\n", "y\n"))
    assert [b.new for b in parse(text).blocks] == ["y\n"]


def test_a_response_with_bare_cr_line_breaks_is_read_with_a_warning():
    text = "a.py\r<<<<<<< SEARCH\rx = 1\r=======\rx = 2\r>>>>>>> REPLACE\r"
    result = parse(text)
    assert [(b.path, b.old, b.new) for b in result.blocks] == [("a.py", "x = 1\n", "x = 2\n")]
    assert "bare CR" in warnings(result)[0]
    assert _stream(text, [3] * len(text)) == result


def test_a_custom_fence_is_a_fence():
    text = "[code]\na.py\n" + sr("x\n", "y\n") + "[/code]\n"
    [block] = parse(text, fence=("[code]", "[/code]")).blocks
    assert (block.path, block.format) == ("a.py", Format.DIFF_FENCED)


def test_validate_counts_only_the_chosen_format_s_markers():
    from editblocks import validate

    text = "a.py\n\u00ab\u00ab\u00ab EDIT\nx\n\u2550\u2550\u2550\u2550\u2550\u2550\u2550 REPL\ny\n\u00bb\u00bb\u00bb EDIT END\n>>>>>>> REPLACE\n"
    messages = [d.message for d in validate(text, format="guillemet").diagnostics]
    assert not [m for m in messages if "Mismatched" in m]
