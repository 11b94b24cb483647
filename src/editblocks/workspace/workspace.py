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

`Workspace` is the face; each job is a module behind it: `reading` (resolve,
decode, refuse), `commit` (check, journal, replace, roll back, git add),
`restore` (put a run's files back, for undo and roll back), `undo`, `lock`,
and the journal (`journal`, with `records`, `run_file`, `reverse_patch` and `state`).

Environment conditions (disk full, permission denied, a file changed under
us) come back as values; only a busy or unusable workspace raises.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

from editblocks.errors import WorkspaceError
from editblocks.workspace.commit import CommitOutcome, Committer, PlannedWrite
from editblocks.workspace.dirfd import Kind, Tree, describe, scan
from editblocks.workspace.interrupted import interrupted_run
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES, Journal
from editblocks.workspace.lock import hold
from editblocks.workspace.paths import Refusal, RefusalCode
from editblocks.workspace.project_files import walk_files
from editblocks.workspace.reading import FileSnapshot, Reader
from editblocks.workspace.records import Run, RunState, UntrustedRun
from editblocks.workspace.undo import Undoer, UndoOutcome, undo_unit

__all__ = ["Workspace"]

_ROOT_SPELLINGS = frozenset({"", ".", "./", "/"})
_PROBE = "editblocks-folder-probe"


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
        self._reader = Reader(resolved, (given,) if given != resolved else ())
        self._journal = Journal(resolved, keep_runs=keep_runs, max_bytes=journal_max_bytes)
        self._committer = Committer(self._reader, self._journal)
        self._undoer = Undoer(self._reader, self._journal)

    def resolve(self, path: str) -> str | Refusal:
        """The canonical relative path ``path`` names inside the root, or why it may not be used."""
        return self._reader.resolve(path)

    def through_link(self, path: str, canonical: str) -> bool:
        """Whether ``path``, resolved to ``canonical``, reaches its file through a symlink (not to move by)."""
        return self._reader.through_link(path, canonical)

    def read(self, path: str) -> FileSnapshot | Refusal:
        """A snapshot of the file ``path`` names (or of its absence), or why it cannot be edited."""
        return self._reader.read(path)

    def files(self) -> Sequence[str]:
        """Up to `MAX_WALKED_FILES` files under the root, never through a link, `.git/` and the journal left out."""
        return walk_files(self.root)

    def folder(self, path: str) -> str | None:
        """The folder ``path`` names inside the root (`""` for the root), or None when it names no folder.

        The path checks are the files' own: a file name is resolved inside the
        folder, so `..`, links leading out, `.git` and `.editblocks` are refused
        exactly as they are for files.
        """
        if path.strip() in _ROOT_SPELLINGS or os.path.abspath(path) == str(self.root):
            return ""
        rel = self.resolve(path)
        if not isinstance(rel, Refusal) or rel.code is not RefusalCode.DIRECTORY:
            return None
        probe = self.resolve(path.rstrip("/\\") + "/" + _PROBE)
        if isinstance(probe, Refusal):
            return None
        return probe.rsplit("/", 1)[0] if "/" in probe else ""

    def entries(self, folder: str) -> list[tuple[str, bool]]:
        """The visible names in ``folder`` and whether each is a real folder (links are listed, never followed):
        none if it is gone; OSError if it cannot be read or is now a link (it is opened without following one)."""
        with Tree(self.root) as tree:
            fd = tree.folder(folder)
            return [] if fd is None else [(name, kind is Kind.FOLDER) for name, kind in scan(fd)
                                          if not name.startswith(".")]

    def commit(self, writes: Sequence[PlannedWrite], *, git_add: bool = False,
               joins: str | None = None) -> CommitOutcome:
        """Write every planned file, or none of them.

        Refuses while an interrupted run awaits undo, and writes nothing if any
        file changed since its snapshot. Writes whose bytes equal the file's are
        skipped; with nothing left to write the outcome is written=True with no
        files and no run. ``joins`` (a run id) makes the run part of that
        earlier run's multi-round run: `undo` takes them back together.
        Raises ValueError if two writes name the same file.
        """
        return self._committer.commit(writes, git_add=git_add, joins=joins)

    def undo(self, *, force: bool = False, only: Collection[str] | None = None) -> UndoOutcome:
        """Put back what the most recent run not yet undone changed, or finish an interrupted run.

        All or nothing: if any file changed after the run wrote it, nothing is
        touched and those files are listed in ``refused`` — unless ``force``,
        which restores them anyway, discarding the later changes. A run whose
        record is damaged stops undo; ``force`` sets it aside and undoes the
        run before it. Index entries `git_add` staged are put back too. With
        ``only`` (run ids), a newest run not among them is left alone and named
        in ``not_ours``: a door undoes only the runs it made. Hold `lock()`
        around it: a run another process is still writing also looks pending.
        """
        return self._undoer.undo(force=force, only=only)

    def next_undo_paths(self) -> tuple[str, ...] | None:
        """The files of the run `undo` would undo next (with the rounds undone with it), or None when there is no
        such run or its record is damaged."""
        try:
            records = self._journal.records()
        except OSError:
            return None
        listed = [record for record in records if not isinstance(record, UntrustedRun)
                  and not (isinstance(record, Run) and record.state is RunState.UNDONE)]
        if not listed or not isinstance(listed[0], Run):
            return None
        return tuple(dict.fromkeys(entry.path for run in undo_unit(listed) for entry in run.entries))

    def has_journal(self) -> bool:
        """Whether anything is at `.editblocks` (without creating the journal folder to find out)."""
        return self._journal.exists()

    def interrupted_run(self) -> str | None:
        """The id of a run killed mid-commit, which `undo` must recover before anything else is written."""
        return interrupted_run(self._journal, self._reader)

    def lock(self, *, wait: float = 10.0) -> AbstractContextManager[None]:
        """Hold the workspace against other processes for one read → plan → commit.

        Raises WorkspaceBusy after ``wait`` seconds, or WorkspaceError if the
        journal folder or its lock cannot be created or cannot be trusted (a
        symlink, not a folder, someone else's). Not re-entrant: a second
        `lock()` in the same process waits like any other.
        """
        return hold(self._journal.state, wait=wait)
