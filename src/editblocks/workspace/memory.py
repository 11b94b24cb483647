"""`MemoryStore`: files held in memory behind the `FileStore` face, optionally over another store.

For what must never touch the disk: a preview, the live verdicts of an
answer as it streams, the scratch copy a model's tool calls edit before the
user says yes, an evaluation case, a test. Paths are checked as the disk's
are (no `..` escape, nothing under `.git/` or `.editblocks/`); a commit is
checked against the snapshots it was planned from and is all or nothing;
every commit is a run that `undo` takes back.

Over a ``base`` store, a file not yet written here is read from the base
(and resolved by it), and nothing is ever written to the base.
"""

from __future__ import annotations

import posixpath
import stat
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass

from editblocks.model import counted
from editblocks.text.encodings import ENCODINGS
from editblocks.workspace.commit import CommitOutcome, PlannedWrite
from editblocks.workspace.dirfd import with_executable
from editblocks.workspace.paths import Refusal, RefusalCode, checked_parts, refusal
from editblocks.workspace.reading import FileSnapshot, Undecodable, decode
from editblocks.workspace.records import fingerprint
from editblocks.workspace.store import FileStore
from editblocks.workspace.undo import UndoOutcome

FILE_MODE = 0o644


@dataclass(frozen=True)
class _File:
    raw: bytes
    mode: int = FILE_MODE


@dataclass(frozen=True)
class _Run:
    run_id: str
    before: dict[str, _File | None]  # what each file held before the run (None: it did not exist)
    after: dict[str, _File | None]
    joins: str | None = None  # the first run of the multi-round run this one is a later round of

    @property
    def first(self) -> str:
        return self.joins or self.run_id


class MemoryStore:
    """Files under a root that exists only in memory (or a layer over ``base``)."""

    def __init__(self, files: Mapping[str, str | bytes] | None = None, *, base: FileStore | None = None) -> None:
        self._base = base
        self._files: dict[str, _File | None] = {}  # None: deleted here (over a base)
        self._runs: list[_Run] = []
        self._count = 0
        self._planned_from: dict[str, FileSnapshot] = {}  # over a base: the base's file each write started from
        for path, content in (files or {}).items():
            rel = self.resolve(path)
            if isinstance(rel, Refusal):
                raise ValueError(rel.reason)
            self._files[rel] = _File(content.encode("utf-8") if isinstance(content, str) else content)

    # --- reading ----------------------------------------------------------------------------------------------

    def resolve(self, path: str) -> str | Refusal:
        if self._base is not None:
            return self._base.resolve(path)
        parts = checked_parts(path, lambda absolute: None, lambda parts: "/".join(parts) in self._files)
        if isinstance(parts, Refusal):
            return parts
        rel = "/".join(parts)
        if any(key.startswith(rel + "/") for key, held in self._files.items() if held is not None):
            return refusal(path, RefusalCode.DIRECTORY, "is a folder, not a file")
        return rel

    def read(self, path: str) -> FileSnapshot | Refusal:
        rel = self.resolve(path)
        if isinstance(rel, Refusal):
            return rel
        if rel not in self._files and self._base is not None:
            return self._base.read(path)
        held = self._files.get(rel)
        if held is None:
            return FileSnapshot(rel, exists=False, text=None, encoding="utf-8", fingerprint=None, mode=None)
        decoded = decode(held.raw)
        if isinstance(decoded, Undecodable):
            return refusal(path, decoded.code, decoded.why)
        text, encoding = decoded
        return FileSnapshot(rel, True, text, encoding, fingerprint(held.raw), held.mode)

    def through_link(self, path: str, canonical: str) -> bool:
        return self._base.through_link(path, canonical) if self._base is not None else False

    def files(self) -> Sequence[str]:
        listed = set(self._base.files()) if self._base is not None else set()
        listed |= {rel for rel, held in self._files.items() if held is not None}
        return sorted(listed - {rel for rel, held in self._files.items() if held is None})

    def folder(self, path: str) -> str | None:
        found = self._base.folder(path) if self._base is not None else None
        if found is not None:
            return found
        stripped = path.strip().replace("\\", "/").strip("/")
        if stripped in ("", "."):
            return ""
        normal = posixpath.normpath(stripped)
        return normal if any(rel.startswith(normal + "/") for rel in self.files()) else None

    def entries(self, folder: str) -> list[tuple[str, bool]]:
        found = dict(self._base.entries(folder)) if self._base is not None else {}
        prefix = f"{folder}/" if folder else ""
        for rel, held in self._files.items():
            if not rel.startswith(prefix):
                continue
            first, _, rest = rel[len(prefix) :].partition("/")
            if first.startswith("."):
                continue
            if held is not None:
                found[first] = found.get(first, False) or bool(rest)
            elif not rest and not any(other.startswith(prefix + first) for other in self.files()):
                found.pop(first, None)  # removed here
        return sorted(found.items())

    def text(self, path: str) -> str | None:
        """The text the file ``path`` names holds here (None: no such file, or not text)."""
        read = self.read(path)
        return read.text if isinstance(read, FileSnapshot) else None

    def changed(self) -> dict[str, str | None]:
        """Every file written here (over a base: what differs from it), with its text; None for a removed file."""
        return {rel: self.text(rel) if held is not None else None for rel, held in sorted(self._files.items())}

    def layer(self) -> list[tuple[FileSnapshot, str | None]]:
        """Over a base: each file this layer changed, as the base's snapshot it was first planned from and its
        text here now (None: removed here), for writing the layer to the base in one commit checked against them."""
        return [(snapshot, self.text(rel) if self._files.get(rel) is not None else None)
                for rel, snapshot in sorted(self._planned_from.items())]

    # --- writing ----------------------------------------------------------------------------------------------

    def commit(self, writes: Sequence[PlannedWrite], *, git_add: bool = False,
               joins: str | None = None) -> CommitOutcome:
        """Write every planned file or none: a file that changed since its snapshot stops the commit. ``git_add``
        has nothing to stage here; ``joins`` makes the run a later round of that run (undone with it)."""
        rels = [write.snapshot.rel for write in writes]
        if len(set(rels)) != len(rels):
            raise ValueError("commit got more than one planned write for the same file")
        changed = [write.snapshot.rel for write in writes if self._fingerprint(write.snapshot.rel)
                   != write.snapshot.fingerprint]
        if changed:
            listed = ", ".join(f"`{rel}`" for rel in changed)
            since = "since it was read" if len(changed) == 1 else "since they were read"
            return CommitOutcome(False, (), tuple(changed), f"nothing written: {listed} changed {since}; plan again "
                                                            "from the current files", None)
        after: dict[str, _File | None] = {}
        for write in writes:
            if self._base is not None and write.snapshot.rel not in self._files:
                self._planned_from.setdefault(write.snapshot.rel, write.snapshot)
            if write.delete:
                after[write.snapshot.rel] = None
                continue
            bom, codec = ENCODINGS.get(write.snapshot.encoding, ENCODINGS["utf-8"])
            mode = stat.S_IMODE(write.snapshot.mode or write.mode or FILE_MODE)
            if write.executable is not None:
                mode = with_executable(mode, write.executable)
            after[write.snapshot.rel] = _File(bom + write.text.encode(codec, "surrogatepass"), mode)
        before = {rel: self._current(rel) for rel in after}
        after = {rel: held for rel, held in after.items() if held != before[rel]}
        if not after:
            return CommitOutcome(True, (), (), "", None)
        self._count += 1
        run = _Run(f"memory-{self._count}", {rel: before[rel] for rel in after}, after,
                   joins if any(done.run_id == joins for done in self._runs) else None)
        self._files.update(after)
        self._runs.append(run)
        return CommitOutcome(True, tuple(after), (), "", run.run_id)

    def lock(self, *, wait: float) -> AbstractContextManager[None]:
        """Nothing else writes to memory this store holds: the lock is always free."""
        return _free()

    def interrupted_run(self) -> str | None:
        return None

    def has_journal(self) -> bool:
        return bool(self._runs)

    def next_undo_paths(self) -> tuple[str, ...] | None:
        return tuple(dict.fromkeys(rel for run in self._unit() for rel in run.after)) if self._runs else None

    def undo(self, *, force: bool = False, only: Collection[str] | None = None) -> UndoOutcome:
        """Put back what the last run changed, with the earlier rounds it joins (with ``only``, if it is one of
        those runs). Only commits write here, so no file can have changed since the run (``force`` has nothing
        to override)."""
        if not self._runs:
            return UndoOutcome((), (), (), "nothing to undo", ok=False)
        newest = self._runs[-1].run_id
        if only is not None and newest not in only:
            return UndoOutcome((), (), (), f"nothing undone: the most recent run, {newest}, was made elsewhere",
                               ok=False, not_ours=newest)
        unit = self._unit()
        del self._runs[-len(unit):]
        last: dict[str, bool] = {}
        for run in unit:
            for rel, held in run.before.items():
                last[rel] = held is not None
                if held is None and self._base is not None and self._base_has(rel):
                    self._files[rel] = None
                elif held is None:
                    self._files.pop(rel, None)
                else:
                    self._files[rel] = held
        restored = tuple(rel for rel, kept in last.items() if kept)
        removed = tuple(rel for rel, kept in last.items() if not kept)
        counts = f"restored {counted(len(restored), 'file')}, removed {counted(len(removed), 'created file')}"
        later = f" and its {counted(len(unit) - 1, 'later round')}" if len(unit) > 1 else ""
        which = f"run {unit[-1].run_id}{later}"
        return UndoOutcome(restored, removed, (), f"undid {which}: {counts}", ok=True, run_id=newest,
                           runs=tuple(run.run_id for run in unit))

    def _unit(self) -> list[_Run]:
        """The newest run and the earlier rounds it joins, newest first."""
        newest = self._runs[-1]
        unit = []
        for run in reversed(self._runs):
            if run.first != newest.first:
                break
            unit.append(run)
        return unit

    def _current(self, rel: str) -> _File | None:
        if rel in self._files:
            return self._files[rel]
        read = self._base.read(rel) if self._base is not None else None
        if not isinstance(read, FileSnapshot) or read.text is None:
            return None
        bom, codec = ENCODINGS[read.encoding]
        return _File(bom + read.text.encode(codec, "surrogatepass"), read.mode or FILE_MODE)

    def _fingerprint(self, rel: str) -> str | None:
        held = self._current(rel)
        return fingerprint(held.raw) if held is not None else None

    def _base_has(self, rel: str) -> bool:
        read = self._base.read(rel) if self._base is not None else None
        return isinstance(read, FileSnapshot) and read.exists


@contextmanager
def _free() -> Iterator[None]:
    yield



