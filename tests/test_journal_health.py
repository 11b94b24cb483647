"""The journal after accidents (issue 18, holes 7 and 8): a damaged newest record, crashes, unbounded growth."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks import parse
from editblocks.cli import main
from editblocks.service.apply import apply
from editblocks.workspace import Workspace

from helpers_apply import diff_edit, make_tree, tree_state

JOURNAL = Path(".editblocks") / "journal"


def runs(root: Path) -> list[str]:
    return sorted(os.listdir(root / JOURNAL))


def change(root: Path, path: str, old: str, new: str, **options: object) -> str:
    result = apply(parse(diff_edit(path, (old, new), lang="")), root, **options)
    assert result.written, result.results
    return runs(root)[-1]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    make_tree(root, {"a.txt": "a\n", "b.txt": "b\n"})
    return root


# --- hole 7: a damaged newest record ------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncated", "empty", "missing-backup-list"])
def test_undo_stops_at_a_damaged_newest_record_and_force_sets_it_aside(root: Path, damage: str) -> None:
    first = change(root, "a.txt", "a\n", "A\n")
    second = change(root, "b.txt", "b\n", "B\n")
    record = root / JOURNAL / second
    text = record.read_bytes()
    record.write_bytes({"truncated": text[: len(text) // 2], "empty": b"",
                        "missing-backup-list": text.replace(b'"files"', b'"filez"')}[damage])
    after = tree_state(root)

    stopped = Workspace(root).undo()
    assert not stopped.ok
    assert f"the record of run {second} is damaged" in stopped.message
    assert "--force" in stopped.message and first in stopped.message
    assert tree_state(root) == after  # the older run was not undone behind the user's back

    forced = Workspace(root).undo(force=True)
    assert forced.ok, forced.message
    assert f"set aside run {second}" in forced.message and f"undid run {first}" in forced.message
    assert (root / "a.txt").read_text() == "a\n" and (root / "b.txt").read_text() == "B\n"
    assert f"{second}.damaged" in runs(root)


def test_the_cli_reports_a_damaged_record_and_exits_one(root: Path) -> None:
    change(root, "a.txt", "a\n", "A\n")
    newest = runs(root)[-1]
    record = root / JOURNAL / newest
    record.write_bytes(record.read_bytes()[:60])
    result = CliRunner().invoke(main, ["undo", "--root", str(root)], catch_exceptions=False)
    assert result.exit_code == 1
    assert f"the record of run {newest} is damaged" in result.output
    assert "there is no earlier run to undo" in result.output
    assert (root / "a.txt").read_text() == "A\n"


# --- hole 8: growth after crashes, and the bounds ----------------------------------------------------------

KILLED_IN_START = textwrap.dedent(
    """
    import os, signal, sys
    from editblocks import parse
    from editblocks.service.apply import apply
    def link(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)  # the record is written and synced, not yet linked in as the run
    os.link = link
    apply(parse(sys.argv[2]), sys.argv[1])
    """
)


def test_runs_killed_before_their_record_are_pruned_at_the_next_run(root: Path) -> None:
    (root / "big.txt").write_text("x\n" * 100_000 + "end\n")
    answer = diff_edit("big.txt", ("end\n", "END\n"), lang="")
    for _ in range(3):
        killed = subprocess.run([sys.executable, "-c", KILLED_IN_START, str(root), answer], timeout=60)
        assert killed.returncode == -signal.SIGKILL
    # each killed run left a temporary record; each next run removed the one before
    assert len(runs(root)) == 1 and (root / "big.txt").read_text() == "x\n" * 100_000 + "end\n"
    assert re.fullmatch(r"\.run-[0-9a-f]{8}\.tmp", runs(root)[0])
    newest = change(root, "a.txt", "a\n", "A\n")
    assert runs(root) == [newest]


def test_the_journal_keeps_at_most_the_configured_number_of_runs(root: Path) -> None:
    ids = [change(root, "a.txt", f"{'a' * n}\n", f"{'a' * (n + 1)}\n", keep_runs=3) for n in range(1, 6)]
    assert runs(root) == ids[-3:]


def test_the_journal_keeps_under_the_configured_size_but_always_the_newest_run(root: Path) -> None:
    (root / "big.txt").write_bytes(b"z" * 10_000 + b"\n")
    ids = []
    for n in range(4):
        ids.append(change(root, "big.txt", f"{'z' * (10_000 + n)}\n", f"{'z' * (10_001 + n)}\n",
                          journal_max_bytes=25_000))
    assert runs(root) == ids[-2:]  # two copies of 10 kB fit in 25 kB, three do not
    ids.append(change(root, "big.txt", f"{'z' * 10_004}\n", "small\n", journal_max_bytes=1_000))
    assert runs(root) == ids[-1:]  # larger than the bound on its own, and kept: undo must work


def test_the_bounds_come_from_options_and_the_environment(root: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    for n in range(1, 5):
        answer = tmp_path / f"{n}.md"
        answer.write_text(diff_edit("a.txt", (f"{'a' * n}\n", f"{'a' * (n + 1)}\n"), lang=""))
        result = runner.invoke(main, ["apply", str(answer), "--root", str(root)],
                               env={"EDITBLOCKS_KEEP_RUNS": "2"}, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    assert len(runs(root)) == 2
    answer = tmp_path / "5.md"
    answer.write_text(diff_edit("a.txt", ("aaaaa\n", "b\n"), lang=""))
    result = runner.invoke(main, ["apply", str(answer), "--root", str(root), "--keep-runs", "1"],
                           catch_exceptions=False)
    assert result.exit_code == 0 and len(runs(root)) == 1
    answer = tmp_path / "6.md"
    answer.write_text(diff_edit("a.txt", ("b\n", "c\n"), lang=""))
    result = runner.invoke(main, ["apply", str(answer), "--root", str(root)],
                           env={"EDITBLOCKS_APPLY_KEEP_RUNS": "1", "EDITBLOCKS_KEEP_RUNS": "5"}, catch_exceptions=False)
    assert result.exit_code == 0 and len(runs(root)) == 1  # the command's own variable wins over the shared one
