"""The workspace lock: ``.editblocks/lock``, flocked for one read → plan → commit.

The lock file lies in a folder a cloned repository can carry, so it is
checked before it is opened and again once open: a link, a device, a file
with other hard links, or someone else's file is refused. `fcntl` is imported
only when the lock is taken, so the pure API imports where fcntl does not exist.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from editblocks.errors import WorkspaceBusy, WorkspaceError
from editblocks.workspace.dirfd import describe, entry_status
from editblocks.workspace.paths import JOURNAL_DIR
from editblocks.workspace.state import StateFolder

LOCK = "lock"
LOCK_POLL_SECONDS = 0.05
_PID = re.compile(rb"\d*\n?")


@contextmanager
def hold(state: StateFolder, *, wait: float) -> Iterator[None]:
    """Hold the lock of ``state``'s project while the block runs (what `Workspace.lock` does)."""
    import fcntl  # here, where the lock is taken, so the pure API imports on platforms without fcntl

    try:
        fd = open_lock(state)
    except OSError as error:
        raise WorkspaceError(f"cannot use the undo journal of {state.root}: {describe(error)}") from error
    try:
        _acquire(fd, wait, state.root)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire(fd: int, wait: float, root: Path) -> None:
    """Take the flock within ``wait`` seconds, then leave this process's id in the lock for a busy message."""
    import fcntl

    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                who = f"process {holder}" if holder.isdigit() else "another process"
                raise WorkspaceBusy(
                    f"{root} is busy: {who} is applying edits there; gave up after waiting {wait:g} s"
                ) from None
            time.sleep(min(LOCK_POLL_SECONDS, remaining))
        else:
            with contextlib.suppress(OSError):  # the holder's pid only improves the busy message
                if _may_write_pid(fd):  # never truncate what editblocks did not write
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            return


def open_lock(state: StateFolder) -> int:
    """A descriptor of the lock file, created if missing, checked to be one editblocks may use.

    The lock is checked before anything else is created, so a refused
    workspace is left exactly as it was found.
    """
    root = os.open(state.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        home = state.open_home(root, create=True)
        assert home is not None
    finally:
        os.close(root)
    try:
        status = entry_status(home, LOCK)
        if status is not None:
            _check_lock(state, status)  # before opening: never open a device, a pipe or a link
        state.ensure()  # the journal folder must be usable (not a link or a file) before any run starts
        try:
            fd = os.open(LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644,
                         dir_fd=home)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise OSError(errno.ELOOP, _lock_problem("is a symlink")) from None
            raise
    finally:
        os.close(home)
    try:
        _check_lock(state, os.fstat(fd))  # it may have been swapped between the check and the open
    except BaseException:
        os.close(fd)
        raise
    return fd


def _may_write_pid(fd: int) -> bool:
    """Whether the lock holds nothing but a process id, so writing ours there loses nothing."""
    return _PID.fullmatch(os.pread(fd, 64, 0)) is not None


def _check_lock(state: StateFolder, status: os.stat_result) -> None:
    """Refuse a lock that is a link, not a regular file, linked elsewhere too, or someone else's."""
    if stat.S_ISLNK(status.st_mode):
        raise OSError(errno.ELOOP, _lock_problem("is a symlink"))
    if not stat.S_ISREG(status.st_mode):
        raise OSError(errno.EINVAL, _lock_problem("is not a regular file"))
    if status.st_nlink != 1:
        raise OSError(errno.EMLINK,
                      _lock_problem("has other hard links, so writing to it would change another file"))
    if state.stranger(status):
        owner = f"belongs to user {status.st_uid}, not to you (user {os.geteuid()})"
        raise OSError(errno.EPERM, _lock_problem(owner))


def _lock_problem(what: str) -> str:
    return f"`{JOURNAL_DIR}/{LOCK}` {what}; editblocks refuses to use a lock it cannot trust (remove it to go on)"
