"""Files reached through open folder descriptors: never through a link, never over an existing file."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from editblocks.workspace.dirfd import Kind, NotAFolder, Tree, write_new_file
from editblocks.workspace.project_files import walk_files


@contextmanager
def folder(path: Path) -> Iterator[int]:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def test_write_new_file_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "exists.txt"
    target.write_bytes(b"keep\n")
    with folder(tmp_path) as fd, pytest.raises(FileExistsError):
        write_new_file(fd, "exists.txt", b"clobber\n")
    assert target.read_bytes() == b"keep\n"


def test_write_new_file_never_writes_through_a_link(tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_bytes(b"keep\n")
    os.symlink(tmp_path / "outside.txt", tmp_path / "link.txt")
    os.symlink(tmp_path / "missing.txt", tmp_path / "dangling.txt")
    with folder(tmp_path) as fd:
        for name in ("link.txt", "dangling.txt"):
            with pytest.raises(FileExistsError):
                write_new_file(fd, name, b"clobber\n")
    assert (tmp_path / "outside.txt").read_bytes() == b"keep\n" and not (tmp_path / "missing.txt").exists()


def test_write_new_file_sets_the_exact_mode_or_the_umask_default(tmp_path: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        with folder(tmp_path) as fd:
            write_new_file(fd, "default.txt", b"d")
            write_new_file(fd, "exact.sh", b"e", mode=0o4750)
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE((tmp_path / "default.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "exact.sh").stat().st_mode) == 0o4750


def test_write_new_file_removes_a_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fail)
    with folder(tmp_path) as fd, pytest.raises(OSError):
        write_new_file(fd, "partial.txt", b"data")
    assert not (tmp_path / "partial.txt").exists()


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "a\0b"])
def test_only_plain_names_are_accepted(tmp_path: Path, name: str) -> None:
    with folder(tmp_path) as fd, pytest.raises(OSError) as refused:
        write_new_file(fd, name, b"x")
    assert refused.value.errno == errno.EINVAL
    assert os.listdir(tmp_path) == []


def test_a_tree_never_walks_through_a_link(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_bytes(b"secret\n")
    (tmp_path / "root" / "real").mkdir(parents=True)
    (tmp_path / "root" / "file.txt").write_bytes(b"plain\n")
    os.symlink("../outside", tmp_path / "root" / "out")
    os.symlink("real", tmp_path / "root" / "inside")
    with Tree(tmp_path / "root") as tree:
        for rel in ("out", "inside"):
            with pytest.raises(NotAFolder) as refused:
                tree.folder(rel)
            assert refused.value.is_link and "symlink" in str(refused.value)
        with pytest.raises(NotAFolder) as not_folder:
            tree.folder("file.txt")
        assert not not_folder.value.is_link
        with pytest.raises(OSError) as link_read:
            tree.read("out/secret.txt")
        assert "symlink" in str(link_read.value)
        assert tree.folder("missing/deeper") is None and tree.read("missing/x.txt") is None
        assert tree.read("file.txt") is not None and tree.read("file.txt")[0] == b"plain\n"  # type: ignore[index]


def test_a_deep_tree_keeps_few_descriptors_open(tmp_path: Path) -> None:
    parts = [f"d{n}" for n in range(300)]
    deep = tmp_path.joinpath(*parts)
    deep.mkdir(parents=True)
    (deep / "x.txt").write_bytes(b"deep\n")
    open_before = len(os.listdir("/proc/self/fd"))
    with Tree(tmp_path) as tree:
        found = tree.read("/".join([*parts, "x.txt"]))
        assert found is not None and found[0] == b"deep\n"
        assert len(os.listdir("/proc/self/fd")) - open_before < 100
    assert len(os.listdir("/proc/self/fd")) == open_before


def test_make_folders_creates_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    with Tree(tmp_path) as tree:
        fd = tree.make_folders("a/b/c")
        write_new_file(fd, "f.txt", b"made\n")
    assert (tmp_path / "a" / "b" / "c" / "f.txt").read_bytes() == b"made\n"


def test_a_walk_lists_links_and_pipes_as_what_they_are_and_enters_real_folders_only(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.txt").write_bytes(b"x\n")
    root = tmp_path / "root"
    (root / "b" / "deep").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"a\n")
    (root / "b" / "deep" / "c.txt").write_bytes(b"c\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_bytes(b"ref\n")
    os.symlink(outside, root / "b" / "out")
    os.symlink("a.txt", root / "to-a.txt")
    os.mkfifo(root / "pipe")
    with Tree(root) as tree:
        walked = list(tree.walk(skip={".git"}))
    assert walked == [("", ".git", Kind.FOLDER), ("", "a.txt", Kind.FILE), ("", "b", Kind.FOLDER),
                      ("", "pipe", Kind.SPECIAL), ("", "to-a.txt", Kind.LINK),
                      ("b", "deep", Kind.FOLDER), ("b", "out", Kind.LINK), ("b/deep", "c.txt", Kind.FILE)]
    # the suggestions' list of files: a link to a file is one, a link to a folder is not, git's folder is left out
    assert walk_files(root) == ["a.txt", "pipe", "to-a.txt", "b/deep/c.txt"]
    assert walk_files(root, limit=2) == ["a.txt", "pipe"]


def test_a_strict_walk_raises_where_a_folder_became_a_link(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "other").mkdir()
    with Tree(tmp_path) as tree:
        walking = tree.walk(ignore_errors=False)
        assert next(walking) == ("", "other", Kind.FOLDER)
        assert next(walking) == ("", "sub", Kind.FOLDER)
        (tmp_path / "sub").rmdir()
        os.symlink("other", tmp_path / "sub")
        with pytest.raises(NotAFolder, match="`sub` is a symlink"):
            list(walking)
        assert list(tree.walk()) == [("", "other", Kind.FOLDER), ("", "sub", Kind.LINK)]
