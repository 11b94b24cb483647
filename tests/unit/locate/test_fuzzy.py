"""The fuzzy window ranking behind the fuzzy rung and the near-miss diagnosis."""

from __future__ import annotations

from editblocks.locate.fuzzy import FuzzyLines, common_line_runs, rank_windows, verbatim_similarity

FILE = [f"    step_{index} = compute({index}, scale={index * 3})" for index in range(60)]


def best_window(file: list[str], search: list[str]):
    windows = rank_windows(FuzzyLines(file), FuzzyLines(search))
    assert windows
    return windows[0]


def test_an_exact_copy_scores_one():
    window = best_window(FILE, FILE[20:30])
    assert (window.start, window.end, window.similarity) == (20, 30, 1.0)


def test_a_uniform_indentation_shift_costs_nothing_and_is_reported():
    window = best_window(FILE, [line.strip() for line in FILE[20:30]])
    assert (window.start, window.end, window.similarity, window.shift) == (20, 30, 1.0, 4)


def test_a_line_off_the_common_indentation_lowers_the_score_and_is_flagged():
    search = FILE[20:30]
    search[4] = "  " + search[4]
    window = best_window(FILE, search)
    assert 0.99 < window.similarity < 1.0
    assert window.deviating == {4}


def test_a_dropped_line_stays_inside_the_window():
    search = FILE[20:25] + FILE[26:30]
    window = best_window(FILE, search)
    assert (window.start, window.end) == (20, 30)
    assert 25 not in {pair.file_index for pair in window.pairs}


def test_an_edited_line_is_paired_with_its_original():
    search = FILE[20:30]
    search[3] = search[3].replace("compute", "calculate")
    window = best_window(FILE, search)
    pair = next(pair for pair in window.pairs if pair.search_index == 3)
    assert pair.file_index == 23
    assert 0.6 < pair.score < 1.0


def test_an_unrelated_line_counts_as_unmatched_on_both_sides_by_its_length():
    search = FILE[20:30]
    search[4] = "    x = 0"
    window = best_window(FILE, search)
    assert (window.start, window.end) == (20, 30)
    assert 4 not in {pair.search_index for pair in window.pairs}
    unmatched = len("x = 0") + 1 + len(FILE[24].strip()) + 1
    total = sum(len(line.strip()) + 1 for line in search + FILE[20:30])
    assert abs(window.similarity - (1 - unmatched / total)) < 1e-9


def test_nothing_alike_gives_no_window():
    assert rank_windows(FuzzyLines(FILE), FuzzyLines(["SELECT * FROM t;"])) == []


def test_verbatim_similarity_counts_whitespace():
    search = [line.strip() for line in FILE[20:30]]
    window = best_window(FILE, search)
    assert window.similarity == 1.0
    assert verbatim_similarity(FILE, search, window) < 0.95


def test_line_runs_tell_an_empty_line_from_a_nul_character():
    assert common_line_runs(["\x00"], [""]) == []
    assert common_line_runs(["a", "", "b"], ["a", "b"]) == [(0, 0, 1), (2, 1, 1)]
