"""A run's record as one file, ``journal/<run_id>``: written and synced once, its state changed in place.

Layout: a fixed head, the run's JSON, then the payload (the old bytes each
entry's `Saved` points into)::

    editblocks-run 2 <state, 9 bytes> <JSON length, 12 digits>\\n
    {"version": 1, "run_id": ..., "files": [...], "payload": <bytes>}
    <payload>

One file means one fsync for the record and one for the journal folder it
is linked into. The state sits at a fixed place so that moving a run on
(``pending`` → ``committed`` → ``undone``) is one small write, no new file:
a crash that loses it leaves the run pending, which undo recovers from the
fingerprints. The record is written under a temporary name and linked to
its run id only once complete and synced, so a record is never half there;
a temporary name left by a killed run is removed by the next run.

Like the older one-folder runs (`records.load_run`), the file is data a
repository can carry: opened without following a link, refused if it is not
a regular file or someone else's, and checked to the byte before it is believed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import stat
from collections.abc import Sequence

from editblocks.workspace.dirfd import CREATE_FLAGS, READ_FLAGS, check_name
from editblocks.workspace.records import (
    MANIFEST_MAX_BYTES,
    DamagedRun,
    Run,
    RunState,
    Saved,
    Stranger,
    UntrustedRun,
    load_run,
    manifest_document,
    run_from_document,
)

MAGIC = b"editblocks-run 2 "
STATE_AT = len(MAGIC)
STATE_WIDTH = 9
HEAD_SIZE = STATE_AT + STATE_WIDTH + 1 + 12 + 1
_HEAD = re.compile(rb"editblocks-run 2 (pending  |committed|undone   ) ([0-9]{12})\n")
TEMP = re.compile(r"\.run-[0-9a-f]{8}\.tmp")
LINK_UNSUPPORTED = (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS)


def _state_bytes(state: RunState) -> bytes:
    return state.value.encode("ascii").ljust(STATE_WIDTH)


def encode(run: Run, payload: int) -> bytes:
    """The head and JSON of ``run``'s record, whose payload is ``payload`` bytes long."""
    document = manifest_document(run)
    del document["state"]
    document["payload"] = payload
    body = json.dumps(document, separators=(",", ":")).encode("utf-8")
    return MAGIC + _state_bytes(run.state) + f" {len(body):012d}\n".encode("ascii") + body


def write(runs: int, run: Run, blobs: Sequence[bytes]) -> tuple[int, int]:
    """Write ``run``'s record with ``blobs`` as its payload, synced, and link it in as ``run.run_id``.

    FileExistsError if that name is taken (another process took the number
    first); the caller fsyncs ``runs`` once the record is in. Returns its size and inode.
    """
    check_name(run.run_id)
    temp, fd = _temporary(runs, [encode(run, sum(len(blob) for blob in blobs)), *blobs])
    try:
        _link(runs, temp, run.run_id)
        status = os.fstat(fd)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=runs)
        os.close(fd)
    return status.st_size, status.st_ino


def redescribe(runs: int, run: Run, stranger: Stranger) -> None:
    """Replace a record with one describing ``run`` (its state, and the git index entries it staged), keeping the
    saved bytes: a new record is renamed over the old one, so it is always one or the other."""
    check_name(run.run_id)
    fd = os.open(run.run_id, READ_FLAGS, dir_fd=runs)
    try:
        status = os.fstat(fd)
        head = _head(fd, status.st_size) if stat.S_ISREG(status.st_mode) and not stranger(status) else \
            "it is not your record"
        if isinstance(head, str):
            raise OSError(errno.EINVAL, f"run {run.run_id} cannot be updated: {head}")
        start = HEAD_SIZE + head[1]
        payload = os.pread(fd, status.st_size - start, start)
    finally:
        os.close(fd)
    temp, out = _temporary(runs, [encode(run, len(payload)), payload])
    try:
        os.rename(temp, run.run_id, src_dir_fd=runs, dst_dir_fd=runs)
        os.fsync(runs)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=runs)
        raise
    finally:
        os.close(out)


def _temporary(runs: int, pieces: Sequence[bytes]) -> tuple[str, int]:
    """A new temporary record holding ``pieces``, synced, and its descriptor, flocked (so no other run clears it
    away as left over) until the caller closes it; nothing is left if writing fails."""
    import fcntl  # only when a run is written, so the pure API imports on platforms without fcntl

    temp = f".run-{secrets.token_hex(4)}.tmp"
    fd = os.open(temp, CREATE_FLAGS, 0o600, dir_fd=runs)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        for piece in pieces:
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=runs)
        os.close(fd)
        raise
    return temp, fd


def _link(runs: int, temp: str, name: str) -> None:
    """Give the complete record its run id, never replacing a record already there."""
    try:
        os.link(temp, name, src_dir_fd=runs, dst_dir_fd=runs, follow_symlinks=False)
    except OSError as error:
        if error.errno not in LINK_UNSUPPORTED:
            raise
        # a file system without hard links: the workspace lock keeps other writers off this name
        with contextlib.suppress(FileNotFoundError):
            os.stat(name, dir_fd=runs, follow_symlinks=False)
            raise FileExistsError(errno.EEXIST, f"run {name} exists") from None
        os.rename(temp, name, src_dir_fd=runs, dst_dir_fd=runs)


def load(runs: int, run_id: str, stranger: Stranger, *, state_only: bool = False
         ) -> Run | DamagedRun | UntrustedRun | RunState | None:
    """The run named ``run_id``, a record file or an older run folder; None if it never started.

    With ``state_only``, a record file's state alone (read from its head) when it is not pending.
    """
    check_name(run_id)
    try:
        fd = os.open(run_id, READ_FLAGS, dir_fd=runs)
    except FileNotFoundError:
        return None
    except OSError as error:
        what = "is a symlink, which editblocks does not follow there" if error.errno == errno.ELOOP else \
            f"cannot be opened: {error.strerror or error}"
        return DamagedRun(run_id, f"its record {what}")
    try:
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            return load_run(runs, run_id, stranger)
        if not stat.S_ISREG(status.st_mode):
            return DamagedRun(run_id, "its record is not a regular file")
        if stranger(status):
            return UntrustedRun(run_id, f"its record belongs to user {status.st_uid}, not to you "
                                        f"(user {os.geteuid()}), so you did not make this run")
        head = _head(fd, status.st_size)
        if isinstance(head, str):
            return DamagedRun(run_id, head)
        state, length = head
        if state_only and state is not RunState.PENDING:
            return state
        body = os.pread(fd, length, HEAD_SIZE)
    except OSError as error:
        return DamagedRun(run_id, f"its record cannot be read: {error.strerror or error}")
    finally:
        os.close(fd)
    try:
        document = json.loads(body)
    except ValueError:
        return DamagedRun(run_id, "its record's description is not valid JSON, so it was damaged")
    return _checked(run_from_document(document, run_id, "its record", state), document,
                    status.st_size - HEAD_SIZE - length)


def _head(fd: int, size: int) -> tuple[RunState, int] | str:
    """The state and JSON length a record's head gives, or why it is not a record's head."""
    found = _HEAD.fullmatch(os.pread(fd, HEAD_SIZE, 0))
    if found is None:
        return "its record does not start as a run record does" if size >= HEAD_SIZE else \
            f"its record is cut short ({size} bytes, not even its head)"
    length = int(found[2])
    if length > MANIFEST_MAX_BYTES:
        return f"its record claims a {length}-byte description, more than a run ever needs"
    if size < HEAD_SIZE + length:
        return f"its record is cut short ({size} of at least {HEAD_SIZE + length} bytes)"
    return RunState(found[1].decode("ascii").strip()), length


def _checked(run: Run | DamagedRun, document: dict[str, object], payload: int) -> Run | DamagedRun:
    """``run``, if its payload is exactly as long as its JSON says and every saved span lies within it."""
    if isinstance(run, DamagedRun):
        return run
    recorded = document.get("payload")
    if not isinstance(recorded, int) or isinstance(recorded, bool):
        return DamagedRun(run.run_id, "its record does not say how long its saved bytes are")
    if payload != recorded:
        shape = f"is cut short ({payload} of {recorded} saved bytes)" if payload < recorded else \
            f"has {payload - recorded} bytes more than it describes"
        return DamagedRun(run.run_id, f"its record {shape}")
    for entry in run.entries:
        if entry.backup is not None:
            return DamagedRun(run.run_id, f"its record names a saved copy file for `{entry.path}`")
        if entry.saved is not None and entry.saved.offset + entry.saved.length > payload:
            return DamagedRun(run.run_id, f"its record places the old bytes of `{entry.path}` beyond its end")
    return run


def read_saved(runs: int, run_id: str, saved: Saved, stranger: Stranger) -> bytes | None:
    """The bytes ``saved`` points to in a run's record, or None if they cannot be read from a record you own."""
    check_name(run_id)
    try:
        fd = os.open(run_id, READ_FLAGS, dir_fd=runs)
    except OSError:
        return None
    try:
        status = os.fstat(fd)
        head = _head(fd, status.st_size) if stat.S_ISREG(status.st_mode) and not stranger(status) else ""
        if isinstance(head, str):
            return None
        data = os.pread(fd, saved.length, HEAD_SIZE + head[1] + saved.offset)
        return data if len(data) == saved.length else None
    except OSError:
        return None
    finally:
        os.close(fd)


def set_state(runs: int, run_id: str, state: RunState, *, durable: bool) -> None:
    """Move a record to ``state`` in place; synced when ``durable`` (a lost change must be one undo survives)."""
    check_name(run_id)
    fd = os.open(run_id, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=runs)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or isinstance(_head(fd, status.st_size), str):
            raise OSError(errno.EINVAL, f"`{run_id}` is not a run record")
        os.pwrite(fd, _state_bytes(state), STATE_AT)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def remove_left_over(runs: int, name: str) -> None:
    """Remove a temporary record a killed run left, unless a run is still writing it (it holds its flock)."""
    import fcntl

    if TEMP.fullmatch(name) is None:
        return
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=runs)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.unlink(name, dir_fd=runs)
    except OSError:
        return
    finally:
        os.close(fd)
