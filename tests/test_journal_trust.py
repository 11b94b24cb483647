"""Runs a repository ships in `.editblocks/journal/` cannot steer undo (issue 22).

A cloned repository (or another local user, where the journal folder lets them write) can plant a run. The
manifest is believed only so far: undo never sets set-user-ID, set-group-ID or sticky bits or others' write
permission, whatever mode the record asks for; a run someone else owns, or whose id is out of sequence or not
an id at all, is never undone, never numbered after and never keeps the user's own runs from being pruned.
Each test plants what the review planted and runs the real command line.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.workspace import Workspace

from helpers_apply import diff_edit, make_tree

JOURNAL = Path(".editblocks") / "journal"
PLANTED = "99999999-20250101T000000Z"
DANGEROUS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWOTH


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    make_tree(root, {"run.sh": "echo hi\n", "a.txt": "a\n"})
    return root


def plant(root: Path, run_id: str, *, state: str, path: str, current: bytes, old: bytes, old_mode: int,
          not_yet: str | None = None) -> Path:
    """A run whose undo would put ``old`` (with ``old_mode``) back over ``path``, which now holds ``current``;
    ``not_yet`` names a file of the project the run claims it was about to replace (it still holds its old
    bytes, so the run looks killed mid-write, not finished)."""
    folder = root / JOURNAL / run_id
    folder.mkdir(parents=True)
    (folder / "0000.orig").write_bytes(old)
    entries = [{"path": path, "existed": True, "backup": "0000.orig", "old_fingerprint": sha(old),
                "old_mode": old_mode, "new_fingerprint": sha(current),
                "temp": f".{path}.editblocks-0000abcd.tmp", "created_dirs": []}]
    if not_yet is not None:
        held = (root / not_yet).read_bytes()
        (folder / "0001.orig").write_bytes(held)
        entries.append({"path": not_yet, "existed": True, "backup": "0001.orig", "old_fingerprint": sha(held),
                        "old_mode": 0o644, "new_fingerprint": sha(b"never written\n"),
                        "temp": f".{not_yet}.editblocks-0001abcd.tmp", "created_dirs": []})
    (folder / "manifest.json").write_text(json.dumps({"version": 1, "run_id": run_id, "state": state,
                                                      "created": "2025-01-01T00:00:00Z", "files": entries}))
    return folder


def apply_answer(root: Path, old: str, new: str, *extra: str) -> tuple[int, str]:
    answer = root.parent / "answer.md"
    answer.write_text(diff_edit("a.txt", (old, new), lang=""))
    return cli("apply", str(answer), "--root", str(root), *extra)


def run_names(root: Path) -> list[str]:
    return sorted(os.listdir(root / JOURNAL))


# --- modes ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("old_mode", [0o4777, 0o6755, 0o1777, 0o2666, 0o666], ids=lambda mode: f"{mode:04o}")
def test_undo_of_a_planted_pending_run_never_sets_set_id_sticky_or_others_write_bits(root: Path,
                                                                                   old_mode: int) -> None:
    plant(root, "00000001-20250101T000000Z", state="pending", path="run.sh", current=b"echo hi\n",
          old=b"#!/bin/sh\ncp /bin/sh /tmp/rootshell\n", old_mode=old_mode, not_yet="a.txt")
    code, output = apply_answer(root, "a\n", "b\n")
    assert code != 0 and "editblocks undo" in output  # the advice the attack counts on
    code, output = cli("undo", "--root", str(root))
    assert code == 0, output
    mode = stat.S_IMODE((root / "run.sh").stat().st_mode)
    assert mode & DANGEROUS == 0, oct(mode)
    assert mode == old_mode & ~DANGEROUS
    assert "run.sh" in output and f"{old_mode:04o}" in output and f"{mode:04o}" in output


def test_a_planted_pending_run_whose_file_holds_its_new_bytes_is_settled_and_never_sends_the_user_to_undo(
        root: Path) -> None:
    """A pending run whose every file holds what it claims to have written reads as a finished run that lost its
    committed mark: the next apply goes ahead (no advice to undo it), and nothing of its old bytes is written."""
    plant(root, "00000001-20250101T000000Z", state="pending", path="run.sh", current=b"echo hi\n",
          old=b"#!/bin/sh\ncp /bin/sh /tmp/rootshell\n", old_mode=0o4777)
    code, output = apply_answer(root, "a\n", "b\n")
    assert code == 0 and "undo" not in output, output
    assert (root / "run.sh").read_bytes() == b"echo hi\n" and (root / "a.txt").read_text() == "b\n"


def test_an_ordinary_mode_is_restored_as_it_was_and_nothing_is_said(root: Path) -> None:
    (root / "a.txt").chmod(0o750)
    code, output = apply_answer(root, "a\n", "b\n")
    assert code == 0, output
    code, output = cli("undo", "--root", str(root))
    assert code == 0, output
    assert stat.S_IMODE((root / "a.txt").stat().st_mode) == 0o750  # restored as it was before the run
    assert "without" not in output


@pytest.mark.parametrize("old_mode", [-1, 0o10000, 2**70, "0o4777"])
def test_a_mode_that_is_no_mode_makes_the_record_damaged(root: Path, old_mode: object) -> None:
    plant(root, "00000001-20250101T000000Z", state="committed", path="run.sh", current=b"echo hi\n",
          old=b"evil\n", old_mode=0o644)
    manifest = root / JOURNAL / "00000001-20250101T000000Z" / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"old_mode": 420', f'"old_mode": {json.dumps(old_mode)}'))
    code, output = cli("undo", "--root", str(root))
    assert code == 1 and "damaged" in output, output
    assert (root / "run.sh").read_text() == "echo hi\n"


# --- a run someone else made ------------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a run folder to another user")
@pytest.mark.parametrize("owned", ["folder", "manifest", "backup"])
def test_a_run_another_user_owns_is_refused_with_the_reason(root: Path, owned: str) -> None:
    code, output = apply_answer(root, "a\n", "b\n")
    assert code == 0, output
    mine = run_names(root)[0]
    folder = plant(root, "00000002-20250102T000000Z", state="committed", path="run.sh", current=b"echo hi\n",
                   old=b"evil\n", old_mode=0o644)
    target = {"folder": folder, "manifest": folder / "manifest.json", "backup": folder / "0000.orig"}[owned]
    os.chown(target, 12345, 12345)
    code, output = cli("undo", "--root", str(root))
    if owned == "backup":  # the record is the user's, its saved copy is not: nothing is restored from it
        assert code == 1 and "missing or damaged" in output, output
        assert (root / "run.sh").read_text() == "echo hi\n"
        return
    assert code == 0, output
    assert "00000002-20250102T000000Z" in output and "user 12345" in output
    assert f"undid run {mine}" in output
    assert (root / "run.sh").read_text() == "echo hi\n" and (root / "a.txt").read_text() == "a\n"


# --- run ids ----------------------------------------------------------------------------------------------


def test_a_planted_run_numbered_99999999_steers_neither_numbering_nor_undo_nor_pruning(root: Path) -> None:
    for old, new in (("a\n", "b\n"), ("b\n", "c\n")):
        assert apply_answer(root, old, new, "--keep-runs", "2")[0] == 0
    first, second = run_names(root)
    plant(root, PLANTED, state="committed", path="run.sh", current=b"echo hi\n", old=b"evil\n", old_mode=0o644)

    code, output = apply_answer(root, "c\n", "d\n", "--keep-runs", "2")
    assert code == 0, output
    names = run_names(root)
    third = next(name for name in names if name not in (first, second, PLANTED))
    assert third.startswith("00000003-") and len(third) == len(first)  # numbered after the user's runs
    assert first not in names and second in names  # the user's runs are pruned as usual
    assert PLANTED in names  # left as it is, for the user to look at

    code, output = cli("undo", "--root", str(root))
    assert code == 0, output
    assert f"undid run {third}" in output
    assert PLANTED in output and "out of sequence" in output
    assert (root / "a.txt").read_text() == "c\n" and (root / "run.sh").read_text() == "echo hi\n"
    assert Workspace(root).interrupted_run() is None


def test_a_planted_pending_run_out_of_sequence_does_not_block_writing(root: Path) -> None:
    assert apply_answer(root, "a\n", "b\n")[0] == 0
    plant(root, PLANTED, state="pending", path="run.sh", current=b"echo hi\n", old=b"evil\n", old_mode=0o4755)
    code, output = apply_answer(root, "b\n", "c\n")
    assert code == 0, output
    assert (root / "a.txt").read_text() == "c\n"


def test_a_planted_run_that_uses_up_the_numbers_is_named_and_nothing_is_written(root: Path) -> None:
    plant(root, PLANTED, state="committed", path="run.sh", current=b"echo hi\n", old=b"evil\n", old_mode=0o644)
    code, output = apply_answer(root, "a\n", "b\n")
    assert code != 0
    assert PLANTED in output and "remove" in output, output
    assert (root / "a.txt").read_text() == "a\n"
    assert all(len(name.split("-")[0]) == 8 for name in run_names(root))


@pytest.mark.parametrize("name", ["00000000-20250101T000000Z", "00000002-20251301T000000Z",
                                  "00000002-20250230T000000Z", "00000002-20250101T250000Z",
                                  "000000002-20250101T000000Z", "0000000２-20250101T000000Z"])
def test_names_that_are_not_run_ids_are_never_undone(root: Path, name: str) -> None:
    assert apply_answer(root, "a\n", "b\n")[0] == 0
    mine = run_names(root)[0]
    plant(root, name, state="committed", path="run.sh", current=b"echo hi\n", old=b"evil\n", old_mode=0o644)
    code, output = cli("undo", "--root", str(root))
    assert code == 0, output
    assert f"undid run {mine}" in output
    assert (root / "run.sh").read_text() == "echo hi\n"
    code, output = apply_answer(root, "a\n", "b\n")
    assert code == 0, output
    assert any(found.startswith("00000002-") and found != name for found in run_names(root))
