"""What the planner is told of a store's files: each path a block names, read once, as a `TargetFile`.

The snapshots are kept, so the plan's writes are checked against exactly
what was planned from, and its diffs carry each file's encoding.
"""

from __future__ import annotations

from editblocks.plan import TargetFile
from editblocks.workspace.paths import Refusal
from editblocks.workspace.reading import FileSnapshot
from editblocks.workspace.store import FileStore


class StoreReader:
    """Reads the files of one plan from ``store``; callable as the planner's ``source_for``."""

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.snapshots: dict[str, FileSnapshot] = {}

    def __call__(self, path: str) -> TargetFile:
        read = self.store.read(path)
        if isinstance(read, Refusal):
            return TargetFile(path, None, read.reason, read.code.value)
        self.snapshots[read.rel] = read
        links = frozenset({path}) if self.store.through_link(path, read.rel) else frozenset()
        executable = None if read.mode is None else bool(read.mode & 0o111)
        return TargetFile(read.rel, read.text, bom=read.encoding != "utf-8", executable=executable, links=links)
