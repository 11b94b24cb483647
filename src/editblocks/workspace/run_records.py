"""Saved model runs: one folder per `editblocks ask` run under ``<root>/.editblocks/runs/``.

A run's messages, raw answers and results are kept so that a surprising run
can be looked at later and turned into an evaluation case (`eval --from-run`).
The folder sits beside the undo journal (``.editblocks/journal/``) inside the
state folder git never sees, and is reached the same way: through folder
descriptors opened without following a link, so a record is never written
outside the root. Files in a run folder are flat names; one that is written
again (the run summary) is replaced atomically. The workbench lists the
folders and reads them back (its history), so a run can be reopened and
continued: `list_records`, `open_record` and `RunRecord.get`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

from editblocks.workspace.dirfd import open_folder, read_entry, remove_entry, replace_entry, write_new_file
from editblocks.workspace.paths import JOURNAL_DIR
from editblocks.workspace.state import StateFolder

RUNS_DIR = "runs"
KEEP_RECORDS = 50  # the oldest run folders beyond this many are removed when a new run starts
MAX_RECORD_FILE_BYTES = 64 << 20  # a saved file larger than this is not read back
_NAME = re.compile(r"\d{8}T\d{6}\.\d{6}Z")


class RunRecord:
    """One run's folder: ``add`` a new file, ``put`` (create or replace) one."""

    def __init__(self, root: Path, name: str) -> None:
        self.root = root
        self.name = name
        self.path = root / JOURNAL_DIR / RUNS_DIR / name

    def add(self, filename: str, data: bytes) -> None:
        with self._folder() as folder:
            write_new_file(folder, filename, data)

    def put(self, filename: str, data: bytes) -> None:
        with self._folder() as folder:
            temp = f".{filename}.{secrets.token_hex(4)}.tmp"
            write_new_file(folder, temp, data)
            try:
                replace_entry(folder, temp, filename)
            except BaseException:
                remove_entry(folder, temp)
                raise

    def get(self, filename: str, *, limit: int = MAX_RECORD_FILE_BYTES) -> bytes | None:
        """The bytes of a file of this run, or None when it is missing, not a regular file or too large."""
        try:
            with self._folder() as folder:
                read = read_entry(folder, filename, shown=f"{JOURNAL_DIR}/{RUNS_DIR}/{self.name}/{filename}",
                                  limit=limit)
        except OSError:
            return None
        return None if read is None else read[0]

    @contextlib.contextmanager
    def _folder(self) -> Iterator[int]:
        with _runs_folder(self.root, create=False) as runs:
            folder = open_folder(runs, self.name, shown=f"{JOURNAL_DIR}/{RUNS_DIR}/{self.name}")
            try:
                yield folder
            finally:
                os.close(folder)


def start_record(root: str | os.PathLike[str], *, keep: int = KEEP_RECORDS) -> RunRecord:
    """Make a new, empty run folder named after the UTC time to the microsecond (``20260101T120000.000123Z``).

    Names sort in time order, so pruning removes the oldest. Raises OSError
    with a sentence when the state folder cannot be used.
    """
    resolved = Path(os.path.realpath(root))
    now = time.time_ns() // 1000
    with _runs_folder(resolved, create=True) as runs:
        _prune(runs, keep - 1)
        for micros in range(now, now + 1000):  # a name taken in the same microsecond: the next one
            seconds, fraction = divmod(micros, 1_000_000)
            name = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds)) + f".{fraction:06d}Z"
            try:
                os.mkdir(name, dir_fd=runs)
            except FileExistsError:
                continue
            return RunRecord(resolved, name)
    raise OSError(errno.EEXIST, "no free run folder name")


def list_records(root: str | os.PathLike[str]) -> list[RunRecord]:
    """The run folders under ``root``, newest first ([] when there are none or the state folder cannot be used)."""
    resolved = Path(os.path.realpath(root))
    try:
        with _runs_folder(resolved, create=False) as runs:
            names = [name for name in os.listdir(runs) if _NAME.fullmatch(name)]
    except OSError:
        return []
    return [RunRecord(resolved, name) for name in sorted(names, reverse=True)]


def open_record(root: str | os.PathLike[str], name: str) -> RunRecord | None:
    """The run folder ``name`` under ``root``, or None when the name is not one `start_record` gives or it is gone."""
    if not _NAME.fullmatch(name):
        return None
    found = [record for record in list_records(root) if record.name == name]
    return found[0] if found else None


def _prune(runs: int, keep: int) -> None:
    """Remove the oldest run folders so at most ``keep`` remain (names sort in time order)."""
    names = sorted(name for name in os.listdir(runs) if name[:1].isdigit())
    for name in names[: max(0, len(names) - keep)]:
        with contextlib.suppress(OSError):
            shutil.rmtree(name, dir_fd=runs)


@contextlib.contextmanager
def _runs_folder(root: Path, *, create: bool) -> Iterator[int]:
    """The open ``.editblocks/runs`` folder; made (with the state folder and its .gitignore) when ``create``."""
    state = StateFolder(root)
    if create:
        state.ensure()
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        home = state.open_home(top, create=False)
        if home is None:
            raise FileNotFoundError(errno.ENOENT, f"`{JOURNAL_DIR}` is gone")
        try:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(RUNS_DIR, dir_fd=home)
            runs = open_folder(home, RUNS_DIR, shown=f"{JOURNAL_DIR}/{RUNS_DIR}")
            try:
                yield runs
            finally:
                os.close(runs)
        finally:
            os.close(home)
    finally:
        os.close(top)
