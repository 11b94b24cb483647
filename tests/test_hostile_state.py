"""A cloned repository may carry editblocks' own state folder, built to redirect its writes (issue 18, holes 1-3).

Each test builds the layout such a repository could hold (`.editblocks/`, its
`journal/`, a run folder, the lock or a manifest as a symlink to a sibling
folder), runs the real command line on it and compares the sibling folder byte
for byte with its snapshot: nothing outside the root may change, and the
project's own files stay as they were whenever the command refuses.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.workspace import Workspace, WorkspaceError

from helpers_apply import diff_edit, make_tree, tree_state

EDITBLOCKS = str(Path(sys.executable).with_name("editblocks"))
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER = 24, 1, 2, 3
RUN_ID = "00000001-20250101T000000Z"
PROJECT = {"src/a.py": "A = 1\n", "src/b.py": "B = 2\n"}
ANSWER = diff_edit("src/a.py", ("A = 1\n", "A = 10\n")) + diff_edit("src/new.py", ("", "NEW = 1\n"))


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """``base/project`` is the cloned repository; ``base/outside`` stands for the user's home."""
    make_tree(tmp_path / "project", PROJECT)
    make_tree(tmp_path / "outside", {".bashrc": "export PATH=/usr/bin\n", "state/keep.txt": "mine\n",
                                     "journal/keep.txt": "mine too\n"})
    (tmp_path / "answer.md").write_text(ANSWER)
    return tmp_path


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def apply_and_undo(base: Path) -> list[tuple[int, str]]:
    root = str(base / "project")
    return [cli("apply", str(base / "answer.md"), "--root", root), cli("undo", "--root", root)]


def assert_refused_untouched(base: Path, outcomes: list[tuple[int, str]], *words: str) -> None:
    for code, output in outcomes:
        assert code == 2, output
        assert all(word in output for word in words), output
        assert len(output.strip().splitlines()) == 1, output


# --- hole 1: the lock --------------------------------------------------------------------------------


def test_a_lock_planted_as_a_symlink_to_an_outside_file_is_refused_and_left_alone(base: Path) -> None:
    state = base / "project" / ".editblocks"
    state.mkdir()
    os.symlink(base / "outside" / ".bashrc", state / "lock")
    outside, project = tree_state(base / "outside"), tree_state(base / "project", skip_journal=False)
    outcomes = apply_and_undo(base)
    assert_refused_untouched(base, outcomes, "lock", "symlink")
    assert tree_state(base / "outside") == outside
    assert tree_state(base / "project", skip_journal=False) == project


def test_a_lock_hard_linked_to_an_outside_file_is_never_truncated(base: Path) -> None:
    state = base / "project" / ".editblocks"
    state.mkdir()
    os.link(base / "outside" / ".bashrc", state / "lock")
    outside = tree_state(base / "outside")
    outcomes = apply_and_undo(base)
    assert_refused_untouched(base, outcomes, "lock", "link")
    assert tree_state(base / "outside") == outside
    assert (base / "project" / "src" / "a.py").read_text() == "A = 1\n"


def test_a_lock_that_is_not_a_regular_file_is_refused(base: Path) -> None:
    state = base / "project" / ".editblocks"
    state.mkdir()
    os.mkfifo(state / "lock")
    assert_refused_untouched(base, apply_and_undo(base), "lock", "not a regular file")
    assert (base / "project" / "src" / "a.py").read_text() == "A = 1\n"


def test_a_state_folder_and_lock_owned_by_someone_else_are_refused(base: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = base / "project"
    ws = Workspace(root)
    with ws.lock():
        pass
    stranger = os.geteuid() + 1000  # the state folder, the lock and the root now belong to someone else
    monkeypatch.setattr(os, "geteuid", lambda: stranger)
    with pytest.raises(WorkspaceError, match="`.editblocks` belongs to user"):
        with ws.lock():
            pytest.fail("used a journal someone else owns")
    assert "belongs to user" in ws.undo().message


def test_a_lock_holding_something_else_than_a_process_id_is_never_rewritten(base: Path) -> None:
    state = base / "project" / ".editblocks"
    state.mkdir()
    (state / "lock").write_bytes(b"precious notes, not a pid\n")
    code, output = cli("apply", str(base / "answer.md"), "--root", str(base / "project"))
    assert code == 0, output
    assert (state / "lock").read_bytes() == b"precious notes, not a pid\n"


# --- hole 2: the state folder and the journal folder ------------------------------------------------------


@pytest.mark.parametrize(
    ("plant", "words"),
    [
        (lambda root, out: os.symlink(out / "state", root / ".editblocks"), ("`.editblocks`", "symlink")),
        (lambda root, out: os.symlink("../outside/state", root / ".editblocks"), ("`.editblocks`", "symlink")),
        (lambda root, out: ((root / ".editblocks").mkdir(), os.symlink(out / "journal", root / ".editblocks/journal")),
         ("`.editblocks/journal`", "symlink")),
        (lambda root, out: (root / ".editblocks").write_bytes(b"not a folder\n"), ("`.editblocks`", "not a folder")),
        (lambda root, out: ((root / ".editblocks").mkdir(), (root / ".editblocks/lock").write_text("1\n"),
                            os.symlink(out / "journal", root / ".editblocks/journal")),
         ("`.editblocks/journal`", "symlink")),
        (lambda root, out: ((root / ".editblocks").mkdir(), (root / ".editblocks/lock").write_text("1\n"),
                            (root / ".editblocks/journal").write_text("x\n")),
         ("`.editblocks/journal`", "not a folder")),
    ],
    ids=["state-link-absolute", "state-link-relative", "journal-link", "state-is-a-file",
         "journal-link-beside-a-lock", "journal-is-a-file-beside-a-lock"],
)
def test_a_state_folder_that_is_a_symlink_or_not_a_folder_is_refused(base: Path, plant, words) -> None:
    root, outside = base / "project", base / "outside"
    plant(root, outside)
    outside_before, project_before = tree_state(outside), tree_state(root, skip_journal=False)
    outcomes = apply_and_undo(base)
    assert_refused_untouched(base, outcomes, *words)
    assert tree_state(outside) == outside_before
    assert tree_state(root, skip_journal=False) == project_before


# --- hole 3: a planted run ---------------------------------------------------------------------------------


def planted_run(folder: Path, current: bytes, planted: bytes) -> None:
    """A committed run whose "undo" would write ``planted`` over ``src/a.py`` (which holds ``current``)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "0000.orig").write_bytes(planted)
    entry = {"path": "src/a.py", "existed": True, "backup": "0000.orig",
             "old_fingerprint": hashlib.sha256(planted).hexdigest(), "old_mode": 0o644,
             "new_fingerprint": hashlib.sha256(current).hexdigest(), "temp": "src/.a.py.editblocks-0000abcd.tmp",
             "created_dirs": []}
    manifest = {"version": 1, "run_id": RUN_ID, "state": "committed", "created": "2025-01-01T00:00:00Z",
                "files": [entry]}
    (folder / "manifest.json").write_text(json.dumps(manifest))


def plant_run_link(root: Path, outside: Path) -> None:
    planted_run(outside / "run", b"A = 1\n", b"import os; os.system('evil')\n")
    os.symlink(outside / "run", root / ".editblocks" / "journal" / RUN_ID)


def plant_manifest_link(root: Path, outside: Path) -> None:
    planted_run(outside / "run", b"A = 1\n", b"import os; os.system('evil')\n")
    run = root / ".editblocks" / "journal" / RUN_ID
    run.mkdir()
    os.symlink(outside / "run" / "manifest.json", run / "manifest.json")
    (run / "0000.orig").write_bytes(b"import os; os.system('evil')\n")


@pytest.mark.parametrize("plant", [plant_run_link, plant_manifest_link], ids=["run-folder-link", "manifest-link"])
def test_undo_never_follows_a_planted_run(base: Path, plant) -> None:
    root, outside = base / "project", base / "outside"
    (root / ".editblocks" / "journal").mkdir(parents=True)
    plant(root, outside)
    outside_before, project_before = tree_state(outside), tree_state(root)
    planted_before = tree_state(root / ".editblocks" / "journal")
    code, output = cli("undo", "--root", str(root))
    assert code == 1, output
    assert RUN_ID in output and "damaged" in output and "symlink" in output
    assert tree_state(outside) == outside_before
    assert tree_state(root) == project_before
    assert tree_state(root / ".editblocks" / "journal") == planted_before


# --- issue 10: a root that is not writable ---------------------------------------------------------------


def drop_permission_override() -> None:
    """In the child, before exec: give up the capabilities that let root write anywhere, so modes apply."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def test_a_read_only_root_says_the_state_folder_cannot_be_created(base: Path) -> None:
    """A real permission error from the kernel; run as root, the child first drops root's override."""
    root = base / "project"
    for path in (root, root / "src"):
        path.chmod(0o555)
    try:
        command = [EDITBLOCKS, "apply", str(base / "answer.md"), "--root", str(root)]
        as_root = os.geteuid() == 0
        done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                              preexec_fn=drop_permission_override if as_root else None)
    finally:
        for path in (root, root / "src"):
            path.chmod(0o755)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "`.editblocks/` cannot be created" in done.stderr and "not writable" in done.stderr, done.stderr
    assert "cannot lock" not in done.stderr
    assert not (root / ".editblocks").exists()
    assert (root / "src" / "a.py").read_text() == "A = 1\n"


def test_a_read_only_file_system_is_named_as_such(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_mkdir = os.mkdir

    def read_only(path: str, *args: object, **kwargs: object) -> None:
        if path == ".editblocks":
            raise OSError(errno.EROFS, "Read-only file system")
        real_mkdir(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "mkdir", read_only)
    code, output = cli("apply", str(base / "answer.md"), "--root", str(base / "project"))
    assert code == 2
    assert "`.editblocks/` cannot be created" in output and "the file system is read-only" in output
    assert (base / "project" / "src" / "a.py").read_text() == "A = 1\n"
