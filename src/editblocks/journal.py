"""The undo journal: what each run replaced, made durable before any target file is touched.

Layout under ``<root>/.editblocks/``::

    .gitignore                     "*", so git never sees any of this
    lock                           the file `Workspace.lock()` flocks
    journal/<run_id>/manifest.json the run: state and one entry per file
    journal/<run_id>/0000.orig     byte-exact copy of each file the run replaced

A run id is ``<8-digit sequence>-<UTC time>``, so names sort in run order.
The manifest is replaced atomically, so it is always either the old or the
new version; its ``state`` moves ``pending`` → ``committed`` → ``undone``.
A run left ``pending`` was interrupted mid-write: each of its files is then
wholly old or wholly new, and the fingerprints tell which.

This module also holds the two durable-write primitives the workspace builds
on, because the journal is where durability matters first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from editblocks.paths import JOURNAL_DIR

KEEP_RUNS = 20
MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
_RUN_NAME = re.compile(r"(\d{8})-\d{8}T\d{6}Z")
_BACKUP_NAME = re.compile(r"\d{4}\.orig")


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


def fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_new_file(
    path: Path, data: bytes, *, mode: int | None = None, owner: tuple[int, int] | None = None
) -> None:
    """Create ``path``, which must not exist yet, holding ``data``, and fsync it.

    ``mode=None`` gives a new file's usual permissions (0o666 less the umask);
    otherwise the bits are set exactly. ``owner`` is copied when the process
    may (a run under sudo must not leave the user's files owned by root).
    A partial file is removed if anything fails.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(path, flags, 0o666 if mode is None else 0o600)
    try:
        if owner is not None and owner != owner_of(os.fstat(fd)):
            # Only a privileged process may give a file away; the content matters more.
            with contextlib.suppress(PermissionError):
                os.fchown(fd, *owner)
        if mode is not None:
            os.fchmod(fd, mode)  # after fchown, which clears set-id bits
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(fd)


def fsync_dir(path: Path) -> None:
    """Make renames and creations inside ``path`` survive a power cut."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def owner_of(status: os.stat_result) -> tuple[int, int]:
    """The (uid, gid) a rewritten file should keep."""
    return status.st_uid, status.st_gid


GITIGNORE = b"*\n"  # the journal holds copies of the user's files: git must never see it


class Journal:
    """The runs recorded under ``<root>/.editblocks/journal/``."""

    def __init__(self, root: Path) -> None:
        self.home = root / JOURNAL_DIR
        self.runs_dir = self.home / "journal"
        self.lock_path = self.home / "lock"

    def ensure(self) -> None:
        """Create the journal folders, hidden from git; raises OSError if the disk refuses."""
        if not self.home.is_dir():
            self.home.mkdir()
            fsync_dir(self.home.parent)
        ignore = self.home / ".gitignore"
        if not ignore.exists():
            write_new_file(ignore, GITIGNORE)
        elif ignore.read_bytes() != GITIGNORE:
            # A run killed while creating it left it incomplete (no backups exist yet then): repair it atomically.
            temp = self.home / ".gitignore.editblocks-new"
            temp.unlink(missing_ok=True)
            write_new_file(temp, GITIGNORE)
            os.replace(temp, ignore)
        if not self.runs_dir.is_dir():
            self.runs_dir.mkdir()
            fsync_dir(self.home)

    def start(self, entries: Sequence[JournalEntry], originals: Sequence[bytes | None]) -> Run:
        """Record a pending run: a copy of every original, then the manifest, all fsynced.

        ``originals[i]`` is the old content of ``entries[i]`` (None for a new
        file); backup names are assigned here. On failure the half-made run
        folder is removed and the OSError propagates: nothing was touched yet.
        """
        self.ensure()
        run_id, folder = self._new_run_folder()
        try:
            recorded = []
            for index, (entry, original) in enumerate(zip(entries, originals, strict=True)):
                if original is None:
                    recorded.append(entry)
                    continue
                backup = f"{index:04d}.orig"
                write_new_file(folder / backup, original)
                recorded.append(replace(entry, backup=backup))
            created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            run = Run(run_id, RunState.PENDING, created, tuple(recorded))
            self._write_manifest(run)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return run

    def mark(self, run: Run, state: RunState) -> Run:
        """Move a run to ``state``, atomically."""
        moved = replace(run, state=state)
        self._write_manifest(moved)
        return moved

    def runs(self) -> list[Run]:
        """Every run with a readable manifest, newest first."""
        try:
            names = sorted((name for name in os.listdir(self.runs_dir) if _RUN_NAME.fullmatch(name)), reverse=True)
        except OSError:
            return []
        runs = []
        for name in names:
            run = self._load(name)
            if run is not None:
                runs.append(run)
        return runs

    def original(self, run: Run, entry: JournalEntry) -> bytes | None:
        """The saved old bytes of ``entry``, or None if the copy is missing or damaged."""
        if entry.backup is None:
            return None
        try:
            data = (self.runs_dir / run.run_id / entry.backup).read_bytes()
        except OSError:
            return None
        return data if fingerprint(data) == entry.old_fingerprint else None

    def discard(self, run: Run) -> None:
        """Forget a run that was rolled back: the manifest first, so no half-deleted run looks pending."""
        folder = self.runs_dir / run.run_id
        (folder / MANIFEST).unlink()
        shutil.rmtree(folder, ignore_errors=True)

    def prune(self, keep: int = KEEP_RUNS) -> None:
        """Delete all but the newest ``keep`` runs; a failure only leaves old runs for next time."""
        try:
            names = sorted(name for name in os.listdir(self.runs_dir) if _RUN_NAME.fullmatch(name))
        except OSError:
            return
        for name in names[: max(len(names) - keep, 0)]:
            shutil.rmtree(self.runs_dir / name, ignore_errors=True)

    def _new_run_folder(self) -> tuple[str, Path]:
        """A fresh run folder whose name sorts after every existing one."""
        matches = (_RUN_NAME.fullmatch(name) for name in os.listdir(self.runs_dir))
        sequence = max((int(match.group(1)) for match in matches if match), default=0) + 1
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        while True:
            run_id = f"{sequence:08d}-{stamp}"
            folder = self.runs_dir / run_id
            try:
                folder.mkdir()
            except FileExistsError:
                sequence += 1  # another process took this number first
                continue
            fsync_dir(self.runs_dir)
            return run_id, folder

    def _write_manifest(self, run: Run) -> None:
        folder = self.runs_dir / run.run_id
        document = {
            "version": MANIFEST_VERSION,
            "run_id": run.run_id,
            "state": run.state.value,
            "created": run.created,
            "files": [entry.to_json() for entry in run.entries],
        }
        temp = folder / f".{MANIFEST}.{secrets.token_hex(4)}.tmp"
        write_new_file(temp, json.dumps(document, indent=2).encode("utf-8"))
        try:
            os.replace(temp, folder / MANIFEST)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        fsync_dir(folder)

    def _load(self, run_id: str) -> Run | None:
        """The run recorded in a folder, or None if it has no valid manifest (it never started)."""
        try:
            document = json.loads((self.runs_dir / run_id / MANIFEST).read_bytes())
            if document["version"] != MANIFEST_VERSION or document["run_id"] != run_id:
                return None
            return Run(
                run_id=run_id,
                state=RunState(document["state"]),
                created=str(document["created"]),
                entries=tuple(JournalEntry.from_json(item) for item in document["files"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
