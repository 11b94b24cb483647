"""The state folder ``.editblocks/`` and its ``journal/`` folder: opened, made when missing, trusted only if yours.

A cloned repository can carry this folder, so nothing in it is trusted: each
folder is opened without following a link (see `dirfd`), a symlink or a
non-folder is refused, and so is a folder someone else owns. ``.gitignore``
keeps git from ever seeing the copies of the user's files kept inside.
"""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from editblocks.workspace.dirfd import NotAFolder, open_folder, read_entry, remove_entry, replace_entry, write_new_file
from editblocks.workspace.paths import JOURNAL_DIR

GITIGNORE = b"*\n"  # the journal holds copies of the user's files: git must never see it
RUNS = "journal"


class StateFolder:
    """``.editblocks/`` under ``root``, reached from the root down through folder descriptors."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / JOURNAL_DIR

    def exists(self) -> bool:
        """Whether anything is at ``.editblocks`` (without following a link or creating anything)."""
        return os.path.lexists(self.home)

    def ensure(self) -> None:
        """Create the state folder, hidden from git, and the journal folder; safe for many processes at once.

        Raises OSError, with a sentence saying what is wrong, if the disk
        refuses or if any part is a symlink or not a folder.
        """
        with self.folders(create=True):
            pass

    @contextmanager
    def folders(self, *, create: bool) -> Iterator[tuple[int, int] | None]:
        """The open state folder and journal folder; None if they do not exist and ``create`` is False."""
        root = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        opened: list[int] = []
        try:
            home = self.open_home(root, create=create)
            if home is None:
                yield None
                return
            opened.append(home)
            runs = self._open_state_folder(home, f"{JOURNAL_DIR}/{RUNS}", create=create)
            if runs is None:
                yield None
                return
            opened.append(runs)
            if create:
                _ensure_gitignore(home)
            yield home, runs
        finally:
            for fd in (*opened, root):
                os.close(fd)

    def open_home(self, root: int, *, create: bool) -> int | None:
        """The open ``.editblocks`` inside the open ``root``; None if it is missing and ``create`` is False."""
        return self._open_state_folder(root, JOURNAL_DIR, create=create)

    def _open_state_folder(self, parent: int, shown: str, *, create: bool) -> int | None:
        """Open ``.editblocks`` or its journal folder without following a link, made first if missing and asked.

        Opening comes first, so the usual case costs no `mkdir`; a folder another
        process makes at the same moment is just as good as one made here.
        """
        name = shown.rpartition("/")[2]
        fd = _open_existing(parent, name, shown=shown)
        if fd is None and create:
            try:
                os.mkdir(name, dir_fd=parent)
            except FileExistsError:
                pass
            except OSError as error:
                if error.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                    raise
                because = "the file system is read-only" if error.errno == errno.EROFS else "the folder is not writable"
                raise OSError(error.errno, f"`{shown}/` cannot be created in {self.root} because {because} "
                                           f"({os.strerror(error.errno)}); editblocks keeps its undo journal there "
                                           "and writes nothing without one") from None
            else:
                os.fsync(parent)
            fd = _open_existing(parent, name, shown=shown)
            if fd is None:
                raise FileNotFoundError(errno.ENOENT, f"`{shown}` vanished as soon as it was made")
        if fd is not None:
            try:
                self._check_folder(fd, shown)
            except BaseException:
                os.close(fd)
                raise
        return fd

    @contextmanager
    def run_folder(self, run_id: str) -> Iterator[int]:
        """The open folder of one run; FileNotFoundError if the journal folder is gone."""
        with self.folders(create=False) as found:
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "the journal folder is gone")
            _, runs = found
            folder = open_folder(runs, run_id, shown=f"{JOURNAL_DIR}/{RUNS}/{run_id}")
            try:
                yield folder
            finally:
                os.close(folder)

    def _check_folder(self, fd: int, shown: str) -> None:
        """Refuse a state folder someone else owns: they could change the runs undo would trust."""
        status = os.fstat(fd)
        if self.stranger(status):
            raise OSError(errno.EPERM, f"`{shown}` belongs to user {status.st_uid}, not to you (user {os.geteuid()}); "
                                       "editblocks only trusts an undo journal you own")

    def stranger(self, status: os.stat_result) -> bool:
        """Whether a file belongs to neither this user nor, when running as root, the project's owner."""
        me = os.geteuid()
        return status.st_uid != me and not (me == 0 and status.st_uid == os.stat(self.root).st_uid)


def _open_existing(parent: int, name: str, *, shown: str) -> int | None:
    """Open the state folder ``name`` without following a link; None if it does not exist."""
    try:
        return open_folder(parent, name, shown=shown)
    except FileNotFoundError:
        return None
    except NotAFolder as error:
        raise OSError(error.errno, f"{error.strerror}; editblocks keeps its undo journal only in a real folder "
                                   "of the project (remove it to go on)") from None


def _ensure_gitignore(home: int) -> None:
    """Create ``.gitignore`` with one exclusive write; repair it atomically if it is anything else."""
    try:
        write_new_file(home, ".gitignore", GITIGNORE)
        return
    except FileExistsError:
        pass
    try:
        found = read_entry(home, ".gitignore", shown=".gitignore", limit=1024)
    except OSError:
        found = None  # a link, a pipe or a giant file: replaced below, never followed
    if found is not None and found[0] == GITIGNORE:
        return
    # A run killed while creating it left it incomplete, or another process is writing it right now:
    # either way a whole new one, under a name no other process uses, replaces it.
    temp = f".gitignore.{secrets.token_hex(4)}.tmp"
    write_new_file(home, temp, GITIGNORE)
    try:
        replace_entry(home, temp, ".gitignore")
    except BaseException:
        remove_entry(home, temp)
        raise
