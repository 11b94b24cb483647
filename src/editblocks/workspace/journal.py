"""The undo journal: what each run replaced, made durable before any target file is touched.

Layout under ``<root>/.editblocks/``::

    .gitignore                     "*", so git never sees any of this
    lock                           the file `Workspace.lock()` flocks
    journal/<run_id>/manifest.json the run: state and one entry per file
    journal/<run_id>/0000.orig     byte-exact copy of each file the run replaced
    journal/<run_id>.damaged       a run whose record was damaged, set aside by `undo --force`

A run id is ``<8-digit sequence>-<UTC time>``, so names sort in run order.
The manifest is replaced atomically, so it is always either the old or the
new version; its ``state`` moves ``pending`` → ``committed`` → ``undone``.
A run left ``pending`` was interrupted mid-write: each of its files is then
wholly old or wholly new, and the fingerprints tell which. A run folder
without a manifest was interrupted before it touched anything.

A cloned repository can carry this folder, so nothing in it is trusted: it is
reached through folder descriptors opened without following links (see
`dirfd`), a symlink or a non-folder anywhere in it is refused, and manifests
are checked before they are believed.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from editblocks.workspace.dirfd import (
    NotAFolder,
    entry_status,
    open_folder,
    read_entry,
    remove_entry,
    replace_entry,
    write_new_file,
)
from editblocks.workspace.git import Staged
from editblocks.workspace.paths import JOURNAL_DIR

KEEP_RUNS = 20
MAX_BYTES = 1 << 30  # 1 GiB of saved copies; the newest run is kept whatever its size
MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
MANIFEST_MAX_BYTES = 256 << 20  # far above any real run; a planted giant file is not read into memory
GITIGNORE = b"*\n"  # the journal holds copies of the user's files: git must never see it
LOCK = "lock"
RUNS = "journal"
SET_ASIDE = ".damaged"
_RUN_NAME = re.compile(r"(\d{8})-\d{8}T\d{6}Z")
_SET_ASIDE_NAME = re.compile(r"(\d{8})-\d{8}T\d{6}Z\.damaged")
_BACKUP_NAME = re.compile(r"\d{4}\.orig")
_PID = re.compile(rb"\d*\n?")


class RunState(StrEnum):
    PENDING = "pending"
    COMMITTED = "committed"
    UNDONE = "undone"


@dataclass(frozen=True)
class JournalEntry:
    """One file of a run: enough to put it back whichever state a crash left it in."""

    path: str  # canonical relative path of the target
    existed: bool
    backup: str | None  # file name of the copy of the old bytes, inside the run folder
    old_fingerprint: str | None
    old_mode: int | None
    new_fingerprint: str
    temp: str  # relative path of the temporary file renamed onto the target
    created_dirs: tuple[str, ...]  # folders this file's write created, outermost first

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "existed": self.existed,
            "backup": self.backup,
            "old_fingerprint": self.old_fingerprint,
            "old_mode": self.old_mode,
            "new_fingerprint": self.new_fingerprint,
            "temp": self.temp,
            "created_dirs": list(self.created_dirs),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JournalEntry:
        entry = cls(
            path=str(data["path"]),
            existed=bool(data["existed"]),
            backup=None if data["backup"] is None else str(data["backup"]),
            old_fingerprint=None if data["old_fingerprint"] is None else str(data["old_fingerprint"]),
            old_mode=None if data["old_mode"] is None else int(data["old_mode"]),
            new_fingerprint=str(data["new_fingerprint"]),
            temp=str(data["temp"]),
            created_dirs=tuple(str(folder) for folder in data["created_dirs"]),
        )
        if entry.existed != (entry.backup is not None) or (
            entry.backup is not None and not _BACKUP_NAME.fullmatch(entry.backup)
        ):
            raise ValueError(f"inconsistent journal entry for {entry.path!r}")
        return entry


@dataclass(frozen=True)
class Run:
    run_id: str
    state: RunState
    created: str
    entries: tuple[JournalEntry, ...]
    staged: tuple[Staged, ...] = ()  # git index entries `--git-add` changed, put back by undo


@dataclass(frozen=True)
class DamagedRun:
    """A run folder whose record cannot be believed: undo must stop there rather than skip it silently."""

    run_id: str
    why: str


def fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Journal:
    """The runs recorded under ``<root>/.editblocks/journal/``, kept within ``keep_runs`` and ``max_bytes``."""

    def __init__(self, root: Path, *, keep_runs: int = KEEP_RUNS, max_bytes: int = MAX_BYTES) -> None:
        if keep_runs < 1 or max_bytes < 0:
            raise ValueError("the journal keeps at least one run and a size of at least 0 bytes")
        self.root = root
        self.home = root / JOURNAL_DIR
        self.runs_dir = self.home / RUNS
        self.keep_runs = keep_runs
        self.max_bytes = max_bytes

    # --- the state folder ---------------------------------------------------------------------

    def exists(self) -> bool:
        """Whether anything is at ``.editblocks`` (without following a link or creating anything)."""
        return os.path.lexists(self.home)

    def ensure(self) -> None:
        """Create the state folder, hidden from git, and the journal folder; safe for many processes at once.

        Raises OSError, with a sentence saying what is wrong, if the disk
        refuses or if any part is a symlink or not a folder.
        """
        with self._folders(create=True):
            pass

    def open_lock(self) -> int:
        """A descriptor of the lock file, created if missing, checked to be one editblocks may use.

        The lock is checked before anything else is created, so a refused
        workspace is left exactly as it was found.
        """
        root = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            home = self._open_home(root, create=True)
            assert home is not None
        finally:
            os.close(root)
        try:
            status = entry_status(home, LOCK)
            if status is not None:
                self._check_lock(status)  # before opening: never open a device, a pipe or a link
            self.ensure()
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
            self._check_lock(os.fstat(fd))  # it may have been swapped between the check and the open
        except BaseException:
            os.close(fd)
            raise
        return fd

    @staticmethod
    def may_write_pid(fd: int) -> bool:
        """Whether the lock holds nothing but a process id, so writing ours there loses nothing."""
        return _PID.fullmatch(os.pread(fd, 64, 0)) is not None

    # --- runs -----------------------------------------------------------------------------------------

    def start(self, entries: Sequence[JournalEntry], originals: Sequence[bytes | None]) -> Run:
        """Record a pending run: a copy of every original, then the manifest, all fsynced.

        ``originals[i]`` is the old content of ``entries[i]`` (None for a new
        file); backup names are assigned here. Run folders that killed runs
        left without a manifest are removed first. On failure the half-made
        run folder is removed and the OSError propagates: nothing was touched yet.
        """
        with self._folders(create=True) as found:
            assert found is not None
            _, runs = found
            self._remove_orphans(runs)
            run_id, folder = self._new_run_folder(runs)
            try:
                recorded = []
                for index, (entry, original) in enumerate(zip(entries, originals, strict=True)):
                    if original is None:
                        recorded.append(entry)
                        continue
                    backup = f"{index:04d}.orig"
                    write_new_file(folder, backup, original)
                    recorded.append(replace(entry, backup=backup))
                created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
                run = Run(run_id, RunState.PENDING, created, tuple(recorded))
                _write_manifest(folder, run)
            except BaseException:
                shutil.rmtree(run_id, dir_fd=runs, ignore_errors=True)
                raise
            finally:
                os.close(folder)  # and with it the flock that kept the unfinished folder from tidy-ups
        return run

    def mark(self, run: Run, state: RunState) -> Run:
        """Move a run to ``state``, atomically."""
        moved = replace(run, state=state)
        with self._run_folder(run.run_id) as folder:
            _write_manifest(folder, moved)
        return moved

    def record_staging(self, run: Run, staged: Sequence[Staged]) -> Run:
        """Remember which git index entries the run staged, so undo can put them back."""
        updated = replace(run, staged=tuple(staged))
        with self._run_folder(run.run_id) as folder:
            _write_manifest(folder, updated)
        return updated

    def records(self) -> list[Run | DamagedRun]:
        """Every run, newest first, damaged ones included; folders of runs that never started are left out."""
        with self._folders(create=False) as found:
            if found is None:
                return []
            _, runs = found
            records = []
            for name in sorted((name for name in os.listdir(runs) if _RUN_NAME.fullmatch(name)), reverse=True):
                record = _load(runs, name)
                if record is not None:
                    records.append(record)
            return records

    def runs(self) -> list[Run]:
        """Every run with a readable manifest, newest first; an unreadable journal has none."""
        try:
            return [record for record in self.records() if isinstance(record, Run)]
        except OSError:
            return []

    def original(self, run: Run, entry: JournalEntry) -> bytes | None:
        """The saved old bytes of ``entry``, or None if the copy is missing or damaged."""
        if entry.backup is None:
            return None
        try:
            with self._run_folder(run.run_id) as folder:
                found = read_entry(folder, entry.backup, shown=entry.backup)
        except OSError:
            return None
        return found[0] if found is not None and fingerprint(found[0]) == entry.old_fingerprint else None

    def discard(self, run: Run) -> None:
        """Forget a run that was rolled back: the manifest first, so no half-deleted run looks pending."""
        with self._folders(create=False) as found:
            if found is None:
                return
            _, runs = found
            folder = open_folder(runs, run.run_id, shown=f"{JOURNAL_DIR}/{RUNS}/{run.run_id}")
            try:
                os.unlink(MANIFEST, dir_fd=folder)
            finally:
                os.close(folder)
            shutil.rmtree(run.run_id, dir_fd=runs, ignore_errors=True)

    def set_aside(self, run_id: str) -> str:
        """Rename a damaged run out of the way (kept for manual recovery); returns its new name."""
        aside = run_id + SET_ASIDE
        with self._folders(create=False) as found:
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "the journal folder is gone")
            _, runs = found
            os.rename(run_id, aside, src_dir_fd=runs, dst_dir_fd=runs)
            os.fsync(runs)
        return aside

    def prune(self) -> None:
        """Keep at most ``keep_runs`` runs and ``max_bytes`` of them, oldest removed first.

        The newest run and a run still pending (interrupted, awaiting undo)
        are always kept. A failure only leaves old runs for next time.
        """
        with contextlib.suppress(OSError), self._folders(create=False) as found:
            if found is None:
                return
            _, runs = found
            names = sorted((name for name in os.listdir(runs)
                            if _RUN_NAME.fullmatch(name) or _SET_ASIDE_NAME.fullmatch(name)), key=_sequence)
            sizes = {name: _size(runs, name) for name in names}
            count, total = len(names), sum(sizes.values())
            for name in names[:-1]:
                if count <= self.keep_runs and total <= self.max_bytes:
                    break
                record = _load(runs, name) if _RUN_NAME.fullmatch(name) else None
                if isinstance(record, Run) and record.state is RunState.PENDING:
                    continue
                _remove(runs, name)
                count, total = count - 1, total - sizes[name]

    # --- opening --------------------------------------------------------------------------------------

    @contextmanager
    def _folders(self, *, create: bool) -> Iterator[tuple[int, int] | None]:
        """The open state folder and journal folder; None if they do not exist and ``create`` is False."""
        root = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        opened: list[int] = []
        try:
            home = self._open_home(root, create=create)
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

    def _open_home(self, root: int, *, create: bool) -> int | None:
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
    def _run_folder(self, run_id: str) -> Iterator[int]:
        with self._folders(create=False) as found:
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "the journal folder is gone")
            _, runs = found
            folder = open_folder(runs, run_id, shown=f"{JOURNAL_DIR}/{RUNS}/{run_id}")
            try:
                yield folder
            finally:
                os.close(folder)

    def _check_lock(self, status: os.stat_result) -> None:
        """Refuse a lock that is a link, not a regular file, linked elsewhere too, or someone else's."""
        if stat.S_ISLNK(status.st_mode):
            raise OSError(errno.ELOOP, _lock_problem("is a symlink"))
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, _lock_problem("is not a regular file"))
        if status.st_nlink != 1:
            raise OSError(errno.EMLINK,
                          _lock_problem("has other hard links, so writing to it would change another file"))
        if self._stranger(status):
            owner = f"belongs to user {status.st_uid}, not to you (user {os.geteuid()})"
            raise OSError(errno.EPERM, _lock_problem(owner))

    def _check_folder(self, fd: int, shown: str) -> None:
        """Refuse a state folder someone else owns: they could change the runs undo would trust."""
        status = os.fstat(fd)
        if self._stranger(status):
            raise OSError(errno.EPERM, f"`{shown}` belongs to user {status.st_uid}, not to you (user {os.geteuid()}); "
                                       "editblocks only trusts an undo journal you own")

    def _stranger(self, status: os.stat_result) -> bool:
        """Whether a file belongs to neither this user nor, when running as root, the project's owner."""
        me = os.geteuid()
        return status.st_uid != me and not (me == 0 and status.st_uid == os.stat(self.root).st_uid)

    def _remove_orphans(self, runs: int) -> None:
        """Remove run folders a killed run left without a manifest (never one another process is still filling)."""
        for name in os.listdir(runs):
            if not _RUN_NAME.fullmatch(name):
                continue
            try:
                folder = open_folder(runs, name, shown=name)
            except OSError:
                continue  # a link or a file: damaged, for undo to report, not an orphan
            try:
                if entry_status(folder, MANIFEST) is not None:
                    continue
                try:
                    fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # its run is still writing copies
                shutil.rmtree(name, dir_fd=runs, ignore_errors=True)
            finally:
                os.close(folder)

    def _new_run_folder(self, runs: int) -> tuple[str, int]:
        """A fresh run folder whose name sorts after every existing one, open and flocked while it fills."""
        sequence = max((int(name[:8]) for name in os.listdir(runs)
                        if _RUN_NAME.fullmatch(name) or _SET_ASIDE_NAME.fullmatch(name)), default=0) + 1
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        while True:
            run_id = f"{sequence:08d}-{stamp}"
            try:
                os.mkdir(run_id, dir_fd=runs)
            except FileExistsError:
                sequence += 1  # another process took this number first
                continue
            folder = open_folder(runs, run_id, shown=run_id)
            fcntl.flock(folder, fcntl.LOCK_EX)
            os.fsync(runs)
            return run_id, folder


def _lock_problem(what: str) -> str:
    return f"`{JOURNAL_DIR}/{LOCK}` {what}; editblocks refuses to use a lock it cannot trust (remove it to go on)"


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


def _write_manifest(folder: int, run: Run) -> None:
    document: dict[str, Any] = {
        "version": MANIFEST_VERSION,
        "run_id": run.run_id,
        "state": run.state.value,
        "created": run.created,
        "files": [entry.to_json() for entry in run.entries],
    }
    if run.staged:
        document["git_index"] = [item.to_json() for item in run.staged]
    temp = f".{MANIFEST}.{secrets.token_hex(4)}.tmp"
    write_new_file(folder, temp, json.dumps(document, indent=2).encode("utf-8"))
    try:
        replace_entry(folder, temp, MANIFEST)
    except BaseException:
        remove_entry(folder, temp)
        raise
    os.fsync(folder)


def _load(runs: int, run_id: str) -> Run | DamagedRun | None:
    """The run recorded in a folder, why its record cannot be believed, or None if it never started."""
    try:
        folder = open_folder(runs, run_id, shown=f"{JOURNAL_DIR}/{RUNS}/{run_id}")
    except FileNotFoundError:
        return None
    except OSError as error:
        return DamagedRun(run_id, error.strerror or str(error))
    try:
        found = read_entry(folder, MANIFEST, shown=MANIFEST, limit=MANIFEST_MAX_BYTES)
    except OSError as error:
        return DamagedRun(run_id, f"{MANIFEST} cannot be read: {error.strerror or error}")
    finally:
        os.close(folder)
    if found is None:
        return None
    try:
        document = json.loads(found[0])
        if document["version"] != MANIFEST_VERSION:
            return DamagedRun(run_id, f"{MANIFEST} has version {document['version']!r}, not {MANIFEST_VERSION}")
        if document["run_id"] != run_id:
            return DamagedRun(run_id, f"{MANIFEST} names another run, {document['run_id']!r}")
        entries = tuple(JournalEntry.from_json(item) for item in document["files"])
        staged = tuple(Staged.from_json(item) for item in document.get("git_index", ()))
        if not {item.path for item in staged} <= {entry.path for entry in entries}:
            raise ValueError("the git index entries name files the run did not write")
        return Run(run_id, RunState(document["state"]), str(document["created"]), entries, staged)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        truncated = isinstance(error, json.JSONDecodeError)
        what = "is not valid JSON, perhaps cut short" if truncated else f"is incomplete ({error!r})"
        return DamagedRun(run_id, f"{MANIFEST} {what}")


def _sequence(name: str) -> tuple[int, str]:
    return int(name[:8]), name


def _size(runs: int, name: str) -> int:
    """Bytes held by one run folder (a link or a file counts as nothing: removing it frees nothing)."""
    try:
        folder = open_folder(runs, name, shown=name)
    except OSError:
        return 0
    try:
        total = 0
        for entry in os.listdir(folder):
            with contextlib.suppress(OSError):
                total += os.stat(entry, dir_fd=folder, follow_symlinks=False).st_size
        return total
    finally:
        os.close(folder)


def _remove(runs: int, name: str) -> None:
    """Delete one run folder, or the link or file planted under a run's name (never what it points to)."""
    status = entry_status(runs, name)
    if status is None:
        return
    if stat.S_ISDIR(status.st_mode):
        shutil.rmtree(name, dir_fd=runs, ignore_errors=True)
    else:
        remove_entry(runs, name)
