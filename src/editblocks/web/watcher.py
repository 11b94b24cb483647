"""Noticing a file change on disk under the page: the files it shows are looked at twice a second.

Only each file's status is read (inode, size, modification time), through
the workspace's confined listing, so watching costs a few system calls. The
check runs under the caller's lock, the same one its own writes take, and
the caller re-takes the files' status after writing (`rebase`), so its own
Apply and Undo are never reported as someone else's change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from editblocks.workspace.project_files import file_stamps

INTERVAL_SECONDS = 0.5
Stamp = tuple[int, int, int] | None


class FileWatcher:
    """Calls ``changed`` with the files (of those ``watched`` names) whose status changed since last looked at."""

    def __init__(self, root: Path, watched: Callable[[], list[str]], changed: Callable[[list[str]], None],
                 guard: AbstractContextManager[object], interval: float = INTERVAL_SECONDS) -> None:
        self._root = root
        self._watched = watched
        self._changed = changed
        self._guard = guard
        self._interval = interval
        self._known: dict[str, Stamp] = {}
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="editblocks-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(5)

    def rebase(self) -> None:
        """Take the files as they are now as known (call it, holding the guard, after writing them)."""
        paths = self._watched()
        self._known = file_stamps(self._root, paths)

    def track(self) -> None:
        """Take the status of the files newly watched now (holding the guard), so a change made before the next
        look is seen as one."""
        fresh = [path for path in self._watched() if path not in self._known]
        if fresh:
            self._known.update(file_stamps(self._root, fresh))

    def check(self) -> list[str]:
        """Look once (the guard held by the caller); the files that changed, after telling ``changed``."""
        paths = self._watched()
        now = file_stamps(self._root, paths)
        moved = [path for path in paths if path in self._known and self._known[path] != now[path]]
        self._known = now
        if moved:
            self._changed(moved)
        return moved

    def _run(self) -> None:
        while not self._stopping.wait(self._interval):
            with self._guard:
                self.check()
