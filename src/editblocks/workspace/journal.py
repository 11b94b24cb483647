"""The undo journal: what each run replaced, made durable before any target file is touched.

Layout under ``<root>/.editblocks/``::

    .gitignore                     "*", so git never sees any of this
    lock                           the file `Workspace.lock()` flocks
    journal/<run_id>/manifest.json the run: state and one entry per file
    journal/<run_id>/0000.orig     byte-exact copy of each file the run replaced
    journal/<run_id>.damaged       a run whose record was damaged, set aside by `undo --force`

A run id is ``<8-digit sequence>-<UTC time>``, read strictly (`run_ids`):
other names are ignored, and a run whose number leaps past its predecessor's
is out of sequence, so a planted name neither takes undo's turn nor stops the
numbering or the pruning of the user's own runs. The manifest is replaced
atomically, so it is always either the old or the new version; its
``state`` moves ``pending`` → ``committed`` → ``undone``. A run left
``pending`` was interrupted mid-write: each of its files is then wholly old
or wholly new, and the fingerprints tell which. A run folder without a
manifest was interrupted before it touched anything.

A cloned repository can carry this folder, so nothing in it is trusted: it is
reached through folder descriptors opened without following links (see
`dirfd`), a symlink or a non-folder anywhere in it is refused, and manifests
are checked before they are believed; a run someone else owns is never undone.

This module keeps the runs; `records` is what a run's manifest holds,
`state` opens and checks the folders, and `lock` takes the lock.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from editblocks.workspace.dirfd import entry_status, open_folder, read_entry, remove_entry, write_new_file
from editblocks.workspace.git import Staged
from editblocks.workspace.paths import JOURNAL_DIR
from editblocks.workspace.records import (
    MANIFEST,
    DamagedRun,
    JournalEntry,
    Run,
    RunState,
    UntrustedRun,
    fingerprint,
    load_run,
    write_manifest,
)
from editblocks.workspace.run_ids import (
    MAX_SEQUENCE,
    SET_ASIDE,
    STAMP_FORMAT,
    RunId,
    RunNumbersUsedUp,
    in_sequence,
    parse_run_id,
)
from editblocks.workspace.state import RUNS, StateFolder

KEEP_RUNS = 20
MAX_BYTES = 1 << 30  # 1 GiB of saved copies; the newest run is kept whatever its size


class Journal:
    """The runs recorded under ``<root>/.editblocks/journal/``, kept within ``keep_runs`` and ``max_bytes``."""

    def __init__(self, root: Path, *, keep_runs: int = KEEP_RUNS, max_bytes: int = MAX_BYTES) -> None:
        if keep_runs < 1 or max_bytes < 0:
            raise ValueError("the journal keeps at least one run and a size of at least 0 bytes")
        self.state = StateFolder(root)
        self.runs_dir = self.state.home / RUNS
        self.keep_runs = keep_runs
        self.max_bytes = max_bytes

    def exists(self) -> bool:
        """Whether anything is at ``.editblocks`` (without following a link or creating anything)."""
        return self.state.exists()

    def ensure(self) -> None:
        """Create the state folder, hidden from git, and the journal folder (see `StateFolder.ensure`)."""
        self.state.ensure()

    # --- runs -----------------------------------------------------------------------------------------

    def start(self, entries: Sequence[JournalEntry], originals: Sequence[bytes | None], *,
              joins: str | None = None) -> Run:
        """Record a pending run: a copy of every original, then the manifest, all fsynced.

        ``originals[i]`` is the old content of ``entries[i]`` (None for a new
        file); backup names are assigned here. ``joins`` is the first run of
        the multi-round run this one belongs to (undone with it). Run folders that killed runs
        left without a manifest are removed first. On failure the half-made
        run folder is removed and the OSError propagates: nothing was touched yet.
        """
        with self.state.folders(create=True) as found:
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
                run = Run(run_id, RunState.PENDING, created, tuple(recorded), joins=joins)
                write_manifest(folder, run)
            except BaseException:
                shutil.rmtree(run_id, dir_fd=runs, ignore_errors=True)
                raise
            finally:
                os.close(folder)  # and with it the flock that kept the unfinished folder from tidy-ups
        return run

    def mark(self, run: Run, state: RunState) -> Run:
        """Move a run to ``state``, atomically."""
        moved = replace(run, state=state)
        with self.state.run_folder(run.run_id) as folder:
            write_manifest(folder, moved)
        return moved

    def record_staging(self, run: Run, staged: Sequence[Staged]) -> Run:
        """Remember which git index entries the run staged, so undo can put them back."""
        updated = replace(run, staged=tuple(staged))
        with self.state.run_folder(run.run_id) as folder:
            write_manifest(folder, updated)
        return updated

    def records(self) -> list[Run | DamagedRun | UntrustedRun]:
        """Every run, newest first: damaged ones, someone else's and those out of sequence included (to be named,
        never undone); folders of runs that never started and names that are not run ids are left out."""
        with self.state.folders(create=False) as found:
            if found is None:
                return []
            _, runs = found
            order = in_sequence(os.listdir(runs))
            ids = [run for run in order.runs if not run.set_aside]
            ids += [run for run in map(parse_run_id, order.out_of_sequence) if run is not None]
            records: list[Run | DamagedRun | UntrustedRun] = []
            for run in sorted(ids, reverse=True):
                why = order.out_of_sequence.get(run.run_id)
                record = UntrustedRun(run.run_id, why) if why else load_run(runs, run.run_id, self.state.stranger)
                if record is not None:
                    records.append(record)
            return records

    def runs(self) -> list[Run]:
        """Every run with a readable manifest, newest first; an unreadable journal has none."""
        try:
            return [record for record in self.records() if isinstance(record, Run)]
        except OSError:
            return []

    def interrupted_run(self) -> str | None:
        """The id of a run killed mid-commit, which `undo` must recover before anything else is written."""
        return next((run.run_id for run in self.runs() if run.state is RunState.PENDING), None)

    def original(self, run: Run, entry: JournalEntry) -> bytes | None:
        """The saved old bytes of ``entry``, or None if the copy is missing or damaged."""
        if entry.backup is None:
            return None
        try:
            with self.state.run_folder(run.run_id) as folder:
                found = read_entry(folder, entry.backup, shown=entry.backup)
        except OSError:
            return None
        if found is None or self.state.stranger(found[1]) or fingerprint(found[0]) != entry.old_fingerprint:
            return None
        return found[0]

    def discard(self, run: Run) -> None:
        """Forget a run that was rolled back: the manifest first, so no half-deleted run looks pending."""
        with self.state.folders(create=False) as found:
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
        with self.state.folders(create=False) as found:
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "the journal folder is gone")
            _, runs = found
            os.rename(run_id, aside, src_dir_fd=runs, dst_dir_fd=runs)
            os.fsync(runs)
        return aside

    def prune(self) -> None:
        """Keep at most ``keep_runs`` runs and ``max_bytes`` of them, oldest removed first.

        The newest run and a run still pending (interrupted, awaiting undo)
        are always kept. Runs out of sequence are not the user's: they are
        neither counted nor removed. A failure only leaves old runs for next time.
        """
        with contextlib.suppress(OSError), self.state.folders(create=False) as found:
            if found is None:
                return
            _, runs = found
            ids = in_sequence(os.listdir(runs)).runs
            sizes = {run.name: _size(runs, run.name) for run in ids}
            count, total = len(ids), sum(sizes.values())
            for run in ids[:-1]:
                if count <= self.keep_runs and total <= self.max_bytes:
                    break
                name = run.name
                record = None if run.set_aside else load_run(runs, name, self.state.stranger)
                if isinstance(record, Run) and record.state is RunState.PENDING:
                    continue
                _remove(runs, name)
                count, total = count - 1, total - sizes[name]

    def _remove_orphans(self, runs: int) -> None:
        """Remove run folders a killed run left without a manifest (never one another process is still filling)."""
        import fcntl  # only when a run is written, so the pure API imports on platforms without fcntl

        for name in os.listdir(runs):
            run = parse_run_id(name)
            if run is None or run.set_aside:
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
        import fcntl

        stamp = time.strftime(STAMP_FORMAT, time.gmtime())
        try:
            run = in_sequence(os.listdir(runs)).next_id(stamp)
        except RunNumbersUsedUp as error:
            raise OSError(errno.EOVERFLOW, str(error)) from None
        while True:
            run_id = run.run_id
            try:
                os.mkdir(run_id, dir_fd=runs)
            except FileExistsError:
                if run.sequence == MAX_SEQUENCE:
                    raise OSError(errno.EOVERFLOW, f"run {run_id} holds the last run number there is") from None
                run = RunId(run.sequence + 1, stamp)  # another process took this number first
                continue
            folder = open_folder(runs, run_id, shown=run_id)
            fcntl.flock(folder, fcntl.LOCK_EX)
            os.fsync(runs)
            return run_id, folder


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
