"""The line index must find exactly what a brute-force scan finds, through any sequence of splices."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from editblocks.locate import line_index
from editblocks.locate.line_index import LineIndex
from editblocks.model import BlockKind, EditBlock, Format, Policy, Status
from editblocks.plan import PlanOptions, TargetFile, plan_edits
from editblocks.plan.state import INDEX_FROM_BLOCK

few_lines = st.lists(st.sampled_from(["a", "b", "c", "", "}"]), max_size=30)


def brute_force(lines: list[str], pattern: list[str]) -> list[int]:
    size = len(pattern)
    return [start for start in range(len(lines) - size + 1) if lines[start : start + size] == pattern]


@pytest.mark.slow
@settings(max_examples=300)
@given(few_lines, st.data())
def test_occurrences_match_a_scan_after_any_splices(lines, data):
    live = list(lines)
    index = LineIndex(live)
    for _ in range(data.draw(st.integers(0, 60))):
        start = data.draw(st.integers(0, len(live)))
        end = data.draw(st.integers(start, len(live)))
        index.splice(start, end, data.draw(few_lines.map(lambda ls: ls[:4])))
        assert index.lines is live
        pattern = data.draw(st.lists(st.sampled_from(["a", "b", "c", "", "}"]), min_size=1, max_size=3))
        found = index.occurrences(pattern)
        assert found is None or found == brute_force(live, pattern)


def test_many_splices_at_moving_places_stay_right():
    live = [f"line {n}" for n in range(200)]
    index = LineIndex(live)
    for step in range(150):
        position = live.index(f"line {step}")
        index.splice(position, position + 1, [f"new {step}", f"line {step}"])
        for pattern in ([f"line {step}"], [f"new {step}", f"line {step}"], ["line 199"], [f"new {step // 2}"]):
            assert index.occurrences(pattern) == brute_force(live, pattern)
    assert index.occurrences(["line 199"]) == [349]


@settings(max_examples=200)
@given(few_lines, st.data())
def test_positions_and_counts_match_the_list_after_any_splices(lines, data):
    """Repeated lines asked for before or after the first splice, lines inserted, removed and inserted again."""
    live = list(lines)
    index = LineIndex(live)
    alphabet = ["a", "b", "c", "", "}", "new"]
    for _ in range(data.draw(st.integers(0, 30))):
        if data.draw(st.booleans()):
            line = data.draw(st.sampled_from(alphabet))
            assert sorted(index.positions(line)) == [n for n, each in enumerate(live) if each == line]
            assert index.count(line) == live.count(line)
        start = data.draw(st.integers(0, len(live)))
        end = data.draw(st.integers(start, min(len(live), start + 6)))
        index.splice(start, end, data.draw(st.lists(st.sampled_from(alphabet), max_size=5)))
    for line in alphabet:
        assert sorted(index.positions(line)) == [n for n, each in enumerate(live) if each == line]
        assert index.count(line) == live.count(line)


class CountingArray(array):
    """The index's Fenwick tree, counting the nodes read."""

    reads = 0

    def __getitem__(self, node):
        CountingArray.reads += 1
        return super().__getitem__(node)


def test_a_lookup_reads_a_logarithmic_part_of_the_tree_however_many_edits_came_before(monkeypatch):
    """Counted work: each edit is O(log n) tree nodes and each found line O(log n), not a walk over earlier edits
    (the scheme this replaced mapped every place through a log of up to √n splices, then rebuilt the index)."""
    monkeypatch.setattr(line_index, "array", CountingArray)
    size = 1 << 14
    live = [f"value_{n} = {n}" for n in range(size)]
    index = LineIndex(live)
    steps = size.bit_length() + 1
    for number in range(0, size, 4):  # 4,096 hunks that add a line each, top to bottom
        position = index.positions(f"value_{number} = {number}")[0]
        CountingArray.reads = 0
        index.splice(position, position + 1, [f"value_{number} = {number}", "added = True"])
        assert CountingArray.reads <= 2 * steps
    CountingArray.reads = 0
    assert index.occurrences(["value_16381 = 16381"]) == [16_381 + size // 4]
    assert CountingArray.reads <= steps
    CountingArray.reads = 0
    added = index.positions("added = True")  # the lines inserted: one tree walk per slot holding them
    assert sorted(added) == [n for n, line in enumerate(live) if line == "added = True"]
    assert CountingArray.reads <= steps * (size // 4)


def test_a_very_common_line_falls_back_to_a_scan():
    index = LineIndex(["}"] * 10_000 + ["unique"])
    assert index.occurrences(["}"]) is None
    assert index.occurrences(["}", "unique"]) == [9_999]


def test_planning_with_the_index_gives_the_same_result_as_without():
    lines = [f"value_{n} = {n}" for n in range(3_000)] + ["value_7 = 7"]
    text = "\n".join(lines) + "\n"
    blocks = [
        EditBlock("big.py", "", f"value_{n} = {n}\n", f"value_{n} = {n * 2}\nextra_{n} = 0\n", "", BlockKind.EDIT,
                  Format.DIFF, n + 1)
        for n in (10, 20, 7, 30, 40, 2_999, 50, 20)
    ]
    assert len(blocks) > INDEX_FROM_BLOCK
    plan = plan_edits(blocks, {"big.py": TargetFile("big.py", text)}, PlanOptions(policy=Policy.CONTINUE))
    statuses = [r.status for r in plan.results]
    assert statuses == [Status.APPLIED] * 2 + [Status.FAILED] + [Status.APPLIED] * 4 + [Status.SKIPPED]
    assert "ambiguous" in plan.results[2].reason.lower() and plan.results[2].candidates == (8, 3_003)
    expected = text
    for n in (10, 20, 30, 40, 2_999, 50):
        expected = expected.replace(f"value_{n} = {n}\n", f"value_{n} = {n * 2}\nextra_{n} = 0\n", 1)
    assert plan.files[0].text == expected
