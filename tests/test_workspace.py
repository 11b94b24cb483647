"""The workspace: reading (F3, F5), atomic journaled writing (F1, F2, F4, F9–F11), undo, lock, git add."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editblocks.workspace import (
    CommitOutcome,
    FileSnapshot,
    PlannedWrite,
    Refusal,
    RefusalCode,
    UndoOutcome,
    Workspace,
    WorkspaceBusy,
    WorkspaceError,
    records,
)

from helpers_journal import read_record, record_path, write_record

JOURNAL = ".editblocks"


# --- helpers --------------------------------------------------------------------------


def tree_state(top: Path, *, journal: bool = False) -> dict[str, tuple[object, ...]]:
    """Everything under ``top`` (files with bytes and mode, folders, symlinks); the journal only if asked."""
    state: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(top):
        if not journal and JOURNAL in dirs:
            dirs.remove(JOURNAL)
        for name in dirs + files:
            path = Path(folder, name)
            rel = str(path.relative_to(top))
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                state[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(mode):
                state[rel] = ("dir", stat.S_IMODE(mode))
            else:
                state[rel] = ("file", path.read_bytes(), stat.S_IMODE(mode))
    return state


def read_at(folder: int, name: str) -> bytes:
    fd = os.open(name, os.O_RDONLY, dir_fd=folder)
    with open(fd, "rb") as handle:
        return handle.read()


def temp_files(top: Path) -> list[str]:
    return [str(path.relative_to(top)) for path in top.rglob("*.editblocks-*.tmp")]


def snapshot(ws: Workspace, path: str) -> FileSnapshot:
    result = ws.read(path)
    assert isinstance(result, FileSnapshot), result
    return result


def edit(ws: Workspace, path: str, change: Callable[[str], str]) -> PlannedWrite:
    """A planned write replacing the text of ``path`` by ``change(text)`` ("" for a new file)."""
    snap = snapshot(ws, path)
    return PlannedWrite(snap, change(snap.text or ""))


def run_dirs(root: Path) -> list[str]:
    runs = root / JOURNAL / "journal"
    return sorted(os.listdir(runs)) if runs.is_dir() else []


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_bytes(b"def a():\n    return 1\n")
    (root / "src" / "b.py").write_bytes(b"def b():\n    return 2\n")
    (root / "c.txt").write_bytes(b"third file\n")
    return root


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace(root)


# --- reading ------------------------------------------------------------------------------


def test_read_plain_utf8_file(ws: Workspace, root: Path) -> None:
    (root / "src" / "a.py").chmod(0o640)
    snap = snapshot(ws, "./src/a.py")
    assert snap.rel == "src/a.py"
    assert snap.exists and snap.text == "def a():\n    return 1\n"
    assert snap.encoding == "utf-8"
    assert snap.fingerprint == records.fingerprint((root / "src" / "a.py").read_bytes())
    assert snap.mode == 0o640


def test_read_missing_file_is_a_snapshot_of_absence(ws: Workspace, root: Path) -> None:
    assert ws.read("new/file.py") == FileSnapshot("new/file.py", False, None, "utf-8", None, None)
    assert not (root / "new").exists()


def test_read_refuses_what_resolve_refuses(ws: Workspace) -> None:
    result = ws.read("../elsewhere.py")
    assert isinstance(result, Refusal) and result.code is RefusalCode.OUTSIDE_ROOT
    result = ws.read("src")
    assert isinstance(result, Refusal) and result.code is RefusalCode.DIRECTORY


def test_binary_file_is_refused(ws: Workspace, root: Path) -> None:
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    result = ws.read("logo.png")
    assert isinstance(result, Refusal) and result.code is RefusalCode.BINARY
    assert "offset 8" in result.reason


def test_latin1_file_is_refused_with_the_offset_and_left_alone(ws: Workspace, root: Path) -> None:
    raw = "# caf\u00e9 cr\u00e8me\n".encode("latin-1")
    (root / "notes.py").write_bytes(raw)
    result = ws.read("notes.py")
    assert isinstance(result, Refusal) and result.code is RefusalCode.ENCODING
    assert "0xE9 at offset 5" in result.reason
    assert (root / "notes.py").read_bytes() == raw


def test_utf32_is_refused_as_an_encoding(ws: Workspace, root: Path) -> None:
    (root / "wide.txt").write_bytes("hi\n".encode("utf-32"))
    result = ws.read("wide.txt")
    assert isinstance(result, Refusal) and result.code is RefusalCode.ENCODING


def test_utf16_without_bom_looks_binary(ws: Workspace, root: Path) -> None:
    (root / "u16.txt").write_bytes("hello\n".encode("utf-16-le"))
    result = ws.read("u16.txt")
    assert isinstance(result, Refusal) and result.code is RefusalCode.BINARY


def test_utf16_with_nul_characters_is_binary(ws: Workspace, root: Path) -> None:
    (root / "blob.dat").write_bytes(b"\xff\xfe" + "ab\0cd".encode("utf-16-le"))
    result = ws.read("blob.dat")
    assert isinstance(result, Refusal) and result.code is RefusalCode.BINARY


def test_unreadable_file_is_a_refusal(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def denied(path: object, flags: int, *args: object, **kwargs: object) -> int:
        if str(path).endswith("a.py"):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", denied)
    result = ws.read("src/a.py")
    assert isinstance(result, Refusal) and result.code is RefusalCode.UNREADABLE
    assert "Permission denied" in result.reason


def test_root_must_be_a_folder(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError):
        Workspace(tmp_path / "missing")


# --- writing: bytes, encodings, permissions -------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "line one\nline two\n",
        "line one\r\nline two\r\nadded\r\n",
        "crlf\r\nlf\nno final newline",
        "old mac\rendings\r",
        "",
    ],
    ids=["lf", "crlf", "mixed", "cr", "empty"],
)
def test_text_is_written_exactly_as_given(ws: Workspace, root: Path, text: str) -> None:
    outcome = ws.commit([edit(ws, "src/a.py", lambda _: text)])
    assert outcome.written and outcome.files == ("src/a.py",)
    assert (root / "src" / "a.py").read_bytes() == text.encode("utf-8")


def test_crlf_file_round_trips_through_read(ws: Workspace, root: Path) -> None:
    (root / "win.txt").write_bytes(b"one\r\ntwo\nthree\r\n")
    snap = snapshot(ws, "win.txt")
    assert snap.text == "one\r\ntwo\nthree\r\n"
    ws.commit([PlannedWrite(snap, snap.text.replace("two", "TWO"))])
    assert (root / "win.txt").read_bytes() == b"one\r\nTWO\nthree\r\n"


def test_utf8_bom_is_kept_byte_exact(ws: Workspace, root: Path) -> None:
    (root / "bom.cs").write_bytes(b"\xef\xbb\xbfclass A {}\r\n")
    snap = snapshot(ws, "bom.cs")
    assert snap.encoding == "utf-8-sig" and snap.text == "class A {}\r\n"
    ws.commit([PlannedWrite(snap, "class B {}\r\n")])
    assert (root / "bom.cs").read_bytes() == b"\xef\xbb\xbfclass B {}\r\n"


@pytest.mark.parametrize(("codec", "name"), [("utf-16-le", "utf-16-le-bom"), ("utf-16-be", "utf-16-be-bom")])
def test_utf16_with_bom_round_trips(ws: Workspace, root: Path, codec: str, name: str) -> None:
    bom = b"\xff\xfe" if codec == "utf-16-le" else b"\xfe\xff"
    (root / "res.rc").write_bytes(bom + "caption \u201cOK\u201d \U0001f600\r\n".encode(codec))
    snap = snapshot(ws, "res.rc")
    assert snap.encoding == name and snap.text == "caption \u201cOK\u201d \U0001f600\r\n"
    ws.commit([PlannedWrite(snap, snap.text + "added\r\n")])
    assert (root / "res.rc").read_bytes() == bom + "caption \u201cOK\u201d \U0001f600\r\nadded\r\n".encode(codec)


def test_executable_bit_is_kept(ws: Workspace, root: Path) -> None:
    script = root / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    script.chmod(0o750)
    outcome = ws.commit([edit(ws, "run.sh", lambda text: text + "echo bye\n")])
    assert outcome.written
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


def test_new_file_gets_the_umask_default_and_its_folders(ws: Workspace, root: Path) -> None:
    old_umask = os.umask(0o027)
    try:
        outcome = ws.commit([edit(ws, "pkg/sub/new.py", lambda _: "x = 1\n")])
    finally:
        os.umask(old_umask)
    assert outcome.written and outcome.files == ("pkg/sub/new.py",)
    assert (root / "pkg" / "sub" / "new.py").read_bytes() == b"x = 1\n"
    assert stat.S_IMODE((root / "pkg" / "sub" / "new.py").stat().st_mode) == 0o640


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_is_kept_when_running_as_root(ws: Workspace, root: Path) -> None:
    os.chown(root / "c.txt", 1234, 5678)
    ws.commit([edit(ws, "c.txt", lambda text: text + "more\n")])
    status = (root / "c.txt").stat()
    assert (status.st_uid, status.st_gid) == (1234, 5678)


def test_symlink_inside_the_root_is_written_through(ws: Workspace, root: Path) -> None:
    os.symlink("src/a.py", root / "link.py")
    snap = snapshot(ws, "link.py")
    assert snap.rel == "src/a.py"
    outcome = ws.commit([PlannedWrite(snap, "through the link\n")])
    assert outcome.files == ("src/a.py",)
    assert os.path.islink(root / "link.py") and os.readlink(root / "link.py") == "src/a.py"
    assert (root / "src" / "a.py").read_bytes() == b"through the link\n"


def test_several_files_in_one_commit(ws: Workspace, root: Path) -> None:
    outcome = ws.commit(
        [
            edit(ws, "src/a.py", lambda text: text.replace("1", "10")),
            edit(ws, "src/b.py", lambda text: text.replace("2", "20")),
            edit(ws, "docs/new.md", lambda _: "# new\n"),
        ]
    )
    assert outcome == CommitOutcome(True, ("src/a.py", "src/b.py", "docs/new.md"), (), "", outcome.run_id)
    assert outcome.run_id is not None
    assert (root / "src" / "a.py").read_bytes() == b"def a():\n    return 10\n"
    assert (root / "docs" / "new.md").read_bytes() == b"# new\n"
    assert temp_files(root) == []


def test_unchanged_writes_are_skipped(ws: Workspace, root: Path) -> None:
    before = tree_state(root)
    outcome = ws.commit([edit(ws, "src/a.py", lambda text: text)])
    assert outcome == CommitOutcome(True, (), (), "", None)
    assert tree_state(root) == before
    assert ws.undo().message == "nothing to undo"


def test_two_writes_for_one_file_are_a_programming_error(ws: Workspace, root: Path) -> None:
    os.symlink("src/a.py", root / "alias.py")
    with pytest.raises(ValueError):
        ws.commit([edit(ws, "src/a.py", str.upper), edit(ws, "alias.py", str.lower)])


def test_unknown_encoding_is_a_programming_error(ws: Workspace) -> None:
    snap = snapshot(ws, "src/a.py")
    bad = FileSnapshot(snap.rel, True, snap.text, "latin-1", snap.fingerprint, snap.mode)
    with pytest.raises(ValueError):
        ws.commit([PlannedWrite(bad, "x\n")])


def test_unencodable_text_writes_nothing(ws: Workspace, root: Path) -> None:
    before = tree_state(root, journal=True)
    outcome = ws.commit([edit(ws, "src/a.py", lambda _: "ok\n"), edit(ws, "src/b.py", lambda _: "bad \ud800\n")])
    assert not outcome.written and "U+D800" in outcome.error and "src/b.py" in outcome.error
    assert tree_state(root, journal=True) == before


# --- writing: changed on disk (F11) -------------------------------------------------------------


def test_file_changed_since_read_stops_the_whole_commit(ws: Workspace, root: Path) -> None:
    writes = [edit(ws, "src/a.py", str.upper), edit(ws, "src/b.py", str.upper)]
    (root / "src" / "b.py").write_bytes(b"someone else's edit\n")
    before = tree_state(root, journal=True)
    outcome = ws.commit(writes)
    assert not outcome.written and outcome.files == ()
    assert outcome.changed_on_disk == ("src/b.py",)
    assert "changed on disk" in outcome.error
    assert tree_state(root, journal=True) == before


def test_a_file_and_a_file_inside_it_in_one_commit_write_nothing(ws: Workspace, root: Path) -> None:
    """Creating `fresh` and `fresh/inner.py` at once cannot both be true: the folder the second needs takes the
    first one's name, which the last check before the renames finds (an error value, never an exception)."""
    before = tree_state(root)
    writes = [PlannedWrite(ws.read(rel), "text\n") for rel in ("fresh", "fresh/inner.py")]
    outcome = ws.commit(writes)
    assert not outcome.written and "`fresh` could not be read again before writing" in outcome.error, outcome.error
    assert tree_state(root) == before and temp_files(root) == []
    assert ws.interrupted_run() is None and not ws.undo().restored


def test_a_save_by_another_program_while_applying_is_never_overwritten(ws: Workspace, root: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program saves b.py after the commit's first check, while the new files are being written: the
    commit sees it right before replacing anything, writes nothing, keeps that save, and leaves no run to undo."""
    import editblocks.workspace.commit as commit_module

    writes = [edit(ws, "src/a.py", str.upper), edit(ws, "src/b.py", str.upper)]
    before = tree_state(root)
    original = commit_module.write_new_file

    def write_then_another_save(*args: object, **kwargs: object) -> None:
        original(*args, **kwargs)  # type: ignore[arg-type]
        (root / "src" / "b.py").write_bytes(b"saved meanwhile\n")

    monkeypatch.setattr(commit_module, "write_new_file", write_then_another_save)
    outcome = ws.commit(writes)
    assert not outcome.written and "`src/b.py` changed while applying" in outcome.error, outcome.error
    assert outcome.changed_on_disk == ("src/b.py",)
    assert (root / "src" / "b.py").read_bytes() == b"saved meanwhile\n"
    after = tree_state(root)
    assert {path: state for path, state in after.items() if path != "src/b.py"} == {
        path: state for path, state in before.items() if path != "src/b.py"}
    assert not ws.undo().restored


def test_new_file_that_appeared_since_read_is_changed_on_disk(ws: Workspace, root: Path) -> None:
    write = edit(ws, "new.py", lambda _: "mine\n")
    (root / "new.py").write_bytes(b"theirs\n")
    outcome = ws.commit([write])
    assert outcome.changed_on_disk == ("new.py",)
    assert (root / "new.py").read_bytes() == b"theirs\n"


def test_deleted_file_is_changed_on_disk(ws: Workspace, root: Path) -> None:
    write = edit(ws, "c.txt", str.upper)
    (root / "c.txt").unlink()
    outcome = ws.commit([write])
    assert outcome.changed_on_disk == ("c.txt",)
    assert not (root / "c.txt").exists()


def test_folder_swapped_for_a_symlink_out_is_changed_on_disk(ws: Workspace, root: Path, tmp_path: Path) -> None:
    write = edit(ws, "src/a.py", str.upper)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(root / "src", elsewhere)
    os.symlink(elsewhere, root / "src")
    outside_before = tree_state(elsewhere)
    outcome = ws.commit([write])
    assert outcome.changed_on_disk == ("src/a.py",)
    assert tree_state(elsewhere) == outside_before


# --- writing: failures roll everything back ----------------------------------------------------


def three_writes(ws: Workspace) -> list[PlannedWrite]:
    return [
        edit(ws, "src/a.py", lambda text: text + "# FILE-ONE\n"),
        edit(ws, "src/b.py", lambda text: text + "# FILE-TWO\n"),
        edit(ws, "new/dir/c.py", lambda _: "# FILE-THREE\n"),
    ]


def assert_rolled_back(
    ws: Workspace, root: Path, before: dict[str, tuple[object, ...]], outcome: CommitOutcome
) -> None:
    assert not outcome.written and outcome.files == () and outcome.run_id is None
    assert "rolled back" in outcome.error
    assert tree_state(root) == before
    assert temp_files(root) == []
    assert ws.interrupted_run() is None
    assert run_dirs(root) == []


def test_rename_failure_on_the_second_file_rolls_back(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = three_writes(ws)
    before = tree_state(root)
    real_replace = os.replace

    def replace(src: str, dst: str, **folders: int) -> None:
        if dst == "b.py":  # renamed inside the open folder `src`
            raise OSError(errno.ENOSPC, "No space left on device")
        real_replace(src, dst, **folders)

    monkeypatch.setattr(os, "replace", replace)
    outcome = ws.commit(writes)
    assert_rolled_back(ws, root, before, outcome)
    assert "No space left on device while replacing `src/b.py`" in outcome.error


def test_disk_full_while_writing_the_second_file_rolls_back(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = three_writes(ws)
    before = tree_state(root)
    real_write = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        if b"FILE-TWO" in bytes(data):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    outcome = ws.commit(writes)
    assert_rolled_back(ws, root, before, outcome)
    assert "while writing `src/b.py`" in outcome.error


def test_permission_denied_creating_a_folder_rolls_back(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = three_writes(ws)
    before = tree_state(root)
    real_mkdir = os.mkdir

    def mkdir(path: str | os.PathLike[str], mode: int = 0o777, **kwargs: object) -> None:
        if str(path) == "dir":  # made inside the open folder `new`
            raise PermissionError(errno.EACCES, "Permission denied")
        real_mkdir(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "mkdir", mkdir)
    outcome = ws.commit(writes)
    assert_rolled_back(ws, root, before, outcome)
    assert "Permission denied while creating the folder `new/dir`" in outcome.error
    assert not (root / "new").exists()


def test_journal_that_cannot_be_saved_writes_nothing(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = three_writes(ws)
    before = tree_state(root)
    real_write = os.write

    def write(fd: int, data: bytes | memoryview) -> int:
        if b"FILE-" not in bytes(data) and b"def b()" in bytes(data):  # the backup copy of b.py
            raise OSError(errno.EDQUOT, "Disk quota exceeded")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    outcome = ws.commit(writes)
    assert not outcome.written and "undo journal could not be saved (Disk quota exceeded)" in outcome.error
    assert tree_state(root) == before
    assert run_dirs(root) == []


def test_failed_rollback_leaves_a_pending_run_that_undo_recovers(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = three_writes(ws)
    before = tree_state(root)
    real_replace = os.replace
    broken = True

    def replace(src: str, dst: str, *, src_dir_fd: int, dst_dir_fd: int) -> None:
        # b.py cannot be replaced, and once a.py is new it cannot be put back either.
        restoring_a = dst == "a.py" and b"FILE-ONE" not in read_at(src_dir_fd, src)
        if broken and (dst == "b.py" or restoring_a):
            raise OSError(errno.EIO, "Input/output error")
        real_replace(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    monkeypatch.setattr(os, "replace", replace)
    outcome = ws.commit(writes)
    assert not outcome.written
    assert "rolling back failed too" in outcome.error and "editblocks undo" in outcome.error
    run_id = ws.interrupted_run()
    assert run_id is not None
    assert b"FILE-ONE" in (root / "src" / "a.py").read_bytes()

    broken = False
    undone = ws.undo()
    assert undone.ok, undone.message
    assert undone.restored == ("src/a.py",)
    assert tree_state(root) == before
    assert ws.interrupted_run() is None


# --- undo ------------------------------------------------------------------------------------


def test_undo_restores_modified_and_removes_created_files_and_folders(ws: Workspace, root: Path) -> None:
    (root / "empty").mkdir()
    (root / "src" / "a.py").chmod(0o755)
    before = tree_state(root)
    outcome = ws.commit(
        [
            edit(ws, "src/a.py", lambda text: text + "extra\n"),
            edit(ws, "brand/new/deep/file.py", lambda _: "x = 1\n"),
            edit(ws, "brand/new/other.py", lambda _: "y = 2\n"),
            edit(ws, "empty/inside.py", lambda _: "z = 3\n"),
        ]
    )
    assert outcome.written
    undone = ws.undo()
    assert undone == UndoOutcome(
        restored=("src/a.py",),
        removed=("brand/new/deep/file.py", "brand/new/other.py", "empty/inside.py"),
        refused=(),
        message=f"undid run {outcome.run_id}: restored 1 file, removed 3 created files",
        ok=True,
        run_id=outcome.run_id,
        runs=(outcome.run_id,),
    )
    assert tree_state(root) == before  # `brand/` is gone, `empty/` stays


def test_undo_keeps_a_created_folder_someone_else_put_files_in(ws: Workspace, root: Path) -> None:
    ws.commit([edit(ws, "made/file.py", lambda _: "x\n")])
    (root / "made" / "theirs.txt").write_bytes(b"keep me\n")
    assert ws.undo().ok
    assert not (root / "made" / "file.py").exists()
    assert (root / "made" / "theirs.txt").read_bytes() == b"keep me\n"


def test_undo_restores_permission_bits(ws: Workspace, root: Path) -> None:
    script = root / "run.sh"
    script.write_bytes(b"#!/bin/sh\n")
    script.chmod(0o755)
    ws.commit([edit(ws, "run.sh", lambda text: text + "echo\n")])
    script.chmod(0o600)
    assert ws.undo().ok
    assert script.read_bytes() == b"#!/bin/sh\n" and stat.S_IMODE(script.stat().st_mode) == 0o755


def test_double_undo_walks_back_run_by_run(ws: Workspace, root: Path) -> None:
    original = tree_state(root)
    first = ws.commit([edit(ws, "src/a.py", lambda text: text + "# run 1\n")])
    after_first = tree_state(root)
    second = ws.commit(
        [edit(ws, "src/a.py", lambda text: text + "# run 2\n"), edit(ws, "n.py", lambda _: "run 2\n")]
    )
    assert first.run_id != second.run_id
    assert ws.undo().message.startswith(f"undid run {second.run_id}")
    assert tree_state(root) == after_first
    assert ws.undo().message.startswith(f"undid run {first.run_id}")
    assert tree_state(root) == original
    assert ws.undo() == UndoOutcome((), (), (), "nothing to undo", ok=False)


def test_undo_refuses_a_file_edited_after_the_run_then_force_restores(ws: Workspace, root: Path) -> None:
    before = tree_state(root)
    outcome = ws.commit([edit(ws, "src/a.py", str.upper), edit(ws, "src/b.py", str.upper)])
    (root / "src" / "b.py").write_bytes(b"edited by hand\n")
    after_edit = tree_state(root)

    refused = ws.undo()
    assert not refused.ok and refused.refused == ("src/b.py",)
    assert refused.restored == () and refused.removed == ()
    assert f"was changed after run {outcome.run_id} wrote it" in refused.message and "force" in refused.message
    assert tree_state(root) == after_edit  # all or nothing: a.py was not touched either

    forced = ws.undo(force=True)
    assert forced.ok and forced.restored == ("src/a.py", "src/b.py")
    assert tree_state(root) == before


def test_undo_refuses_a_deleted_file_and_a_created_file_edited_later(ws: Workspace, root: Path) -> None:
    before = tree_state(root)
    ws.commit([edit(ws, "c.txt", str.upper), edit(ws, "made.py", lambda _: "made\n")])
    (root / "c.txt").unlink()
    (root / "made.py").write_bytes(b"grown\n")
    refused = ws.undo()
    assert set(refused.refused) == {"c.txt", "made.py"} and not refused.ok
    assert ws.undo(force=True).ok
    assert tree_state(root) == before


def test_undo_with_a_damaged_backup_changes_nothing(ws: Workspace, root: Path) -> None:
    outcome = ws.commit([edit(ws, "src/a.py", str.upper)])
    assert outcome.run_id is not None
    state, document, payload = read_record(record_path(root, outcome.run_id))
    write_record(record_path(root, outcome.run_id), state, document, b"X" * len(payload))
    after = tree_state(root)
    undone = ws.undo()
    assert not undone.ok and "missing or damaged" in undone.message
    assert tree_state(root) == after


def test_undo_never_deletes_what_a_tampered_manifest_calls_a_temporary_file(
    ws: Workspace, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".s.editblocks-00000000.tmp").write_bytes(b"not ours\n")
    outcome = ws.commit([edit(ws, "src/a.py", str.upper)])
    assert outcome.run_id is not None
    record = record_path(root, outcome.run_id)
    for temp in ["src/b.py", "../outside/.s.editblocks-00000000.tmp"]:
        _, document, payload = read_record(record)
        document["files"][0]["temp"] = temp
        write_record(record, "committed", document, payload)
        assert ws.undo().ok
    assert (root / "src" / "b.py").read_bytes() == b"def b():\n    return 2\n"
    assert (outside / ".s.editblocks-00000000.tmp").read_bytes() == b"not ours\n"


def test_journal_is_hidden_from_git_and_keeps_twenty_runs(ws: Workspace, root: Path) -> None:
    for number in range(22):
        assert ws.commit([edit(ws, "c.txt", lambda text, n=number: f"{text}{n}\n")]).written
    assert (root / JOURNAL / ".gitignore").read_text() == "*\n"
    assert len(run_dirs(root)) == 20
    for _ in range(20):
        assert ws.undo().ok
    assert ws.undo().message == "nothing to undo"
    assert (root / "c.txt").read_bytes() == b"third file\n0\n1\n"


def test_manifest_records_each_file(ws: Workspace, root: Path) -> None:
    (root / "src" / "a.py").chmod(0o751)
    outcome = ws.commit([edit(ws, "src/a.py", str.upper), edit(ws, "x/y/new.txt", lambda _: "new\n")])
    assert outcome.run_id is not None
    state, manifest, payload = read_record(record_path(root, outcome.run_id))
    assert state == "committed"
    modified, created = manifest["files"]
    assert modified["path"] == "src/a.py" and modified["existed"] and modified["old_mode"] == 0o751
    assert modified["temp"].startswith("src/.a.py.editblocks-") and modified["temp"].endswith(".tmp")
    saved = modified["saved"]
    assert payload[saved["offset"]:saved["offset"] + saved["length"]] == b"def a():\n    return 1\n"
    assert created["existed"] is False and "saved" not in created
    assert created["created_dirs"] == ["x", "x/y"]
    assert created["new_fingerprint"] == records.fingerprint(b"new\n")


# --- interrupted runs (F10) ------------------------------------------------------------------

KILLER = textwrap.dedent(
    """
    import os, signal, sys
    from editblocks.workspace import PlannedWrite, Workspace

    root, call, kill_at, nth = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ws = Workspace(root)
    writes = []
    for path in ["src/a.py", "src/b.py", "c.txt", "fresh/dir/new.py"]:
        snap = ws.read(path)
        writes.append(PlannedWrite(snap, (snap.text or "") + "# NEW\\n"))
    real = getattr(os, call)
    seen = 0
    def killing(first, second, *rest, **folders):
        global seen
        seen += str(second).endswith(kill_at)
        if seen == nth:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(first, second, *rest, **folders)
    setattr(os, call, killing)
    ws.commit(writes)
    """
)


@pytest.mark.parametrize(
    ("call", "kill_at", "nth", "new_files"),
    # mid-renames (recovered by undo); after all renames, at the write that marks the run committed (its
    # state, in place): the run landed and counts as committed
    [("replace", "b.py", 1, 1), ("pwrite", "", 1, 4)],
    ids=["second-file", "before-committed"],
)
def test_process_killed_mid_commit_is_recovered_by_undo(
    root: Path, call: str, kill_at: str, nth: int, new_files: int
) -> None:
    before = tree_state(root)
    killer = [sys.executable, "-c", KILLER, str(root), call, kill_at, str(nth)]
    killed = subprocess.run(killer, capture_output=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()

    targets = [root / "src" / "a.py", root / "src" / "b.py", root / "c.txt", root / "fresh" / "dir" / "new.py"]
    states = [path.exists() and path.read_bytes().endswith(b"# NEW\n") for path in targets]
    assert sum(states) == new_files  # every file is wholly old or wholly new
    if kill_at == "b.py":
        assert temp_files(root) != []

    ws = Workspace(root)
    if new_files == len(targets):  # every file landed, only the unsynced committed mark is missing: it counts
        assert ws.interrupted_run() is None
        assert ws.commit([edit(ws, "c.txt", str.upper)]).written
        assert ws.undo().ok and ws.undo().ok  # the edit after it, then the run itself
        assert tree_state(root) == before and temp_files(root) == []
        return
    run_id = ws.interrupted_run()
    assert run_id is not None
    blocked = ws.commit([edit(ws, "c.txt", str.upper)])
    assert not blocked.written and run_id in blocked.error and "editblocks undo" in blocked.error

    recovered = ws.undo()
    assert recovered.ok and recovered.message.startswith(f"recovered interrupted run {run_id}")
    assert tree_state(root) == before
    assert temp_files(root) == []
    assert ws.interrupted_run() is None
    assert ws.commit([edit(ws, "c.txt", str.upper)]).written


# --- lock ---------------------------------------------------------------------------------

HOLDER = textwrap.dedent(
    """
    import sys
    from editblocks.workspace import Workspace

    with Workspace(sys.argv[1]).lock():
        print("locked", flush=True)
        sys.stdin.read()
    """
)


@pytest.fixture
def lock_holder(root: Path) -> Iterator[subprocess.Popen[str]]:
    command = [sys.executable, "-c", HOLDER, str(root)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        yield holder
        if holder.poll() is None:
            holder.kill()


def test_second_process_gives_up_after_waiting(ws: Workspace, lock_holder: subprocess.Popen[str]) -> None:
    started = time.monotonic()
    with pytest.raises(WorkspaceBusy) as busy:
        with ws.lock(wait=0.2):
            pytest.fail("got a lock another process holds")
    waited = time.monotonic() - started
    assert 0.2 <= waited < 5  # gave up after its own short wait, not the 10 s default; slack for a busy machine
    assert f"process {lock_holder.pid}" in str(busy.value) and "busy" in str(busy.value)


def test_lock_is_free_once_the_holder_is_done(ws: Workspace, lock_holder: subprocess.Popen[str]) -> None:
    assert lock_holder.stdin is not None
    lock_holder.stdin.close()
    lock_holder.wait(timeout=10)
    with ws.lock(wait=1.0):
        pass
    with ws.lock(wait=0.0):  # released on exit, so it can be taken again at once
        pass


# --- git add ---------------------------------------------------------------------------------

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@needs_git
def test_git_add_stages_exactly_the_written_files(ws: Workspace, root: Path) -> None:
    git(root, "init", "-q")
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "base")
    (root / "notes.txt").write_bytes(b"leave me unstaged\n")
    outcome = ws.commit(
        [
            edit(ws, "src/a.py", str.upper),
            edit(ws, "*.txt", lambda _: "a file really named *.txt\n"),
            edit(ws, ":notes.txt", lambda _: "a name git would read as pathspec magic\n"),
        ],
        git_add=True,
    )
    assert outcome.written and outcome.git_error == ""
    staged = set(git(root, "diff", "--cached", "--name-only", "-z").split("\0")) - {""}
    assert staged == {"src/a.py", "*.txt", ":notes.txt"}
    assert ".editblocks" not in git(root, "status", "--porcelain")


@needs_git
def test_git_add_failure_is_a_warning_and_the_writes_stand(ws: Workspace, root: Path) -> None:
    git(root, "init", "-q")
    (root / ".gitignore").write_text("ignored.txt\n")
    outcome = ws.commit([edit(ws, "ignored.txt", lambda _: "new\n")], git_add=True)
    assert outcome.written and outcome.git_error.startswith("git add failed")
    assert (root / "ignored.txt").read_bytes() == b"new\n"


@needs_git
def test_git_add_outside_a_repository_is_skipped_with_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    ws = Workspace(root)
    outcome = ws.commit([edit(ws, "f.txt", lambda _: "x\n")], git_add=True)
    assert outcome.written and "not inside a git work tree" in outcome.git_error


# --- properties ----------------------------------------------------------------------------------

names = st.sampled_from(["a.py", "b.txt", "pkg/c.py", "pkg/sub/d.md", "e", "f g.rst", "caf\u00e9.py", "x/y/z.py"])
new_texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
contents = new_texts.map(lambda text: text.encode("utf-8"))
trees = st.dictionaries(names, st.tuples(contents, st.sampled_from([0o644, 0o600, 0o755])), max_size=5)
write_names = st.sampled_from(["a.py", "b.txt", "pkg/c.py", "pkg/new.py", "n1/n2/n3.txt", "e", "caf\u00e9.py"])
write_sets = st.dictionaries(write_names, new_texts, max_size=5)


def build_tree(root: Path, tree: dict[str, tuple[bytes, int]]) -> None:
    for rel, (data, mode) in tree.items():
        path = root / rel
        if any(parent.is_file() for parent in path.parents):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(mode)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees, writes=write_sets)
def test_commit_then_undo_restores_the_tree_byte_for_byte(
    tree: dict[str, tuple[bytes, int]], writes: dict[str, str]
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        build_tree(root, tree)
        before = tree_state(root)
        ws = Workspace(root)
        planned = []
        for rel, text in writes.items():
            snap = ws.read(rel)
            if isinstance(snap, FileSnapshot):
                planned.append(PlannedWrite(snap, text))
        outcome = ws.commit(planned)
        assert outcome.written, outcome.error
        for write in planned:
            assert (root / write.snapshot.rel).read_bytes() == write.text.encode("utf-8")
        undone = ws.undo()
        assert undone.ok or (outcome.files == () and undone.message == "nothing to undo")
        assert tree_state(root) == before
        assert temp_files(root) == []


PATH_PARTS = [
    "..", ".", "", "src", "a.py", "out", "out_file", "in", ".git", ".GIT", ".editblocks", "config",
    "\uff0f", "..\uff0f..", "\u2024\u2024", "\u00e9t\u00e9", "\U0001f600", "x" * 300, "secret.txt", "loop",
    "@ROOT@", "@OUTSIDE@", "C:",
]


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(st.sampled_from(PATH_PARTS) | st.text(min_size=1, max_size=6), min_size=1, max_size=6),
    separator=st.sampled_from(["/", "\\"]),
    leading=st.sampled_from(["", "/", "./"]),
)
def test_no_path_string_reaches_outside_the_root(parts: list[str], separator: str, leading: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        root, outside = base / "root", base / "outside"
        (root / "src").mkdir(parents=True)
        (root / "src" / "a.py").write_bytes(b"a\n")
        (root / ".git").mkdir()
        (root / ".git" / "config").write_bytes(b"[core]\n")
        outside.mkdir()
        (outside / "secret.txt").write_bytes(b"secret\n")
        os.symlink("../outside", root / "out")
        os.symlink(str(outside / "secret.txt"), root / "out_file")
        os.symlink("src", root / "in")
        os.symlink("loop", root / "loop")
        path = leading + separator.join(parts)
        path = path.replace("@ROOT@", str(root)).replace("@OUTSIDE@", str(outside))
        ws = Workspace(root)

        before_everything = tree_state(base, journal=True)
        resolved = ws.resolve(path)
        assert tree_state(base, journal=True) == before_everything  # resolving never writes

        outside_before = tree_state(outside)
        listing_before = sorted(os.listdir(base))
        if isinstance(resolved, str):
            real = Path(os.path.realpath(root / resolved))
            assert real.is_relative_to(root) and real != root
            assert ".git" not in real.relative_to(root).parts
            assert real.relative_to(root).parts[0] != ".editblocks"
            snap = ws.read(path)
            if isinstance(snap, FileSnapshot):
                outcome = ws.commit([PlannedWrite(snap, "written\n")])
                if outcome.written:
                    assert (root / snap.rel).read_bytes() == b"written\n"
        assert tree_state(outside) == outside_before
        assert sorted(os.listdir(base)) == listing_before
