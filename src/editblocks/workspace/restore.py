"""Putting a run's files back: what undo does, and what commit does to roll back a run that failed.

Restoring, like writing, goes through a temporary file beside the target,
renamed over it. The mode a run's record asks for is data a repository can
plant, so undo never sets the set-user-ID, set-group-ID or sticky bit, nor
lets others write (`safe_mode`), and says so when it left one out. This
module also names the temporary files (`temp_name`), so that a restore
recognises the ones a run left behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

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
from editblocks.workspace.journal import Journal
from editblocks.workspace.paths import Refusal, is_canonical
from editblocks.workspace.reading import Reader
from editblocks.workspace.records import JournalEntry, Run, fingerprint

UNSAFE_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWOTH
TEMP_STEM_BYTES = 200  # leaves room for ".<stem>.editblocks-xxxxxxxx.tmp" within NAME_MAX
_TEMP_NAME = re.compile(r"\..*\.editblocks-[0-9a-f]{8}\.tmp", re.DOTALL)


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
    mode: int | None = None  # the permission bits to restore


@dataclass(frozen=True)
class RestorePlan:
    """What restoring a run will do to each file, which files it leaves alone, or why it cannot start."""

    steps: tuple[_Step, ...]
    refused: tuple[tuple[str, str], ...]  # (path, why) left alone
    problem: str  # "" or why nothing can be restored at all
    notes: tuple[str, ...] = ()  # what will be restored otherwise than recorded (a mode made safe)
    forceable: bool = True  # whether `force` could restore every file left alone (not when only a patch was kept)


def safe_mode(mode: int) -> int:
    """``mode`` without the bits a restore never sets: set-user-ID, set-group-ID, sticky, others' write."""
    return mode & 0o7777 & ~UNSAFE_BITS


def plan_restore(tree: Tree, run: Run, reader: Reader, journal: Journal, *, force: bool,
                 exact_modes: bool = False, expected: Mapping[str, str | None] | None = None) -> RestorePlan:
    """Decide, from fingerprints, what each file of ``run`` needs to hold its old bytes again.

    Works for any state a crash can leave: each file is old, new, or (if
    someone edited it since) neither, which is refused unless ``force``.
    Recorded modes are made safe (`safe_mode`) unless ``exact_modes`` (a
    rollback of a run this process has just recorded from the files themselves).
    ``expected`` gives the fingerprint (None: no file) a path will have by the
    time this run is restored, when newer runs restored first will change it.
    """
    steps: list[_Step] = []
    refused: list[tuple[str, str]] = []
    notes: list[str] = []
    forceable = True
    for entry in run.entries:
        resolved = reader.resolve(entry.path)
        if resolved != entry.path:
            why = resolved.reason if isinstance(resolved, Refusal) else f"now leads to `{resolved}`"
            refused.append((entry.path, f"no longer names the file the run wrote ({why})"))
            continue
        try:
            current = tree.read(entry.path)
        except OSError as error:
            return RestorePlan((), (), f"`{entry.path}` could not be read ({describe(error)})")
        now = None if current is None else fingerprint(current[0])
        if expected is not None and entry.path in expected:
            now = expected[entry.path]
        owner = None if current is None else owner_of(current[1])
        mode_changed = entry.new_mode is not None and current is not None \
            and stat.S_IMODE(current[1].st_mode) != entry.old_mode
        if now == entry.old_fingerprint and not mode_changed:
            steps.append(_Step(entry, _Action.KEEP))
            continue
        if now != entry.new_fingerprint and not force:
            if entry.saved is not None and entry.saved.is_patch:
                forceable = False
                refused.append((entry.path, f"was changed after run {run.run_id} wrote it, and the run kept only a "
                                            "reverse patch that fits the bytes it wrote (put them back to undo it)"))
            else:
                refused.append((entry.path, f"was changed after run {run.run_id} wrote it"))
            continue
        if not entry.existed:
            steps.append(_Step(entry, _Action.REMOVE))
            continue
        if entry.saved is not None and entry.saved.is_patch and expected is not None and entry.path in expected:
            # the patch fits the bytes newer rounds will restore, not today's: only the patch itself is checked now
            problem = journal.saved_problem(run, entry)
            if problem:
                return RestorePlan((), (), problem)
            steps.append(_Step(entry, _Action.RESTORE, None, owner, entry.old_mode))
            continue
        original = journal.old_bytes(run, entry, None if current is None else current[0])
        if isinstance(original, str):
            return RestorePlan((), (), original)
        mode = entry.old_mode
        if mode is not None and not exact_modes and safe_mode(mode) != mode:
            notes.append(f"restored `{entry.path}` with mode {safe_mode(mode):04o}, not the {mode:04o} its record "
                         "asks for (undo never sets set-ID or sticky bits or lets others write)")
            mode = safe_mode(mode)
        steps.append(_Step(entry, _Action.RESTORE, original, owner, mode))
    return RestorePlan(tuple(steps), tuple(refused), "", tuple(notes), forceable)


def apply_restore(tree: Tree, run: Run, plan: RestorePlan) -> tuple[list[str], list[str], str]:
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
                temp = _journaled_temp(item.entry) or temp_name(name)
                remove_entry(folder, temp)
                write_new_file(folder, temp, item.original, mode=item.mode, owner=item.owner)
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
        _clear_leftovers(tree, run)
        step = "syncing the restored folders"
        for touched in folders_touched(run):
            found = tree.folder(touched)
            if found is not None:
                os.fsync(found)
    except OSError as error:
        return restored, removed, f"{describe(error)} while {step}"
    return restored, removed, ""


def _journaled_temp(entry: JournalEntry) -> str | None:
    """The name of the run's recorded temporary file for an entry, if the manifest names a safe one beside it.

    Restoring through it (not a fresh random name) means a restore killed
    half-way leaves only files the journal knows, which the next undo clears.
    """
    folder, name = split(entry.temp)
    beside = folder == split(entry.path)[0]
    return name if beside and _TEMP_NAME.fullmatch(name) and is_canonical(entry.temp) else None


def _clear_leftovers(tree: Tree, run: Run) -> None:
    """Remove the run's temporary files and the folders it created, if they are now empty.

    The manifest is data on disk: a name it gives that is not canonical,
    or a folder on the way that is now a link, is left alone.
    """
    for entry in run.entries:
        temp = _journaled_temp(entry)
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


def folders_touched(run: Run) -> list[str]:
    """Folders whose entries a run changed, to fsync after renames and removals."""
    paths = [entry.path for entry in run.entries]
    paths += [folder for entry in run.entries for folder in entry.created_dirs]
    return sorted({split(path)[0] for path in paths})


def temp_name(name: str) -> str:
    """A hidden, recognisable temporary name next to ``name``, short enough for any file system."""
    stem = name
    while len(os.fsencode(stem)) > TEMP_STEM_BYTES:
        stem = stem[:-1]
    return f".{stem}.editblocks-{secrets.token_hex(4)}.tmp"
