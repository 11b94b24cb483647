"""Every operation the seed documents show, per format, plus `validate`."""

from __future__ import annotations

import pytest

from editblocks import BlockKind, Format, parse, validate


def sr(old: str, new: str) -> str:
    return f"<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


# --- seed 000: diff / diff-fenced / editor variants --------------------------------


DIFF = "Change the rate.\n\nbilling/rates.py\n```python\n" + sr("RATE = 0.1\n", "RATE = 0.2\n") + "```\n"
DIFF_FENCED = "Change the rate.\n\n```python\nbilling/rates.py\n" + sr("RATE = 0.1\n", "RATE = 0.2\n") + "```\n"
DIFF_NO_FENCE = "billing/rates.py\n" + sr("RATE = 0.1\n", "RATE = 0.2\n")


@pytest.mark.parametrize(
    ("text", "fmt", "detected"),
    [
        (DIFF, "diff", Format.DIFF),
        (DIFF, "editor-diff", Format.EDITOR_DIFF),
        (DIFF_FENCED, "diff-fenced", Format.DIFF_FENCED),
        (DIFF_FENCED, "editor-diff-fenced", Format.EDITOR_DIFF_FENCED),
        (DIFF, "auto", Format.DIFF),
        (DIFF_FENCED, "auto", Format.DIFF_FENCED),
        (DIFF_NO_FENCE, "auto", Format.DIFF),
    ],
)
def test_seed000_path_placement_for_every_search_replace_variant(text, fmt, detected):
    result = parse(text, format=fmt)
    [block] = result.blocks
    assert (block.path, block.old, block.new, block.format) == ("billing/rates.py", "RATE = 0.1\n", "RATE = 0.2\n", detected)
    assert result.format == detected.value


def test_seed000_several_pairs_under_one_path():
    text = "lib/shapes.py\n```python\n" + sr("SIDES = 3\n", "SIDES = 4\n") + sr("NAME = 'tri'\n", "NAME = 'quad'\n") + "```\n"
    assert [b.new for b in parse(text).blocks] == ["SIDES = 4\n", "NAME = 'quad'\n"]


# --- seed 001 / 004: search-replace --------------------------------------------------


def test_seed001_multiple_edits_under_a_file_header():
    text = "### File: src/app.ts\n" + sr("const a = 1;\n", "const a = 10;\n") + "\n" + sr("const b = 2;\n", "const b = 20;\n")
    result = parse(text)
    assert [(b.path, b.new, b.format) for b in result.blocks] == [
        ("src/app.ts", "const a = 10;\n", Format.SEARCH_REPLACE),
        ("src/app.ts", "const b = 20;\n", Format.SEARCH_REPLACE),
    ]


def test_seed001_deletion_and_sequential_dependent_edits():
    text = (
        "### File: src/math.ts\n"
        + sr("const unused = true;\n", "")
        + sr("function add(a, b) {\n", "function add(a: number, b: number) {\n")
        + sr("function add(a: number, b: number) {\n", "function add(a: number, b: number): number {\n")
    )
    blocks = parse(text).blocks
    assert blocks[0].new == "" and blocks[0].kind is BlockKind.EDIT
    assert blocks[2].old == blocks[1].new


@pytest.mark.parametrize(
    "content",
    [
        "const re = /test\\.value\\[0\\]/;\n",
        "const msg = `hello ${name}`;\n",
        'const sep = "=======";\n',
        "price = '$1 and \\1 and \\g<0>'\n",
        "x" * 12_000 + "\n",
    ],
)
def test_seed001_special_characters_and_very_long_lines(content):
    [block] = parse("### File: src/special.ts\n" + sr(content, content.upper())).blocks
    assert (block.old, block.new) == (content, content.upper())


def test_seed001_five_hundred_line_block():
    body = "".join(f"line_{n} = {n}\n" for n in range(600))
    [block] = parse("### File: big.py\n" + sr(body, body.replace("line_5 ", "LINE_5 "))).blocks
    assert block.old.count("\n") == 600


def test_seed001_new_file_block():
    text = "### File: src/new.ts\n<<<<<<< NEW_FILE\nexport const x = 1;\n>>>>>>> NEW_FILE\n"
    [block] = parse(text).blocks
    assert (block.kind, block.old, block.new) == (BlockKind.CREATE, "", "export const x = 1;\n")


def test_seed001_incomplete_blocks_are_skipped_and_reported():
    text = "### File: a.ts\n" + sr("a;\n", "b;\n") + "<<<<<<< SEARCH\nc;\n>>>>>>> REPLACE\n" + sr("d;\n", "e;\n") + "<<<<<<< SEARCH\nf;\n"
    result = parse(text)
    assert [b.old for b in result.blocks] == ["a;\n", "d;\n"]
    assert [d.message for d in result.errors] == [
        "block at line 7 has no separator",
        "block at line 15 is not closed (response truncated?)",
    ]


def test_seed004_regression_empty_replace_then_search():
    text = "### File: a.ts\n<<<<<<< SEARCH\nconst x = 1;\n=======\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nconst y = 2;\n=======\nconst y = 20;\n>>>>>>> REPLACE\n"
    assert [(b.old, b.new) for b in parse(text).blocks] == [("const x = 1;\n", ""), ("const y = 2;\n", "const y = 20;\n")]


# --- seed 003: guillemet ------------------------------------------------------------


def guillemet(path: str, edit: str, repl: str) -> str:
    return f"{path}\n««« EDIT\n{edit}═══════ REPL\n{repl}»»» EDIT END\n"


@pytest.mark.parametrize(
    ("edit", "repl", "expected"),
    [
        ("def run():\n    a()\n    b()\n", "def run():\n    a()\n    c()\n", ("def run():\n    a()\n", "    b()\n", "    c()\n")),
        ("def run():\n    a()\n", "def run():\n    a()\n    log()\n", ("def run():\n    a()\n", "", "    log()\n")),
        ("def run():\n    a()\n    old()\n", "def run():\n    a()\n", ("def run():\n    a()\n", "    old()\n", "")),
        ("", "print('new')\n", ("", "", "print('new')\n")),
    ],
    ids=["replace", "insert-after", "delete", "new-file"],
)
def test_seed003_guillemet_operations(edit, repl, expected):
    [block] = parse(guillemet("tools/run.py", edit, repl)).blocks
    assert (block.leading, block.old, block.new) == expected
    assert block.kind is (BlockKind.CREATE if not edit else BlockKind.EDIT)


def test_seed003_path_on_the_line_before_and_prose_in_between():
    text = "I will change the runner.\n\n" + guillemet("tools/run.py", "a()\n", "b()\n") + "Done.\n" + guillemet("tools/other.py", "c()\n", "d()\n")
    assert [b.path for b in parse(text).blocks] == ["tools/run.py", "tools/other.py"]


# --- validate (SPEC §2) -------------------------------------------------------------


def messages(text: str) -> list[str]:
    return [f"{d.severity.value}@{d.line}: {d.message}" for d in validate(text).diagnostics]


def test_validate_clean_response():
    result = validate(DIFF)
    assert result.ok and not result.diagnostics and len(result.result.blocks) == 1


def test_validate_marker_balance():
    text = "a.py\n" + sr("a\n", "b\n") + "<<<<<<< SEARCH\nc\n=======\nd\n" + "\n<<<<<<< SEARCH\ne\n=======\nf\n>>>>>>> REPLACE\n"
    found = messages(text)
    assert any("Mismatched SEARCH/REPLACE: 3 SEARCH vs 2 REPLACE" in m for m in found)
    assert any("block at line 7 is not closed before the next block at line 12" in m for m in found)


def test_validate_missing_separator_truncation_missing_path_and_nothing():
    assert "error@2: block at line 2 has no separator" in messages("a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n")
    assert "error@2: block at line 2 is not closed (response truncated?)" in messages("a.py\n<<<<<<< SEARCH\nx\n=======\n")
    assert "error@1: block at line 1 has no file path" in messages(sr("x\n", "y\n"))
    [nothing] = messages("Just prose, no edits.")
    assert nothing.startswith("error@1: no edit blocks found: looked for every format (") and ", zed," in nothing


def test_validate_orphan_end_marker_counts_as_mismatch_and_withdraws_the_block_before_it():
    text = "a.py\n" + sr("a\n", "b\n") + ">>>>>>> REPLACE\n"
    found = messages(text)
    assert any("1 SEARCH vs 2 REPLACE" in m for m in found)
    assert any("error@2: block at line 2 was cut short" in m for m in found)
    assert validate(text).result.blocks == ()
