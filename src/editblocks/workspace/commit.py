"""Committing: every planned file written, or none of them.

A plan is checked against what was read (CASES F11), journaled before any
file changes, and every file is replaced atomically from a temporary file in
its own folder (F10), each reached through an open folder descriptor. If any
step fails, the files already replaced are rolled back from the journal.
With ``git_add`` the written files are staged, and the journal records how
git's index changed so that undo can put it back.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace

from editblocks.errors import GitError, NoWorkTree
from editblocks.workspace.dirfd import (
    Tree,
    describe,
    owner_of,
    remove_entry,
    replace_entry,
    split,
    with_executable,
    write_new_file,
)
from editblocks.workspace.git import stage
from editblocks.workspace.interrupted import interrupted_run
from editblocks.workspace.journal import Journal
from editblocks.workspace.reading import FileSnapshot, Reader, codec_for
from editblocks.workspace.records import JournalEntry, Run, RunState, fingerprint
from editblocks.workspace.restore import apply_restore, folders_touched, plan_restore, temp_name


@dataclass(frozen=True)
class PlannedWrite:
    """The complete new text of one file, planned from ``snapshot``; written as given.

    With ``delete`` the file is removed instead (``text`` is ignored). ``mode`` gives a created file
    permission bits (a moved file keeps its source's). ``executable`` sets or clears the file's executable
    bits (None keeps them), a change that is journaled and undone like its bytes.
    """

    snapshot: FileSnapshot
    text: str
    delete: bool = False
    mode: int | None = None
    executable: bool | None = None


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
class _Target:
    """One file commit will write: its bytes before (None if new) and after."""

    rel: str
    old: bytes | None
    old_status: os.stat_result | None
    new: bytes | None  # None: the file is removed
    mode: int | None = None  # permission bits for a created file
    new_mode: int | None = None  # permission bits an existing file changes to (None: it keeps its own)
    executable: bool = False  # a created file without ``mode``: executable for whoever may read it
    old_fingerprint: str | None = None  # of ``old``, computed once by the check


class Committer:
    """Writes whole plans into one root: checked, journaled, atomic, and rolled back if a step fails."""

    def __init__(self, reader: Reader, journal: Journal) -> None:
        self._reader = reader
        self._journal = journal

    def commit(self, writes: Sequence[PlannedWrite], *, git_add: bool = False,
               joins: str | None = None) -> CommitOutcome:
        """Write every planned file, or none of them (see `Workspace.commit`)."""
        rels = [write.snapshot.rel for write in writes]
        if len(set(rels)) != len(rels):
            raise ValueError("commit got more than one planned write for the same file")
        pending = interrupted_run(self._journal, self._reader)
        if pending is not None:
            return _not_written(
                f"refused: run {pending} was interrupted while writing files; "
                "run `editblocks undo` to restore them before applying anything else"
            )
        try:
            tree = Tree(self._reader.root)
        except OSError as error:
            return _not_written(f"nothing written: the project folder could not be opened ({describe(error)})")
        with tree:
            outcome, run = self._commit(tree, writes, joins)
        if run is not None and git_add:
            return self._git_add(outcome, run)
        return outcome

    def _commit(self, tree: Tree, writes: Sequence[PlannedWrite],
                joins: str | None) -> tuple[CommitOutcome, Run | None]:
        """`commit` inside the open tree; the run is returned for `git add` to record what it stages."""
        targets: list[_Target] = []
        changed: list[str] = []
        for write in writes:
            checked = self._check(tree, write)
            if isinstance(checked, str):
                return _not_written(checked), None
            if checked is None:
                changed.append(write.snapshot.rel)
            elif checked.new != checked.old or checked.new_mode is not None:
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
            run = self._journal.start(entries, [target.old for target in targets],
                                      [target.new for target in targets], joins=joins)
        except OSError as error:
            return _not_written(f"nothing written: the undo journal could not be saved ({describe(error)})"), None
        failure = self._write_temporaries(tree, run, targets)
        meanwhile = None if failure else self._changed_meanwhile(tree, targets)
        if meanwhile is not None:
            self._drop(tree, run, targets)
            saved, unreadable = meanwhile
            if unreadable is not None:  # e.g. the plan made it a folder of another file it writes
                return _not_written(f"nothing written: `{saved}` could not be read again before writing "
                                    f"({describe(unreadable)})"), None
            return CommitOutcome(False, (), (saved,), f"nothing written: `{saved}` changed while applying "
                                 "(another program saved it); its save is kept", None), None
        failure = failure or self._replace_all(tree, run, targets)
        if failure:
            return _not_written(f"nothing written: {failure}; {self._roll_back(tree, run)}"), None
        self._journal.prune()
        return CommitOutcome(True, tuple(target.rel for target in targets), (), "", run.run_id), run

    def _check(self, tree: Tree, write: PlannedWrite) -> _Target | None | str:
        """The target for ``write``, None if the file no longer matches its snapshot, or why it cannot be checked."""
        snapshot = write.snapshot
        if self._reader.resolve(snapshot.rel) != snapshot.rel:
            return None
        try:
            current = tree.read(snapshot.rel)
        except OSError as error:
            return f"nothing written: `{snapshot.rel}` could not be read again before writing ({describe(error)})"
        old = None if current is None else current[0]
        old_fingerprint = None if old is None else fingerprint(old)
        if old_fingerprint != snapshot.fingerprint:
            return None
        if write.delete:
            if old is None:
                return f"nothing written: `{snapshot.rel}` was to be deleted but is already gone"
            return _Target(snapshot.rel, old, None if current is None else current[1], None,
                           old_fingerprint=old_fingerprint)
        bom, codec = codec_for(snapshot.encoding)
        try:
            new = bom + write.text.encode(codec)
        except UnicodeEncodeError as error:
            return (
                f"nothing written: the new text of `{snapshot.rel}` cannot be encoded as {codec.upper()} "
                f"(character U+{ord(error.object[error.start]):04X} at position {error.start})"
            )
        status = None if current is None else current[1]
        mode, new_mode = write.mode, None
        if write.executable is not None and status is not None:
            bits = stat.S_IMODE(status.st_mode)
            new_mode = with_executable(bits, write.executable)
            new_mode = None if new_mode == bits else new_mode
        elif write.executable is not None and mode is not None:
            mode = with_executable(mode, write.executable)
        return _Target(snapshot.rel, old, status, new, mode, new_mode, write.executable is True and mode is None,
                       old_fingerprint)

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
                    old_fingerprint=target.old_fingerprint,
                    old_mode=None if target.old_status is None else stat.S_IMODE(target.old_status.st_mode),
                    new_fingerprint=None if target.new is None else fingerprint(target.new),
                    temp="/".join([*folders, temp_name(name)]),
                    created_dirs=tuple(created),
                    new_mode=target.new_mode,
                )
            )
        return entries

    def _write_temporaries(self, tree: Tree, run: Run, targets: Sequence[_Target]) -> str:
        """Create folders and write every temporary file before anything is replaced; "" or what failed.

        All temporary files exist before the first rename, so the window in
        which the tree is half old, half new is as short as it can be. Each
        file is written inside its folder's open descriptor.
        """
        step = ""
        try:
            for entry in run.entries:
                for folder in entry.created_dirs:
                    step = f"creating the folder `{folder}`"
                    tree.make_folder(folder)
            for entry, target in zip(run.entries, targets, strict=True):
                if target.new is None:
                    continue
                step = f"writing `{entry.path}`"
                owner = None if target.old_status is None else owner_of(target.old_status)
                folder, temp = split(entry.temp)
                mode = next((bits for bits in (target.new_mode, entry.old_mode, target.mode) if bits is not None), None)
                write_new_file(tree.require(folder), temp, target.new, mode=mode, owner=owner,
                               executable=target.executable)
        except OSError as error:
            return f"{describe(error)} while {step}"
        return ""

    def _drop(self, tree: Tree, run: Run, targets: Sequence[_Target]) -> None:
        """Remove the temporary files and new folders of a run that replaced nothing, and the run itself."""
        for entry, target in zip(run.entries, targets, strict=True):
            if target.new is not None:
                folder, temp = split(entry.temp)
                with contextlib.suppress(OSError):
                    remove_entry(tree.require(folder), temp)
        for entry in reversed(run.entries):
            for folder in reversed(entry.created_dirs):
                parent, name = split(folder)
                with contextlib.suppress(OSError):
                    os.rmdir(name, dir_fd=tree.require(parent))
        with contextlib.suppress(OSError):
            self._journal.discard(run)

    def _replace_all(self, tree: Tree, run: Run, targets: Sequence[_Target]) -> str:
        """Rename every temporary file over its target (or delete), sync their folders, mark the run committed (not
        synced: a crash that loses the mark leaves a pending run whose files are all new, which undo recovers);
        "" or what failed."""
        step = ""
        try:
            for entry, target in zip(run.entries, targets, strict=True):
                folder, name = split(entry.path)
                if target.new is None:
                    step = f"deleting `{entry.path}`"
                    remove_entry(tree.require(folder), name)
                    continue
                step = f"replacing `{entry.path}`"
                replace_entry(tree.require(folder), split(entry.temp)[1], name)
            step = "syncing the changed folders"
            for touched in folders_touched(run):
                os.fsync(tree.require(touched))
            step = "recording the run in the journal"
            self._journal.mark(run, RunState.COMMITTED)
        except OSError as error:
            return f"{describe(error)} while {step}"
        return ""

    @staticmethod
    def _changed_meanwhile(tree: Tree, targets: Sequence[_Target]) -> tuple[str, OSError | None] | None:
        """The first file whose bytes differ from those planned against, read again right before the renames: a
        save by another program since the first check must not be overwritten (and then be undone to the older
        version). The window left is the renames' own few microseconds. A file that cannot be read is named with
        the error."""
        for target in targets:
            try:
                current = tree.read(target.rel)
            except OSError as error:
                return target.rel, error
            if (None if current is None else current[0]) != target.old:
                return target.rel, None
        return None

    def _roll_back(self, tree: Tree, run: Run) -> str:
        """Put back every file a failed commit touched; the sentence says whether that worked."""
        plan = plan_restore(tree, run, self._reader, self._journal, force=False, exact_modes=True)
        problem = plan.problem or "; ".join(f"`{path}` {why}" for path, why in plan.refused)
        if not problem:
            _, _, problem = apply_restore(tree, run, plan)
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
            staged = stage(self._reader.root, outcome.files)
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


def _not_written(error: str) -> CommitOutcome:
    return CommitOutcome(False, (), (), error, None)
