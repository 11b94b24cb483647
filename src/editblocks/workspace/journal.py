"""The undo journal: what each run replaced, made durable before any target file is touched.

Layout under ``<root>/.editblocks/``::

    .gitignore                     "*", so git never sees any of this
    lock                           the file `Workspace.lock()` flocks
    journal/<run_id>               the run's record: its state, one entry per file, and each file's old
                                   bytes, a whole copy or, for a small edit of a big file, a reverse patch
                                   (`run_file`, `reverse_patch`)
    journal/<run_id>/manifest.json a run recorded by an older version: state and one entry per file,
    journal/<run_id>/0000.orig     and a byte-exact copy of each file it replaced (still read and undone)
    journal/<run_id>.damaged       a run whose record was damaged, set aside by `undo --force`

A run id is ``<8-digit sequence>-<UTC time>``, read strictly (`run_ids`):
other names are ignored, and a run whose number leaps past its predecessor's
is out of sequence, so a planted name neither takes undo's turn nor stops the
numbering or the pruning of the user's own runs. A record is linked in
whole, synced, before any file is touched; its ``state`` moves ``pending`` →
``committed`` → ``undone``. A run left ``pending`` was interrupted mid-write:
each of its files is then wholly old or wholly new, and the fingerprints tell
which. A temporary record (or an older run folder without a manifest) was
left by a run interrupted before it touched anything.

What the journal learns it keeps: a run seen committed or undone never turns
pending again, and a record's size never changes, so checking for an
interrupted run and pruning read only the runs this object has not seen yet
(a new name or a new file under a known one), not every run on every edit.

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
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from editblocks.workspace import run_file
from editblocks.workspace.dirfd import entry_status, open_folder, read_entry, remove_entry
from editblocks.workspace.git import Staged
from editblocks.workspace.paths import JOURNAL_DIR
from editblocks.workspace.records import (
    MANIFEST,
    DamagedRun,
    JournalEntry,
    Run,
    RunState,
    Saved,
    UntrustedRun,
    fingerprint,
    write_manifest,
)
from editblocks.workspace.reverse_patch import ReversePatch, apply_reverse, reverse_patch
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

Seen = tuple[str, int]
"""A journal entry as listed: its name and inode (a file put in a run's place has another inode)."""
Listed = tuple[int, bool]
"""An entry's inode and whether it is a folder, as the listing gives them."""


class Journal:
    """The runs recorded under ``<root>/.editblocks/journal/``, kept within ``keep_runs`` and ``max_bytes``."""

    def __init__(self, root: Path, *, keep_runs: int = KEEP_RUNS, max_bytes: int = MAX_BYTES) -> None:
        if keep_runs < 1 or max_bytes < 0:
            raise ValueError("the journal keeps at least one run and a size of at least 0 bytes")
        self.state = StateFolder(root)
        self.runs_dir = self.state.home / RUNS
        self.keep_runs = keep_runs
        self.max_bytes = max_bytes
        self._settled: set[Seen] = set()  # runs seen committed or undone, which never turn pending again
        self._sizes: dict[Seen, int] = {}  # bytes each run holds
        self._written: dict[str, Seen] = {}  # the runs this object wrote
        self._listed: dict[str, Listed] | None = None  # the names `start` listed, and the run it added

    def exists(self) -> bool:
        """Whether anything is at ``.editblocks`` (without following a link or creating anything)."""
        return self.state.exists()

    def ensure(self) -> None:
        """Create the state folder, hidden from git, and the journal folder (see `StateFolder.ensure`)."""
        self.state.ensure()

    # --- runs -----------------------------------------------------------------------------------------

    def start(self, entries: Sequence[JournalEntry], originals: Sequence[bytes | None],
              news: Sequence[bytes | None] | None = None, *, joins: str | None = None) -> Run:
        """Record a pending run: one record holding every original (or a reverse patch from ``news``), synced.

        ``originals[i]`` is the old content of ``entries[i]`` (None for a new
        file) and ``news[i]`` its new content (None when the run deletes it, or
        without ``news``: then every original is copied whole). ``joins`` is
        the first run of the multi-round run this one belongs to (undone with
        it). Temporary records killed runs left are removed first. On failure
        nothing of the run is left and the OSError propagates: nothing was touched yet.
        """
        recorded, blobs = _saved_bytes(entries, originals, news or [None] * len(entries))
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with self.state.folders(create=True) as found:
            assert found is not None
            _, runs = found
            listed = _listing(runs)
            self._clear_left_overs(runs, listed)
            stamp = time.strftime(STAMP_FORMAT, time.gmtime())
            try:
                number = in_sequence(listed).next_id(stamp)
            except RunNumbersUsedUp as error:
                raise OSError(errno.EOVERFLOW, str(error)) from None
            while True:
                run = Run(number.run_id, RunState.PENDING, created, tuple(recorded), joins=joins)
                try:
                    size, inode = run_file.write(runs, run, blobs)
                except FileExistsError:
                    if number.sequence == MAX_SEQUENCE:
                        raise OSError(errno.EOVERFLOW, f"run {number.run_id} holds the last run number there is"
                                      ) from None
                    number = RunId(number.sequence + 1, stamp)  # another process took this number first
                    continue
                break
            try:
                os.fsync(runs)
            except BaseException:
                remove_entry(runs, run.run_id)
                raise
        seen = (run.run_id, inode)
        self._sizes[seen] = size
        self._written[run.run_id] = seen
        self._listed = {**listed, run.run_id: (inode, False)}
        return run

    @contextlib.contextmanager
    def _runs(self) -> Iterator[int]:
        """The runs folder, which must exist (a run is being changed)."""
        with self.state.folders(create=False) as found:
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "the journal folder is gone")
            yield found[1]

    def mark(self, run: Run, state: RunState) -> Run:
        """Move a run to ``state``. Committing is not synced: a crash that loses it leaves the run pending with
        every file as it wrote them, which the next run settles as committed (`interrupted`); undoing is synced."""
        moved = replace(run, state=state)
        if run.folder:
            with self.state.run_folder(run.run_id) as folder:
                write_manifest(folder, moved)
            return moved
        with self._runs() as runs:
            run_file.set_state(runs, run.run_id, state, durable=state is not RunState.COMMITTED)
        seen = self._written.get(run.run_id)
        if seen is not None and state is not RunState.PENDING:
            self._settled.add(seen)
        return moved

    def record_staging(self, run: Run, staged: Sequence[Staged]) -> Run:
        """Remember which git index entries the run staged, so undo can put them back."""
        updated = replace(run, staged=tuple(staged))
        if run.folder:
            with self.state.run_folder(run.run_id) as folder:
                write_manifest(folder, updated)
            return updated
        with self._runs() as runs:
            run_file.redescribe(runs, updated, self.state.stranger)
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
                record = UntrustedRun(run.run_id, why) if why else run_file.load(runs, run.run_id,
                                                                                 self.state.stranger)
                if record is not None and not isinstance(record, RunState):
                    records.append(record)
            return records

    def runs(self) -> list[Run]:
        """Every run with a readable manifest, newest first; an unreadable journal has none."""
        try:
            return [record for record in self.records() if isinstance(record, Run)]
        except OSError:
            return []

    def interrupted_run(self) -> str | None:
        """The id of a run killed mid-commit, which `undo` must recover before anything else is written.

        Only runs not seen settled before are read, and of a record only its head unless it is pending.
        """
        try:
            with self.state.folders(create=False) as found:
                if found is None:
                    return None
                _, runs = found
                listed = _listing(runs)
                for run in reversed(in_sequence(listed).runs):
                    seen = (run.name, listed[run.name][0])
                    if run.set_aside or seen in self._settled:
                        continue
                    record = run_file.load(runs, run.run_id, self.state.stranger, state_only=True)
                    if isinstance(record, Run) and record.state is RunState.PENDING:
                        return run.run_id
                    if isinstance(record, RunState) or isinstance(record, Run):
                        self._settled.add(seen)
        except OSError:
            return None
        return None

    def old_bytes(self, run: Run, entry: JournalEntry, current: bytes | None) -> bytes | str:
        """The old bytes of ``entry``, from its copy or from its reverse patch applied to ``current`` (the file's
        bytes now, which must be the ones the run wrote); or why they cannot be had."""
        saved = self._saved(run, entry)
        if isinstance(saved, str) or entry.saved is None or not entry.saved.is_patch:
            return saved
        unfit = (f"`{entry.path}` no longer holds the bytes run {run.run_id} wrote, and the run kept only a reverse "
                 "patch of its edit (the file is big), which fits those bytes alone; nothing was restored rather "
                 "than write a wrong file")
        if current is None or fingerprint(current) != entry.new_fingerprint:
            return unfit
        assert entry.saved.keep_start is not None and entry.saved.keep_end is not None
        old = apply_reverse(current, ReversePatch(entry.saved.keep_start, entry.saved.keep_end, saved))
        if old is None or fingerprint(old) != entry.old_fingerprint:
            return unfit
        return old

    def saved_problem(self, run: Run, entry: JournalEntry) -> str:
        """Why the bytes the run saved for ``entry`` (a copy, or a patch on its own) are missing or damaged; or ""."""
        saved = self._saved(run, entry)
        return saved if isinstance(saved, str) else ""

    def _saved(self, run: Run, entry: JournalEntry) -> bytes | str:
        """The bytes the run saved for ``entry``, checked against its fingerprint (a copy) or digest (a patch)."""
        patch = entry.saved is not None and entry.saved.is_patch
        damaged = (f"the reverse patch of `{entry.path}` in run {run.run_id} is missing or damaged" if patch else
                   f"the saved copy of `{entry.path}` in run {run.run_id} is missing or damaged")
        try:
            with self.state.folders(create=False) as found:
                saved = None if found is None else self._read_saved(found[1], run, entry)
        except OSError:
            return damaged
        expected = entry.saved.digest if entry.saved is not None and patch else entry.old_fingerprint
        return saved if saved is not None and fingerprint(saved) == expected else damaged

    def _read_saved(self, runs: int, run: Run, entry: JournalEntry) -> bytes | None:
        """The bytes a run's record keeps for ``entry``: its copy file (older runs) or its span of the record."""
        if entry.saved is not None:
            return run_file.read_saved(runs, run.run_id, entry.saved, self.state.stranger)
        if entry.backup is None:
            return None
        folder = open_folder(runs, run.run_id, shown=f"{JOURNAL_DIR}/{RUNS}/{run.run_id}")
        try:
            found = read_entry(folder, entry.backup, shown=entry.backup)
        finally:
            os.close(folder)
        return None if found is None or self.state.stranger(found[1]) else found[0]

    def discard(self, run: Run) -> None:
        """Forget a run that was rolled back: a folder's manifest first, so no half-deleted run looks pending."""
        self._listed = None  # what `start` listed includes this run
        with self.state.folders(create=False) as found:
            if found is None:
                return
            _, runs = found
            if not run.folder:
                remove_entry(runs, run.run_id)
                return
            folder = open_folder(runs, run.run_id, shown=f"{JOURNAL_DIR}/{RUNS}/{run.run_id}")
            try:
                os.unlink(MANIFEST, dir_fd=folder)
            finally:
                os.close(folder)
            shutil.rmtree(run.run_id, dir_fd=runs, ignore_errors=True)

    def set_aside(self, run_id: str) -> str:
        """Rename a damaged run out of the way (kept for manual recovery); returns its new name."""
        aside = run_id + SET_ASIDE
        with self._runs() as runs:
            os.rename(run_id, aside, src_dir_fd=runs, dst_dir_fd=runs)
            os.fsync(runs)
        return aside

    def prune(self) -> None:
        """Keep at most ``keep_runs`` runs and ``max_bytes`` of them, oldest removed first.

        The newest run and a run still pending (interrupted, awaiting undo)
        are always kept. Runs out of sequence are not the user's: they are
        neither counted nor removed. After `start`, the names it listed are
        used (the folder is not listed again) and only sizes not known yet are
        read. A failure only leaves old runs for next time.
        """
        with contextlib.suppress(OSError), self.state.folders(create=False) as found:
            if found is None:
                return
            _, runs = found
            listed, self._listed = self._listed or _listing(runs), None
            ids = in_sequence(listed).runs
            sizes = {run.name: self._size(runs, (run.name, listed[run.name][0])) for run in ids}
            count, total = len(ids), sum(sizes.values())
            for run in ids[:-1]:
                if count <= self.keep_runs and total <= self.max_bytes:
                    break
                name = run.name
                record = None if run.set_aside else run_file.load(runs, name, self.state.stranger, state_only=True)
                if isinstance(record, Run) and record.state is RunState.PENDING:
                    continue
                _remove(runs, name)
                count, total = count - 1, total - sizes[name]

    def _size(self, runs: int, seen: Seen) -> int:
        """Bytes held by one run (a link or a special file counts as nothing), read once per name and inode."""
        size = self._sizes.get(seen)
        if size is None:
            size = self._sizes[seen] = _size(runs, seen[0])
        return size

    @staticmethod
    def _clear_left_overs(runs: int, listed: dict[str, Listed]) -> None:
        """Remove what killed runs left before their record was in: temporary records, and (older runs) folders
        without a manifest; never what another process is still writing."""
        for name, (_, is_folder) in listed.items():
            if run_file.TEMP.fullmatch(name):
                run_file.remove_left_over(runs, name)
                continue
            run = parse_run_id(name)
            if is_folder and run is not None and not run.set_aside:
                _remove_orphan_folder(runs, name)


def _listing(runs: int) -> dict[str, Listed]:
    """The names in the journal folder, their inodes and whether each is a folder, from the listing alone
    (nothing is opened or stat-ed)."""
    with os.scandir(runs) as entries:
        return {entry.name: (entry.inode(), entry.is_dir(follow_symlinks=False)) for entry in entries}


def _saved_bytes(entries: Sequence[JournalEntry], originals: Sequence[bytes | None],
                 news: Sequence[bytes | None]) -> tuple[list[JournalEntry], list[bytes]]:
    """Each entry with where its old bytes go in the record, and those bytes: a reverse patch when the new
    file is the old one with a small change, else a whole copy."""
    recorded: list[JournalEntry] = []
    blobs: list[bytes] = []
    offset = 0
    for entry, original, new in zip(entries, originals, news, strict=True):
        if original is None:
            recorded.append(entry)
            continue
        patch = None if new is None else reverse_patch(original, new)
        if patch is None:
            saved, blob = Saved(offset, len(original)), original
        else:
            blob = patch.replaced
            saved = Saved(offset, len(blob), patch.keep_start, patch.keep_end, fingerprint(blob))
        recorded.append(replace(entry, backup=None, saved=saved))
        blobs.append(blob)
        offset += len(blob)
    return recorded, blobs


def _remove_orphan_folder(runs: int, name: str) -> None:
    """Remove an older run folder a killed run left without a manifest (never one another process is filling)."""
    import fcntl  # only when a run is written, so the pure API imports on platforms without fcntl

    try:
        folder = open_folder(runs, name, shown=name)
    except OSError:
        return  # a record file, a link or something else: not a folder left half-made
    try:
        if entry_status(folder, MANIFEST) is not None:
            return
        try:
            fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # its run is still writing copies
        shutil.rmtree(name, dir_fd=runs, ignore_errors=True)
    finally:
        os.close(folder)


def _size(runs: int, name: str) -> int:
    """Bytes held by one run: its record file, or the files of an older run folder (a link counts as nothing:
    removing it frees nothing)."""
    status = entry_status(runs, name)
    if status is None or stat.S_ISLNK(status.st_mode):
        return 0
    if stat.S_ISREG(status.st_mode):
        return status.st_size
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
    """Delete one run: its record, its folder, or the link or file planted under a run's name (never what it
    points to)."""
    status = entry_status(runs, name)
    if status is None:
        return
    if stat.S_ISDIR(status.st_mode):
        shutil.rmtree(name, dir_fd=runs, ignore_errors=True)
    else:
        remove_entry(runs, name)
