"""The undo journal on its own: run records, backups, pruning."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from editblocks.workspace.journal import Journal
from editblocks.workspace.records import DamagedRun, JournalEntry, RunState, Saved, fingerprint

from helpers_journal import read_record, write_record


def entry(path: str, old: bytes | None, new: bytes) -> JournalEntry:
    return JournalEntry(
        path=path,
        existed=old is not None,
        backup=None,
        old_fingerprint=None if old is None else fingerprint(old),
        old_mode=None if old is None else 0o644,
        new_fingerprint=fingerprint(new),
        temp=f".{path}.editblocks-0123abcd.tmp",
        created_dirs=(),
    )


def test_a_run_is_recorded_pending_then_moves_on(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    run = journal.start([entry("a.txt", b"old\n", b"new\n"), entry("b.txt", None, b"b\n")], [b"old\n", None])
    assert run.state is RunState.PENDING
    assert run.entries[0].backup is None and run.entries[0].saved == Saved(0, 4)  # a whole copy, in the record
    assert run.entries[1].saved is None
    assert journal.old_bytes(run, run.entries[0], None) == b"old\n"
    assert (tmp_path / ".editblocks" / ".gitignore").read_bytes() == b"*\n"

    committed = journal.mark(run, RunState.COMMITTED)
    assert journal.runs() == [committed]
    second = journal.start([entry("c.txt", None, b"c\n")], [None])
    assert second.run_id > run.run_id
    assert [found.run_id for found in journal.runs()] == [second.run_id, run.run_id]


def test_a_damaged_backup_is_not_returned(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    run = journal.start([entry("a.txt", b"old\n", b"new\n")], [b"old\n"])
    state, document, payload = read_record(journal.runs_dir / run.run_id)
    write_record(journal.runs_dir / run.run_id, state, document, b"olD\n")
    damaged = f"the saved copy of `a.txt` in run {run.run_id} is missing or damaged"
    assert journal.old_bytes(run, run.entries[0], None) == damaged


@pytest.mark.parametrize(
    "manifest",
    [None, b"{not json", b'{"version": 99}', b"[]", b'{"version": 1, "run_id": "00000009-20250101T000000Z"}'],
    ids=["missing", "corrupt", "future-version", "not-an-object", "incomplete"],
)
def test_run_folders_without_a_valid_manifest_are_ignored(tmp_path: Path, manifest: bytes | None) -> None:
    journal = Journal(tmp_path)
    kept = journal.start([entry("a.txt", None, b"a\n")], [None])
    broken = journal.runs_dir / "00000009-20250101T000000Z"
    broken.mkdir()
    if manifest is not None:
        (broken / "manifest.json").write_bytes(manifest)
    assert [run.run_id for run in journal.runs()] == [kept.run_id]


def test_failing_to_start_leaves_no_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = Journal(tmp_path)
    journal.ensure()
    real_write = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        if bytes(data) == b"second original\n":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    entries = [entry("a.txt", b"first original\n", b"x"), entry("b.txt", b"second original\n", b"y")]
    with pytest.raises(OSError):
        journal.start(entries, [b"first original\n", b"second original\n"])
    assert os.listdir(journal.runs_dir) == []


def test_prune_keeps_the_newest_runs(tmp_path: Path) -> None:
    journal = Journal(tmp_path, keep_runs=2)
    runs = [journal.start([entry("a.txt", None, bytes([n]))], [None]) for n in range(5)]
    for run in runs[1:]:
        journal.mark(run, RunState.COMMITTED)
    journal.prune()
    # the oldest run is still pending (interrupted, awaiting undo): it counts, and it is never pruned
    assert sorted(os.listdir(journal.runs_dir)) == [runs[0].run_id, runs[-1].run_id]


@pytest.mark.parametrize(("change", "said"), [
    (lambda document: document.pop("created"), "it has no `created`"),
    (lambda document: document.update(files="x"), "a field holds the wrong kind of value"),
])
def test_a_record_missing_a_field_or_holding_the_wrong_kind_is_named_damaged_in_words(
        tmp_path: Path, change: Callable[[dict[str, object]], object], said: str) -> None:
    journal = Journal(tmp_path)
    run = journal.start([entry("a.txt", b"old\n", b"new\n")], [b"old\n"])
    state, document, payload = read_record(journal.runs_dir / run.run_id)
    change(document)
    write_record(journal.runs_dir / run.run_id, state, document, payload)
    [damaged] = Journal(tmp_path).records()
    assert isinstance(damaged, DamagedRun) and said in damaged.why, damaged
    assert "Error(" not in damaged.why
