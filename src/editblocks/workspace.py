"""The only part of editblocks that touches the disk.

Parsing, locating and planning work on strings. The workspace turns a path
the model wrote into a file inside the root (or a `Refusal`), reads it into
text that encodes back to the very same bytes, and writes a whole plan at
once: checked against what was read (CASES F11), journaled before any file
changes, every file replaced atomically from a temporary file in its own
folder (F10), and rolled back from the journal if any step fails. `undo`
replays the journal backwards.

Environment conditions (disk full, permission denied, a file changed under
us) come back as values; only a busy or unusable workspace raises.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import fcntl
import os
import re
import secrets
import stat
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from editblocks.journal import (
    Journal,
    JournalEntry,
    Run,
    RunState,
    fingerprint,
    fsync_dir,
    owner_of,
    write_new_file,
)
from editblocks.model import counted
from editblocks.paths import Refusal, RefusalCode, is_plain_path, refusal, resolve_path

__all__ = [
    "ENCODINGS",
    "CommitOutcome",
    "FileSnapshot",
    "PlannedWrite",
    "Refusal",
    "RefusalCode",
    "UndoOutcome",
    "Workspace",
    "WorkspaceBusy",
    "WorkspaceError",
]

GIT_TIMEOUT_SECONDS = 60.0
LOCK_POLL_SECONDS = 0.05
TEMP_STEM_BYTES = 200  # leaves room for ".<stem>.editblocks-xxxxxxxx.tmp" within NAME_MAX

ENCODINGS: dict[str, tuple[bytes, str]] = {
    "utf-8": (b"", "utf-8"),
    "utf-8-sig": (codecs.BOM_UTF8, "utf-8"),
    "utf-16-le-bom": (codecs.BOM_UTF16_LE, "utf-16-le"),
    "utf-16-be-bom": (codecs.BOM_UTF16_BE, "utf-16-be"),
}
"""Snapshot encoding name → (byte-order mark, Python codec). Checked in this order when reading."""

_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
_BOM_ORDER = ("utf-16-le-bom", "utf-16-be-bom", "utf-8-sig")
_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
_TEMP_NAME = re.compile(r"\..*\.editblocks-[0-9a-f]{8}\.tmp", re.DOTALL)


class WorkspaceError(Exception):
    """The workspace cannot be used at all: the root is not a folder, or its lock cannot be created."""


class WorkspaceBusy(WorkspaceError):
    """Another process holds the workspace lock; the CLI reports this and exits."""


@dataclass(frozen=True)
class FileSnapshot:
    """A file as read (or known to be missing): what the planner plans from and commit checks against.

    ``text`` keeps the file's line endings; the byte-order mark is removed and
    recorded in ``encoding`` so the text encodes back to identical bytes.
    """

    rel: str
    exists: bool
    text: str | None
    encoding: str
    fingerprint: str | None
    mode: int | None


@dataclass(frozen=True)
class PlannedWrite:
    """The complete new text of one file, planned from ``snapshot``; written as given."""

    snapshot: FileSnapshot
    text: str


@dataclass(frozen=True)
class CommitOutcome:
    """What `commit` did. ``written`` is False whenever ``error`` is set: then the tree is as before."""

    written: bool
    files: tuple[str, ...]
    changed_on_disk: tuple[str, ...]
    error: str
    run_id: str | None
    git_error: str = ""


@dataclass(frozen=True)
class UndoOutcome:
    """What `undo` did; with ``ok`` False, ``message`` says why (and nothing was changed unless it says so)."""

    restored: tuple[str, ...]
    removed: tuple[str, ...]
    refused: tuple[str, ...]
    message: str
    ok: bool


@dataclass(frozen=True)
class _Undecodable:
    code: RefusalCode
    why: str


@dataclass(frozen=True)
class _Target:
    """One file commit will write: its bytes before (None if new) and after."""

    rel: str
    old: bytes | None
    old_status: os.stat_result | None
    new: bytes


class _Action(StrEnum):
    KEEP = "keep"  # already holds its old bytes
    RESTORE = "restore"
    REMOVE = "remove"  # the run created it


@dataclass(frozen=True)
class _Step:
    entry: JournalEntry
    action: _Action
    original: bytes | None = None
    owner: tuple[int, int] | None = None


@dataclass(frozen=True)
class _RestorePlan:
    steps: tuple[_Step, ...]
    refused: tuple[tuple[str, str], ...]  # (path, why) left alone
    problem: str  # "" or why nothing can be restored at all


class Workspace:
    """A project root: paths are resolved inside it, and every write is verified, journaled and atomic.

    Callers that may run concurrently hold `lock()` around read → plan → commit.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        given = Path(os.path.abspath(root))
        resolved = Path(os.path.realpath(given))
        if not resolved.is_dir():
            raise WorkspaceError(f"{given} is not a directory")
        self.root = resolved
        self._aliases = (given,) if given != resolved else ()
        self._journal = Journal(resolved)

    # --- paths and reading ----------------------------------------------------

    def resolve(self, path: str) -> str | Refusal:
        """The canonical relative path ``path`` names inside the root, or why it may not be used."""
        return resolve_path(self.root, path, root_aliases=self._aliases)

    def read(self, path: str) -> FileSnapshot | Refusal:
        """A snapshot of the file ``path`` names (or of its absence), or why it cannot be edited."""
        rel = self.resolve(path)
        if isinstance(rel, Refusal):
            return rel
        try:
            current = self._read_current(rel)
        except OSError as error:
            return refusal(path, RefusalCode.UNREADABLE, f"could not be read ({_describe(error)})")
        if current is None:
            return FileSnapshot(rel, exists=False, text=None, encoding="utf-8", fingerprint=None, mode=None)
        raw, status = current
        decoded = _decode(raw)
        if isinstance(decoded, _Undecodable):
            return refusal(path, decoded.code, decoded.why)
        text, encoding = decoded
        if not status.st_mode & _WRITE_BITS:
            return refusal(path, RefusalCode.READ_ONLY, f"is read-only (mode {stat.S_IMODE(status.st_mode):04o}); "
                                                        "make it writable to let editblocks change it")
        return FileSnapshot(rel, True, text, encoding, fingerprint(raw), stat.S_IMODE(status.st_mode))

    # --- writing ----------------------------------------------------------------

    def commit(self, writes: Sequence[PlannedWrite], *, git_add: bool = False) -> CommitOutcome:
        """Write every planned file, or none of them.

        Refuses while an interrupted run awaits undo, and writes nothing if any
        file changed since its snapshot. Writes whose bytes equal the file's are
        skipped; with nothing left to write the outcome is written=True with no
        files and no run. Raises ValueError if two writes name the same file.
        """
        rels = [write.snapshot.rel for write in writes]
        if len(set(rels)) != len(rels):
            raise ValueError("commit got more than one planned write for the same file")
        pending = self.interrupted_run()
        if pending is not None:
            return _not_written(
                f"refused: run {pending} was interrupted while writing files; "
                "run `editblocks undo` to restore them before applying anything else"
            )
        targets: list[_Target] = []
        changed: list[str] = []
        for write in writes:
            checked = self._check(write)
            if isinstance(checked, str):
                return _not_written(checked)
            if checked is None:
                changed.append(write.snapshot.rel)
            elif checked.new != checked.old:
                targets.append(checked)
        if changed:
            listed = ", ".join(f"`{rel}`" for rel in changed)
            since = "since it was read" if len(changed) == 1 else "since they were read"
            error = f"nothing written: {listed} changed on disk {since}; plan again from the current files"
            return CommitOutcome(False, (), tuple(changed), error, None)
        if not targets:
            return CommitOutcome(True, (), (), "", None)

        try:
            run = self._journal.start(self._entries(targets), [target.old for target in targets])
        except OSError as error:
            return _not_written(f"nothing written: the undo journal could not be saved ({_describe(error)})")
        failure = self._replace_all(run, targets)
        if failure:
            return _not_written(f"nothing written: {failure}; {self._roll_back(run)}")
        self._journal.prune()
        files = tuple(target.rel for target in targets)
        return CommitOutcome(True, files, (), "", run.run_id, self._git_add(files) if git_add else "")

    def _check(self, write: PlannedWrite) -> _Target | None | str:
        """The target for ``write``, None if the file no longer matches its snapshot, or why it cannot be checked."""
        snapshot = write.snapshot
        if self.resolve(snapshot.rel) != snapshot.rel:
            return None
        try:
            current = self._read_current(snapshot.rel)
        except OSError as error:
            return f"nothing written: `{snapshot.rel}` could not be read again before writing ({_describe(error)})"
        old = None if current is None else current[0]
        if (None if old is None else fingerprint(old)) != snapshot.fingerprint:
            return None
        bom, codec = _codec(snapshot.encoding)
        try:
            new = bom + write.text.encode(codec)
        except UnicodeEncodeError as error:
            return (
                f"nothing written: the new text of `{snapshot.rel}` cannot be encoded as {codec.upper()} "
                f"(character U+{ord(error.object[error.start]):04X} at position {error.start})"
            )
        return _Target(snapshot.rel, old, None if current is None else current[1], new)

    def _entries(self, targets: Sequence[_Target]) -> list[JournalEntry]:
        """Journal entries naming each target's temporary file and the folders its creation needs."""
        entries = []
        planned_dirs: set[str] = set()
        for target in targets:
            *folders, name = target.rel.split("/")
            created: list[str] = []
            for depth in range(1, len(folders) + 1):
                folder = "/".join(folders[:depth])
                if folder not in planned_dirs and not os.path.lexists(self.root / folder):
                    created.append(folder)
                    planned_dirs.add(folder)
            entries.append(
                JournalEntry(
                    path=target.rel,
                    existed=target.old is not None,
                    backup=None,
                    old_fingerprint=None if target.old is None else fingerprint(target.old),
                    old_mode=None if target.old_status is None else stat.S_IMODE(target.old_status.st_mode),
                    new_fingerprint=fingerprint(target.new),
                    temp="/".join([*folders, _temp_name(name)]),
                    created_dirs=tuple(created),
                )
            )
        return entries

    def _replace_all(self, run: Run, targets: Sequence[_Target]) -> str:
        """Create folders, write every temporary file, then rename them all; "" or what failed.

        All temporary files exist before the first rename, so the window in
        which the tree is half old, half new is as short as it can be.
        """
        step = ""
        try:
            for entry in run.entries:
                for folder in entry.created_dirs:
                    step = f"creating the folder `{folder}`"
                    (self.root / folder).mkdir()
            for entry, target in zip(run.entries, targets, strict=True):
                step = f"writing `{entry.path}`"
                owner = None if target.old_status is None else owner_of(target.old_status)
                write_new_file(self.root / entry.temp, target.new, mode=entry.old_mode, owner=owner)
            for entry in run.entries:
                step = f"replacing `{entry.path}`"
                os.replace(self.root / entry.temp, self.root / entry.path)
            step = "syncing the changed folders"
            for touched in self._folders_touched(run):
                fsync_dir(touched)
            step = "recording the run in the journal"
            self._journal.mark(run, RunState.COMMITTED)
        except OSError as error:
            return f"{_describe(error)} while {step}"
        return ""

    def _roll_back(self, run: Run) -> str:
        """Put back every file a failed commit touched; the sentence says whether that worked."""
        plan = self._plan_restore(run, force=False)
        problem = plan.problem or "; ".join(f"`{path}` {why}" for path, why in plan.refused)
        if not problem:
            _, _, problem = self._apply_restore(run, plan)
        if problem:
            return f"rolling back failed too ({problem}); run `editblocks undo` to restore the remaining files"
        with contextlib.suppress(OSError):  # a leftover manifest still says pending: undo finishes the job
            self._journal.discard(run)
        return "every change was rolled back"

    def _git_add(self, files: Sequence[str]) -> str:
        """Stage ``files`` if the root is in a git work tree; "" or a warning (the writes stand either way)."""
        root = str(self.root)
        try:
            probe = subprocess.run(
                ["git", "-C", root, "rev-parse", "--is-inside-work-tree"],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=GIT_TIMEOUT_SECONDS,
                env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
            )
            if probe.returncode != 0 or probe.stdout.strip() != "true":
                return f"git add skipped: {root} is not inside a git work tree"
            # --literal-pathspecs: a file named `*.py` or `:(glob)x` stages that file only.
            added = subprocess.run(
                ["git", "--literal-pathspecs", "-C", root, "add", "--", *files],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=GIT_TIMEOUT_SECONDS,
            )
        except FileNotFoundError:
            return "git add skipped: git is not installed"
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"git add failed: {error}"
        if added.returncode != 0:
            return f"git add failed: {added.stderr.strip() or f'exit status {added.returncode}'}"
        return ""

    # --- undo -------------------------------------------------------------------

    def undo(self, *, force: bool = False) -> UndoOutcome:
        """Put back what the most recent run not yet undone changed, or finish an interrupted run.

        All or nothing: if any file changed after the run wrote it, nothing is
        touched and those files are listed in ``refused`` — unless ``force``,
        which restores them anyway, discarding the later changes. Hold `lock()`
        around it: a run another process is still writing also looks pending.
        """
        run = next((run for run in self._journal.runs() if run.state is not RunState.UNDONE), None)
        if run is None:
            return UndoOutcome((), (), (), "nothing to undo", ok=False)
        plan = self._plan_restore(run, force=force)
        if plan.problem:
            return UndoOutcome((), (), (), f"nothing undone: {plan.problem}", ok=False)
        if plan.refused:
            reasons = "; ".join(f"`{path}` {why}" for path, why in plan.refused)
            hint = "" if force else "; undo with force to restore them anyway, discarding those changes"
            paths = tuple(path for path, _ in plan.refused)
            return UndoOutcome((), (), paths, f"nothing undone: {reasons}{hint}", ok=False)
        restored, removed, problem = self._apply_restore(run, plan)
        if not problem:
            try:
                self._journal.mark(run, RunState.UNDONE)
            except OSError as error:
                problem = f"{_describe(error)} while recording the undo in the journal"
        if problem:
            message = f"undo of run {run.run_id} stopped: {problem}; run undo again to finish it"
            return UndoOutcome(tuple(restored), tuple(removed), (), message, ok=False)
        verb = "recovered interrupted run" if run.state is RunState.PENDING else "undid run"
        counts = f"restored {counted(len(restored), 'file')}, removed {counted(len(removed), 'created file')}"
        message = f"{verb} {run.run_id}: {counts}"
        return UndoOutcome(tuple(restored), tuple(removed), (), message, ok=True)

    def has_journal(self) -> bool:
        """Whether any run was ever recorded here (without creating the journal folder to find out)."""
        return self._journal.home.is_dir()

    def interrupted_run(self) -> str | None:
        """The id of a run killed mid-commit, which `undo` must recover before anything else is written."""
        return next((run.run_id for run in self._journal.runs() if run.state is RunState.PENDING), None)

    def _plan_restore(self, run: Run, *, force: bool) -> _RestorePlan:
        """Decide, from fingerprints, what each file of ``run`` needs to hold its old bytes again.

        Works for any state a crash can leave: each file is old, new, or (if
        someone edited it since) neither, which is refused unless ``force``.
        """
        steps: list[_Step] = []
        refused: list[tuple[str, str]] = []
        for entry in run.entries:
            resolved = self.resolve(entry.path)
            if resolved != entry.path:
                why = resolved.reason if isinstance(resolved, Refusal) else f"now leads to `{resolved}`"
                refused.append((entry.path, f"no longer names the file the run wrote ({why})"))
                continue
            try:
                current = self._read_current(entry.path)
            except OSError as error:
                return _RestorePlan((), (), f"`{entry.path}` could not be read ({_describe(error)})")
            now = None if current is None else fingerprint(current[0])
            owner = None if current is None else owner_of(current[1])
            if now == entry.old_fingerprint:
                steps.append(_Step(entry, _Action.KEEP))
                continue
            if now != entry.new_fingerprint and not force:
                refused.append((entry.path, f"was changed after run {run.run_id} wrote it"))
                continue
            if not entry.existed:
                steps.append(_Step(entry, _Action.REMOVE))
                continue
            original = self._journal.original(run, entry)
            if original is None:
                damaged = f"the saved copy of `{entry.path}` in run {run.run_id} is missing or damaged"
                return _RestorePlan((), (), damaged)
            steps.append(_Step(entry, _Action.RESTORE, original, owner))
        return _RestorePlan(tuple(steps), tuple(refused), "")

    def _apply_restore(self, run: Run, plan: _RestorePlan) -> tuple[list[str], list[str], str]:
        """Carry out a restore plan and clear the run's leftovers: (restored, removed, "" or what failed).

        Safe to repeat after a failure: a second plan sees the files already put back as old.
        """
        restored: list[str] = []
        removed: list[str] = []
        step = ""
        try:
            for item in plan.steps:
                target = self.root / item.entry.path
                if item.action is _Action.RESTORE and item.original is not None:
                    step = f"restoring `{item.entry.path}`"
                    target.parent.mkdir(parents=True, exist_ok=True)
                    _replace_file(target, item.original, mode=item.entry.old_mode, owner=item.owner,
                                  temp=self._journaled_temp(item.entry))
                    restored.append(item.entry.path)
                elif item.action is _Action.REMOVE:
                    step = f"removing `{item.entry.path}`"
                    target.unlink(missing_ok=True)
                    removed.append(item.entry.path)
            step = "removing temporary files and created folders"
            self._clear_leftovers(run)
            step = "syncing the restored folders"
            for folder in self._folders_touched(run):
                if folder.is_dir():
                    fsync_dir(folder)
        except OSError as error:
            return restored, removed, f"{_describe(error)} while {step}"
        return restored, removed, ""

    def _journaled_temp(self, entry: JournalEntry) -> Path | None:
        """The run's recorded temporary file for an entry, if the manifest names a safe one beside the file.

        Restoring through it (not a fresh random name) means a restore killed
        half-way leaves only files the journal knows, which the next undo clears.
        """
        name = entry.temp.rsplit("/", 1)[-1]
        beside = entry.temp.rpartition("/")[0] == entry.path.rpartition("/")[0]
        if beside and _TEMP_NAME.fullmatch(name) and is_plain_path(self.root, entry.temp):
            return self.root / entry.temp
        return None

    def _clear_leftovers(self, run: Run) -> None:
        """Remove the run's temporary files and the folders it created, if they are now empty."""
        for entry in run.entries:
            temp = self._journaled_temp(entry)
            if temp is not None:
                temp.unlink(missing_ok=True)
        folders = {folder for entry in run.entries for folder in entry.created_dirs}
        for folder in sorted(folders, key=lambda name: name.count("/"), reverse=True):
            if not is_plain_path(self.root, folder):
                continue
            try:
                (self.root / folder).rmdir()
            except OSError as error:
                if error.errno not in (errno.ENOENT, errno.ENOTEMPTY, errno.EEXIST):
                    raise

    def _folders_touched(self, run: Run) -> list[Path]:
        """Folders whose entries a run changed, to fsync after renames and removals."""
        paths = [entry.path for entry in run.entries]
        paths += [folder for entry in run.entries for folder in entry.created_dirs]
        return sorted({(self.root / path).parent for path in paths})

    # --- locking ------------------------------------------------------------------

    @contextmanager
    def lock(self, *, wait: float = 10.0) -> Iterator[None]:
        """Hold the workspace against other processes for one read → plan → commit.

        Raises WorkspaceBusy after ``wait`` seconds, or WorkspaceError if the
        lock file cannot be created. Not re-entrant: a second `lock()` in the
        same process waits like any other.
        """
        try:
            self._journal.ensure()
            fd = os.open(self._journal.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as error:
            raise WorkspaceError(f"cannot lock {self.root}: {_describe(error)}") from error
        try:
            self._acquire(fd, wait)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _acquire(self, fd: int, wait: float) -> None:
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
                        f"{self.root} is busy: {who} is applying edits there; gave up after waiting {wait:g} s"
                    ) from None
                time.sleep(min(LOCK_POLL_SECONDS, remaining))
            else:
                with contextlib.suppress(OSError):  # the holder's pid only improves the busy message
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
                return

    # --- disk access ------------------------------------------------------------------

    def _read_current(self, rel: str) -> tuple[bytes, os.stat_result] | None:
        """The bytes and status of a regular file, or None if it does not exist."""
        try:
            fd = os.open(self.root / rel, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        with open(fd, "rb") as handle:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                raise OSError(errno.EINVAL, "not a regular file")
            return handle.read(), status


def _decode(raw: bytes) -> tuple[str, str] | _Undecodable:
    """Text and encoding name of a file's bytes, chosen so that encoding the text gives ``raw`` back."""
    if raw.startswith(_UTF32_BOMS):
        return _Undecodable(RefusalCode.ENCODING, "is UTF-32 text, which editblocks does not edit")
    encoding = next((name for name in _BOM_ORDER if raw.startswith(ENCODINGS[name][0])), "utf-8")
    bom, codec = ENCODINGS[encoding]
    if codec == "utf-8" and (nul := raw.find(b"\0")) != -1:
        return _Undecodable(
            RefusalCode.BINARY, f"looks like a binary file (NUL byte at offset {nul}); editblocks only edits text"
        )
    try:
        text = raw[len(bom) :].decode(codec)
    except UnicodeDecodeError as error:
        offset = len(bom) + error.start
        return _Undecodable(
            RefusalCode.ENCODING,
            f"is not valid {codec.upper()} (first bad byte 0x{raw[offset]:02X} at offset {offset}); "
            "it may be Latin-1 or another legacy encoding, so editblocks leaves it untouched",
        )
    if codec != "utf-8" and (nul := text.find("\0")) != -1:
        return _Undecodable(
            RefusalCode.BINARY,
            f"looks like a binary file (NUL character at position {nul}); editblocks only edits text",
        )
    if "\n" not in text and "\r" in text.rstrip("\r"):
        return _Undecodable(
            RefusalCode.ENCODING,
            "breaks its lines with a bare CR (classic Mac OS line endings), which editblocks does not edit; "
            "convert it to LF or CRLF first",
        )
    return text, encoding


def _codec(encoding: str) -> tuple[bytes, str]:
    try:
        return ENCODINGS[encoding]
    except KeyError:
        raise ValueError(f"unknown snapshot encoding {encoding!r}; expected one of {sorted(ENCODINGS)}") from None


def _replace_file(target: Path, data: bytes, *, mode: int | None, owner: tuple[int, int] | None,
                  temp: Path | None = None) -> None:
    """Atomically give ``target`` new content through a temporary file in its folder (``temp`` if given)."""
    if temp is None:
        temp = target.parent / _temp_name(target.name)
    else:
        temp.unlink(missing_ok=True)
    write_new_file(temp, data, mode=mode, owner=owner)
    try:
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _temp_name(name: str) -> str:
    """A hidden, recognisable temporary name next to ``name``, short enough for any file system."""
    stem = name
    while len(os.fsencode(stem)) > TEMP_STEM_BYTES:
        stem = stem[:-1]
    return f".{stem}.editblocks-{secrets.token_hex(4)}.tmp"


def _describe(error: OSError) -> str:
    return error.strerror or str(error)


def _not_written(error: str) -> CommitOutcome:
    return CommitOutcome(False, (), (), error, None)
