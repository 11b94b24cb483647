"""`FileStore`: what the service needs of a place where files live, on disk (`Workspace`) or in memory.

Read a file into a snapshot (or learn why it may not be edited), commit a
set of planned writes all or nothing, hold the store against other writers,
and undo the last run. The service plans and commits through this face only,
so a preview, a live verdict, a scratch copy for tool calls or an
evaluation case runs the same code as a real apply, on a `MemoryStore`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from editblocks.workspace.commit import CommitOutcome, PlannedWrite
from editblocks.workspace.paths import Refusal
from editblocks.workspace.reading import FileSnapshot
from editblocks.workspace.undo import UndoOutcome


class FileStore(Protocol):
    """Files under one root: read, commit, lock, journal, undo."""

    def resolve(self, path: str) -> str | Refusal:
        """The canonical relative path ``path`` names inside the root, or why it may not be used."""

    def read(self, path: str) -> FileSnapshot | Refusal:
        """A snapshot of the file ``path`` names (or of its absence), or why it cannot be edited."""

    def through_link(self, path: str, canonical: str) -> bool:
        """Whether ``path``, resolved to ``canonical``, reaches its file through a symlink (not to move by)."""

    def files(self) -> Sequence[str]:
        """The files under the root (a bounded list), to suggest the one a model meant."""

    def folder(self, path: str) -> str | None:
        """The folder ``path`` names inside the root (`""` for the root), or None when it names no folder."""

    def entries(self, folder: str) -> list[tuple[str, bool]]:
        """The visible names in ``folder`` (relative to the root) and whether each is a folder, sorted."""

    def commit(self, writes: Sequence[PlannedWrite], *, git_add: bool = False,
               joins: str | None = None) -> CommitOutcome:
        """Write every planned file, or none of them, checked against the snapshots they were planned from; with
        ``joins``, as a later round of that run (one `undo` takes back both)."""

    def lock(self, *, wait: float) -> AbstractContextManager[None]:
        """Hold the store against other writers for one read → plan → commit."""

    def interrupted_run(self) -> str | None:
        """The id of a run killed mid-commit, which `undo` must recover before anything else is written."""

    def has_journal(self) -> bool:
        """Whether any run was ever recorded (so that `undo` may have something to do)."""

    def next_undo_paths(self) -> tuple[str, ...] | None:
        """The files of the run `undo` would undo next, or None when there is none."""

    def undo(self, *, force: bool = False, only: Collection[str] | None = None) -> UndoOutcome:
        """Put back what the most recent run not yet undone changed (with the rounds it joins, all of them);
        with ``only`` (run ids), a newest run not among them is left alone and named in ``not_ours``."""
