"""Case folders: finding them under the folders given, and reading one into a `Case`.

A folder holding ``response.md`` (the answer) or ``calls.json`` (tool calls)
is a case; beside it ``before/``, ``after/`` and an optional ``case.json``.
Everything is read as data (`DataFolder`): a link or a special file anywhere
in a case makes it an ``error`` verdict that names the entry.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from editblocks.errors import CaseError
from editblocks.eval.calls import CALLS_FILE, CallsError, read_calls
from editblocks.eval.case_files import CaseDataError, DataFolder
from editblocks.eval.cases import CASE_FILE, Case, CaseSpec, labels_from_mapping, spec_from_mapping
from editblocks.eval.judge import CaseOutcome, failed

RESPONSE_FILE = "response.md"
BEFORE_DIR = "before"
AFTER_DIR = "after"


def find_cases(folders: Iterable[str | os.PathLike[str]]) -> list[tuple[Path, str]]:
    """Every case folder under ``folders`` with its display name, sorted by name.

    A folder holding ``response.md`` is a case; nothing inside a case is
    searched further (its ``before/`` may well contain a ``response.md`` of its
    own). Hidden folders are skipped. Names are paths relative to the common
    parent of the folders given, so they read the same however the run is split.
    """
    roots = [Path(folder).resolve() for folder in folders]
    if not roots:
        return []
    base = Path(os.path.commonpath(roots))
    if is_case(base):
        base = base.parent
    found: dict[Path, str] = {}
    for root in roots:
        for case in _walk(root):
            found.setdefault(case, case.relative_to(base).as_posix())
    return sorted(found.items(), key=lambda item: item[1])


def is_case(folder: Path) -> bool:
    """A case answers with text (`response.md`) or with tool calls (`calls.json`); whatever is there by that name
    makes it one, so a link or a pipe in its place becomes an `error` verdict rather than going unnoticed."""
    return os.path.lexists(folder / RESPONSE_FILE) or os.path.lexists(folder / CALLS_FILE)


def _walk(folder: Path) -> Iterable[Path]:
    """Case folders below ``folder``; links to folders are not followed (two links to `.` would branch forever)."""
    if is_case(folder):
        yield folder
        return
    try:
        with os.scandir(folder) as entries:
            children = sorted(folder / entry.name for entry in entries
                              if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."))
    except OSError:
        return
    for child in children:
        yield from _walk(child)


def read_case_spec(case: Path) -> CaseSpec:
    """The case's case.json, checked: unknown keys and wrong types are errors, so a typo never goes unnoticed."""
    return spec_from_mapping(read_case_json(case))


def read_case_json(case: Path) -> dict[str, Any]:
    """The object in the case's case.json (empty when there is none); CaseError when it is not an object."""
    try:
        with DataFolder(case) as folder:
            raw = folder.read(CASE_FILE)
    except CaseDataError as error:
        raise CaseError(str(error)) from None
    if raw is None:
        return {}
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CaseError(f"{CASE_FILE} cannot be read: {error}") from None
    if not isinstance(data, dict):
        raise CaseError(f"{CASE_FILE} must hold a JSON object")
    return data


def load_folder(path: str | os.PathLike[str], name: str) -> Case | CaseOutcome:
    """The case in the folder ``path``, or the ``error`` outcome that says why it cannot be one."""
    started = time.perf_counter()
    case = Path(path)
    why = ""
    try:
        data = read_case_json(case)
        spec = spec_from_mapping(data)
        why = spec.why
        model, metadata = labels_from_mapping(data)
        with DataFolder(case) as folder:
            if folder.has(CALLS_FILE):
                if folder.has(RESPONSE_FILE):
                    raise CaseError(f"a case holds {RESPONSE_FILE} or {CALLS_FILE}, not both")
                try:
                    calls = tuple(read_calls(folder.read(CALLS_FILE) or b""))
                except CallsError as error:
                    raise CaseError(str(error)) from None
                return Case(name, folder.tree(BEFORE_DIR), folder.tree(AFTER_DIR), calls=calls, spec=spec, model=model,
                            metadata=metadata)
            raw = folder.read(RESPONSE_FILE)
            before, after = folder.tree(BEFORE_DIR), folder.tree(AFTER_DIR)
        if raw is None:
            raise CaseError(f"{RESPONSE_FILE} vanished while the case was being read")
        try:
            answer = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise CaseError(f"{RESPONSE_FILE} cannot be read as UTF-8: {error}") from None
        return Case(name, before, after, answer=answer, spec=spec, model=model, metadata=metadata)
    except (CaseError, CaseDataError) as error:
        return failed(name, f"broken case: {error}", started, why=why)
