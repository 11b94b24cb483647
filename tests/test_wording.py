"""Wording every report shares: reasons start the same way, a count agrees with its noun, and a block that
changes nothing reads as one.

Reasons are prose (scripts branch on the stable `code`), but a person reads dozens of them in a row: they all
start in lower case, as `the old text was not found in …`, `refused: …` and `already applied: …` do.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from editblocks import apply, parse
from editblocks.cli import main
from editblocks.report.display import parse_report
from editblocks.report.grouping import diff_head

from helpers_apply import make_tree

CASES = Path(__file__).resolve().parent / "cases"


def corpus_reasons(tmp_path: Path) -> dict[str, str]:
    """Every reason the corpus's answers get, each with the case that gets it."""
    reasons: dict[str, str] = {}
    for response in sorted(CASES.rglob("response.md")):
        case = response.parent
        spec = json.loads((case / "case.json").read_text()) if (case / "case.json").exists() else {}
        root = tmp_path / case.relative_to(CASES)
        if (case / "before").is_dir():
            shutil.copytree(case / "before", root, symlinks=True)
        else:
            root.mkdir(parents=True)
        answer = parse(response.read_text(encoding="utf-8", errors="replace"), spec.get("format", "auto"))
        for result in apply(answer, root, dry_run=True).results:
            if result.reason:
                reasons.setdefault(result.reason, str(case.relative_to(CASES)))
    return reasons


def test_every_reason_of_the_corpus_starts_in_lower_case(tmp_path: Path) -> None:
    reasons = corpus_reasons(tmp_path)
    assert len(reasons) > 50  # the corpus reaches the planner's reasons, ambiguous and anchored ones included
    assert any(reason.startswith("edit location is ambiguous (matches at lines ") for reason in reasons)
    assert any(reason.startswith("leading anchor not found in ") for reason in reasons)
    upper = {reason: case for reason, case in reasons.items() if not reason[0].islower()}
    assert upper == {}


def test_an_anchored_reason_names_the_part_then_the_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"an.py": "def f():\n    a()\n"})
    answer = "an.py\n```\n<<<<<<< EDIT\ndef  f():\n-------\n    a()\n=======\n    b()\n-------\n>>>>>>> EDIT\n```\n"
    [result] = apply(parse(answer, "anchored"), tmp_path, dry_run=True).results
    assert result.code.value == "not-found"
    assert result.reason.startswith("leading anchor not found in an.py; closest: line 1")


def test_the_ambiguous_reason_keeps_its_wording_in_lower_case(tmp_path: Path) -> None:
    make_tree(tmp_path, {"dup.py": "x = 1\ny = 2\nx = 1\n"})
    answer = "dup.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 3\n>>>>>>> REPLACE\n```\n"
    [result] = apply(parse(answer), tmp_path, dry_run=True).results
    assert result.code.value == "ambiguous" and result.candidates == (1, 3)
    assert result.reason.startswith("edit location is ambiguous (matches at lines 1 and 3) in dup.py; ")
    shown = CliRunner().invoke(main, ["apply", "-", "--root", str(tmp_path), "--dry-run"], input=answer).output
    assert "    edit location is ambiguous (matches at lines 1 and 3) in dup.py" in shown


def parse_view(answer: str) -> str:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(parse_report(parse(answer)))
    return console.file.getvalue()  # type: ignore[attr-defined]


def block(old: str, new: str, path: str = "a.py") -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


@pytest.mark.parametrize(("old", "new", "change"), [
    ("x = 1\n", "x = 2\n", "edit, 1 line → 1 line"),
    ("x = 1\n", "x = 2\ny = 3\n", "edit, 1 line → 2 lines"),
    ("x = 1\ny = 2\n", "", "edit, 2 lines → 0 lines"),
])
def test_the_parse_view_counts_lines_in_the_singular_and_plural(old: str, new: str, change: str) -> None:
    shown = parse_view(block(old, new))
    assert change in shown and "1 lines" not in shown


def test_the_parse_view_counts_anchor_lines_too() -> None:
    answer = ("a.py\n```\n<<<<<<< EDIT\ndef f():\n-------\n    a()\n=======\n    b()\n-------\n    c()\n    d()\n"
              ">>>>>>> EDIT\n```\n")
    assert "edit, 1 line → 1 line (anchors: 1 line before, 2 lines after)" in parse_view(answer)


def test_the_parse_view_shows_a_no_op_block_as_one_without_empty_lines() -> None:
    shown = parse_view(block("x = 1\ny = 2\n", "x = 1\ny = 2\n") + "\n" + block("x = 1\n", "x = 5\n"))
    rows = shown.splitlines()
    noop = next(row for row in rows if "line 3 " in row)
    assert noop.strip() == "line 3  no-op, 2 lines unchanged"
    assert not any(row.strip() in ("-", "+") for row in rows)  # no empty old/new preview lines
    assert "- x = 1" in shown and "+ x = 5" in shown  # the real edit keeps its preview


def test_a_cut_diff_counts_what_it_left_out_in_the_right_number() -> None:
    two_hunks = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+b\n c\n@@ -9 +9 @@\n-x\n"
    assert diff_head(two_hunks, 6)[1].startswith("… diff cut after 6 lines: 2 more lines in 1 more hunk (")
    one_line = "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n-a\n+b\n c\n d\n"
    assert diff_head(one_line, 6)[1].startswith("… diff cut after 6 lines: 1 more line (")
