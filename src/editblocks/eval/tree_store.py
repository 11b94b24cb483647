"""A case's `before/` files as a read-only `FileStore` that answers exactly as the same files on disk would.

An evaluation in memory runs the service on a `MemoryStore` layered over
this store: the layer takes every write, this store resolves and reads. Its
answers are the disk's, so a verdict never depends on the backend: a path
naming a folder (even an empty one) or running through a file is refused
with the disk's words, a file without write bits is read-only, and the files
are listed in the order a walk of the folder gives them, `.git/` and the
journal left out.
"""

from __future__ import annotations

import stat
from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from editblocks.eval.case_files import CaseTree
from editblocks.workspace.commit import CommitOutcome, PlannedWrite
from editblocks.workspace.paths import GIT_DIR, JOURNAL_DIR, Refusal, RefusalCode, checked_parts, refusal, show
from editblocks.workspace.project_files import MAX_WALKED_FILES
from editblocks.workspace.reading import FileSnapshot, Undecodable, decode
from editblocks.workspace.records import fingerprint
from editblocks.workspace.undo import UndoOutcome

_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
_ROOT_SPELLINGS = frozenset({"", ".", "./", "/"})
_SKIPPED_FOLDERS = frozenset({GIT_DIR, JOURNAL_DIR})
_PROBE = "editblocks-folder-probe"  # a name inside the folder, resolved to learn what the folder's path is


class TreeStore:
    """The files of one tree, read-only; every write goes to a `MemoryStore` layered over it."""

    def __init__(self, tree: CaseTree) -> None:
        self._files = tree.files
        self._modes = tree.modes
        self._folders = set(tree.folders)
        self._resolved: dict[str, str | Refusal] = {}  # nothing here changes, so each answer is kept
        self._read: dict[str, FileSnapshot | Refusal] = {}
        for rel in tree.files:
            parts = rel.split("/")
            self._folders.update("/".join(parts[:depth]) for depth in range(1, len(parts)))

    def resolve(self, path: str) -> str | Refusal:
        known = self._resolved.get(path)
        if known is None:
            known = self._resolved[path] = self._resolve(path)
        return known

    def _resolve(self, path: str) -> str | Refusal:
        parts = checked_parts(path, lambda absolute: None, self._exists)
        if isinstance(parts, Refusal):
            return parts
        for depth in range(1, len(parts)):
            above = "/".join(parts[:depth])
            if above in self._files:
                return refusal(path, RefusalCode.INVALID_PATH, f"goes through `{show(above)}`, which is a file, "
                                                               "not a folder")
        rel = "/".join(parts)
        if rel in self._folders:
            return refusal(path, RefusalCode.DIRECTORY, "is a directory, not a file")
        return rel

    def read(self, path: str) -> FileSnapshot | Refusal:
        known = self._read.get(path)
        if known is None:
            known = self._read[path] = self._read_file(path)
        return known

    def _read_file(self, path: str) -> FileSnapshot | Refusal:
        rel = self.resolve(path)
        if isinstance(rel, Refusal):
            return rel
        raw = self._files.get(rel)
        if raw is None:
            return FileSnapshot(rel, exists=False, text=None, encoding="utf-8", fingerprint=None, mode=None)
        decoded = decode(raw)
        if isinstance(decoded, Undecodable):
            return refusal(path, decoded.code, decoded.why)
        mode = self._modes.get(rel, 0o644)
        if not mode & _WRITE_BITS:
            return refusal(path, RefusalCode.READ_ONLY, f"is read-only (mode {mode:04o}); make it writable to let "
                                                        "editblocks change it")
        text, encoding = decoded
        return FileSnapshot(rel, True, text, encoding, fingerprint(raw), mode)

    def through_link(self, path: str, canonical: str) -> bool:
        return False  # a case holds no links

    def files(self) -> Sequence[str]:
        listed = [rel for rel in self._files if not any(part in _SKIPPED_FOLDERS for part in rel.split("/")[:-1])]
        return sorted(listed, key=_walk_order)[:MAX_WALKED_FILES]

    def folder(self, path: str) -> str | None:
        if path.strip() in _ROOT_SPELLINGS:
            return ""
        rel = self.resolve(path)
        if not isinstance(rel, Refusal) or rel.code is not RefusalCode.DIRECTORY:
            return None
        probe = self.resolve(path.rstrip("/\\") + "/" + _PROBE)
        if isinstance(probe, Refusal):
            return None
        return probe.rsplit("/", 1)[0] if "/" in probe else ""

    def entries(self, folder: str) -> list[tuple[str, bool]]:
        prefix = f"{folder}/" if folder else ""
        found: dict[str, bool] = {}
        for rel in (*self._files, *self._folders):
            if rel.startswith(prefix):
                first, _, rest = rel[len(prefix):].partition("/")
                found[first] = found.get(first, False) or bool(rest) or rel in self._folders
        return sorted((name, is_folder) for name, is_folder in found.items() if not name.startswith("."))

    def commit(self, writes: Sequence[PlannedWrite], *, git_add: bool = False,
               joins: str | None = None) -> CommitOutcome:
        raise TypeError("a case's before/ tree is read-only; commit to a MemoryStore layered over it")

    def lock(self, *, wait: float) -> AbstractContextManager[None]:
        return _free()

    def interrupted_run(self) -> str | None:
        return None

    def has_journal(self) -> bool:
        return False

    def next_undo_paths(self) -> tuple[str, ...] | None:
        return None

    def undo(self, *, force: bool = False, only: Collection[str] | None = None) -> UndoOutcome:
        return UndoOutcome((), (), (), "nothing to undo", ok=False)

    def _exists(self, parts: list[str]) -> bool:
        rel = "/".join(parts)
        return rel in self._files or rel in self._folders


def _walk_order(rel: str) -> tuple[tuple[int, str], ...]:
    """A folder's own files come before everything in its subfolders, each level in name order (`Tree.walk`)."""
    parts = rel.split("/")
    return (*((1, part) for part in parts[:-1]), (0, parts[-1]))


@contextmanager
def _free() -> Iterator[None]:
    yield
