"""Saved `ask` runs: one folder per run beside the journal, the oldest pruned, never written through a link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from editblocks.workspace.run_records import start_record


def test_a_run_folder_holds_its_files_and_a_replaced_file_is_whole(tmp_path: Path) -> None:
    record = start_record(tmp_path)
    record.add("answer.md", b"first")
    record.put("run.json", b"{}")
    record.put("run.json", b'{"rounds": 2}')
    assert record.path.parent == tmp_path / ".editblocks" / "runs"
    assert sorted(p.name for p in record.path.iterdir()) == ["answer.md", "run.json"]
    assert (record.path / "run.json").read_bytes() == b'{"rounds": 2}'
    assert (tmp_path / ".editblocks" / ".gitignore").read_text() == "*\n"
    with pytest.raises(FileExistsError):
        record.add("answer.md", b"again")


def test_runs_started_in_the_same_second_get_their_own_folders_and_the_oldest_go(tmp_path: Path) -> None:
    names = [start_record(tmp_path, keep=3).name for _ in range(5)]
    assert len(set(names)) == 5
    kept = sorted(p.name for p in (tmp_path / ".editblocks" / "runs").iterdir())
    assert kept == sorted(names)[-3:]


def test_a_runs_folder_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "root", tmp_path / "elsewhere"
    (root / ".editblocks").mkdir(parents=True)
    elsewhere.mkdir()
    os.symlink(elsewhere, root / ".editblocks" / "runs")
    with pytest.raises(OSError, match="symlink"):
        start_record(root)
    assert list(elsewhere.iterdir()) == []
