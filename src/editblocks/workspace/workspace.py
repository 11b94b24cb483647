"""The only part of editblocks that touches the disk.

Parsing, locating and planning work on strings. The workspace turns a path
the model wrote into a file inside the root (or a `Refusal`), reads it into
text that encodes back to the very same bytes, and writes a whole plan at
once: checked against what was read (CASES F11), journaled before any file
changes, every file replaced atomically from a temporary file in its own
folder (F10), and rolled back from the journal if any step fails. `undo`
replays the journal backwards.

Every file and folder is reached through folder descriptors opened from the
root down without following a link (`dirfd.Tree`), so a folder swapped for a
symlink while a run is under way makes the run fail, never write elsewhere.

Environment conditions (disk full, permission denied, a file changed under
us) come back as values; only a busy or unusable workspace raises.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from editblocks.workspace.dirfd import (
    NotAFolder,
    Tree,
    describe,
    owner_of,
    remove_entry,
    replace_entry,
    split,
    write_new_file,
)
from editblocks.workspace.git import GitError, NoWorkTree, stage, unstage
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES, Journal
from editblocks.workspace.lock import WorkspaceBusy, WorkspaceError, hold
from editblocks.model import counted
from editblocks.workspace.paths import Refusal, RefusalCode, is_canonical, refusal, resolve_path
from editblocks.workspace.records import DamagedRun, JournalEntry, Run, RunState, fingerprint

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
    unstaged: tuple[str, ...] = ()  # paths whose git index entries `apply --git-add` changed were put back
    still_staged: tuple[str, ...] = ()  # paths `apply --git-add` staged whose index entries were left as they are


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
    The journal keeps at most ``keep_runs`` runs and ``journal_max_bytes`` of
    saved copies (the newest run is kept whatever its size).
    """

    def __init__(self, root: str | os.PathLike[str], *, keep_runs: int = KEEP_RUNS,
                 journal_max_bytes: int = MAX_BYTES) -> None:
        given = Path(os.path.abspath(root))
        try:
            resolved = Path(os.path.realpath(given))
        except OSError as error:
            raise WorkspaceError(f"{given} cannot be resolved ({describe(error)})") from None
        if not resolved.is_dir():
            raise WorkspaceError(f"{given} is not a directory")
        self.root = resolved
        self._aliases = (given,) if given != resolved else ()
        self._journal = Journal(resolved, keep_runs=keep_runs, max_bytes=journal_max_bytes)

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
            with Tree(self.root) as tree:
                current = tree.read(rel)
        except OSError as error:
            return refusal(path, RefusalCode.UNREADABLE, f"could not be read ({describe(error)})")
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
        try:
            tree = Tree(self.root)
        except OSError as error:
            return _not_written(f"nothing written: the project folder could not be opened ({describe(error)})")
        with tree:
            outcome, run = self._commit(tree, writes)
        if run is not None and git_add:
            return self._git_add(outcome, run)
        return outcome

    def _commit(self, tree: Tree, writes: Sequence[PlannedWrite]) -> tuple[CommitOutcome, Run | None]:
        """`commit` inside the open tree; the run is returned for `git add` to record what it stages."""
        targets: list[_Target] = []
        changed: list[str] = []
        for write in writes:
            checked = self._check(tree, write)
            if isinstance(checked, str):
                return _not_written(checked), None
            if checked is None:
                changed.append(write.snapshot.rel)
            elif checked.new != checked.old:
                targets.append(checked)
        if changed:
            listed = ", ".join(f"`{rel}`" for rel in changed)
            since = "since it was read" if len(changed) == 1 else "since they were read"
            error = f"nothing written: {listed} changed on disk {since}; plan again from the current files"
            return CommitOutcome(False, (), tuple(changed), error, None), None
        if not targets:
            return CommitOutcome(True, (), (), "", None), None

        try:
            entries = self._entries(tree, targets)
        except OSError as error:  # a folder on the way became a link or vanished since the check
            return _not_written(f"nothing written: the folders to write in changed ({describe(error)})"), None
        try:
            run = self._journal.start(entries, [target.old for target in targets])
        except OSError as error:
            return _not_written(f"nothing written: the undo journal could not be saved ({describe(error)})"), None
        failure = self._replace_all(tree, run, targets)
        if failure:
            return _not_written(f"nothing written: {failure}; {self._roll_back(tree, run)}"), None
        self._journal.prune()
        return CommitOutcome(True, tuple(target.rel for target in targets), (), "", run.run_id), run

    def _check(self, tree: Tree, write: PlannedWrite) -> _Target | None | str:
        """The target for ``write``, None if the file no longer matches its snapshot, or why it cannot be checked."""
        snapshot = write.snapshot
        if self.resolve(snapshot.rel) != snapshot.rel:
            return None
        try:
            current = tree.read(snapshot.rel)
        except OSError as error:
            return f"nothing written: `{snapshot.rel}` could not be read again before writing ({describe(error)})"
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

    def _entries(self, tree: Tree, targets: Sequence[_Target]) -> list[JournalEntry]:
        """Journal entries naming each target's temporary file and the folders its creation needs."""
        entries = []
        planned_dirs: set[str] = set()
        for target in targets:
            *folders, name = target.rel.split("/")
            created: list[str] = []
            for depth in range(1, len(folders) + 1):
                folder = "/".join(folders[:depth])
                if folder not in planned_dirs and tree.status(folder) is None:
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

    def _replace_all(self, tree: Tree, run: Run, targets: Sequence[_Target]) -> str:
        """Create folders, write every temporary file, then rename them all; "" or what failed.

        All temporary files exist before the first rename, so the window in
        which the tree is half old, half new is as short as it can be. Each
        file is written and renamed inside its folder's open descriptor.
        """
        step = ""
        try:
            for entry in run.entries:
                for folder in entry.created_dirs:
                    step = f"creating the folder `{folder}`"
                    tree.make_folder(folder)
            for entry, target in zip(run.entries, targets, strict=True):
                step = f"writing `{entry.path}`"
                owner = None if target.old_status is None else owner_of(target.old_status)
                folder, temp = split(entry.temp)
                write_new_file(tree.require(folder), temp, target.new, mode=entry.old_mode, owner=owner)
            for entry in run.entries:
                step = f"replacing `{entry.path}`"
                folder, name = split(entry.path)
                replace_entry(tree.require(folder), split(entry.temp)[1], name)
            step = "syncing the changed folders"
            for touched in self._folders_touched(run):
                os.fsync(tree.require(touched))
            step = "recording the run in the journal"
            self._journal.mark(run, RunState.COMMITTED)
        except OSError as error:
            return f"{describe(error)} while {step}"
        return ""

    def _roll_back(self, tree: Tree, run: Run) -> str:
        """Put back every file a failed commit touched; the sentence says whether that worked."""
        plan = self._plan_restore(tree, run, force=False)
        problem = plan.problem or "; ".join(f"`{path}` {why}" for path, why in plan.refused)
        if not problem:
            _, _, problem = self._apply_restore(tree, run, plan)
        if problem:
            return f"rolling back failed too ({problem}); run `editblocks undo` to restore the remaining files"
        with contextlib.suppress(OSError):  # a leftover manifest still says pending: undo finishes the job
            self._journal.discard(run)
        return "every change was rolled back"

    def _git_add(self, outcome: CommitOutcome, run: Run) -> CommitOutcome:
        """Stage the written files if the root is in a git work tree, and journal what that changed.

        The writes stand either way; a problem comes back as ``git_error``.
        """
        try:
            staged = stage(self.root, outcome.files)
        except NoWorkTree as error:
            return replace(outcome, git_error=f"git add skipped: {error}")
        except GitError as error:
            return replace(outcome, git_error=f"git add failed: {error}")
        if not staged:
            return outcome
        try:
            self._journal.record_staging(replace(run, state=RunState.COMMITTED), staged)
        except OSError as error:
            return replace(outcome, git_error=f"staged the files, but could not record it in the journal "
                                              f"({describe(error)}): undo will leave them staged")
        return outcome

    # --- undo -------------------------------------------------------------------

    def undo(self, *, force: bool = False) -> UndoOutcome:
        """Put back what the most recent run not yet undone changed, or finish an interrupted run.

        All or nothing: if any file changed after the run wrote it, nothing is
        touched and those files are listed in ``refused`` — unless ``force``,
        which restores them anyway, discarding the later changes. A run whose
        record is damaged stops undo; ``force`` sets it aside and undoes the
        run before it. Index entries `git_add` staged are put back too. Hold
        `lock()` around it: a run another process is still writing also looks pending.
        """
        try:
            records = [record for record in self._journal.records()
                       if not (isinstance(record, Run) and record.state is RunState.UNDONE)]
        except OSError as error:
            return UndoOutcome((), (), (), f"nothing undone: the journal cannot be read ({describe(error)})", ok=False)
        set_aside = ""
        while records and isinstance(records[0], DamagedRun):
            damaged, records = records[0], records[1:]
            if not force:
                return UndoOutcome((), (), (), _damaged_message(damaged, records), ok=False)
            try:
                aside = self._journal.set_aside(damaged.run_id)
            except OSError as error:
                return UndoOutcome((), (), (), f"nothing undone: the damaged run {damaged.run_id} could not be "
                                               f"set aside ({describe(error)})", ok=False)
            set_aside += (f"set aside run {damaged.run_id}, whose record is damaged "
                          f"(its saved copies stay in .editblocks/journal/{aside}); ")
            force = False  # --force was spent on the damaged run: the next one gets the usual checks
        if not records:
            return UndoOutcome((), (), (), f"{set_aside}nothing else to undo" if set_aside else "nothing to undo",
                               ok=bool(set_aside))
        run = records[0]
        assert isinstance(run, Run)
        try:
            with Tree(self.root) as tree:
                outcome = self._undo_run(tree, run, force=force)
        except OSError as error:
            return UndoOutcome((), (), (), f"{set_aside}nothing undone: the project folder could not be opened "
                                           f"({describe(error)})", ok=False)
        return replace(outcome, message=set_aside + outcome.message)

    def _undo_run(self, tree: Tree, run: Run, *, force: bool) -> UndoOutcome:
        plan = self._plan_restore(tree, run, force=force)
        if plan.problem:
            return UndoOutcome((), (), (), f"nothing undone: {plan.problem}", ok=False)
        if plan.refused:
            reasons = "; ".join(f"`{path}` {why}" for path, why in plan.refused)
            hint = "" if force else "; run `editblocks undo --force` to restore them anyway, discarding those changes"
            paths = tuple(path for path, _ in plan.refused)
            return UndoOutcome((), (), paths, f"nothing undone: {reasons}{hint}", ok=False)
        restored, removed, problem = self._apply_restore(tree, run, plan)
        if not problem:
            try:
                self._journal.mark(run, RunState.UNDONE)
            except OSError as error:
                problem = f"{describe(error)} while recording the undo in the journal"
        if problem:
            message = f"undo of run {run.run_id} stopped: {problem}; run undo again to finish it"
            return UndoOutcome(tuple(restored), tuple(removed), (), message, ok=False)
        unstaged, still_staged, index_note = self._unstage(run)
        verb = "recovered interrupted run" if run.state is RunState.PENDING else "undid run"
        counts = f"restored {counted(len(restored), 'file')}, removed {counted(len(removed), 'created file')}"
        message = f"{verb} {run.run_id}: {counts}{index_note}"
        return UndoOutcome(tuple(restored), tuple(removed), (), message, ok=True, unstaged=unstaged,
                           still_staged=still_staged)

    def _unstage(self, run: Run) -> tuple[tuple[str, ...], tuple[str, ...], str]:
        """Put back the index entries the run staged: (unstaged, still staged, the words for the message)."""
        if not run.staged:
            return (), (), ""
        try:
            unstaged, left = unstage(self.root, run.staged)
        except GitError as error:
            left_paths = tuple(item.path for item in run.staged)
            listed = ", ".join(left_paths)
            return (), left_paths, f"; could not put back git's index ({error}), so these stay staged: {listed}"
        note = f"; unstaged {counted(len(unstaged), 'file')}" if unstaged else ""
        if left:
            note += (f"; left {', '.join(left)} staged (the index entry changed after the run staged it; "
                     "`git restore --staged` unstages it)")
        return unstaged, left, note

    def has_journal(self) -> bool:
        """Whether anything is at `.editblocks` (without creating the journal folder to find out)."""
        return self._journal.exists()

    def interrupted_run(self) -> str | None:
        """The id of a run killed mid-commit, which `undo` must recover before anything else is written."""
        return self._journal.interrupted_run()

    def _plan_restore(self, tree: Tree, run: Run, *, force: bool) -> _RestorePlan:
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
                current = tree.read(entry.path)
            except OSError as error:
                return _RestorePlan((), (), f"`{entry.path}` could not be read ({describe(error)})")
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

    def _apply_restore(self, tree: Tree, run: Run, plan: _RestorePlan) -> tuple[list[str], list[str], str]:
        """Carry out a restore plan and clear the run's leftovers: (restored, removed, "" or what failed).

        Safe to repeat after a failure: a second plan sees the files already put back as old.
        """
        restored: list[str] = []
        removed: list[str] = []
        step = ""
        try:
            for item in plan.steps:
                folder_rel, name = split(item.entry.path)
                if item.action is _Action.RESTORE and item.original is not None:
                    step = f"restoring `{item.entry.path}`"
                    folder = tree.make_folders(folder_rel)
                    temp = self._journaled_temp(item.entry) or _temp_name(name)
                    remove_entry(folder, temp)
                    write_new_file(folder, temp, item.original, mode=item.entry.old_mode, owner=item.owner)
                    try:
                        replace_entry(folder, temp, name)
                    except BaseException:
                        remove_entry(folder, temp)
                        raise
                    restored.append(item.entry.path)
                elif item.action is _Action.REMOVE:
                    step = f"removing `{item.entry.path}`"
                    parent = tree.folder(folder_rel)
                    if parent is not None:
                        remove_entry(parent, name)
                    removed.append(item.entry.path)
            step = "removing temporary files and created folders"
            self._clear_leftovers(tree, run)
            step = "syncing the restored folders"
            for touched in self._folders_touched(run):
                found = tree.folder(touched)
                if found is not None:
                    os.fsync(found)
        except OSError as error:
            return restored, removed, f"{describe(error)} while {step}"
        return restored, removed, ""

    @staticmethod
    def _journaled_temp(entry: JournalEntry) -> str | None:
        """The name of the run's recorded temporary file for an entry, if the manifest names a safe one beside it.

        Restoring through it (not a fresh random name) means a restore killed
        half-way leaves only files the journal knows, which the next undo clears.
        """
        folder, name = split(entry.temp)
        beside = folder == split(entry.path)[0]
        return name if beside and _TEMP_NAME.fullmatch(name) and is_canonical(entry.temp) else None

    def _clear_leftovers(self, tree: Tree, run: Run) -> None:
        """Remove the run's temporary files and the folders it created, if they are now empty.

        The manifest is data on disk: a name it gives that is not canonical,
        or a folder on the way that is now a link, is left alone.
        """
        for entry in run.entries:
            temp = self._journaled_temp(entry)
            if temp is None:
                continue
            with contextlib.suppress(NotAFolder):
                folder = tree.folder(split(entry.temp)[0])
                if folder is not None:
                    remove_entry(folder, temp)
        folders = {folder for entry in run.entries for folder in entry.created_dirs}
        for rel in sorted(folders, key=lambda name: name.count("/"), reverse=True):
            if not is_canonical(rel):
                continue
            parent_rel, name = split(rel)
            try:
                parent = tree.folder(parent_rel)
                if parent is not None:
                    tree.forget(rel)
                    os.rmdir(name, dir_fd=parent)
            except NotAFolder:
                continue
            except OSError as error:
                if error.errno not in (errno.ENOENT, errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                    raise

    @staticmethod
    def _folders_touched(run: Run) -> list[str]:
        """Folders whose entries a run changed, to fsync after renames and removals."""
        paths = [entry.path for entry in run.entries]
        paths += [folder for entry in run.entries for folder in entry.created_dirs]
        return sorted({split(path)[0] for path in paths})

    # --- locking ------------------------------------------------------------------

    def lock(self, *, wait: float = 10.0) -> AbstractContextManager[None]:
        """Hold the workspace against other processes for one read → plan → commit.

        Raises WorkspaceBusy after ``wait`` seconds, or WorkspaceError if the
        journal folder or its lock cannot be created or cannot be trusted (a
        symlink, not a folder, someone else's). Not re-entrant: a second
        `lock()` in the same process waits like any other.
        """
        return hold(self._journal.state, wait=wait)


def _damaged_message(damaged: DamagedRun, older: Sequence[Run | DamagedRun]) -> str:
    """Why undo stops at a damaged record, and what `--force` would do instead."""
    earlier = older[0].run_id if older else None
    then = (f"`editblocks undo --force` sets it aside and undoes run {earlier} instead" if earlier
            else "there is no earlier run to undo; `editblocks undo --force` sets it aside")
    return (f"nothing undone: the record of run {damaged.run_id} is damaged ({damaged.why}), so editblocks cannot "
            f"tell which files it changed (.editblocks/journal/{damaged.run_id} is left as it is); {then}")


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


def _temp_name(name: str) -> str:
    """A hidden, recognisable temporary name next to ``name``, short enough for any file system."""
    stem = name
    while len(os.fsencode(stem)) > TEMP_STEM_BYTES:
        stem = stem[:-1]
    return f".{stem}.editblocks-{secrets.token_hex(4)}.tmp"


def _not_written(error: str) -> CommitOutcome:
    return CommitOutcome(False, (), (), error, None)
