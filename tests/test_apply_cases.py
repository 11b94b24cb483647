"""CASES.md A1–A22 and F1–F11, end to end: a response as text, parsed, applied to real files.

Every test asserts on the bytes on disk, and on the status, reason, line range
and matching rung of each block, as a user of `apply` sees them.
"""

from __future__ import annotations

import importlib
import os
import re
import stat
from pathlib import Path

import pytest
from test_reliability import GROWTH_FACTOR, GROWTH_LIMIT, growth_ratio

from editblocks import BlockKind, EditBlock, Format, ResultCode, Status, parse
from editblocks.service.apply import apply
from editblocks.workspace import Workspace

from helpers_apply import anchored, diff_edit, guillemet, make_tree, run, single, statuses, tree_state

PLANNER = importlib.import_module("editblocks.plan.planner").Planner  # whose `plan` tests follow with a change on disk


def read(root: Path, rel: str) -> bytes:
    return (root / rel).read_bytes()


def assert_untouched(root: Path, rel: str, content: bytes, before: os.stat_result) -> None:
    """Same bytes, and the very same file: an identical rewrite would still change the inode."""
    after = os.stat(root / rel)
    assert read(root, rel) == content
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


# --- A1–A3: ambiguity ---------------------------------------------------------------------------

DUPLICATED = (
    "def setup():\n"          # 1
    "    reset_counters()\n"  # 2
    "    open_session()\n"    # 3
    "\n"                      # 4
    "def retry():\n"          # 5
    "    reset_counters()\n"  # 6
    "    open_session()\n"    # 7
    "\n"                      # 8
    "def teardown():\n"       # 9
    "    reset_counters()\n"  # 10
    "    open_session()\n"    # 11
)


def test_a1_search_occurring_three_times_is_refused_with_every_line_number(tmp_path):
    make_tree(tmp_path, {"svc.py": DUPLICATED})
    before = os.stat(tmp_path / "svc.py")
    outcome = run(tmp_path, diff_edit("svc.py", ("    reset_counters()\n    open_session()\n", "    start()\n")))
    result = single(outcome)
    assert result.status is Status.FAILED and result.code is ResultCode.AMBIGUOUS
    assert "ambiguous" in result.reason.lower()
    assert "lines 2, 6 and 10" in result.reason
    assert result.candidates == (2, 6, 10)
    assert (result.start_line, result.end_line) == (None, None)
    assert outcome.written is False and outcome.files_modified == ()
    assert_untouched(tmp_path, "svc.py", DUPLICATED.encode(), before)


def test_a1_first_match_edits_the_first_occurrence_only(tmp_path):
    make_tree(tmp_path, {"svc.py": DUPLICATED})
    outcome = run(tmp_path, diff_edit("svc.py", ("    reset_counters()\n    open_session()\n", "    start()\n")),
                  first_match=True)
    result = single(outcome)
    assert result.status is Status.APPLIED and (result.start_line, result.end_line) == (2, 3)
    expected = DUPLICATED.replace("    reset_counters()\n    open_session()\n", "    start()\n", 1)
    assert read(tmp_path, "svc.py") == expected.encode()
    assert outcome.written and outcome.files_modified == ("svc.py",)


@pytest.mark.parametrize(
    ("content", "search", "lines"),
    [
        ("if a:\n    x()\n}\nif b:\n    y()\n}\n", "}\n", "lines 3 and 6"),
        ("def f(x):\n    return x\n\ndef g(x):\n    return x\n", "    return x\n", "lines 2 and 5"),
    ],
    ids=["closing-brace", "return-x"],
)
def test_a2_one_line_search_that_occurs_twice_is_refused(tmp_path, content, search, lines):
    make_tree(tmp_path, {"m.py": content})
    result = single(run(tmp_path, diff_edit("m.py", (search, "    return 0\n"))))
    assert result.status is Status.FAILED and result.code is ResultCode.AMBIGUOUS
    assert "ambiguous" in result.reason and lines in result.reason
    assert read(tmp_path, "m.py") == content.encode()


def test_a3_overlapping_occurrences_count_as_two(tmp_path):
    content = "start\n    pass\n    pass\n    pass\nend\n"
    make_tree(tmp_path, {"o.py": content})
    result = single(run(tmp_path, diff_edit("o.py", ("    pass\n    pass\n", "    work()\n"))))
    assert result.status is Status.FAILED and result.code is ResultCode.AMBIGUOUS
    assert "lines 2 and 3" in result.reason and result.candidates == (2, 3)
    assert read(tmp_path, "o.py") == content.encode()


def test_a3_ambiguous_even_when_found_only_on_a_tolerant_rung(tmp_path):
    content = "a = 1   \nb = 2\n\na = 1\t\nb = 2\n"
    make_tree(tmp_path, {"t.py": content})
    result = single(run(tmp_path, diff_edit("t.py", ("a = 1\nb = 2\n", "a = 9\nb = 2\n"))))
    assert result.status is Status.FAILED and "lines 1 and 4" in result.reason
    assert read(tmp_path, "t.py") == content.encode()


# --- A4–A10: the tolerant rungs of the SEARCH/REPLACE family -------------------------------------


def test_a4_missing_indentation_is_matched_and_replacement_reindented(tmp_path):
    content = "class Cart:\n    def total(self):\n        s = sum(self.items)\n        return s\n"
    make_tree(tmp_path, {"cart.py": content})
    search = "def total(self):\n    s = sum(self.items)\n    return s\n"
    replace = "def total(self):\n    s = sum(self.items)\n    if self.discount:\n        s -= self.discount\n    return s\n"
    result = single(run(tmp_path, diff_edit("cart.py", (search, replace))))
    assert result.status is Status.APPLIED and result.strategy == "indentation"
    assert (result.start_line, result.end_line) == (2, 4)
    assert read(tmp_path, "cart.py") == (
        b"class Cart:\n    def total(self):\n        s = sum(self.items)\n"
        b"        if self.discount:\n            s -= self.discount\n        return s\n"
    )


def test_a4_search_indented_deeper_than_the_file(tmp_path):
    make_tree(tmp_path, {"f.py": "def f():\n    a()\n    b()\n"})
    result = single(run(tmp_path, diff_edit("f.py", ("        a()\n        b()\n", "        a()\n        if q:\n            b()\n"))))
    assert result.strategy == "indentation"
    assert read(tmp_path, "f.py") == b"def f():\n    a()\n    if q:\n        b()\n"


def test_a5_tabs_in_file_spaces_in_search_keeps_tabs(tmp_path):
    make_tree(tmp_path, {"t.py": "if ready:\n\tprepare()\n\tlaunch()\n"})
    result = single(run(tmp_path, diff_edit("t.py", ("if ready:\n    prepare()\n    launch()\n",
                                                      "if ready:\n    prepare()\n    check()\n    launch()\n"))))
    assert result.status is Status.APPLIED and result.strategy == "indentation"
    assert read(tmp_path, "t.py") == b"if ready:\n\tprepare()\n\tcheck()\n\tlaunch()\n"


def test_a5_spaces_in_file_tabs_in_search_keeps_spaces(tmp_path):
    make_tree(tmp_path, {"t.py": "if ready:\n    prepare()\n    launch()\n"})
    result = single(run(tmp_path, diff_edit("t.py", ("if ready:\n\tprepare()\n\tlaunch()\n",
                                                      "if ready:\n\tprepare()\n\tcheck()\n\tlaunch()\n"))))
    assert result.strategy == "indentation"
    assert read(tmp_path, "t.py") == b"if ready:\n    prepare()\n    check()\n    launch()\n"


def test_a6_trailing_whitespace_differences_keep_the_files_context_bytes(tmp_path):
    content = "alpha = 1   \nbeta = 2\t\ngamma = 3\n"
    make_tree(tmp_path, {"w.py": content})
    result = single(run(tmp_path, diff_edit("w.py", ("alpha = 1\nbeta = 2\ngamma = 3\n",
                                                      "alpha = 1\nbeta = 2\ngamma = 30\n"))))
    assert result.status is Status.APPLIED and result.strategy == "trailing-whitespace"
    assert read(tmp_path, "w.py") == b"alpha = 1   \nbeta = 2\t\ngamma = 30\n"


def test_a7_curly_quotes_and_dashes_in_search_where_the_file_has_ascii(tmp_path):
    content = "label = \"it's ready - go\"\ncount = 1\n"
    make_tree(tmp_path, {"q.py": content})
    search = "label = \u201cit\u2019s ready \u2013 go\u201d\ncount = 1\n"
    replace = "label = \u201cit\u2019s ready \u2013 go\u201d\ncount = 2\nnote = \u201cdone\u201d\n"
    result = single(run(tmp_path, diff_edit("q.py", (search, replace))))
    assert result.status is Status.APPLIED and result.strategy == "typography"
    # the unchanged context line is the file's own ASCII line; the new line's quotes are mapped back to ASCII
    assert read(tmp_path, "q.py") == b"label = \"it's ready - go\"\ncount = 2\nnote = \"done\"\n"


def test_a7_non_breaking_space_in_search(tmp_path):
    make_tree(tmp_path, {"n.py": "x = 1  # note\ny = 2\n"})
    result = single(run(tmp_path, diff_edit("n.py", ("x = 1\u00a0 # note\ny = 2\n", "x = 1\u00a0 # note\ny = 3\n"))))
    assert result.strategy == "typography"
    assert read(tmp_path, "n.py") == b"x = 1  # note\ny = 3\n"


def test_a7_curly_quotes_in_the_file_ascii_in_search(tmp_path):
    content = "He said \u201chello\u201d \u2014 twice.\nEnd.\n"
    make_tree(tmp_path, {"t.md": content})
    result = single(run(tmp_path, diff_edit("t.md", ('He said "hello" - twice.\nEnd.\n', 'He said "hello" - twice.\nThe end.\n'),
                                            lang="markdown")))
    assert result.strategy == "typography"
    assert read(tmp_path, "t.md") == "He said \u201chello\u201d \u2014 twice.\nThe end.\n".encode()


def test_a8_html_entities_are_never_decoded(tmp_path):
    content = "<p>a &amp; b &lt;c&gt;</p>\n<p>two</p>\n"
    make_tree(tmp_path, {"p.html": content})
    applied = single(run(tmp_path, diff_edit("p.html", ("<p>two</p>\n", "<p>2 &amp; 3 &lt;x&gt;</p>\n"), lang="html")))
    assert applied.status is Status.APPLIED
    assert read(tmp_path, "p.html") == b"<p>a &amp; b &lt;c&gt;</p>\n<p>2 &amp; 3 &lt;x&gt;</p>\n"
    # a search with `&` / `<` where the file has `&amp;` / `&lt;` is a different text
    refused = single(run(tmp_path, diff_edit("p.html", ("<p>a & b <c></p>\n", "<p>changed</p>\n"), lang="html")))
    assert refused.status is Status.FAILED and refused.code is ResultCode.NOT_FOUND
    assert read(tmp_path, "p.html") == b"<p>a &amp; b &lt;c&gt;</p>\n<p>2 &amp; 3 &lt;x&gt;</p>\n"


def test_a9_leading_blank_line_in_search_the_file_lacks(tmp_path):
    make_tree(tmp_path, {"b.py": "a = 1\nb = 2\n"})
    result = single(run(tmp_path, diff_edit("b.py", ("\na = 1\n", "\na = 5\n"))))
    assert result.status is Status.APPLIED and result.strategy != "exact"
    assert read(tmp_path, "b.py") == b"a = 5\nb = 2\n"


def test_a10_elision_lines_match_piecewise_and_keep_the_elided_lines(tmp_path):
    content = "def f():\n    x = 1\n    y = 2\n    z = 3\n    return x\n"
    make_tree(tmp_path, {"e.py": content})
    result = single(run(tmp_path, diff_edit("e.py", ("def f():\n    # ... existing code ...\n    return x\n",
                                                      "def f():\n    # ... existing code ...\n    return z\n"))))
    assert result.status is Status.APPLIED and result.strategy == "elision"
    assert (result.start_line, result.end_line) == (1, 5)
    assert read(tmp_path, "e.py") == b"def f():\n    x = 1\n    y = 2\n    z = 3\n    return z\n"


def test_a10_a_real_ellipsis_stub_body_is_content(tmp_path):
    content = "class P:\n    def stub(self):\n        ...\n\n    def other(self):\n        return 2\n"
    make_tree(tmp_path, {"s.py": content})
    result = single(run(tmp_path, diff_edit("s.py", ("    def stub(self):\n        ...\n", "    def stub(self):\n        return 1\n"))))
    assert result.status is Status.APPLIED and result.strategy == "exact"
    assert read(tmp_path, "s.py") == content.replace("        ...\n", "        return 1\n").encode()


def test_a10_elision_pieces_out_of_order_are_refused(tmp_path):
    content = "def f():\n    x = 1\n    return x\n"
    make_tree(tmp_path, {"e.py": content})
    result = single(run(tmp_path, diff_edit("e.py", ("    return x\n    ...\n    x = 1\n", "    return x\n    ...\n    x = 2\n"))))
    assert result.status is Status.FAILED
    assert read(tmp_path, "e.py") == content.encode()


# --- A11: fuzzy near misses ---------------------------------------------------------------------

PRICES = (
    "def process(items):\n"
    "    total = 0\n"
    "    for item in items:\n"
    "        total += item.price\n"
    "    audit(total)\n"
    "    return total\n"
)


@pytest.mark.parametrize("fuzzy", [False, True])
def test_a11_same_first_and_last_line_but_unrelated_middle_is_refused(tmp_path, fuzzy):
    make_tree(tmp_path, {"p.py": PRICES})
    search = ("def process(items):\n    connection = database.open()\n    rows = connection.fetch_all()\n"
              "    cache.invalidate(rows)\n    logger.info('done')\n    return total\n")
    result = single(run(tmp_path, diff_edit("p.py", (search, search.replace("return total", "return 0"))), fuzzy=fuzzy))
    assert result.status is Status.FAILED and result.code is ResultCode.NOT_FOUND
    assert read(tmp_path, "p.py") == PRICES.encode()


def test_a11_one_unrelated_middle_line_among_similar_ones_is_refused_even_with_fuzzy(tmp_path):
    make_tree(tmp_path, {"p.py": PRICES})
    search = PRICES.replace("        total += item.price\n", "        shutil.rmtree(cache_folder)\n")
    result = single(run(tmp_path, diff_edit("p.py", (search, search.replace("audit(total)", "audit(total, 1)"))), fuzzy=True))
    assert result.status is Status.FAILED
    assert read(tmp_path, "p.py") == PRICES.encode()


# --- A12–A17 --------------------------------------------------------------------------------------


def test_a12_replacement_text_is_inserted_literally(tmp_path):
    make_tree(tmp_path, {"r.py": "pattern = None\n"})
    new = "pattern = r'$1 $& \\1 \\g<0> ${name} \\\\n'\n"
    result = single(run(tmp_path, diff_edit("r.py", ("pattern = None\n", new))))
    assert result.status is Status.APPLIED
    assert read(tmp_path, "r.py") == new.encode()


def test_a13_identical_search_and_replace_is_a_no_op(tmp_path):
    content = "value = compute(1, 2)\nother = 3\n"
    make_tree(tmp_path, {"n.py": content})
    before = os.stat(tmp_path / "n.py")
    outcome = run(tmp_path, diff_edit("n.py", ("value = compute(1, 2)\n", "value = compute(1, 2)\n")))
    result = single(outcome)
    assert result.status is Status.SKIPPED and result.code is ResultCode.NO_OP
    assert result.reason.startswith("no change")
    assert outcome.written is False and outcome.files_modified == () and outcome.diffs == ()
    assert_untouched(tmp_path, "n.py", content.encode(), before)


def test_a13_guillemet_no_op_is_not_applied(tmp_path):
    content = "def run():\n    go()\n"
    make_tree(tmp_path, {"g.py": content})
    outcome = run(tmp_path, guillemet("g.py", "def run():\n    go()\n", "def run():\n    go()\n"))
    assert single(outcome).status is Status.SKIPPED and single(outcome).code is ResultCode.NO_OP
    assert outcome.files_modified == () and read(tmp_path, "g.py") == content.encode()


def test_a14_empty_search_creates_a_missing_file_and_its_folders(tmp_path):
    outcome = run(tmp_path, diff_edit("pkg/sub/mod.py", ("", "VALUE = 1\n\ndef f():\n    return VALUE\n")))
    result = single(outcome)
    assert result.status is Status.APPLIED and result.strategy == "create"
    assert read(tmp_path, "pkg/sub/mod.py") == b"VALUE = 1\n\ndef f():\n    return VALUE\n"
    assert outcome.files_created == ("pkg/sub/mod.py",) and outcome.files_modified == ()
    assert outcome.written


def test_a14_new_file_block_creates_the_file_with_a_final_newline(tmp_path):
    outcome = run(tmp_path, "### File: web/app.ts\n<<<<<<< NEW_FILE\nexport const port = 8080;\n>>>>>>> NEW_FILE\n")
    assert statuses(outcome) == ["applied"]
    assert read(tmp_path, "web/app.ts") == b"export const port = 8080;\n"


def test_a14_empty_search_on_an_existing_non_empty_file_fails_and_changes_nothing(tmp_path):
    content = "keep = True\n"
    make_tree(tmp_path, {"k.py": content})
    before = os.stat(tmp_path / "k.py")
    outcome = run(tmp_path, diff_edit("k.py", ("", "replaced = True\n")))
    result = single(outcome)
    assert result.status is Status.FAILED and result.code is ResultCode.FILE_EXISTS
    assert "exists" in result.reason and "not empty" in result.reason
    assert outcome.written is False
    assert_untouched(tmp_path, "k.py", content.encode(), before)


def test_a14_whitespace_only_search_counts_as_empty(tmp_path):
    make_tree(tmp_path, {"k.py": "keep = True\n"})
    result = single(run(tmp_path, diff_edit("k.py", ("\n  \n", "replaced = True\n"))))
    assert result.status is Status.FAILED and "not empty" in result.reason
    assert read(tmp_path, "k.py") == b"keep = True\n"


def test_a14_existing_empty_file_is_filled(tmp_path):
    make_tree(tmp_path, {"empty.py": b""})
    outcome = run(tmp_path, diff_edit("empty.py", ("", "print('filled')\n")))
    assert statuses(outcome) == ["applied"]
    assert read(tmp_path, "empty.py") == b"print('filled')\n"
    assert outcome.files_modified == ("empty.py",)


def test_a15_whole_file_replaced_by_nothing_leaves_an_empty_file(tmp_path):
    make_tree(tmp_path, {"gone.py": "first = 1\nsecond = 2\n"})
    outcome = run(tmp_path, diff_edit("gone.py", ("first = 1\nsecond = 2\n", "")))
    result = single(outcome)
    assert result.status is Status.APPLIED and (result.start_line, result.end_line) == (1, 2)
    assert (tmp_path / "gone.py").is_file() and read(tmp_path, "gone.py") == b""
    assert outcome.files_modified == ("gone.py",)


def test_a16_wrong_path_with_non_empty_search_is_file_not_found_and_creates_nothing(tmp_path):
    make_tree(tmp_path, {"src/real.py": "x = 1\n"})
    before = tree_state(tmp_path)
    outcome = run(tmp_path, diff_edit("src/reel.py", ("x = 1\n", "x = 2\n")) + diff_edit("lib/none.py", ("y\n", "z\n")))
    assert statuses(outcome) == ["failed", "failed"]
    assert all(r.code is ResultCode.FILE_NOT_FOUND for r in outcome.results)
    assert all("file not found" in r.reason for r in outcome.results)
    assert not (tmp_path / "src/reel.py").exists() and not (tmp_path / "lib").exists()
    assert tree_state(tmp_path) == before


def test_a17_a_block_is_never_applied_to_another_file(tmp_path):
    files = {"a.py": "alpha = 1\n", "b.py": "target = compute()\n", "sub/a.py": "target = compute()\n"}
    make_tree(tmp_path, files)
    before = tree_state(tmp_path)
    outcome = run(tmp_path, diff_edit("a.py", ("target = compute()\n", "target = 0\n")))
    result = single(outcome)
    assert result.status is Status.FAILED and result.path == "a.py"
    assert outcome.files_modified == ()
    assert tree_state(tmp_path) == before


# --- A18–A22 --------------------------------------------------------------------------------------


def test_a18_second_block_sees_the_result_of_the_first(tmp_path):
    make_tree(tmp_path, {"s.py": "rate = 1\nlimit = 2\n"})
    outcome = run(tmp_path, diff_edit("s.py", ("rate = 1\n", "rate = 10\n"), ("rate = 10\nlimit = 2\n", "rate = 10\nlimit = 20\n")))
    assert statuses(outcome) == ["applied", "applied"]
    assert [(r.start_line, r.end_line) for r in outcome.results] == [(1, 1), (1, 2)]
    assert read(tmp_path, "s.py") == b"rate = 10\nlimit = 20\n"


def test_a18_line_numbers_refer_to_the_file_as_each_block_saw_it(tmp_path):
    make_tree(tmp_path, {"s.py": "head\nmiddle\ntail\n"})
    outcome = run(tmp_path, diff_edit("s.py", ("head\n", "head\nextra one\nextra two\n"), ("tail\n", "TAIL\n")))
    assert [(r.start_line, r.end_line) for r in outcome.results] == [(1, 1), (5, 5)]
    assert read(tmp_path, "s.py") == b"head\nextra one\nextra two\nmiddle\nTAIL\n"


def test_a19_blocks_out_of_file_order(tmp_path):
    make_tree(tmp_path, {"o.py": "first\nsecond\nthird\n"})
    outcome = run(tmp_path, diff_edit("o.py", ("third\n", "THIRD\n"), ("first\n", "FIRST\n"), ("second\n", "SECOND\n")))
    assert statuses(outcome) == ["applied"] * 3
    assert [r.start_line for r in outcome.results] == [3, 1, 2]
    assert read(tmp_path, "o.py") == b"FIRST\nSECOND\nTHIRD\n"


A20_FILES = {"a.py": "one\ntwo\nthree\n", "b.py": "bee\n", "c.py": "sea\n"}
A20_RESPONSE = (
    diff_edit("a.py", ("one\n", "ONE\n"))
    + diff_edit("a.py", ("missing line\n", "X\n"))
    + diff_edit("a.py", ("three\n", "THREE\n"))
    + diff_edit("b.py", ("bee\n", "BEE\n"))
)


def test_a20_by_default_a_file_with_a_failed_block_is_left_whole_and_the_others_are_written(tmp_path):
    make_tree(tmp_path, A20_FILES)
    outcome = run(tmp_path, A20_RESPONSE)
    assert [r.code for r in outcome.results] == [ResultCode.HELD, ResultCode.NOT_FOUND, ResultCode.HELD,
                                                 ResultCode.NONE]
    assert read(tmp_path, "a.py") == b"one\ntwo\nthree\n" and read(tmp_path, "b.py") == b"BEE\n"
    assert outcome.files_modified == ("b.py",) and outcome.written


def test_a20_continue_applies_every_other_block(tmp_path):
    make_tree(tmp_path, A20_FILES)
    outcome = run(tmp_path, A20_RESPONSE, policy="continue")
    assert statuses(outcome) == ["applied", "failed", "applied", "applied"]
    assert outcome.results[1].code is ResultCode.NOT_FOUND
    assert [(r.start_line, r.end_line) for r in outcome.results] == [(1, 1), (None, None), (3, 3), (1, 1)]
    assert read(tmp_path, "a.py") == b"ONE\ntwo\nTHREE\n" and read(tmp_path, "b.py") == b"BEE\n"
    assert read(tmp_path, "c.py") == b"sea\n"
    assert sorted(outcome.files_modified) == ["a.py", "b.py"] and outcome.written


def test_a20_abort_writes_nothing_and_skips_the_would_be_applied_blocks(tmp_path):
    make_tree(tmp_path, A20_FILES)
    before = tree_state(tmp_path)
    outcome = run(tmp_path, A20_RESPONSE, policy="abort")
    assert statuses(outcome) == ["skipped", "failed", "skipped", "skipped"]
    for index in (0, 2, 3):
        assert outcome.results[index].code is ResultCode.ABORTED
        assert "abort" in outcome.results[index].reason
    assert outcome.written is False and outcome.files_modified == () and outcome.files_created == ()
    assert tree_state(tmp_path) == before
    assert Workspace(tmp_path).undo().ok is False  # no run was journaled


def test_a20_abort_also_covers_a_file_that_would_have_been_created(tmp_path):
    make_tree(tmp_path, A20_FILES)
    outcome = run(tmp_path, diff_edit("new/made.py", ("", "made = 1\n")) + A20_RESPONSE, policy="abort")
    assert statuses(outcome)[0] == "skipped"
    assert not (tmp_path / "new").exists()


def test_a20_abort_when_the_response_has_a_malformed_block(tmp_path):
    make_tree(tmp_path, A20_FILES)
    broken = "b.py\n<<<<<<< SEARCH\nbee\n>>>>>>> REPLACE\n\n"
    outcome = run(tmp_path, diff_edit("a.py", ("one\n", "ONE\n")) + broken, policy="abort")
    assert statuses(outcome) == ["skipped"]
    assert "malformed" in outcome.results[0].reason
    assert read(tmp_path, "a.py") == b"one\ntwo\nthree\n"


def test_a20_skip_file_skips_that_files_later_blocks_only(tmp_path):
    make_tree(tmp_path, A20_FILES)
    outcome = run(tmp_path, A20_RESPONSE, policy="skip-file")
    assert statuses(outcome) == ["applied", "failed", "skipped", "applied"]
    assert outcome.results[2].code is ResultCode.SKIPPED_AFTER_FAILURE
    assert outcome.results[1].block.line == 12
    assert "(line 12)" in outcome.results[2].reason  # names the failed block
    assert read(tmp_path, "a.py") == b"ONE\ntwo\nthree\n"
    assert read(tmp_path, "b.py") == b"BEE\n"


def test_a20_guillemet_answers_follow_the_default_policy_file_and_skip_file_stays_available(tmp_path):
    make_tree(tmp_path, A20_FILES)
    response = (guillemet("a.py", "one\n", "ONE\n") + guillemet("a.py", "missing line\n", "X\n")
                + guillemet("a.py", "three\n", "THREE\n") + guillemet("b.py", "bee\n", "BEE\n"))
    outcome = run(tmp_path, response)
    assert [r.code for r in outcome.results] == [ResultCode.HELD, ResultCode.NOT_FOUND, ResultCode.HELD,
                                                 ResultCode.NONE]
    assert read(tmp_path, "a.py") == b"one\ntwo\nthree\n" and read(tmp_path, "b.py") == b"BEE\n"
    make_tree(tmp_path, A20_FILES)
    outcome = run(tmp_path, response, policy="skip-file")
    assert statuses(outcome) == ["applied", "failed", "skipped", "applied"]
    assert read(tmp_path, "a.py") == b"ONE\ntwo\nthree\n" and read(tmp_path, "b.py") == b"BEE\n"
    # the same response with an explicit `continue` policy applies the third block
    make_tree(tmp_path, A20_FILES)
    assert statuses(run(tmp_path, response, policy="continue")) == ["applied", "failed", "applied", "applied"]


def test_a21_search_matching_a_last_line_without_newline(tmp_path):
    make_tree(tmp_path, {"l.py": "first\nlast line"})
    result = single(run(tmp_path, diff_edit("l.py", ("last line\n", "final line\n"))))
    assert result.status is Status.APPLIED and (result.start_line, result.end_line) == (2, 2)
    assert read(tmp_path, "l.py") == b"first\nfinal line"


def test_a22_re_sent_edit_is_reported_as_already_applied(tmp_path):
    make_tree(tmp_path, {"r.py": "def handler(event):\n    return process(event)\n"})
    response = diff_edit("r.py", ("def handler(event):\n    return event\n", "def handler(event):\n    return process(event)\n"))
    before = os.stat(tmp_path / "r.py")
    outcome = run(tmp_path, response)
    result = single(outcome)
    assert result.status is Status.SKIPPED and result.code is ResultCode.ALREADY_APPLIED
    assert result.reason.startswith("already applied")
    assert (result.start_line, result.end_line) == (1, 2)
    assert outcome.written is False
    assert_untouched(tmp_path, "r.py", b"def handler(event):\n    return process(event)\n", before)


def test_a22_applying_the_same_response_twice(tmp_path):
    make_tree(tmp_path, {"r.py": "timeout_seconds = 30\nretries = 1\n"})
    response = diff_edit("r.py", ("timeout_seconds = 30\n", "timeout_seconds = 60\n"))
    assert statuses(run(tmp_path, response)) == ["applied"]
    again = single(run(tmp_path, response))
    assert again.status is Status.SKIPPED and again.reason.startswith("already applied")
    assert read(tmp_path, "r.py") == b"timeout_seconds = 60\nretries = 1\n"


def test_a22_create_block_re_sent(tmp_path):
    make_tree(tmp_path, {"n.py": "made = True\n"})
    result = single(run(tmp_path, diff_edit("n.py", ("", "made = True\n"))))
    assert result.status is Status.SKIPPED and result.reason.startswith("already applied")


IMPORTS = "import os\nimport sys\n\nprint(os.sep)\n"
ADD_JSON = ("import os\nimport sys\n", "import os\nimport sys\nimport json\n")


def test_a22_re_sent_insertion_is_not_inserted_twice(tmp_path):
    make_tree(tmp_path, {"m.py": IMPORTS})
    assert statuses(run(tmp_path, diff_edit("m.py", ADD_JSON))) == ["applied"]
    applied_once = read(tmp_path, "m.py")
    before = os.stat(tmp_path / "m.py")
    again = single(run(tmp_path, diff_edit("m.py", ADD_JSON)))
    assert again.status is Status.SKIPPED and again.code is ResultCode.ALREADY_APPLIED
    assert (again.start_line, again.end_line) == (1, 3)
    assert_untouched(tmp_path, "m.py", applied_once, before)
    assert applied_once.count(b"import json") == 1


def test_a22_the_same_insertion_twice_in_one_response_applies_once(tmp_path):
    make_tree(tmp_path, {"m.py": IMPORTS})
    before_line = ("print(os.sep)\n", "print('start')\nprint(os.sep)\n")
    outcome = run(tmp_path, diff_edit("m.py", ADD_JSON, ADD_JSON, before_line, before_line))
    assert statuses(outcome) == ["applied", "skipped", "applied", "skipped"]
    assert read(tmp_path, "m.py") == b"import os\nimport sys\nimport json\n\nprint('start')\nprint(os.sep)\n"


def test_adding_a_blank_line_next_to_an_existing_one_is_applied(tmp_path):
    make_tree(tmp_path, {"b.py": "x = 1\n\ndef f():\n    pass\n"})
    outcome = run(tmp_path, diff_edit("b.py", ("def f():\n", "\ndef f():\n")))
    assert statuses(outcome) == ["applied"]
    assert read(tmp_path, "b.py") == b"x = 1\n\n\ndef f():\n    pass\n"


def test_new_text_elsewhere_does_not_hide_a_search_that_was_not_found(tmp_path):
    make_tree(tmp_path, {"v.py": (
        "def check(msg):\n"
        "    if not msg:\n"
        "        raise ValueError(msg)\n"
        "\n"
        "def parse(text):\n"
        "    if not text:\n"
        "        return None\n"
    )})
    result = single(run(tmp_path, diff_edit("v.py", ("        retrun None\n", "        raise ValueError(msg)\n"))))
    assert result.status is Status.FAILED and result.code is ResultCode.NOT_FOUND
    assert "line 7" in result.reason


def test_a22_a_short_edit_re_sent_is_already_applied(tmp_path):
    make_tree(tmp_path, {"c.py": "x = 10\ny = 2\n"})
    result = single(run(tmp_path, diff_edit("c.py", ("x = 1\n", "x = 10\n"))))
    assert result.status is Status.SKIPPED and result.code is ResultCode.ALREADY_APPLIED
    assert (result.start_line, result.end_line) == (1, 1)


# --- exact-only formats and the ladder switches -------------------------------------------------

FUNC = "def f():\n    a()\n    b()\nrest = 1\n"


def test_guillemet_exact_match_applies(tmp_path):
    make_tree(tmp_path, {"g.py": FUNC})
    result = single(run(tmp_path, guillemet("g.py", "def f():\n    a()\n    b()\n", "def f():\n    a()\n    c()\n")))
    assert result.status is Status.APPLIED and result.strategy == "exact"
    assert result.block.format is Format.GUILLEMET and result.block.leading == "def f():\n    a()\n"
    assert read(tmp_path, "g.py") == b"def f():\n    a()\n    c()\nrest = 1\n"


def test_guillemet_is_exact_only_by_default(tmp_path):
    make_tree(tmp_path, {"g.py": FUNC})
    result = single(run(tmp_path, guillemet("g.py", "def f():\n  a()\n  b()\n", "def f():\n  a()\n  c()\n")))
    assert result.status is Status.FAILED and "leading anchor not found in g.py" in result.reason
    assert read(tmp_path, "g.py") == FUNC.encode()


def test_anchored_modify_applies_exactly(tmp_path):
    make_tree(tmp_path, {"an.py": FUNC})
    result = single(run(tmp_path, anchored("an.py", "def f():\n", "    a()\n", "    z()\n", "    b()\n")))
    assert result.status is Status.APPLIED and result.strategy == "exact"
    assert (result.start_line, result.end_line) == (1, 3)
    assert read(tmp_path, "an.py") == b"def f():\n    z()\n    b()\nrest = 1\n"


def test_anchored_insert_delete_and_create(tmp_path):
    make_tree(tmp_path, {"an.py": FUNC})
    outcome = run(
        tmp_path,
        anchored("an.py", "def f():\n", "", "    start()\n", "    a()\n")
        + anchored("an.py", "    a()\n", "    b()\n", "", "rest = 1\n")
        + anchored("made/new.py", "", "", "created = 1\n", ""),
    )
    assert statuses(outcome) == ["applied"] * 3
    assert outcome.results[2].block.kind is BlockKind.CREATE
    assert read(tmp_path, "an.py") == b"def f():\n    start()\n    a()\nrest = 1\n"
    assert read(tmp_path, "made/new.py") == b"created = 1\n"


MODULE = "import os\n\ndef f():\n    a()\n\ndef g():\n    a()\n    return 1\n"


@pytest.mark.parametrize(
    ("leading", "old", "new", "trailing", "expected"),
    [
        ("", "", '"""Doc."""\n\n', "import os\n", '"""Doc."""\n\n' + MODULE),
        ("    return 1\n", "", "\ndef h():\n    pass\n", "", MODULE + "\ndef h():\n    pass\n"),
        ("def g():\n", "    a()\n", "    b()\n", "", MODULE.replace("g():\n    a()", "g():\n    b()")),
    ],
    ids=["insert-at-start", "append-at-end", "anchor-makes-old-lines-unique"],
)
def test_anchored_seed_operations(tmp_path, leading, old, new, trailing, expected):
    make_tree(tmp_path, {"u.py": MODULE})
    result = single(run(tmp_path, anchored("u.py", leading, old, new, trailing)))
    assert result.status is Status.APPLIED and result.strategy == "exact"
    assert read(tmp_path, "u.py") == expected.encode()


def test_anchored_ambiguous_without_anchor(tmp_path):
    make_tree(tmp_path, {"u.py": MODULE})
    result = single(run(tmp_path, anchored("u.py", "", "    a()\n", "    b()\n", "")))
    assert result.status is Status.FAILED and "ambiguous" in result.reason and "lines 4 and 7" in result.reason
    assert read(tmp_path, "u.py") == MODULE.encode()


@pytest.mark.parametrize(
    ("leading", "old", "trailing", "message"),
    [
        ("def  f():\n", "    a()\n", "    b()\n", "leading anchor not found in an.py"),
        ("def f():\n", "    a() \n", "    b()\n", "old lines don't match content after anchor in an.py"),
        ("def f():\n", "    a()\n", "    b() \n", "trailing anchor not found after old lines in an.py"),
    ],
    ids=["leading", "old", "trailing"],
)
def test_anchored_whitespace_difference_fails_naming_the_part(tmp_path, leading, old, trailing, message):
    make_tree(tmp_path, {"an.py": FUNC})
    result = single(run(tmp_path, anchored("an.py", leading, old, "    z()\n", trailing)))
    assert result.status is Status.FAILED and message in result.reason
    assert read(tmp_path, "an.py") == FUNC.encode()


def test_search_replace_tolerance_is_reported_and_strict_turns_it_off(tmp_path):
    content = "def f():\n    a()  \n    b()\n"
    make_tree(tmp_path, {"t.py": content})
    response = diff_edit("t.py", ("def f():\n    a()\n    b()\n", "def f():\n    a()\n    c()\n"))
    strict = single(run(tmp_path, response, strict=True))
    assert strict.status is Status.FAILED and strict.code is ResultCode.NOT_FOUND
    assert "closest" in strict.reason and "lines 1–3" in strict.reason
    assert read(tmp_path, "t.py") == content.encode()
    tolerant = single(run(tmp_path, response))
    assert tolerant.status is Status.APPLIED and tolerant.strategy == "trailing-whitespace"
    assert read(tmp_path, "t.py") == b"def f():\n    a()  \n    c()\n"


@pytest.mark.parametrize(
    ("content", "search", "replace"),
    [
        ("class K:\n    def m(self):\n        pass\n", "def m(self):\n    pass\n", "def m(self):\n    return 1\n"),
        ("s = \"x - y\"\n", "s = \u201cx \u2013 y\u201d\n", "s = \u201cx \u2013 z\u201d\n"),
    ],
    ids=["indentation", "typography"],
)
def test_strict_refuses_every_tolerant_rung(tmp_path, content, search, replace):
    make_tree(tmp_path, {"s.py": content})
    result = single(run(tmp_path, diff_edit("s.py", (search, replace)), strict=True))
    assert result.status is Status.FAILED
    assert read(tmp_path, "s.py") == content.encode()


CONFIG = (
    "import json\n\n"
    "def load_config(path):\n"
    "    with open(path) as handle:\n"
    "        data = json.load(handle)\n"
    "    validate_schema(data)\n"
    "    return data\n\n"
    "def other():\n"
    "    pass\n"
)
TYPO_SEARCH = "    with open(path) as handle:\n        data = json.loads(handle)\n    validate_schema(data)\n    return data\n"
TYPO_REPLACE = TYPO_SEARCH.replace("    return data\n", "    return normalise(data)\n")


def test_near_miss_fails_by_default_and_names_the_closest_lines(tmp_path):
    make_tree(tmp_path, {"c.py": CONFIG})
    result = single(run(tmp_path, diff_edit("c.py", (TYPO_SEARCH, TYPO_REPLACE))))
    assert result.status is Status.FAILED and result.code is ResultCode.NOT_FOUND
    assert "lines 4–7" in result.reason and "similar" in result.reason
    assert "5 |" in result.hint and "json.loads(handle)" in result.hint  # the diff shows the differing line
    assert 0.5 < result.similarity < 1
    assert read(tmp_path, "c.py") == CONFIG.encode()


def test_fuzzy_accepts_a_near_match_and_reports_it(tmp_path):
    make_tree(tmp_path, {"c.py": CONFIG})
    result = single(run(tmp_path, diff_edit("c.py", (TYPO_SEARCH, TYPO_REPLACE)), fuzzy=True))
    assert result.status is Status.APPLIED and result.strategy == "fuzzy"
    assert 0.9 <= result.similarity < 1
    assert (result.start_line, result.end_line) == (4, 7)
    # the context line the model mistyped is written as the file's own line
    assert read(tmp_path, "c.py") == CONFIG.replace("    return data\n", "    return normalise(data)\n").encode()


def test_exact_match_reports_strategy_exact_and_full_similarity(tmp_path):
    make_tree(tmp_path, {"c.py": CONFIG})
    result = single(run(tmp_path, diff_edit("c.py", ("    validate_schema(data)\n", "    validate(data)\n")), fuzzy=True))
    assert (result.strategy, result.similarity, result.start_line, result.end_line) == ("exact", 1.0, 6, 6)


# --- dry run and undo -----------------------------------------------------------------------------


def test_dry_run_computes_everything_and_writes_nothing(tmp_path):
    make_tree(tmp_path, {"a.py": "one\ntwo\n", "b.py": "bee\n"})
    before = tree_state(tmp_path, skip_journal=False)
    response = diff_edit("a.py", ("two\n", "TWO\n")) + diff_edit("fresh/new.py", ("", "new = 1\n")) + diff_edit("b.py", ("nope\n", "x\n"))
    outcome = run(tmp_path, response, dry_run=True)
    assert statuses(outcome) == ["applied", "applied", "failed"]
    assert outcome.written is False
    assert outcome.files_modified == ("a.py",) and outcome.files_created == ("fresh/new.py",)
    diffs = {d.path: d for d in outcome.diffs}
    assert set(diffs) == {"a.py", "fresh/new.py"}
    assert "-two\n+TWO\n" in diffs["a.py"].unified and diffs["a.py"].unified.startswith("--- a/a.py\n+++ b/a.py\n")
    assert diffs["fresh/new.py"].created and "+new = 1\n" in diffs["fresh/new.py"].unified
    assert tree_state(tmp_path, skip_journal=False) == before  # not even a journal folder


def test_dry_run_matches_the_real_run(tmp_path):
    make_tree(tmp_path, {"a.py": "one\ntwo\n"})
    response = diff_edit("a.py", ("two\n", "TWO\n"), ("one\n", "ONE\n"))
    dry = run(tmp_path, response, dry_run=True)
    real = run(tmp_path, response)
    assert [(r.status, r.start_line, r.end_line, r.strategy) for r in dry.results] == [
        (r.status, r.start_line, r.end_line, r.strategy) for r in real.results
    ]
    assert [d.unified for d in dry.diffs] == [d.unified for d in real.diffs]
    assert real.written and read(tmp_path, "a.py") == b"ONE\nTWO\n"


def test_undo_after_apply_restores_bytes_modes_and_removes_created_files(tmp_path):
    make_tree(tmp_path, {"a.py": b"one\r\ntwo\r\n", "bin/run.sh": "#!/bin/sh\necho hi\n"})
    os.chmod(tmp_path / "bin/run.sh", 0o750)
    before = tree_state(tmp_path)
    outcome = run(tmp_path, diff_edit("a.py", ("two\n", "TWO\n")) + diff_edit("bin/run.sh", ("echo hi\n", "echo bye\n"))
                  + diff_edit("docs/new/readme.md", ("", "# new\n")))
    assert statuses(outcome) == ["applied"] * 3 and outcome.written
    assert tree_state(tmp_path) != before
    undone = Workspace(tmp_path).undo()
    assert undone.ok and sorted(undone.restored) == ["a.py", "bin/run.sh"] and undone.removed == ("docs/new/readme.md",)
    assert tree_state(tmp_path) == before
    assert Workspace(tmp_path).undo().ok is False  # nothing left to undo


# --- F1–F11 ---------------------------------------------------------------------------------------


def test_f1_crlf_file_lf_response_stays_crlf_everywhere(tmp_path):
    make_tree(tmp_path, {"w.txt": b"one\r\ntwo\r\nthree\r\n"})
    result = single(run(tmp_path, diff_edit("w.txt", ("two\n", "TWO\nextra\n"), lang="")))
    assert result.status is Status.APPLIED and result.strategy == "exact"
    assert read(tmp_path, "w.txt") == b"one\r\nTWO\r\nextra\r\nthree\r\n"


def test_f1_crlf_file_with_a_tolerant_rung(tmp_path):
    make_tree(tmp_path, {"w.py": b"if x:\r\n    a()  \r\n    b()\r\n"})
    result = single(run(tmp_path, diff_edit("w.py", ("if x:\n    a()\n    b()\n", "if x:\n    a()\n    c()\n    d()\n"))))
    assert result.strategy == "trailing-whitespace"
    assert read(tmp_path, "w.py") == b"if x:\r\n    a()  \r\n    c()\r\n    d()\r\n"


def test_f2_mixed_endings_untouched_lines_keep_theirs(tmp_path):
    make_tree(tmp_path, {"m.txt": b"one\r\ntwo\nthree\r\nfour\nfive\r\n"})
    result = single(run(tmp_path, diff_edit("m.txt", ("three\n", "THREE\nnew\n"), lang="")))
    assert result.status is Status.APPLIED
    # the edited line and the one added after it take the CRLF of the line they replace; the rest is untouched
    assert read(tmp_path, "m.txt") == b"one\r\ntwo\nTHREE\r\nnew\r\nfour\nfive\r\n"


def test_f2_a_changed_lf_line_in_a_crlf_first_file_stays_lf(tmp_path):
    make_tree(tmp_path, {"m.txt": b"head\r\nbody\nmore\ntail\r\n"})
    result = single(run(tmp_path, diff_edit("m.txt", ("body\nmore\n", "BODY\nadded\nmore\n"), lang="")))
    assert result.status is Status.APPLIED
    assert read(tmp_path, "m.txt") == b"head\r\nBODY\nadded\nmore\ntail\r\n"


def test_f3_utf8_bom_is_kept(tmp_path):
    make_tree(tmp_path, {"b.txt": b"\xef\xbb\xbfcaf\xc3\xa9 = 1\nx = 2\n"})
    result = single(run(tmp_path, diff_edit("b.txt", ("x = 2\n", "x = 3\n"), lang="")))
    assert result.status is Status.APPLIED
    assert read(tmp_path, "b.txt") == b"\xef\xbb\xbfcaf\xc3\xa9 = 1\nx = 3\n"


def test_f3_bom_file_edit_of_its_first_line(tmp_path):
    make_tree(tmp_path, {"b.txt": b"\xef\xbb\xbffirst\nsecond\n"})
    single(run(tmp_path, diff_edit("b.txt", ("first\n", "FIRST\n"), lang="")))
    assert read(tmp_path, "b.txt") == b"\xef\xbb\xbfFIRST\nsecond\n"


def test_f3_utf16_file_keeps_its_encoding(tmp_path):
    original = "\ufeffname = 'x'\r\nvalue = 1\r\n".encode("utf-16-le")
    make_tree(tmp_path, {"u.txt": original})
    result = single(run(tmp_path, diff_edit("u.txt", ("value = 1\n", "value = 2\n"), lang="")))
    assert result.status is Status.APPLIED
    assert read(tmp_path, "u.txt") == "\ufeffname = 'x'\r\nvalue = 2\r\n".encode("utf-16-le")


def test_f3_latin1_file_is_refused_clearly_and_left_alone(tmp_path):
    original = "caf\xe9 = 1\nx = 2\n".encode("latin-1")
    make_tree(tmp_path, {"l.txt": original})
    before = os.stat(tmp_path / "l.txt")
    outcome = run(tmp_path, diff_edit("l.txt", ("x = 2\n", "x = 3\n"), lang=""))
    result = single(outcome)
    assert result.status is Status.FAILED and result.code is ResultCode.REFUSED
    assert "UTF-8" in result.reason and "Latin-1" in result.reason
    assert outcome.written is False
    assert_untouched(tmp_path, "l.txt", original, before)


def test_f4_no_final_newline_is_kept(tmp_path):
    make_tree(tmp_path, {"n.txt": b"one\ntwo\nthree"})
    outcome = run(tmp_path, diff_edit("n.txt", ("one\n", "ONE\nnew\n"), ("three\n", "THREE\n"), lang=""))
    assert statuses(outcome) == ["applied", "applied"]
    assert read(tmp_path, "n.txt") == b"ONE\nnew\ntwo\nTHREE"


def test_f4_appending_after_a_last_line_without_newline(tmp_path):
    make_tree(tmp_path, {"n.txt": b"one\ntwo"})
    single(run(tmp_path, diff_edit("n.txt", ("two\n", "two\nthree\n"), lang="")))
    assert read(tmp_path, "n.txt") == b"one\ntwo\nthree"


def test_f4_final_newline_kept_when_deleting_the_last_line(tmp_path):
    make_tree(tmp_path, {"n.txt": b"one\ntwo\n"})
    single(run(tmp_path, diff_edit("n.txt", ("two\n", ""), lang="")))
    assert read(tmp_path, "n.txt") == b"one\n"


@pytest.mark.parametrize(
    ("content", "searched", "words"),
    [
        (b"PK\x03\x04\x00\x00header\nline\n", "line\n", "binary"),
        (b"line\n" * 4000 + b"\x00tail\n", "tail\n", "binary"),  # a NUL far past the start counts too
        (b"first = 1\rsecond = 2\r", "second = 2\n", "bare CR"),
    ],
    ids=["f5-binary", "f5-late-nul-byte", "bare-cr-line-breaks"],
)
def test_f5_files_that_are_not_editable_text_are_refused_and_left_alone(tmp_path, content, searched, words):
    make_tree(tmp_path, {"target.dat": content})
    result = single(run(tmp_path, diff_edit("target.dat", (searched, "other\n"), lang="")))
    assert result.status is Status.FAILED and result.code is ResultCode.REFUSED
    assert words in result.reason
    assert read(tmp_path, "target.dat") == content


def test_read_only_file_is_refused_and_left_alone(tmp_path):
    make_tree(tmp_path, {"ro.py": "x = 1\n"})
    (tmp_path / "ro.py").chmod(0o444)
    result = single(run(tmp_path, diff_edit("ro.py", ("x = 1\n", "x = 2\n"))))
    assert result.status is Status.FAILED and result.code is ResultCode.REFUSED
    assert "read-only" in result.reason and "0444" in result.reason
    assert read(tmp_path, "ro.py") == b"x = 1\n"


@pytest.fixture
def fenced_root(tmp_path):
    """A root with git data, an outside sibling folder, and symlinks from inside pointing out."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    make_tree(root, {"ok.py": "x = 1\n", ".git/config": "[core]\n\tbare = false\n", ".git/HEAD": "ref: refs/heads/main\n"})
    make_tree(outside, {"outside.txt": "secret = 1\n", "b": "bee\n"})
    os.symlink(outside, root / "out_dir")
    os.symlink(outside / "outside.txt", root / "out_file.txt")
    return root, outside


@pytest.mark.parametrize(
    "path",
    ["../outside.txt", "/etc/passwd", "a/../../b", "../outside/b", "out_dir/outside.txt", "out_file.txt",
     ".git/config", ".git/hooks/pre-commit", "OUTSIDE_ABSOLUTE", ".editblocks/lock"],
)
@pytest.mark.parametrize("kind", ["edit", "create"])
def test_f6_escaping_paths_are_refused_and_nothing_is_written_anywhere(fenced_root, path, kind):
    root, outside = fenced_root
    if path == "OUTSIDE_ABSOLUTE":
        path = str(outside / "outside.txt")
    before_root, before_outside = tree_state(root), tree_state(outside)
    before_parent = sorted(os.listdir(root.parent))
    passwd = Path("/etc/passwd").read_bytes()
    pair = ("secret = 1\n", "secret = 2\n") if kind == "edit" else ("", "pwned = 1\n")
    outcome = run(root, diff_edit(path, pair, lang=""))
    result = single(outcome)
    assert result.block.path == path
    assert result.status is Status.FAILED and result.code is ResultCode.REFUSED
    assert result.reason.startswith("refused")
    assert outcome.written is False and outcome.files_modified == () and outcome.files_created == ()
    assert tree_state(root) == before_root
    assert tree_state(outside) == before_outside
    assert sorted(os.listdir(root.parent)) == before_parent
    assert Path("/etc/passwd").read_bytes() == passwd


def test_f6_a_refused_block_does_not_stop_a_valid_one(fenced_root):
    root, outside = fenced_root
    outcome = run(root, diff_edit("../outside/outside.txt", ("secret = 1\n", "secret = 2\n")) + diff_edit("ok.py", ("x = 1\n", "x = 2\n")))
    assert statuses(outcome) == ["failed", "applied"]
    assert read(root, "ok.py") == b"x = 2\n" and read(outside, "outside.txt") == b"secret = 1\n"


def test_f6_symlink_inside_the_root_is_written_through_and_stays_a_link(tmp_path):
    make_tree(tmp_path, {"real/conf.py": "debug = False\n"})
    os.symlink("real/conf.py", tmp_path / "conf.py")
    result = single(run(tmp_path, diff_edit("conf.py", ("debug = False\n", "debug = True\n"))))
    assert result.status is Status.APPLIED and result.path == "real/conf.py"
    assert os.path.islink(tmp_path / "conf.py") and os.readlink(tmp_path / "conf.py") == "real/conf.py"
    assert read(tmp_path, "real/conf.py") == b"debug = True\n"


@pytest.mark.parametrize("pair", [("x\n", "y\n"), ("", "y\n")], ids=["edit", "create"])
def test_f7_directory_target_is_refused(tmp_path, pair):
    make_tree(tmp_path, {"pkg/inner.py": "x\n"})
    before = tree_state(tmp_path)
    result = single(run(tmp_path, diff_edit("pkg", pair)))
    assert result.status is Status.FAILED and result.code is ResultCode.REFUSED
    assert "directory" in result.reason
    assert tree_state(tmp_path) == before


@pytest.mark.parametrize(
    "search",
    ["\tnot there at all\n", "    indented()\n", "", "same()\n"],
    ids=["not-found", "ambiguous-tolerant", "create-on-existing", "ambiguous-exact"],
)
def test_f8_a_failed_edit_never_changes_the_file(tmp_path, search):
    original = b"\tindented()  \r\nsame()\n\tindented()\nsame()\n  trailing\t \nno final newline"
    make_tree(tmp_path, {"f.txt": original})
    before = os.stat(tmp_path / "f.txt")
    outcome = run(tmp_path, diff_edit("f.txt", (search, "replacement()\n"), lang=""))
    assert statuses(outcome) == ["failed"]
    assert outcome.written is False
    assert_untouched(tmp_path, "f.txt", original, before)


@pytest.mark.parametrize("mode", [0o755, 0o700, 0o640, 0o604])
def test_f9_permission_bits_are_kept(tmp_path, mode):
    make_tree(tmp_path, {"tool.sh": "#!/bin/sh\necho one\n"})
    os.chmod(tmp_path / "tool.sh", mode)
    single(run(tmp_path, diff_edit("tool.sh", ("echo one\n", "echo two\n"), lang="sh")))
    assert read(tmp_path, "tool.sh") == b"#!/bin/sh\necho one\n".replace(b"one", b"two")
    assert stat.S_IMODE(os.stat(tmp_path / "tool.sh").st_mode) == mode


def _plan_then_tamper(monkeypatch, root: Path, tamper: dict[str, bytes]):
    real = PLANNER.plan

    def plan(self, *args, **kwargs):
        planned = real(self, *args, **kwargs)
        for rel, content in tamper.items():
            (root / rel).write_bytes(content)
        return planned

    monkeypatch.setattr(PLANNER, "plan", plan)


def test_f11_file_changed_between_read_and_write_is_not_overwritten(tmp_path, monkeypatch):
    make_tree(tmp_path, {"a.py": "one\n", "b.py": "bee\n"})
    _plan_then_tamper(monkeypatch, tmp_path, {"a.py": b"edited by someone else\n"})
    outcome = run(tmp_path, diff_edit("a.py", ("one\n", "ONE\n")) + diff_edit("b.py", ("bee\n", "BEE\n")))
    assert outcome.written is False
    first, second = outcome.results
    assert first.status is Status.FAILED and first.code is ResultCode.CHANGED_ON_DISK
    assert "changed on disk" in first.reason and "a.py" in first.reason
    assert second.status is not Status.APPLIED and "changed on disk" in second.reason
    assert read(tmp_path, "a.py") == b"edited by someone else\n"
    assert read(tmp_path, "b.py") == b"bee\n"  # all or nothing
    assert Workspace(tmp_path).undo().ok is False


def test_f11_file_created_by_someone_else_meanwhile(tmp_path, monkeypatch):
    _plan_then_tamper(monkeypatch, tmp_path, {"new.py": b"theirs\n"})
    result = single(run(tmp_path, diff_edit("new.py", ("", "mine\n"))))
    assert result.status is Status.FAILED and "changed on disk" in result.reason
    assert read(tmp_path, "new.py") == b"theirs\n"


def test_f11_file_deleted_meanwhile(tmp_path, monkeypatch):
    make_tree(tmp_path, {"a.py": "one\n"})
    real = PLANNER.plan

    def plan(self, *args, **kwargs):
        planned = real(self, *args, **kwargs)
        (tmp_path / "a.py").unlink()
        return planned

    monkeypatch.setattr(PLANNER, "plan", plan)
    result = single(run(tmp_path, diff_edit("a.py", ("one\n", "ONE\n"))))
    assert result.status is Status.FAILED and "changed on disk" in result.reason
    assert not (tmp_path / "a.py").exists()


# --- EditBlock objects passed directly ---------------------------------------------------------


def test_apply_accepts_a_list_of_edit_blocks(tmp_path):
    make_tree(tmp_path, {"d.py": "a = 1\n"})
    block = EditBlock("d.py", "", "a = 1\n", "a = 2\n", "", BlockKind.EDIT, Format.DIFF, 1)
    outcome = apply([block], tmp_path)
    assert statuses(outcome) == ["applied"] and outcome.shell == ()
    assert read(tmp_path, "d.py") == b"a = 2\n"


def test_shell_suggestions_are_reported_never_run(tmp_path):
    make_tree(tmp_path, {"d.py": "a = 1\n"})
    response = diff_edit("d.py", ("a = 1\n", "a = 2\n")) + "```bash\ntouch pwned_by_shell\n```\n"
    outcome = apply(parse(response), tmp_path)
    assert [s.command for s in outcome.shell] == ["touch pwned_by_shell"]
    assert not (tmp_path / "pwned_by_shell").exists()
    assert not re.search("pwned", " ".join(os.listdir(tmp_path)))


# --- M2, M4 and a few combinations ------------------------------------------------------------


def _not_found_block(lines: int) -> tuple[str, EditBlock]:
    """A ``lines``-line file and a block quoting its middle tenth with one line changed (so it is not found)."""
    text = [f"    value_{n} = compute({n}, '{(n * 7919) % 100_003}')" for n in range(lines)]
    searched = text[lines * 9 // 20: lines * 11 // 20]
    searched[len(searched) // 2] = "    value_X = something_else()"
    block = EditBlock("big.py", "", "\n".join(searched) + "\n", "gone = True\n", "", BlockKind.EDIT, Format.DIFF, 1)
    return "\n".join(text) + "\n", block


def test_m2_not_found_in_a_big_file_names_the_closest_lines_quickly(tmp_path):
    text, block = _not_found_block(20_000)
    make_tree(tmp_path, {"big.py": text})
    result = single(apply([block], tmp_path, dry_run=True))
    assert result.status is Status.FAILED and result.code is ResultCode.NOT_FOUND
    assert "lines 9001–11000" in result.reason and "99% similar" in result.reason
    assert "-       |     value_X = something_else()" in result.hint
    assert "+ 10001 |     value_10000 = compute(10000," in result.hint


def test_m2_diagnosis_grows_linearly_with_the_file_and_the_block(tmp_path):
    """Eight times the file and the block must not cost 64 times as much (CPU time, wide threshold)."""
    def diagnosing(lines: int):
        root = tmp_path / str(lines)
        text, block = _not_found_block(lines)
        make_tree(root, {"big.py": text})
        return lambda: apply([block], root, dry_run=True)
    ratio = growth_ratio(diagnosing(2_500), diagnosing(GROWTH_FACTOR * 2_500), GROWTH_LIMIT)
    assert ratio < GROWTH_LIMIT, f"eight times the file and block took {ratio:.1f}x the CPU time"


def test_m4_ambiguous_lists_every_candidate(tmp_path):
    make_tree(tmp_path, {"m.py": "".join(f"x = {n}\npass\n" for n in range(5))})
    result = single(run(tmp_path, diff_edit("m.py", ("pass\n", "return\n"))))
    assert result.candidates == (2, 4, 6, 8, 10)
    assert "lines 2, 4, 6, 8 and 10" in result.reason


def test_abort_policy_counts_a_refused_path_as_a_failure(tmp_path):
    make_tree(tmp_path, {"ok.py": "x = 1\n"})
    outcome = run(tmp_path, diff_edit("ok.py", ("x = 1\n", "x = 2\n")) + diff_edit("../escape.py", ("", "y = 1\n")),
                  policy="abort")
    assert statuses(outcome) == ["skipped", "failed"]
    assert read(tmp_path, "ok.py") == b"x = 1\n" and not (tmp_path.parent / "escape.py").exists()


def test_several_spellings_of_one_file_edit_it_in_sequence(tmp_path):
    make_tree(tmp_path, {"a.py": "one\ntwo\n"})
    os.symlink("a.py", tmp_path / "alias.py")
    outcome = run(tmp_path, diff_edit("a.py", ("one\n", "ONE\n")) + diff_edit("./a.py", ("ONE\n", "UNO\n"))
                  + diff_edit("alias.py", ("two\n", "TWO\n")) + diff_edit("sub/../a.py", ("UNO\nTWO\n", "both\n")))
    assert statuses(outcome) == ["applied"] * 4
    assert {r.path for r in outcome.results} == {"a.py"} and outcome.files_modified == ("a.py",)
    assert read(tmp_path, "a.py") == b"both\n" and os.path.islink(tmp_path / "alias.py")


def test_a_file_created_and_then_edited_in_one_response(tmp_path):
    outcome = run(tmp_path, diff_edit("n.py", ("", "one\ntwo\n")) + diff_edit("n.py", ("two\n", "TWO\n")))
    assert statuses(outcome) == ["applied", "applied"]
    assert outcome.files_created == ("n.py",) and outcome.files_modified == ()
    assert read(tmp_path, "n.py") == b"one\nTWO\n"
    assert Workspace(tmp_path).undo().removed == ("n.py",) and not (tmp_path / "n.py").exists()
