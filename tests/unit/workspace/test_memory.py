"""`MemoryStore`: the disk's face in memory: the same path checks, all-or-nothing commits, undo, a layer over a base."""

from __future__ import annotations

from pathlib import Path

import pytest

from editblocks.workspace import PlannedWrite, RefusalCode, Workspace
from editblocks.workspace.memory import MemoryStore
from editblocks.workspace.paths import Refusal
from editblocks.workspace.reading import FileSnapshot


def snapshot(store: MemoryStore | Workspace, path: str) -> FileSnapshot:
    read = store.read(path)
    assert isinstance(read, FileSnapshot)
    return read


@pytest.mark.parametrize(("path", "code"), [
    ("../x.py", RefusalCode.OUTSIDE_ROOT), ("/etc/passwd", RefusalCode.OUTSIDE_ROOT),
    (".git/config", RefusalCode.GIT_DIR), (".editblocks/journal/x", RefusalCode.JOURNAL_DIR),
    ("", RefusalCode.INVALID_PATH), ("src", RefusalCode.DIRECTORY), ("~/x.py", RefusalCode.OUTSIDE_ROOT),
])
def test_paths_are_refused_as_the_disk_refuses_them(path: str, code: RefusalCode) -> None:
    read = MemoryStore({"src/app.py": "x = 1\n"}).read(path)
    assert isinstance(read, Refusal) and read.code is code


def test_bytes_read_as_the_disk_reads_them() -> None:
    store = MemoryStore({"bom.py": b"\xef\xbb\xbfx = 1\r\n", "blob.bin": b"\x00\x01", "new.py": "y\n"})
    bom = snapshot(store, "bom.py")
    assert (bom.text, bom.encoding) == ("x = 1\r\n", "utf-8-sig")
    blob = store.read("blob.bin")
    assert isinstance(blob, Refusal) and blob.code is RefusalCode.BINARY
    assert not snapshot(store, "missing.py").exists


def test_a_commit_is_checked_against_its_snapshots_and_undone_as_a_run() -> None:
    store = MemoryStore({"a.py": b"\xef\xbb\xbfa = 1\n", "b.py": "b = 1\n"})
    a, b, new = snapshot(store, "a.py"), snapshot(store, "b.py"), snapshot(store, "c.py")
    assert store.commit([PlannedWrite(a, "a = 2\n"), PlannedWrite(new, "c = 1\n"), PlannedWrite(b, "", True)]).written
    assert store.files() == ["a.py", "c.py"] and store.text("a.py") == "a = 2\n"
    assert store.read("a.py") != a and snapshot(store, "a.py").encoding == "utf-8-sig"  # the BOM is kept
    stale = store.commit([PlannedWrite(a, "a = 3\n")])
    assert not stale.written and stale.changed_on_disk == ("a.py",) and store.text("a.py") == "a = 2\n"
    assert store.next_undo_paths() == ("a.py", "c.py", "b.py")
    undone = store.undo()
    assert undone.ok and set(undone.restored) == {"a.py", "b.py"} and undone.removed == ("c.py",)
    assert store.text("a.py") == "a = 1\n" and store.text("b.py") == "b = 1\n" and store.text("c.py") is None
    assert not store.undo().ok


def test_runs_are_undone_newest_first() -> None:
    store = MemoryStore({"a.py": "a = 1\n"})
    store.commit([PlannedWrite(snapshot(store, "a.py"), "a = 2\n")])
    store.commit([PlannedWrite(snapshot(store, "a.py"), "a = 3\n")])
    assert store.undo().ok and store.text("a.py") == "a = 2\n"
    assert store.undo().ok and store.text("a.py") == "a = 1\n"
    assert not store.has_journal()


def test_a_layer_over_the_disk_reads_through_and_never_writes_it(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("m = 1\n")
    disk = Workspace(tmp_path)
    layer = MemoryStore(base=disk)
    assert layer.text("app.py") == "x = 1\n" and layer.folder("pkg") == "pkg"
    assert layer.commit([PlannedWrite(snapshot(layer, "app.py"), "x = 2\n"),
                         PlannedWrite(snapshot(layer, "new.py"), "n = 1\n")]).written
    assert (tmp_path / "app.py").read_text() == "x = 1\n" and not (tmp_path / "new.py").exists()
    assert layer.text("app.py") == "x = 2\n" and ("new.py", False) in layer.entries("")
    assert [(before.rel, before.text, after) for before, after in layer.layer()] == [
        ("app.py", "x = 1\n", "x = 2\n"), ("new.py", None, "n = 1\n")]
    assert disk.commit([PlannedWrite(before, after) for before, after in layer.layer() if after is not None]).written
    assert (tmp_path / "app.py").read_text() == "x = 2\n" and (tmp_path / "new.py").read_text() == "n = 1\n"
