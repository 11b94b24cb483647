"""Old text found at several places where the place does not matter (issue 24, §2): applied, because every choice
gives the same file. Anything else found at several places stays refused."""

from __future__ import annotations

from pathlib import Path

from editblocks import parse
from editblocks.service.apply import apply

from helpers_apply import diff_edit, make_tree, run, single, statuses

HANDLERS = ("def on_save(event):\n    log(event)\n    refresh()\n\n\n"
            "def on_load(event):\n    log(event)\n    refresh()\n")


def test_one_block_whose_every_place_gives_the_same_file_applies(tmp_path: Path) -> None:
    """Two identical `else:` branches one after the other: deleting either leaves the same file."""
    twice = "if ok:\n    go()\nelse:\n    stop()\nelse:\n    stop()\nrest()\n"
    make_tree(tmp_path, {"flow.py": twice})
    result = single(run(tmp_path, diff_edit("flow.py", ("else:\n    stop()\n", ""))))
    assert result.status.value == "applied" and "editing any of them gives the same file" in result.reason
    assert (tmp_path / "flow.py").read_text() == "if ok:\n    go()\nelse:\n    stop()\nrest()\n"


def test_one_block_at_places_that_give_different_files_stays_ambiguous(tmp_path: Path) -> None:
    make_tree(tmp_path, {"handlers.py": HANDLERS})
    result = single(run(tmp_path, diff_edit("handlers.py", ("    refresh()\n", "    redraw()\n"))))
    assert result.code.value == "ambiguous"
    assert (tmp_path / "handlers.py").read_text() == HANDLERS


def test_n_identical_blocks_for_n_identical_places_edit_each_place_once(tmp_path: Path) -> None:
    make_tree(tmp_path, {"handlers.py": HANDLERS})
    answer = diff_edit("handlers.py", ("    refresh()\n", "    redraw()\n")) * 2
    result = run(tmp_path, answer)
    assert statuses(result) == ["applied", "applied"]
    assert [(r.start_line, r.end_line) for r in result.results] == [(3, 3), (8, 8)]
    assert all("each place was edited once" in r.reason for r in result.results)
    assert (tmp_path / "handlers.py").read_text() == HANDLERS.replace("refresh()", "redraw()")


def test_identical_blocks_with_other_blocks_between_them(tmp_path: Path) -> None:
    make_tree(tmp_path, {"handlers.py": HANDLERS})
    same = diff_edit("handlers.py", ("    refresh()\n", "    redraw()\n"))
    other = diff_edit("handlers.py", ("def on_load(event):\n", "def on_open(event):\n"))
    result = run(tmp_path, same + other + same)
    assert statuses(result) == ["applied", "applied", "applied"]
    assert (tmp_path / "handlers.py").read_text() == (
        HANDLERS.replace("refresh()", "redraw()").replace("on_load", "on_open"))


def test_fewer_identical_blocks_than_places_stay_ambiguous(tmp_path: Path) -> None:
    make_tree(tmp_path, {"handlers.py": HANDLERS + "\n\ndef on_quit(event):\n    log(event)\n    refresh()\n"})
    answer = diff_edit("handlers.py", ("    refresh()\n", "    redraw()\n")) * 2
    assert statuses(run(tmp_path, answer)) == ["failed", "failed"]


def test_identical_insertions_that_keep_their_old_text_stay_ambiguous(tmp_path: Path) -> None:
    """New text that still holds the old text: a second block could find the first one's output again, so which
    place it meant is not known (aider put both insertions at the first place)."""
    make_tree(tmp_path, {"handlers.py": HANDLERS})
    answer = diff_edit("handlers.py", ("    log(event)\n", "    log(event)\n    trace(event)\n")) * 2
    assert statuses(run(tmp_path, answer)) == ["failed", "failed"]
    assert (tmp_path / "handlers.py").read_text() == HANDLERS


def test_identical_blocks_found_by_the_indentation_rung(tmp_path: Path) -> None:
    make_tree(tmp_path, {"handlers.py": HANDLERS})
    answer = diff_edit("handlers.py", ("refresh()\n", "redraw()\n")) * 2
    result = run(tmp_path, answer)
    assert statuses(result) == ["applied", "applied"] and {r.strategy for r in result.results} == {"indentation"}
    assert (tmp_path / "handlers.py").read_text() == HANDLERS.replace("refresh()", "redraw()")


def test_a_dry_run_and_the_abort_policy_see_the_identical_blocks_the_same_way(tmp_path: Path) -> None:
    make_tree(tmp_path, {"handlers.py": HANDLERS})
    parsed = parse(diff_edit("handlers.py", ("    refresh()\n", "    redraw()\n")) * 2)
    assert statuses(apply(parsed, tmp_path, dry_run=True)) == ["applied", "applied"]
    assert statuses(apply(parsed, tmp_path, policy="abort")) == ["applied", "applied"]
    assert (tmp_path / "handlers.py").read_text() == HANDLERS.replace("refresh()", "redraw()")


def test_a_copy_beyond_the_places_is_decided_on_its_own_after_the_others_edited_every_place(tmp_path: Path) -> None:
    """Three identical blocks, the old text twice as written and once indented deeper: the second copy settles the
    pair (the planner cannot wait for copies that may never come), and the third finds the deeper line by its
    indentation."""
    panels = ("def draw(panel):\n    panel.color = BLUE\n    panel.show()\n\n\ndef reset(panel):\n"
              "    panel.color = BLUE\n    if panel.nested:\n        for child in panel.children:\n"
              "            panel.color = BLUE\n")
    make_tree(tmp_path, {"widgets.py": panels})
    result = run(tmp_path, diff_edit("widgets.py", ("    panel.color = BLUE\n", "    panel.color = GREEN\n")) * 3)
    assert statuses(result) == ["applied", "applied", "applied"]
    assert [(r.start_line, r.strategy) for r in result.results] == [(2, "exact"), (7, "exact"), (10, "indentation")]
    assert (tmp_path / "widgets.py").read_text() == panels.replace("BLUE", "GREEN")
