"""Files below a folder, reached through open folder descriptors and never through a symlink.

A path string is looked up again by the kernel every time it is used, so a
folder swapped for a symlink between a check and a write redirects the write
(a time-of-check/time-of-use race). Here every folder is opened once, one
component at a time from the root down, with ``O_NOFOLLOW``; every read,
creation, rename and removal afterwards names a single entry inside a folder
that is already open. Whatever happens to the path later, the write lands in
the folder that was opened, and that folder was inside the root when it was
opened.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Collection, Iterator
from enum import StrEnum
from os import PathLike
from types import TracebackType

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
OPEN_FOLDERS_KEPT = 64  # a tree of thousands of folders must not run the process out of descriptors


class NotAFolder(OSError):
    """A path component that is a symlink, or not a folder, where a folder was expected."""

    def __init__(self, shown: str, *, is_link: bool) -> None:
        what = "is a symlink, which editblocks does not follow there" if is_link else "is not a folder"
        super().__init__(errno.ENOTDIR, f"`{shown}` {what}")
        self.is_link = is_link


def check_name(name: str) -> None:
    """Refuse anything but one plain entry name: data read from disk must not smuggle in `..` or a `/`."""
    if name in ("", ".", "..") or "/" in name or "\0" in name:
        raise OSError(errno.EINVAL, f"`{name}` is not a plain file name")


def open_folder(parent: int, name: str, *, shown: str) -> int:
    """Open the folder ``name`` inside ``parent`` without following a link; ``shown`` names it in errors."""
    check_name(name)
    try:
        return os.open(name, FOLDER_FLAGS, dir_fd=parent)
    except OSError as error:
        if error.errno not in (errno.ENOTDIR, errno.ELOOP):
            raise
        status = entry_status(parent, name)
        raise NotAFolder(shown, is_link=status is not None and stat.S_ISLNK(status.st_mode)) from None


def entry_status(folder: int, name: str) -> os.stat_result | None:
    """``lstat`` of one entry of an open folder, or None if there is no such entry."""
    check_name(name)
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_entry(folder: int, name: str, *, shown: str, limit: int | None = None) -> tuple[bytes, os.stat_result] | None:
    """Bytes and status of the regular file ``name`` in ``folder``, or None if it does not exist.

    A symlink, a device or a pipe is an error, never opened through or read
    from; so is a file larger than ``limit`` bytes.
    """
    check_name(name)
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, f"`{shown}` is a symlink, which editblocks does not follow there") from None
        raise
    with open(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if limit is not None and status.st_size > limit:
            raise OSError(errno.EFBIG, f"`{shown}` is larger than the {limit} bytes expected")
        return handle.read(), status


class Kind(StrEnum):
    """What an entry is itself: a link is a link, whatever it points to."""

    FOLDER = "folder"
    FILE = "file"
    LINK = "symlink"
    SPECIAL = "special file"  # a named pipe, a socket or a device


def scan(folder: int) -> list[tuple[str, Kind]]:
    """The names in an open folder, sorted, each with its kind (from the listing itself: nothing is opened)."""
    with os.scandir(folder) as entries:
        return sorted((entry.name, _kind(entry)) for entry in entries)


def _kind(entry: os.DirEntry[str]) -> Kind:
    if entry.is_symlink():
        return Kind.LINK
    if entry.is_dir(follow_symlinks=False):
        return Kind.FOLDER
    return Kind.FILE if entry.is_file(follow_symlinks=False) else Kind.SPECIAL


def with_executable(mode: int, executable: bool) -> int:
    """Permission bits ``mode`` with the executable bits set (for whoever may read) or cleared; set-ID and sticky
    bits are dropped either way, since a diff may only make a file executable or not."""
    bits = mode & 0o777
    return bits | (bits & 0o444) >> 2 if executable else bits & ~0o111


def write_new_file(folder: int, name: str, data: bytes, *, mode: int | None = None,
                   owner: tuple[int, int] | None = None, executable: bool = False) -> None:
    """Create ``name`` in ``folder``, which must not exist yet, holding ``data``, and fsync it.

    ``mode=None`` gives a new file's usual permissions (0o666 less the umask),
    made executable for whoever may read it with ``executable``; otherwise the
    bits are set exactly. ``owner`` is copied when the process
    may (a run under sudo must not leave the user's files owned by root).
    A partial file is removed if anything fails.
    """
    check_name(name)
    fd = os.open(name, CREATE_FLAGS, 0o666 if mode is None else 0o600, dir_fd=folder)
    try:
        if owner is not None and owner != owner_of(os.fstat(fd)):
            # Only a privileged process may give a file away; the content matters more.
            with contextlib.suppress(PermissionError):
                os.fchown(fd, *owner)
        if mode is None and executable:
            mode = with_executable(stat.S_IMODE(os.fstat(fd).st_mode), True)
        if mode is not None:
            os.fchmod(fd, mode)  # after fchown, which clears set-id bits
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder)
        raise
    os.close(fd)


def replace_entry(folder: int, source: str, target: str) -> None:
    """Atomically rename ``source`` over ``target``, both entries of the same open folder."""
    check_name(source)
    check_name(target)
    os.replace(source, target, src_dir_fd=folder, dst_dir_fd=folder)


def remove_entry(folder: int, name: str) -> None:
    """Remove the entry ``name`` (a link itself, never what it points to); nothing if it is gone."""
    check_name(name)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=folder)


def owner_of(status: os.stat_result) -> tuple[int, int]:
    """The (uid, gid) a rewritten file should keep."""
    return status.st_uid, status.st_gid


def describe(error: OSError) -> str:
    """The system's own words for ``error``, as the messages quote it."""
    return error.strerror or str(error)


def split(rel: str) -> tuple[str, str]:
    """`a/b/c.txt` → (`a/b`, `c.txt`); a name at the top level has the folder ""."""
    folder, _, name = rel.rpartition("/")
    return folder, name


class Tree:
    """A root folder and the folders below it that one operation uses, each opened without following a link.

    Folders are named by canonical relative paths ("" is the root). A
    descriptor returned by `folder` or `make_folder` stays open until the next
    call of either (a few dozen are kept, so deep trees never run out).
    """

    def __init__(self, root: str | PathLike[str]) -> None:
        self._root = os.open(root, FOLDER_FLAGS)
        self._open: dict[str, int] = {}

    def __enter__(self) -> Tree:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._forget_all()
        os.close(self._root)

    @property
    def root(self) -> int:
        return self._root

    def folder(self, rel: str) -> int | None:
        """The open folder ``rel``, or None if some part of it does not exist; NotAFolder if one is a link."""
        if not rel:
            return self._root
        found = self._open.get(rel)
        if found is not None:
            return found
        if len(self._open) >= OPEN_FOLDERS_KEPT:
            self._forget_all()
        parts = rel.split("/")
        depth = len(parts) - 1
        while depth and "/".join(parts[:depth]) not in self._open:
            depth -= 1
        fd = self._open["/".join(parts[:depth])] if depth else self._root
        passing = False  # fd is a folder on the way that is not kept: close it once its child is open
        for index in range(depth, len(parts)):
            here = "/".join(parts[: index + 1])
            try:
                child: int | None = open_folder(fd, parts[index], shown=here)
            except FileNotFoundError:
                child = None
            finally:
                if passing:
                    os.close(fd)
            if child is None:
                return None
            fd = child
            passing = index < len(parts) - 1 and len(self._open) >= OPEN_FOLDERS_KEPT
            if not passing:
                self._open[here] = fd
        return fd

    def require(self, rel: str) -> int:
        """Like `folder`, but a missing folder is an error."""
        fd = self.folder(rel)
        if fd is None:
            raise FileNotFoundError(errno.ENOENT, f"the folder `{rel}` no longer exists")
        return fd

    def make_folder(self, rel: str) -> int:
        """Create the folder ``rel``, whose parent exists, and open it; FileExistsError if it is there."""
        parent_rel, name = split(rel)
        parent = self.require(parent_rel)
        check_name(name)
        os.mkdir(name, dir_fd=parent)
        fd = open_folder(parent, name, shown=rel)
        self._open[rel] = fd
        return fd

    def make_folders(self, rel: str) -> int:
        """The open folder ``rel``, creating whatever part of it is missing (as ``mkdir -p``)."""
        found = self.folder(rel)
        if found is not None:
            return found
        parts = rel.split("/")
        for index in range(len(parts)):
            here = "/".join(parts[: index + 1])
            if self.folder(here) is None:
                with contextlib.suppress(FileExistsError):  # another process made it first
                    self.make_folder(here)
        return self.require(rel)

    def status(self, rel: str) -> os.stat_result | None:
        """``lstat`` of ``rel``, or None if it (or a folder on the way) does not exist."""
        parent_rel, name = split(rel)
        parent = self.folder(parent_rel)
        return None if parent is None else entry_status(parent, name)

    def read(self, rel: str) -> tuple[bytes, os.stat_result] | None:
        """The bytes and status of the regular file ``rel``, or None if it does not exist."""
        parent_rel, name = split(rel)
        parent = self.folder(parent_rel)
        return None if parent is None else read_entry(parent, name, shown=rel)

    def walk(self, top: str = "", *, skip: Collection[str] = (), ignore_errors: bool = True
             ) -> Iterator[tuple[str, str, Kind]]:
        """(folder, name, kind) for every entry below ``top``, folders in sorted depth-first order.

        Each folder is opened from the one above it without following a link,
        so a folder swapped for a link while the walk goes on is never listed:
        it is passed over, like a folder that cannot be read, or raises
        (NotAFolder, OSError) when not ``ignore_errors``. Folders named in
        ``skip`` are not entered; one that vanishes has no entries.
        """
        pending = [top]
        while pending:
            rel = pending.pop()
            try:
                fd = self.folder(rel)
                entries = [] if fd is None else scan(fd)
            except OSError:
                if not ignore_errors:
                    raise
                continue
            for name, kind in entries:
                yield rel, name, kind
            pending += reversed([f"{rel}/{name}" if rel else name for name, kind in entries
                                 if kind is Kind.FOLDER and name not in skip])

    def forget(self, rel: str) -> None:
        """Close ``rel`` and every folder below it, after it was removed."""
        for name in [name for name in self._open if name == rel or name.startswith(rel + "/")]:
            os.close(self._open.pop(name))

    def _forget_all(self) -> None:
        for fd in self._open.values():
            os.close(fd)
        self._open.clear()
