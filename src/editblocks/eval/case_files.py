"""A case folder (or a saved run) read as data: regular files and folders only, and nothing that makes eval wait.

Cases and saved runs may come from someone else. A symlink in one would make
eval read, print and copy a file from elsewhere; a named pipe would make it
wait forever; opening a device can do anything. So every entry is looked at
without following it (the folder listing, or lstat) before it is opened; the
open neither follows a link nor waits (`O_NOFOLLOW | O_NONBLOCK`), and what
it opened must be a regular file (fstat), so an entry swapped after the look
is refused too. Folders are opened the same way (`dirfd.Tree`). A refusal
names the entry and says what it is.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from editblocks.workspace.dirfd import Kind, Tree, describe


class CaseDataError(ValueError):
    """An entry of a case that is not plain data, or cannot be read; the message names it and says why."""


@dataclass(frozen=True)
class CaseTree:
    """The files below one folder of a case, by relative POSIX path: their bytes and permission bits."""

    files: dict[str, bytes] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    folders: tuple[str, ...] = ()

    def write(self, root: Path) -> None:
        """Recreate the tree as the new folder ``root``, in a private temporary folder the caller made."""
        root.mkdir()
        for folder in self.folders:
            (root / folder).mkdir()
        for rel, data in self.files.items():
            (root / rel).write_bytes(data)
            os.chmod(root / rel, self.modes[rel])


def describe_kind(mode: int) -> str:
    """What an entry with the lstat ``mode`` is, in the words a refusal uses."""
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a regular file" if stat.S_ISREG(mode) else "an unknown kind of file"


class DataFolder:
    """One folder whose entries are read as data; a context manager (it holds the folder open)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        try:
            self._tree = Tree(path)
        except OSError as error:
            raise CaseDataError(f"`{path}` cannot be opened as a folder ({describe(error)})") from None

    def __enter__(self) -> DataFolder:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._tree.close()

    def has(self, rel: str) -> bool:
        """Whether anything at all is at ``rel`` (a link or a pipe counts: reading it is then refused)."""
        return self._status(rel) is not None

    def read(self, rel: str) -> bytes | None:
        """The bytes of the regular file ``rel``, or None if there is nothing there."""
        status = self._status(rel)
        if status is None:
            return None
        if not stat.S_ISREG(status.st_mode):
            raise CaseDataError(_refusal(rel, status.st_mode))
        return self._read_regular(rel)[0]

    def tree(self, top: str) -> CaseTree:
        """Every file and folder below the folder ``top`` (none if it does not exist)."""
        status = self._status(top)
        if status is None:
            return CaseTree()
        if not stat.S_ISDIR(status.st_mode):
            raise CaseDataError(_refusal(top, status.st_mode))
        files: dict[str, bytes] = {}
        modes: dict[str, int] = {}
        folders: list[str] = []
        try:
            for folder, name, kind in self._tree.walk(top, ignore_errors=False):
                rel = f"{folder}/{name}"
                inner = rel.removeprefix(f"{top}/")
                if kind is Kind.FOLDER:
                    folders.append(inner)
                elif kind is Kind.FILE:
                    files[inner], modes[inner] = self._read_regular(rel)
                else:
                    found = self._status(rel)
                    raise CaseDataError(_vanished(rel) if found is None else _refusal(rel, found.st_mode))
        except OSError as error:
            raise CaseDataError(f"`{top}` cannot be read ({describe(error)})") from None
        return CaseTree(files, modes, tuple(folders))

    def _status(self, rel: str) -> os.stat_result | None:
        try:
            return self._tree.status(rel)
        except OSError as error:
            raise CaseDataError(f"`{rel}` cannot be looked at ({describe(error)})") from None

    def _read_regular(self, rel: str) -> tuple[bytes, int]:
        """Bytes and permission bits of ``rel``, opened without following a link or waiting."""
        try:
            found = self._tree.read(rel)
        except OSError as error:
            raise CaseDataError(f"`{rel}` cannot be read ({describe(error)})") from None
        if found is None:
            raise CaseDataError(_vanished(rel))
        return found[0], stat.S_IMODE(found[1].st_mode)


def _refusal(rel: str, mode: int) -> str:
    what = describe_kind(mode)
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return f"`{rel}` is {what} where the case needs {'a folder' if stat.S_ISREG(mode) else 'a file'}"
    return f"`{rel}` is {what}; a case holds only regular files and folders, so it is not read"


def _vanished(rel: str) -> str:
    return f"`{rel}` vanished while the case was being read"
