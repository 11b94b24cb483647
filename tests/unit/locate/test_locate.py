"""The matching ladder: every rung, its uniqueness rule, adaptation of the replacement, and diagnosis."""

from __future__ import annotations

from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import editblocks.locate.view as view_module
from editblocks.locate.diagnosis import explain_anchor_failure, find_near_miss
from editblocks.locate.ladder import locate
from editblocks.locate.types import (
    DEFAULT_RUNGS,
    EXACT_ONLY,
    Ambiguous,
    Found,
    LocateOptions,
    NearMiss,
    NotFound,
    Rung,
)
from editblocks.text.document import Document

WITH_FUZZY = LocateOptions(rungs=(*DEFAULT_RUNGS, Rung.FUZZY))


def lines(text: str) -> list[str]:
    """Lines of a dedented literal; a leading newline right after the quotes is ignored."""
    return text.removeprefix("\n").split("\n")


INVENTORY = lines("""\
class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, count=1):
        self.items[name] = self.items.get(name, 0) + count
        return self.items[name]

    def remove(self, name):
        del self.items[name]""")


# --- exact ----------------------------------------------------------------------------------------


def test_exact_match_replaces_the_span_with_the_replacement_verbatim():
    search = ["    def remove(self, name):", "        del self.items[name]"]
    replace = ["    def remove(self, name):", "        self.items.pop(name, None)"]
    result = locate(INVENTORY, search, replace)
    assert result == Found(8, 10, tuple(replace), (8, None), Rung.EXACT, 1.0)


def test_exact_sources_point_at_the_file_lines_kept_as_context():
    search = INVENTORY[4:7]
    replace = [INVENTORY[4], "        # count may be negative", INVENTORY[5], INVENTORY[6]]
    result = locate(INVENTORY, search, replace)
    assert isinstance(result, Found)
    assert result.sources == (4, None, 5, 6)


def test_empty_search_is_a_programming_error():
    with pytest.raises(ValueError):
        locate(INVENTORY, [], ["x"])


def test_a1_two_occurrences_are_ambiguous_with_both_starts():
    file = ["def ping():", "    return 'pong'", "", "def ping_again():", "    return 'pong'", ""]
    result = locate(file, ["    return 'pong'"], ["    return 'PONG'"])
    assert result == Ambiguous((1, 4), Rung.EXACT, False)


def test_a1_first_match_takes_the_lowest_candidate():
    file = ["x = 1", "y = 2", "x = 1", "z = 3"]
    result = locate(file, ["x = 1"], ["x = 10"], LocateOptions(first_match=True))
    assert isinstance(result, Found)
    assert (result.start, result.end, result.new_lines) == (0, 1, ("x = 10",))


@pytest.mark.parametrize("one_liner", ["}", "        return x"])
def test_a2_common_one_line_searches_are_ambiguous(one_liner):
    file = [
        "function first(x) {",
        "    if (x) {",
        "        return x",
        "    }",
        "}",
        "function second(x) {",
        "        return x",
        "}",
    ]
    result = locate(file, [one_liner], ["// replaced"])
    assert isinstance(result, Ambiguous)
    assert len(result.starts) >= 2


def test_a3_overlapping_occurrences_count_separately():
    result = locate(["a", "a", "a"], ["a", "a"], ["b"])
    assert result == Ambiguous((0, 1), Rung.EXACT, False)


def test_candidate_list_is_capped_and_says_so():
    file = ["pass"] * 10
    result = locate(file, ["pass"], ["return"], LocateOptions(max_candidates=3))
    assert result == Ambiguous((0, 1, 2), Rung.EXACT, True)


def test_a12_replacement_text_is_literal():
    replace = ["pattern = r'(\\w+)'", "out = re.sub(pattern, '$1 $& \\1 \\g<0>', text)"]
    result = locate(["out = text"], ["out = text"], replace)
    assert isinstance(result, Found)
    assert result.new_lines == tuple(replace)


def test_a21_search_matches_the_last_line_of_a_file_without_final_newline():
    document = Document.from_text("first\nsecond\nlast line")
    result = locate(document.lines, ["second", "last line"], ["second", "final line"])
    assert isinstance(result, Found)
    assert (result.start, result.end) == (1, 3)
    assert Document.splice(document, result.start, result.end, result.new_lines, result.sources).to_text() == (
        "first\nsecond\nfinal line"
    )


def test_exact_only_refuses_whitespace_differences():
    result = locate(INVENTORY, ["def remove(self, name):"], ["def discard(self, name):"], LocateOptions(rungs=EXACT_ONLY))
    assert isinstance(result, NotFound)
    assert result.near_miss is not None and result.near_miss.start == 8


def test_an_exact_match_wins_over_a_tolerant_copy_elsewhere():
    file = ["total = 0   ", "print(total)", "total = 0", "print(total)"]
    result = locate(file, ["total = 0", "print(total)"], ["total = 1", "print(total)"])
    assert isinstance(result, Found)
    assert (result.start, result.strategy) == (2, Rung.EXACT)


def test_exact_locate_in_a_big_file_finds_the_block_at_the_end():
    file = [f"value_{index} = {index}" for index in range(50_000)]
    result = locate(file, file[-6:], ["done = True"])
    assert isinstance(result, Found)
    assert (result.start, result.end) == (49_994, 50_000)


# --- trailing whitespace ----------------------------------------------------------------------------


def test_a6_trailing_whitespace_in_the_file_is_kept_on_context_lines():
    file = ["for item in items:  ", "    total += item\t", "print(total)"]
    search = ["for item in items:", "    total += item"]
    replace = ["for item in items:", "    total += item * 2"]
    result = locate(file, search, replace)
    assert result == Found(0, 2, ("for item in items:  ", "    total += item * 2"), (0, None), Rung.TRAILING_WHITESPACE)


def test_a6_trailing_whitespace_in_the_search_is_ignored():
    file = ["a = 1", "b = 2", "c = 3"]
    result = locate(file, ["a = 1   ", "b = 2 "], ["a = 1", "b = 20"])
    assert isinstance(result, Found)
    assert (result.start, result.end, result.strategy) == (0, 2, Rung.TRAILING_WHITESPACE)
    assert result.new_lines == ("a = 1", "b = 20")


def test_ambiguity_is_reported_on_the_trailing_whitespace_rung():
    file = ["flag = True ", "other = 1", "flag = True  "]
    result = locate(file, ["flag = True"], ["flag = False"])
    assert result == Ambiguous((0, 2), Rung.TRAILING_WHITESPACE, False)


def test_a9_leading_blank_line_in_the_search_that_the_file_lacks():
    file = ["import os", "import sys", "def main():", "    pass"]
    result = locate(file, ["", "def main():", "    pass"], ["", "def main():", "    return 0"])
    assert isinstance(result, Found)
    assert (result.start, result.end) == (2, 4)
    assert result.new_lines == ("def main():", "    return 0")
    assert result.sources == (2, None)


def test_a9_blank_edges_dropped_from_the_search_only_drop_blank_lines_of_the_replacement():
    file = ["x = 1", "y = 2", "z = 3"]
    result = locate(file, ["y = 2", ""], ["y = 20"])
    assert isinstance(result, Found)
    assert (result.start, result.end, result.new_lines) == (1, 2, ("y = 20",))


def test_blank_edge_lines_are_kept_when_the_file_has_them():
    file = ["x = 1", "", "y = 2", "z = 3"]
    result = locate(file, ["", "y = 2"], ["", "y = 20"])
    assert isinstance(result, Found)
    assert (result.start, result.end, result.strategy) == (1, 3, Rung.EXACT)


# --- indentation -------------------------------------------------------------------------------------


def test_a4_under_indented_search_is_matched_and_the_replacement_reindented():
    search = ["def add(self, name, count=1):", "    self.items[name] = self.items.get(name, 0) + count"]
    replace = [
        "def add(self, name, count=1):",
        "    if count <= 0:",
        "        raise ValueError(count)",
        "    self.items[name] = self.items.get(name, 0) + count",
    ]
    result = locate(INVENTORY, search, replace)
    assert isinstance(result, Found)
    assert (result.start, result.end, result.strategy) == (4, 6, Rung.INDENTATION)
    assert result.new_lines == (
        "    def add(self, name, count=1):",
        "        if count <= 0:",
        "            raise ValueError(count)",
        "        self.items[name] = self.items.get(name, 0) + count",
    )
    assert result.sources == (4, None, None, 5)


def test_a4_over_indented_search_is_matched_and_the_replacement_dedented():
    file = ["def main():", "    run()", "", "main()"]
    search = ["        def main():", "            run()"]
    result = locate(file, search, ["        def main():", "            run(fast=True)"])
    assert isinstance(result, Found)
    assert result.strategy is Rung.INDENTATION
    assert result.new_lines == ("def main():", "    run(fast=True)")


def test_a4_a_line_the_model_reindents_keeps_its_new_depth():
    file = ["class Job:", "    def go(self):", "        step_one()", "        step_two()"]
    search = ["def go(self):", "    step_one()", "    step_two()"]
    replace = ["def go(self):", "    try:", "        step_one()", "        step_two()", "    finally:", "        cleanup()"]
    result = locate(file, search, replace)
    assert isinstance(result, Found)
    assert result.new_lines == (
        "    def go(self):",
        "        try:",
        "            step_one()",
        "            step_two()",
        "        finally:",
        "            cleanup()",
    )
    assert result.sources == (1, None, None, None, None, None)


def test_blank_lines_of_a_reindented_replacement_stay_blank():
    file = ["if ready:", "    start()", "    wait()"]
    result = locate(file, ["start()", "wait()"], ["start()", "  ", "wait()", "finish()"])
    assert isinstance(result, Found)
    assert result.new_lines == ("    start()", "", "    wait()", "    finish()")


def test_a4_non_uniform_indentation_difference_is_not_an_indentation_match():
    file = ["def f():", "    a = 1", "    b = 2"]
    result = locate(file, ["def f():", "  a = 1", "      b = 2"], ["def f():", "  a = 1", "      b = 3"])
    assert isinstance(result, NotFound)
    assert result.near_miss is not None
    assert any(line.startswith("-") and "b = 2" in line for line in result.near_miss.diff)


def test_ambiguity_is_reported_on_the_indentation_rung():
    file = ["if a:", "    go()", "if b:", "        go()"]
    result = locate(file, ["go()"], ["stop()"])
    assert result == Ambiguous((1, 3), Rung.INDENTATION, False)


def test_a5_tabs_in_the_file_spaces_in_the_search_new_lines_use_tabs():
    file = ["func main() {", "\tif ok {", "\t\tprint(1)", "\t}", "}"]
    search = ["    if ok {", "        print(1)", "    }"]
    replace = ["    if ok {", "        print(1)", "        print(2)", "    }"]
    result = locate(file, search, replace)
    assert isinstance(result, Found)
    assert result.strategy is Rung.INDENTATION
    assert result.new_lines == ("\tif ok {", "\t\tprint(1)", "\t\tprint(2)", "\t}")
    assert result.sources == (1, 2, None, 3)


def test_a5_spaces_in_the_file_tabs_in_the_search_new_lines_use_spaces():
    file = ["def run():", "    for x in xs:", "        use(x)"]
    result = locate(file, ["\tfor x in xs:", "\t\tuse(x)"], ["\tfor x in xs:", "\t\tuse(x)", "\t\tlog(x)"])
    assert isinstance(result, Found)
    assert result.new_lines == ("    for x in xs:", "        use(x)", "        log(x)")


def test_a5_tab_width_eight_is_tried_when_four_does_not_explain_the_indentation():
    file = ["int main() {", "\tif (x) {", "\t\ty();", "\t}", "}"]
    search = ["        if (x) {", "                y();", "        }"]
    replace = ["        if (x) {", "                y();", "                z();", "        }"]
    result = locate(file, search, replace)
    assert isinstance(result, Found)
    assert result.new_lines == ("\tif (x) {", "\t\ty();", "\t\tz();", "\t}")


def test_a5_a_tab_width_under_which_tabs_and_spaces_line_up_wins_over_a_shift():
    """A tab-indented search over a space-indented method body lines up at width 8 (shift 0) and at width 4 (shift
    4): the lines are right where they are, so the new lines keep their depth (issue 24: width 4 re-indented a
    block of live code by four columns)."""
    file = ["class A:", "    def f(self):", "        if x:", "            y()"]
    search = ["\tif x:", "\t    y()"]
    replace = ["        if x:", "            y()", "            z()"]
    result = locate(file, search, replace)
    assert isinstance(result, Found) and result.strategy is Rung.INDENTATION
    assert result.new_lines == ("        if x:", "            y()", "            z()")


def test_a5_tabs_against_spaces_need_the_indentation_rung():
    file = ["\tvalue = compute()"]
    options = LocateOptions(rungs=(Rung.EXACT, Rung.TRAILING_WHITESPACE))
    assert isinstance(locate(file, ["    value = compute()"], ["    value = 0"], options), NotFound)


# --- typography ---------------------------------------------------------------------------------------


def test_a7_curly_quotes_and_dashes_in_the_search_are_mapped_back_in_new_lines():
    file = ['msg = "Saving - please wait"', "log(msg)"]
    search = ["msg = \u201cSaving \u2013 please wait\u201d", "log(msg)"]
    replace = ["msg = \u201cSaving \u2013 almost done\u201d", "log(msg)"]
    result = locate(file, search, replace)
    assert isinstance(result, Found)
    assert result.strategy is Rung.TYPOGRAPHY
    assert result.new_lines == ('msg = "Saving - almost done"', "log(msg)")
    assert result.sources == (None, 1)


def test_a7_typography_the_file_itself_uses_is_kept():
    file = ["title = \u201cRésumé\u201d", "show(title)"]
    search = ['title = "Résumé"', "show(title)"]
    replace = ['title = "Résumé"', "show(title.upper())", "note = \u201cdone\u201d"]
    result = locate(file, search, replace)
    assert isinstance(result, Found)
    assert result.strategy is Rung.TYPOGRAPHY
    assert result.new_lines == ("title = \u201cRésumé\u201d", "show(title.upper())", "note = \u201cdone\u201d")


def test_a7_non_breaking_spaces_and_ellipsis_fold_to_ascii():
    file = ["x = 1", 'print("Loading...")']
    result = locate(file, ["x\u00a0= 1", "print(\u201cLoading\u2026\u201d)"], ["x = 2", "print(\u201cLoading\u2026\u201d)"])
    assert isinstance(result, Found)
    assert result.strategy is Rung.TYPOGRAPHY
    assert result.new_lines == ("x = 2", 'print("Loading...")')


def test_a7_a_changed_line_keeps_the_curly_quotes_and_no_break_spaces_the_model_typed_as_ascii():
    """The README's promise: the file's typography stays. The characters a changed line copies from the line it
    rewrites are written as the file has them; what the model added is written as typed."""
    file = ["x = 1", "print(\u201cHello\u201d)", "a\u00a0=\u00a01", "tail"]
    search = ['print("Hello")', "a = 1"]
    replace = ['print("Hello, world")', "a = 2", "b = 3"]
    result = locate(file, search, replace)
    assert isinstance(result, Found) and result.strategy is Rung.TYPOGRAPHY
    assert result.new_lines == ("print(\u201cHello, world\u201d)", "a\u00a0=\u00a02", "b = 3")


def test_a7_an_apostrophe_the_model_typed_straight_is_written_curly_in_an_indented_line():
    file = ["def greet():", "    say(\u2018don\u2019t stop\u2019)"]
    result = locate(file, ["    say('don't stop')"], ["    say('don't stop now')"])
    assert isinstance(result, Found)
    assert result.new_lines == ("    say(\u2018don\u2019t stop now\u2019)",)


def test_typography_is_folded_only_on_its_own_rung():
    file = ["it's"]
    options = LocateOptions(rungs=(Rung.EXACT, Rung.TRAILING_WHITESPACE, Rung.INDENTATION))
    assert isinstance(locate(file, ["it\u2019s"], ["it is"], options), NotFound)


@pytest.mark.parametrize(
    ("file_line", "searched"),
    [("<p>Fish &amp; chips</p>", "<p>Fish & chips</p>"), ("if (a &lt; b)", "if (a < b)"), ("x = a & b", "x = a &amp; b")],
)
def test_a8_html_entities_are_never_folded(file_line, searched):
    result = locate(["<div>", file_line, "</div>"], [searched], ["changed"])
    assert isinstance(result, NotFound)


def test_a8_entities_match_themselves_and_stay_in_new_lines():
    file = ["<p>Fish &amp; chips</p>"]
    result = locate(file, ["<p>Fish &amp; chips</p>"], ["<p>Fish &amp; chips &amp; peas</p>"])
    assert isinstance(result, Found)
    assert result.new_lines == ("<p>Fish &amp; chips &amp; peas</p>",)


def test_ambiguity_is_reported_on_the_typography_rung():
    file = ["say('hi')", "wait()", "say('hi')"]
    result = locate(file, ["say(\u2018hi\u2019)"], ["say('hello')"])
    assert result == Ambiguous((0, 2), Rung.TYPOGRAPHY, False)


# --- elision --------------------------------------------------------------------------------------------

REPORT = lines("""\
def report(rows):
    header = make_header()
    for row in rows:
        check(row)
        emit(row)
    footer = make_footer()
    return header, footer""")


def test_a10_elided_search_is_matched_piece_by_piece_and_the_gap_kept():
    search = ["def report(rows):", "    # ... existing code ...", "    footer = make_footer()"]
    replace = ["def report(rows, out):", "    # ... existing code ...", "    footer = make_footer(out)"]
    result = locate(REPORT, search, replace)
    assert isinstance(result, Found)
    assert (result.start, result.end, result.strategy) == (0, 6, Rung.ELISION)
    assert result.new_lines == ("def report(rows, out):", *REPORT[1:5], "    footer = make_footer(out)")
    assert result.sources == (None, 1, 2, 3, 4, None)


@pytest.mark.parametrize("elision", ["...", "    \u2026", "// ...", "    /* ... */", "<!-- ... -->"])
def test_a10_elision_line_forms(elision):
    search = ["    header = make_header()", elision, "    return header, footer"]
    replace = ["    header = make_header(title=True)", elision, "    return header, footer"]
    result = locate(REPORT, search, replace)
    assert isinstance(result, Found)
    assert (result.start, result.end, result.strategy) == (1, 7, Rung.ELISION)
    assert result.new_lines[0] == "    header = make_header(title=True)"


def test_a10_pieces_are_line_anchored_never_inside_a_line():
    file = ["def limits():", "    max = 1", "    min = 0", "    return max, min"]
    search = ["def limits():", "...", "x = 1"]
    result = locate(file, search, ["def limits():", "...", "x = 2"])
    assert isinstance(result, NotFound)


def test_a10_a_stub_ellipsis_is_content_matched_exactly():
    file = ["class Base:", "    def run(self):", "        ...", "", "class Child(Base):", "    pass"]
    search = ["    def run(self):", "        ..."]
    replace = ["    def run(self):", "        raise NotImplementedError"]
    result = locate(file, search, replace)
    assert isinstance(result, Found)
    assert (result.start, result.end, result.strategy) == (1, 3, Rung.EXACT)


def test_a10_mismatched_elision_counts_are_refused_with_a_reason():
    search = ["def report(rows):", "    ...", "    footer = make_footer()"]
    result = locate(REPORT, search, ["def report(rows, out):", "    footer = make_footer(out)"])
    assert isinstance(result, NotFound)
    assert "elision" in result.hint
    assert result.near_miss is not None


def test_elided_pieces_must_each_be_unique():
    file = ["a()", "b()", "a()", "c()"]
    result = locate(file, ["a()", "...", "c()"], ["a2()", "...", "c2()"])
    assert result == Ambiguous((0, 2), Rung.ELISION, False)


def test_elided_pieces_must_be_in_file_order():
    result = locate(REPORT, ["    footer = make_footer()", "...", "def report(rows):"], ["x", "...", "y"])
    assert isinstance(result, NotFound)
    assert "order" in result.hint


def test_elided_pieces_use_the_tolerant_line_rungs():
    search = ["def report(rows):", "# ...", "footer = make_footer()"]
    replace = ["def report(rows):", "# ...", "footer = make_footer(bold=True)"]
    result = locate(REPORT, search, replace)
    assert isinstance(result, Found)
    assert result.new_lines[-1] == "    footer = make_footer(bold=True)"


def test_elision_is_not_used_by_exact_only_formats():
    search = ["def report(rows):", "...", "    return header, footer"]
    assert isinstance(locate(REPORT, search, search, LocateOptions(rungs=EXACT_ONLY)), NotFound)


# --- fuzzy -----------------------------------------------------------------------------------------------

PARSER = lines("""\
def parse_config(path):
    with open(path) as handle:
        raw = handle.read()
    settings = json.loads(raw)
    validate(settings)
    return settings


def write_config(path, settings):
    with open(path, "w") as handle:
        handle.write(json.dumps(settings))""")


def test_a11_a_small_typo_is_not_applied_unless_fuzzy_is_enabled():
    search = ["    settings = json.load(raw)", "    validate(settings)"]
    result = locate(PARSER, search, ["    settings = json.loads(raw)", "    check(settings)"])
    assert isinstance(result, NotFound)
    assert result.near_miss is not None and (result.near_miss.start, result.near_miss.end) == (3, 5)


def test_a11_fuzzy_accepts_a_small_typo_and_keeps_the_file_s_context_lines():
    search = ["def parse_config(path):", "    with open(path) as handel:", "        raw = handle.read()"]
    replace = ["def parse_config(path):", "    with open(path) as handel:", "        raw = handle.read().strip()"]
    result = locate(PARSER, search, replace, WITH_FUZZY)
    assert isinstance(result, Found)
    assert (result.start, result.end, result.strategy) == (0, 3, Rung.FUZZY)
    assert 0.9 <= result.similarity < 1.0
    assert result.new_lines == (PARSER[0], PARSER[1], "        raw = handle.read().strip()")
    assert result.sources == (0, 1, None)


def test_a11_a_searched_line_missing_from_the_file_refuses_a_fuzzy_match():
    search = [PARSER[0], PARSER[1], "        audit(path)", PARSER[2]]
    result = locate(PARSER, search, search, WITH_FUZZY)
    assert isinstance(result, NotFound)
    assert "searched line 3 has no counterpart" in result.hint


def test_a11_first_and_last_lines_equal_with_an_unrelated_middle_is_refused():
    search = [
        "def parse_config(path):",
        "    response = requests.get(path, timeout=10)",
        "    response.raise_for_status()",
        "    settings = response.json()",
        "    validate(settings)",
        "    return settings",
    ]
    result = locate(PARSER, search, search, WITH_FUZZY)
    assert isinstance(result, NotFound)
    assert result.hint


def test_fuzzy_refuses_below_its_threshold():
    search = ["def parse_config(path):", "    with open(path) as fh:", "        raw = fh.read()"]
    result = locate(PARSER, search, search, LocateOptions(rungs=(*DEFAULT_RUNGS, Rung.FUZZY), fuzzy_threshold=0.99))
    assert isinstance(result, NotFound)
    assert "threshold" in result.hint


def test_fuzzy_refuses_two_near_identical_windows():
    block = ["def area(w, h):", "    result = w * h", "    return result"]
    twin = ["def area(w, h):", "    result = w *h", "    return result"]
    file = [*block, "", *twin]
    search = ["def area(w, h):", "    result = w* h", "    return result"]
    result = locate(file, search, search, WITH_FUZZY)
    assert result == Ambiguous((0, 4), Rung.FUZZY, False)
    chosen = locate(file, search, search, LocateOptions(rungs=(*DEFAULT_RUNGS, Rung.FUZZY), first_match=True))
    assert isinstance(chosen, Found) and chosen.start == 0


def test_fuzzy_refuses_a_file_made_of_copies_of_the_best_window():
    record = ["    x = 1", "    y = 2", "}", ""]
    file = record * 60
    search = ["    x = 1", "    y = 3", "}", ""] * 8
    result = locate(file, search, ["    z = 9"], WITH_FUZZY)
    assert isinstance(result, Ambiguous) and result.strategy is Rung.FUZZY
    assert len(result.starts) >= 3
    assert all(file[start : start + 2] == record[:2] for start in result.starts)


def test_fuzzy_first_match_takes_the_lowest_copy_that_does_not_overlap_the_best_one():
    block = ["def total(items):", "    s = 0", "    for i in items:", "        s += i", "    return s"]
    file = [*block, "", "x = 1", "", *block, "", "y = 2", "", *block]
    search = [*block[:3], "        s = s + i", block[4]]
    options = LocateOptions(rungs=(*DEFAULT_RUNGS, Rung.FUZZY), first_match=True)
    assert isinstance(locate(file, search, search, WITH_FUZZY), Ambiguous)
    chosen = locate(file, search, search, options)
    assert isinstance(chosen, Found) and chosen.start == 0


def test_fuzzy_span_covers_a_line_the_model_left_out():
    search = [PARSER[0], PARSER[1], PARSER[3], "    validate(setings)"]
    result = locate(PARSER, search, search, WITH_FUZZY)
    assert isinstance(result, Found)
    assert (result.start, result.end) == (0, 5)


def test_fuzzy_reindents_changed_lines_by_the_region_s_shift():
    search = ["with open(path) as handle:", "    raw = handle.red()"]
    replace = ["with open(path) as handle:", "    raw = handle.read()", "    log(raw)"]
    result = locate(PARSER, search, replace, WITH_FUZZY)
    assert isinstance(result, Found)
    assert result.new_lines == (PARSER[1], "        raw = handle.read()", "        log(raw)")


# --- diagnosis ------------------------------------------------------------------------------------------


def test_near_miss_names_the_region_similarity_and_differences_with_line_numbers():
    near = find_near_miss(PARSER, ["    settings = json.load(raw)", "    validate(settings)", "    return settings"])
    assert isinstance(near, NearMiss)
    assert (near.start, near.end) == (3, 6)
    assert 0.9 < near.similarity < 1.0
    assert near.diff == (
        "-   |     settings = json.load(raw)",
        "+ 4 |     settings = json.loads(raw)",
        "  5 |     validate(settings)",
        "    ... 1 matching line",
    )


def test_near_miss_for_an_exact_only_failure_shows_whitespace_differences():
    file = ["class A:", "    def f(self):", "        return 1"]
    result = locate(file, ["  def f(self):", "      return 1"], ["  def f(self):", "      return 2"], LocateOptions(rungs=EXACT_ONLY))
    assert isinstance(result, NotFound) and result.near_miss is not None
    assert (result.near_miss.start, result.near_miss.end) == (1, 3)
    assert result.near_miss.similarity < 1.0
    assert result.near_miss.diff == ("-   |   def f(self):", "+ 2 |     def f(self):", "-   |       return 1", "+ 3 |         return 1")


def test_near_miss_is_none_when_nothing_is_alike():
    assert find_near_miss(PARSER, ["SELECT name FROM users WHERE id = 7;"]) is None


def test_near_miss_diff_is_bounded_and_cuts_long_lines():
    file = [f"    record_{index} = lookup('{index}', default=None)" for index in range(200)]
    file[50] = "    note = '" + "x" * 300 + "'"
    search = list(file[40:120])
    for index in range(0, 80, 4):
        search[index] = search[index].replace("lookup", "fetch")
    search[10] = "    note = '" + "y" * 300 + "'"
    near = find_near_miss(file, search)
    assert near is not None
    assert (near.start, near.end) == (40, 120)
    assert len(near.diff) <= 12
    assert all(len(line) <= 120 for line in near.diff)
    assert near.diff[-1].startswith("... and ")


def test_near_miss_reports_where_an_added_line_is_missing():
    near = find_near_miss(PARSER, ["    raw = handle.read()", "    raw = raw.strip()", "    settings = json.loads(raw)"])
    assert near is not None
    assert "-   |     raw = raw.strip()" in near.diff


def test_near_miss_keeps_to_the_block_when_its_common_lines_also_occur_nearby():
    file = [
        "    return None", "", "    return None", "", "def first():", "    return None", "",
        "def second(a):", "    total = a * 2", "    return total", "", "def third():", "    pass",
    ]  # fmt: skip
    near = find_near_miss(file, ["    return None", "", "def secnd(a):", "    total = a * 2", "    return total"])
    assert near is not None
    assert (near.start, near.end) == (5, 10)


def test_near_miss_ignores_blank_edge_lines_of_the_search():
    near = find_near_miss(PARSER, ["", "    validate(setings)", "    return settings", ""])
    assert near is not None
    assert (near.start, near.end) == (4, 6)


def test_explain_leading_anchor_not_found():
    message = explain_anchor_failure(PARSER, ["def load_config(path):"], ["    pass"], [])
    assert message.startswith("leading anchor not found")
    assert "line 1" in message


def test_explain_old_lines_not_after_anchor():
    message = explain_anchor_failure(PARSER, ["def parse_config(path):"], ["    raw = open(path).read()"], [])
    assert message.startswith("old lines don't match content after anchor")
    assert "anchor at line 1" in message


def test_explain_names_every_anchor_occurrence():
    file = ["[section]", "a = 1", "[section]", "b = 2"]
    message = explain_anchor_failure(file, ["[section]"], ["c = 3"], [])
    assert message.startswith("old lines don't match content after anchor (anchor at lines 1, 3)")


def test_explain_trailing_anchor_not_after_old_lines():
    message = explain_anchor_failure(
        PARSER, ["def parse_config(path):"], ["    with open(path) as handle:"], ["    return settings"]
    )
    assert message.startswith("trailing anchor not found after old lines")


def test_explain_old_lines_alone_not_found():
    message = explain_anchor_failure(PARSER, [], ["    settings = yaml.safe_load(raw)"], [])
    assert message.startswith("old lines not found")
    assert "closest: line 4" in message


# --- properties -------------------------------------------------------------------------------------------

TRICKY_LINES = ["", "a", "b", "  a", "\tb", "a ", "\u201ca\u201d", "...", "# ...", "}"]
line_lists = st.one_of(st.lists(st.sampled_from(TRICKY_LINES), max_size=12), st.lists(st.text(max_size=8), max_size=12))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet="abc \t", max_size=4), min_size=1, max_size=15), st.data())
def test_a_unique_slice_is_found_exactly_where_it_is(file, data):
    start = data.draw(st.integers(0, len(file) - 1))
    end = data.draw(st.integers(start + 1, len(file)))
    search = file[start:end]
    occurrences = [i for i in range(len(file) - len(search) + 1) if file[i : i + len(search)] == search]
    replace = data.draw(line_lists)
    result = locate(file, search, replace)
    if len(occurrences) == 1:
        assert isinstance(result, Found)
        assert (result.start, result.end, result.strategy) == (start, end, Rung.EXACT)
        assert result.new_lines == tuple(replace)
    else:
        assert result == Ambiguous(tuple(occurrences), Rung.EXACT, False)


@pytest.mark.slow
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(line_lists, line_lists, line_lists, st.booleans())
def test_locate_never_raises_and_found_spans_are_valid(file, search, replace, first_match):
    options = LocateOptions(rungs=(*DEFAULT_RUNGS, Rung.FUZZY), first_match=first_match)
    if not search:
        with pytest.raises(ValueError):
            locate(file, search, replace, options)
        return
    result = locate(file, search, replace, options)
    if isinstance(result, Found):
        assert 0 <= result.start <= result.end <= len(file)
        assert len(result.sources) == len(result.new_lines)
        for line, source in zip(result.new_lines, result.sources):
            if source is not None:
                assert result.start <= source < result.end
                assert line == file[source]
    elif isinstance(result, Ambiguous):
        assert len(result.starts) >= 2
        assert all(0 <= start < max(1, len(file)) for start in result.starts)
    else:
        assert isinstance(result, NotFound)
        near = result.near_miss
        assert near is None or 0 <= near.start < near.end <= len(file)


def _uniformly_shifted_windows(file: list[str], search: list[str], fold: bool) -> list[int]:
    """The definition the indentation and typography rungs implement, checked window by window."""
    from editblocks.locate.normalize import TAB_WIDTHS, content_key, fold_typography, indent_columns, leading_indent

    prepare = fold_typography if fold else (lambda line: line)
    starts = []
    for start in range(len(file) - len(search) + 1):
        window = [prepare(line) for line in file[start : start + len(search)]]
        searched = [prepare(line) for line in search]
        if [content_key(line) for line in window] != [content_key(line) for line in searched]:
            continue
        pairs = [(leading_indent(a), leading_indent(b)) for a, b in zip(window, searched) if content_key(b)]
        for tab_width in TAB_WIDTHS:
            if len({indent_columns(a, tab_width) - indent_columns(b, tab_width) for a, b in pairs}) <= 1:
                starts.append(start)
                break
    return starts


INDENTED_LINES = ["a", "  a", "    a", "\ta", "\t  a", "b", "  b", "\tb", "", "  ", "\u201cb\u201d", "  \u201cb\u201d"]


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(INDENTED_LINES), min_size=1, max_size=14), st.data())
def test_shifted_windows_are_exactly_the_uniformly_indented_copies(file, data):
    from editblocks.locate.view import FileView

    search = data.draw(st.lists(st.sampled_from(INDENTED_LINES), min_size=1, max_size=5))
    for direct_checks in (view_module.DIRECT_SHIFT_CHECKS, 0):  # candidates one by one, or indentation-step keys
        with patch.object(view_module, "DIRECT_SHIFT_CHECKS", direct_checks):
            view = FileView(file)
            for rung in (Rung.INDENTATION, Rung.TYPOGRAPHY):
                expected = _uniformly_shifted_windows(file, search, fold=rung is Rung.TYPOGRAPHY)
                assert view.shifted_occurrences(rung, search, 0, 1000) == expected
                assert view.shifted_occurrences(rung, search, 2, 1000) == [start for start in expected if start >= 2]
                assert view.shifted_occurrences(rung, search, 0, 1) == expected[:1]


def test_indentation_rung_on_a_file_of_near_copies_takes_one_pass():
    """Thousands of windows equal but for one line's indentation: each must not cost a check of the whole window."""
    file = [" " * (4 * (number % 3)) + "x" for number in range(20_000)]
    search = [" " * (4 * (number % 3) + 2) + "x" for number in range(2_000)]
    search[-1] = "x"
    result = locate(file, search, search)
    assert isinstance(result, NotFound)


def test_explain_old_lines_not_found_when_there_is_no_leading_anchor():
    message = explain_anchor_failure(["a = 1", "b = 2", "c = 3"], [], ["b = 5"], ["c = 3"])
    assert message.startswith("old lines not found")


def test_explain_trailing_anchor_alone_not_found():
    message = explain_anchor_failure(["a = 1", "b = 2"], [], [], ["z = 26"])
    assert message.startswith("trailing anchor not found")
