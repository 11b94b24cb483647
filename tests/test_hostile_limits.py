"""Issue 17: hostile and huge answers stay fast and their output stays bounded (beyond the parser).

Growth is measured the robust way (`test_reliability.growth_ratio`: CPU time,
N against 8N, the lowest of several runs, a wide limit) or by counting work.
"""

from __future__ import annotations

import difflib
import io
import json
import os
import random
import subprocess
from collections.abc import Callable

import pytest
from click.testing import CliRunner
from rich.console import Console
from test_reliability import GROWTH_FACTOR, GROWTH_LIMIT, diff_block, growth_ratio, slow

from editblocks import parse
from editblocks.cli import main
from editblocks.locate import budget as budget_module
from editblocks.locate import cache as session_module
from editblocks.locate.budget import CompareBudget
from editblocks.locate.fuzzy import FuzzyLines, rank_windows
from editblocks.locate.view import FileView
from editblocks.model import Diagnostic, Severity, Status
from editblocks.plan import PlanOptions, TargetFile, plan_edits
from editblocks.report.display import diagnostics_table, parse_report
from editblocks.report.grouping import SHOWN_PER_KIND, diff_head
from editblocks.text.diff import split_lines, unified_diff
from editblocks.text.line_diff import DIRECT_LINES, line_opcodes


def numbered(lines: int) -> str:
    return "".join(f"value_{n} = {n}\n" for n in range(lines))


def one_line_edits(blocks: int, lines: int, gone_every: int = 0, new: str = "") -> str:
    """``blocks`` one-line edits spread over a ``lines``-line file; every ``gone_every``-th one quotes a line that
    is not there."""
    step = lines // blocks
    parts = []
    for n in range(blocks):
        gone = "  # gone" if gone_every and n % gone_every == 0 else ""
        parts.append(diff_block("big.py", f"value_{n * step} = {n * step}{gone}\n", new or f"value_{n * step} = -1\n"))
    return "".join(parts)


# --- diffs of many edits -----------------------------------------------------------------------------


def rebuilt(old: list[str], new: list[str]) -> list[str]:
    """The new lines as the opcodes describe them (equal runs from the old side), checking equal runs are equal."""
    out: list[str] = []
    for tag, i1, i2, j1, j2 in line_opcodes(old, new):
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
            out += old[i1:i2]
        else:
            out += new[j1:j2]
    return out


@pytest.mark.parametrize("seed", range(40))
def test_line_opcodes_describe_the_new_lines_exactly(seed):
    chooser = random.Random(seed)
    size = chooser.choice([10, 300, DIRECT_LINES, 3 * DIRECT_LINES])
    old = [f"{chooser.choice(['line', 'x', '}', ''])} {chooser.randrange(size // 2 + 1)}\n" for _ in range(size)]
    new = list(old)
    for _ in range(chooser.randrange(1, 40)):
        at = chooser.randrange(len(new) + 1)
        if chooser.random() < 0.4 and at < len(new):
            del new[at : at + chooser.randrange(1, 5)]
        else:
            new[at:at] = [f"added {chooser.random()}\n" for _ in range(chooser.randrange(1, 4))]
    assert rebuilt(old, new) == new


def test_small_inputs_get_difflibs_own_opcodes():
    old, new = ["a\n", "b\n", "c\n", "b\n"], ["b\n", "c\n", "x\n", "b\n"]
    assert line_opcodes(old, new) == difflib.SequenceMatcher(None, old, new).get_opcodes()


def test_a_diff_of_thousands_of_edits_applies_with_git_and_is_minimal(tmp_path):
    original = numbered(30_000)
    lines = split_lines(original)
    changed = [f"value_{n} = -1\n" if n % 10 == 0 else line for n, line in enumerate(lines)]
    new = "".join(changed)
    diff = unified_diff("f.txt", original, new)
    assert diff.count("\n-value_") == 3_000 and diff.count("\n+value_") == 3_000
    (tmp_path / "f.txt").write_text(original)
    (tmp_path / "change.diff").write_text(diff)
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}
    subprocess.run(["git", "apply", "change.diff"], cwd=tmp_path, env=env, check=True, capture_output=True)
    assert (tmp_path / "f.txt").read_text() == new


def edited_file_diff(edits: int) -> Callable[[], object]:
    lines = split_lines(numbered(edits * 20))
    original, new = "".join(lines), "".join("-\n" if n % 20 == 0 else line for n, line in enumerate(lines))
    return lambda: unified_diff("f", original, new)


@slow
def test_diffing_grows_linearly_with_the_edits_spread_over_a_file():
    """k edits on a 20k-line file: difflib alone costs k passes over the file (64 times as much at 8k)."""
    ratio = growth_ratio(edited_file_diff(500), edited_file_diff(GROWTH_FACTOR * 500), GROWTH_LIMIT)
    assert ratio < GROWTH_LIMIT, f"diffing {GROWTH_FACTOR * 500} edits took {ratio:.1f}x the time of 500"


# --- many blocks on one file --------------------------------------------------------------------------


def planning_with_diff(blocks: int, gone_every: int) -> Callable[[], object]:
    """Plan ``blocks`` edits on a file of 100 lines per block (some not found), and diff the result."""
    text = numbered(blocks * 100)
    edits = parse(one_line_edits(blocks, blocks * 100, gone_every)).blocks

    def run() -> None:
        plan = plan_edits(edits, {"big.py": TargetFile("big.py", text)})
        for changed in plan.files:
            unified_diff(changed.key, changed.original, changed.text)
    return run


@slow
@pytest.mark.parametrize("gone_every", [0, 2, 1], ids=["all found", "half not found", "none found"])
def test_blocks_on_one_file_grow_linearly_found_or_not(gone_every):
    """Not-found blocks share one view of the file and one diagnosis budget: eight times the blocks on eight times
    the lines must not cost 64 times as much."""
    ratio = growth_ratio(planning_with_diff(50, gone_every), planning_with_diff(GROWTH_FACTOR * 50, gone_every),
                         GROWTH_LIMIT)
    assert ratio < GROWTH_LIMIT, f"{GROWTH_FACTOR * 50} blocks took {ratio:.1f}x the time of 50"


TOLERANT_LINES = [
    "def f(x):", "    return x  ", "\tif ready:", "        pass", "say(“hi”)", "a  =  1", "", "}", "value = 1",
]


def random_block(chooser: random.Random, lines: list[str]) -> tuple[str, str]:
    """Old and new text for a block quoting some file lines, altered the ways the tolerant rungs forgive."""
    start = chooser.randrange(len(lines))
    quoted = lines[start : start + chooser.randrange(1, 4)]
    shape = chooser.choice(["exact", "trailing", "indent", "typography", "spaces", "gone", "ambiguous"])
    if shape == "trailing":
        quoted = [line + "  " for line in quoted]
    elif shape == "indent":
        quoted = ["  " + line for line in quoted]
    elif shape == "typography":
        quoted = [line.replace('"', "“") for line in quoted]
    elif shape == "spaces":
        quoted = [line.replace(" = ", "  =  ") for line in quoted]
    elif shape == "gone":
        quoted = [line + " # gone" for line in quoted]
    elif shape == "ambiguous":
        quoted = ["}"]
    new = [f"changed {chooser.randrange(1000)}"] + quoted[1:] if chooser.random() < 0.7 else quoted
    return "".join(line + "\n" for line in quoted), "".join(line + "\n" for line in new)


@pytest.mark.parametrize("seed", range(12))
def test_sharing_a_view_between_blocks_changes_no_outcome(seed, monkeypatch):
    """Blocks located with the file's shared, spliced view decide exactly as with a fresh view per block."""
    chooser = random.Random(seed)
    lines = [chooser.choice(TOLERANT_LINES) + (f" {n}" if chooser.random() < 0.6 else "") for n in range(300)]
    text = "".join(line + "\n" for line in lines)
    answer = "".join(diff_block("big.py", *random_block(chooser, lines)) for _ in range(60))
    blocks = parse(answer).blocks

    def outcome() -> tuple[list[tuple[object, ...]], list[str]]:
        plan = plan_edits(blocks, {"big.py": TargetFile("big.py", text)}, PlanOptions(fuzzy=seed % 2 == 1))
        return ([(r.status, r.code, r.start_line, r.end_line, r.strategy, r.reason) for r in plan.results],
                [changed.text for changed in plan.files])

    shared = outcome()

    def fresh_view(self: session_module.FileCache, lines: list[str], index: object) -> FileView:
        return FileView(lines, index, self.diagnosis)  # type: ignore[arg-type]
    monkeypatch.setattr(session_module.FileCache, "_current", fresh_view)
    assert outcome() == shared
    assert {status for status, *_ in shared[0]} >= {Status.APPLIED, Status.FAILED}


# --- the not-found diagnosis has a budget ---------------------------------------------------------------


def long_lines(count: int, width: int, seed: int) -> list[str]:
    chooser = random.Random(seed)
    return ["x = '" + "".join(chooser.choice("abcdefgh ") for _ in range(width)) + "'" for _ in range(count)]


def test_huge_lines_are_compared_within_the_budget_and_the_reason_says_so():
    file_lines = long_lines(200, 9_000, 1)
    searched = long_lines(20, 9_000, 2)
    budget = CompareBudget()
    rank_windows(FuzzyLines(file_lines), FuzzyLines(searched), budget=budget)
    assert budget.estimated and budget.exact >= 0 and budget.estimates >= 0
    answer = diff_block("big.py", "".join(line + "\n" for line in searched), "y = 1\n")
    result = plan_edits(parse(answer).blocks, {"big.py": TargetFile("big.py", "\n".join(file_lines) + "\n")}).results[0]
    assert result.status is Status.FAILED
    assert "too long" in result.reason and "estimate" in result.reason


def test_a_near_copy_of_huge_lines_is_still_named_but_never_applied_fuzzily_on_an_estimate():
    file_lines = long_lines(100, 9_000, 1)
    searched = [line[:4000] + "Z" + line[4001:] for line in file_lines[40:60]]
    answer = diff_block("big.py", "".join(line + "\n" for line in searched), "y = 1\n")
    source = {"big.py": TargetFile("big.py", "\n".join(file_lines) + "\n")}
    result = plan_edits(parse(answer).blocks, source).results[0]
    assert result.closest == (41, 60), result.reason
    fuzzy = plan_edits(parse(answer).blocks, source, PlanOptions(fuzzy=True)).results[0]
    assert fuzzy.status is Status.FAILED and "an estimate is no ground for an edit" in fuzzy.reason


def test_once_a_files_diagnosis_budget_is_spent_later_blocks_say_so(monkeypatch):
    monkeypatch.setattr(budget_module, "FILE_BASE", 2_000_000)
    monkeypatch.setattr(budget_module, "FILE_PASSES", 0)
    answer = one_line_edits(30, 3_000, gone_every=1)
    results = plan_edits(parse(answer).blocks, {"big.py": TargetFile("big.py", numbered(3_000))}).results
    assert all(r.status is Status.FAILED for r in results)
    assert "closest text is at" in results[0].reason
    assert "looked for only in part, or not at all" in results[-1].reason and results[-1].closest is None



# --- bounded output -----------------------------------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout


def test_thirty_thousand_stray_markers_print_fifty_and_a_count(tmp_path):
    answer = tmp_path / "answer.md"
    answer.write_text(">>>>>>> REPLACE\n" * 30_000)
    _, out = run_cli("apply", str(answer), "--root", str(tmp_path), "--dry-run")
    shown = out.splitlines()
    assert len(shown) < SHOWN_PER_KIND + 10
    assert sum("without a block start" in line for line in shown) == SHOWN_PER_KIND + 1
    assert "… and 29,950 more like this: warning at line 51:" in out
    _, as_json = run_cli("apply", str(answer), "--root", str(tmp_path), "--dry-run", "--json")
    assert len(json.loads(as_json)["diagnostics"]) == 30_000


def test_failures_are_never_hidden_behind_many_applied_blocks(tmp_path):
    (tmp_path / "big.py").write_text(numbered(2_000))
    answer = tmp_path / "answer.md"
    answer.write_text(one_line_edits(200, 2_000) + diff_block("big.py", "not there\n", "x\n"))
    html = tmp_path / "report.html"
    _, out = run_cli("apply", str(answer), "--root", str(tmp_path), "--dry-run", "--html", str(html))
    assert out.count("✓ applied") == SHOWN_PER_KIND
    assert "… and 150 more like this: applied" in out
    assert "✗ failed" in out and "not there" not in out.split("✗ failed")[0]
    assert "… diff cut after" in out and "--patch FILE or --json" in out
    assert html.read_text().count("✓ applied") == 200
    _, as_json = run_cli("apply", str(answer), "--root", str(tmp_path), "--dry-run", "--json")
    assert len(json.loads(as_json)["results"]) == 201


def test_a_diagnostics_table_groups_by_message_shape():
    diagnostics = [Diagnostic(Severity.WARNING, n, f"`{n}` looks like a marker") for n in range(120)]
    diagnostics.append(Diagnostic(Severity.ERROR, 500, "block at line 500 is not closed"))
    console = Console(file=io.StringIO(), width=200)
    console.print(diagnostics_table(diagnostics))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert "line 500" in out and "… and 70 more like this: warning at line 50: `50` looks like a marker" in out


def test_a_short_diff_is_shown_whole_and_a_long_one_is_cut_at_a_hunk():
    short = unified_diff("f", "a\nb\n", "a\nc\n")
    assert diff_head(short) == (short, "")
    long = unified_diff("f", numbered(5_000), "".join(
        "-\n" if n % 50 == 0 else line for n, line in enumerate(split_lines(numbered(5_000)))))
    shown, note = diff_head(long, 100)
    assert shown.count("\n") <= 100 and shown.split("\n")[-2][:1] in " +-"
    assert long.startswith(shown) and long[len(shown) :].startswith("@@ ")
    assert note.startswith("… diff cut after") and "more hunks" in note


def test_parse_lists_fifty_blocks_per_file_and_counts_the_rest():
    answer = "".join(diff_block(f"m{n % 2}.py", f"v = {n}\n", f"v = {n + 1}\n") for n in range(300))
    console = Console(file=io.StringIO(), width=120)
    console.print(parse_report(parse(answer)))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert out.count("edit, 1 line → 1 line") == 2 * SHOWN_PER_KIND
    assert "… and 100 more like this: blocks for m0.py" in out and "… and 100 more like this: blocks for m1.py" in out


def test_feedback_names_some_applied_blocks_and_still_lists_failures(tmp_path):
    (tmp_path / "big.py").write_text(numbered(4_000))
    answer = tmp_path / "answer.md"
    answer.write_text(one_line_edits(400, 4_000, gone_every=2))
    feedback = tmp_path / "feedback.txt"
    run_cli("apply", str(answer), "--root", str(tmp_path), "--dry-run", "--feedback", str(feedback))
    message = feedback.read_text()
    assert len(message) <= 6_000
    assert "and 180 more blocks" in message
    assert "failed, not found" in message
