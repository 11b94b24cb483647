"""What the journal records about a run: one entry per file, the run's state, and the manifest holding them.

A run id is ``<8-digit sequence>-<UTC time>`` (see `run_ids`). The manifest
is replaced atomically, so it is always either the old or the new version.
It is data on disk that a cloned repository can carry, so it is checked
before it is believed: a record that fails a check is a `DamagedRun`, and a
run folder or manifest someone else owns is an `UntrustedRun`, never undone.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from editblocks.workspace.dirfd import open_folder, read_entry, remove_entry, replace_entry, write_new_file
from editblocks.workspace.git import Staged
from editblocks.workspace.paths import JOURNAL_DIR
from editblocks.workspace.run_ids import parse_run_id
from editblocks.workspace.state import RUNS

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
MANIFEST_MAX_BYTES = 256 << 20  # far above any real run; a planted giant file is not read into memory
PERMISSION_BITS = 0o7777
_BACKUP_NAME = re.compile(r"[0-9]{4}\.orig")
_DIGEST = re.compile(r"[0-9a-f]{64}")


class RunState(StrEnum):
    PENDING = "pending"
    COMMITTED = "committed"
    UNDONE = "undone"


@dataclass(frozen=True)
class Saved:
    """Where a run's record keeps a file's old bytes: a whole copy, or (``keep_start`` set) a reverse patch.

    A reverse patch is the bytes a small edit replaced: the old file is the new file's first ``keep_start``
    bytes, then these bytes, then its last ``keep_end`` bytes. It applies only to the very bytes the run
    wrote, so ``digest`` guards the patch itself and the old fingerprint the result.
    """

    offset: int  # into the record's payload
    length: int
    keep_start: int | None = None
    keep_end: int | None = None
    digest: str | None = None  # sha256 of a patch's bytes (a copy is checked against the old fingerprint)

    @property
    def is_patch(self) -> bool:
        return self.keep_start is not None

    def to_json(self) -> dict[str, Any]:
        patch = {} if self.keep_start is None else {"keep_start": self.keep_start, "keep_end": self.keep_end,
                                                    "digest": self.digest}
        return {"offset": self.offset, "length": self.length, **patch}

    @classmethod
    def from_json(cls, data: object) -> Saved:
        if not isinstance(data, dict):
            raise ValueError(f"{data!r} does not say where the old bytes are")
        patch = "keep_start" in data
        saved = cls(_count(data["offset"]), _count(data["length"]),
                    _count(data["keep_start"]) if patch else None, _count(data["keep_end"]) if patch else None,
                    str(data["digest"]) if patch else None)
        if patch and not _DIGEST.fullmatch(saved.digest or ""):
            raise ValueError(f"{data['digest']!r} is not a sha256 digest")
        return saved


@dataclass(frozen=True)
class JournalEntry:
    """One file of a run: enough to put it back whichever state a crash left it in."""

    path: str  # canonical relative path of the target
    existed: bool
    backup: str | None  # file name of the copy of the old bytes, inside the run folder
    old_fingerprint: str | None
    old_mode: int | None
    new_fingerprint: str | None  # None: the run deleted the file
    temp: str  # relative path of the temporary file renamed onto the target
    created_dirs: tuple[str, ...]  # folders this file's write created, outermost first
    new_mode: int | None = None  # the permission bits the run gave the file, when it changed them
    saved: Saved | None = None  # where a one-file record keeps the old bytes (`backup` names a copy's file)

    def to_json(self) -> dict[str, Any]:
        mode: dict[str, Any] = {} if self.new_mode is None else {"new_mode": self.new_mode}
        mode |= {} if self.saved is None else {"saved": self.saved.to_json()}
        return {
            "path": self.path,
            "existed": self.existed,
            "backup": self.backup,
            "old_fingerprint": self.old_fingerprint,
            "old_mode": self.old_mode,
            "new_fingerprint": self.new_fingerprint,
            "temp": self.temp,
            "created_dirs": list(self.created_dirs),
            **mode,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JournalEntry:
        entry = cls(
            path=str(data["path"]),
            existed=bool(data["existed"]),
            backup=None if data["backup"] is None else str(data["backup"]),
            old_fingerprint=None if data["old_fingerprint"] is None else str(data["old_fingerprint"]),
            old_mode=_mode(data["old_mode"]),
            new_fingerprint=None if data["new_fingerprint"] is None else str(data["new_fingerprint"]),
            temp=str(data["temp"]),
            created_dirs=tuple(str(folder) for folder in data["created_dirs"]),
            new_mode=None if data.get("new_mode") is None else int(data["new_mode"]),
            saved=None if data.get("saved") is None else Saved.from_json(data["saved"]),
        )
        kept = entry.backup is not None or entry.saved is not None
        both = entry.backup is not None and entry.saved is not None
        deleted_new = entry.new_fingerprint is None and not entry.existed
        misnamed = entry.backup is not None and not _BACKUP_NAME.fullmatch(entry.backup)
        if entry.existed != kept or both or deleted_new or misnamed:
            raise ValueError(f"inconsistent journal entry for {entry.path!r}")
        return entry


@dataclass(frozen=True)
class Run:
    run_id: str
    state: RunState
    created: str
    entries: tuple[JournalEntry, ...]
    staged: tuple[Staged, ...] = ()  # git index entries `--git-add` changed, put back by undo
    joins: str | None = None
    """The first run of the multi-round run this one belongs to (an `ask` round after the first): one undo takes
    back them all."""
    folder: bool = False
    """Recorded the older way, as a folder with a manifest and a copy per file (else one file, see `run_file`)."""

    @property
    def first(self) -> str:
        """The id of the multi-round run this run belongs to: the first run's id (its own, for a run alone)."""
        return self.joins or self.run_id


@dataclass(frozen=True)
class DamagedRun:
    """A run folder whose record cannot be believed: undo must stop there rather than skip it silently."""

    run_id: str
    why: str


@dataclass(frozen=True)
class UntrustedRun:
    """A run editblocks did not make for this user (someone else's, or out of sequence): never undone, only named."""

    run_id: str
    why: str


Stranger = Callable[[os.stat_result], bool]
"""Whether a file belongs to someone whose runs are not to be trusted (see `StateFolder.stranger`)."""


def fingerprint(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_document(run: Run) -> dict[str, Any]:
    """What a run's record says about it, as JSON (a one-file record keeps the state apart, see `run_file`)."""
    document: dict[str, Any] = {
        "version": MANIFEST_VERSION,
        "run_id": run.run_id,
        "state": run.state.value,
        "created": run.created,
        "files": [entry.to_json() for entry in run.entries],
    }
    if run.staged:
        document["git_index"] = [item.to_json() for item in run.staged]
    if run.joins is not None:
        document["joins"] = run.joins
    return document


def write_manifest(folder: int, run: Run) -> None:
    """Replace the run folder's manifest with one recording ``run``, atomically, and fsync the folder."""
    temp = f".{MANIFEST}.{secrets.token_hex(4)}.tmp"
    write_new_file(folder, temp, json.dumps(manifest_document(run), indent=2).encode("utf-8"))
    try:
        replace_entry(folder, temp, MANIFEST)
    except BaseException:
        remove_entry(folder, temp)
        raise
    os.fsync(folder)


def load_run(runs: int, run_id: str, stranger: Stranger) -> Run | DamagedRun | UntrustedRun | None:
    """The run recorded in a folder, why its record cannot be believed, or None if it never started."""
    try:
        folder = open_folder(runs, run_id, shown=f"{JOURNAL_DIR}/{RUNS}/{run_id}")
    except FileNotFoundError:
        return None
    except OSError as error:
        return DamagedRun(run_id, error.strerror or str(error))
    try:
        owner = _foreign_owner(os.fstat(folder), stranger, "its folder")
        found = read_entry(folder, MANIFEST, shown=MANIFEST, limit=MANIFEST_MAX_BYTES)
    except OSError as error:
        return DamagedRun(run_id, f"{MANIFEST} cannot be read: {error.strerror or error}")
    finally:
        os.close(folder)
    if found is None:
        return None
    owner = owner or _foreign_owner(found[1], stranger, MANIFEST)
    if owner:
        return UntrustedRun(run_id, owner)
    loaded = run_from_json(found[0], run_id, MANIFEST, None)
    return replace(loaded, folder=True) if isinstance(loaded, Run) else loaded


def run_from_json(text: bytes, run_id: str, shown: str, state: RunState | None) -> Run | DamagedRun:
    """The run a record's JSON describes, or why it cannot be believed; ``state`` overrides the recorded one."""
    try:
        document = json.loads(text)
    except ValueError:
        return DamagedRun(run_id, f"{shown} is not valid JSON, perhaps cut short")
    return run_from_document(document, run_id, shown, state)


def run_from_document(document: Any, run_id: str, shown: str, state: RunState | None) -> Run | DamagedRun:
    """`run_from_json` of JSON already read."""
    try:
        if document["version"] != MANIFEST_VERSION:
            return DamagedRun(run_id, f"{shown} has version {document['version']!r}, not {MANIFEST_VERSION}")
        if document["run_id"] != run_id:
            return DamagedRun(run_id, f"{shown} names another run, {document['run_id']!r}")
        entries = tuple(JournalEntry.from_json(item) for item in document["files"])
        staged = tuple(Staged.from_json(item) for item in document.get("git_index", ()))
        if not {item.path for item in staged} <= {entry.path for entry in entries}:
            raise ValueError("the git index entries name files the run did not write")
        joins = document.get("joins")
        if joins is not None and not _earlier_run(joins, run_id):
            raise ValueError(f"`joins` names no earlier run: {joins!r}")
        recorded = state or RunState(document["state"])
        return Run(run_id, recorded, str(document["created"]), entries, staged, joins)
    except KeyError as error:
        return DamagedRun(run_id, f"{shown} is incomplete (it has no `{error.args[0]}`)")
    except ValueError as error:
        return DamagedRun(run_id, f"{shown} is incomplete ({error})")
    except (TypeError, AttributeError):
        return DamagedRun(run_id, f"{shown} is incomplete (a field holds the wrong kind of value)")


def _earlier_run(value: object, run_id: str) -> bool:
    """Whether ``value`` is the id of a run before ``run_id`` (what a run's `joins` must be)."""
    found = parse_run_id(value) if isinstance(value, str) else None
    later = parse_run_id(run_id)
    return found is not None and not found.set_aside and later is not None and found.sequence < later.sequence


def _mode(value: object) -> int | None:
    """A recorded mode: None, or permission bits (an int from 0 to 0o7777); anything else is a damaged record."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= PERMISSION_BITS:
        raise ValueError(f"{value!r} is not a file mode")
    return value


def _count(value: object) -> int:
    """A recorded size or offset: a non-negative int; anything else is a damaged record."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{value!r} is not a byte count")
    return value


def _foreign_owner(status: os.stat_result, stranger: Stranger, what: str) -> str:
    """Why the run is not the user's, if ``status`` (of its folder or manifest) belongs to someone else; or ""."""
    if not stranger(status):
        return ""
    return f"{what} belongs to user {status.st_uid}, not to you (user {os.geteuid()}), so you did not make this run"
