"""Write cases out: as a dataset (JSON Lines or Parquet, one row per case) or as case folders.

The rows follow the schema `dataset` reads, so an exported set evaluates to
exactly the verdicts its folders give. File contents are text when they are
UTF-8, and bytes otherwise (`{"base64": ...}` in JSON Lines, binary in Parquet).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from editblocks.eval.calls import CALLS_FILE
from editblocks.eval.case_files import CaseTree
from editblocks.eval.cases import CASE_FILE, Case, spec_to_mapping
from editblocks.eval.extras import arrow, parquet
from editblocks.eval.folders import AFTER_DIR, BEFORE_DIR, RESPONSE_FILE

PARQUET_BATCH_ROWS = 512


class CaseWriter(Protocol):
    def write(self, case: Case) -> None: ...


def row_of(case: Case, *, flat: bool = False) -> dict[str, Any]:
    """The dataset row of ``case``; ``flat`` (Parquet) keeps calls, metadata and known_files as JSON text and files
    as bytes."""
    row: dict[str, Any] = {"id": case.name}
    if case.calls is not None:
        calls = [{"tool": call.tool, "input": call.input} for call in case.calls]
        row["calls"] = json.dumps(calls) if flat else calls
    else:
        row["response"] = case.answer
    for side, tree in (("before", case.before), ("after", case.after)):
        row[side] = dict(tree.files) if flat else {path: _json_content(data) for path, data in tree.files.items()}
    if case.model:
        row["model"] = case.model
    if case.metadata:
        row["metadata"] = json.dumps(case.metadata) if flat else dict(case.metadata)
    for key, value in spec_to_mapping(case.spec).items():
        row[key] = json.dumps(value) if flat and key == "known_files" else value
    return row


def _json_content(data: bytes) -> str | dict[str, str]:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


class JsonLinesWriter:
    def __init__(self, out: Any) -> None:
        self.out = out

    def write(self, case: Case) -> None:
        self.out.write(json.dumps(row_of(case), separators=(",", ":")) + "\n")


class ParquetWriter:
    """Rows written in batches, each column typed once for all: files as `map<string, binary>`."""

    def __init__(self, path: str) -> None:
        pa = arrow()
        files = pa.map_(pa.string(), pa.binary())
        self.schema = pa.schema([("id", pa.string()), ("response", pa.string()), ("calls", pa.string()),
                                 ("before", files), ("after", files), ("model", pa.string()),
                                 ("metadata", pa.string()), ("format", pa.string()), ("on_failure", pa.string()),
                                 ("strict", pa.bool_()), ("fuzzy", pa.bool_()), ("first_match", pa.bool_()),
                                 ("known_files", pa.string()), ("why", pa.string()), ("expect", pa.string())])
        self.writer = parquet().ParquetWriter(path, self.schema)
        self.pending: list[dict[str, Any]] = []

    def write(self, case: Case) -> None:
        row = row_of(case, flat=True)
        row["before"], row["after"] = list(row["before"].items()), list(row["after"].items())
        self.pending.append(row)
        if len(self.pending) >= PARQUET_BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.writer.write_table(arrow().Table.from_pylist(self.pending, schema=self.schema))
            self.pending = []

    def close(self) -> None:
        self.flush()
        self.writer.close()


class FolderWriter:
    """Each case as a folder under ``root``, named after the case (a name that would leave ``root`` is refused)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, case: Case) -> None:
        folder = self.root / safe_folder_name(case.name)
        folder.mkdir(parents=True)
        if case.calls is not None:
            calls = [{"tool": call.tool, "input": call.input} for call in case.calls]
            (folder / CALLS_FILE).write_text(json.dumps(calls, indent=2) + "\n", encoding="utf-8")
        else:
            (folder / RESPONSE_FILE).write_bytes((case.answer or "").encode("utf-8", "surrogatepass"))
        for side, tree in ((BEFORE_DIR, case.before), (AFTER_DIR, case.after)):
            _write_tree(folder / side, tree)
        spec = spec_to_mapping(case.spec)
        if case.model:
            spec["model"] = case.model
        if case.metadata:
            spec["metadata"] = dict(case.metadata)
        if spec:
            (folder / CASE_FILE).write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_tree(folder: Path, tree: CaseTree) -> None:
    folder.mkdir()
    for path, data in tree.files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def safe_folder_name(name: str) -> str:
    """``name`` as a relative folder path: each step kept when it is a plain name, replaced by `_` otherwise."""
    steps = [step if step not in ("", ".", "..") else "_" for step in name.replace("\\", "/").split("/")]
    return "/".join(steps)


@contextmanager
def case_writer(out: str | os.PathLike[str]) -> Iterator[CaseWriter]:
    """A writer into ``out``: a `.jsonl` or `.parquet` file (replaced), or else a folder of case folders (which must
    not exist yet or be empty)."""
    path = os.fspath(out)
    if path.endswith((".jsonl", ".ndjson")):
        with open(path, "w", encoding="utf-8") as lines:
            yield JsonLinesWriter(lines)
    elif path.endswith(".parquet"):
        writer = ParquetWriter(path)
        try:
            yield writer
        finally:
            writer.close()
    else:
        folder = Path(path)
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise FileExistsError(f"{folder} already exists and is not an empty folder")
        folder.mkdir(parents=True, exist_ok=True)
        yield FolderWriter(folder)


def write_cases(cases: Iterable[Case], out: str | os.PathLike[str]) -> int:
    """Write every case into ``out`` (see `case_writer`); how many were written."""
    written = 0
    with case_writer(out) as writer:
        for case in cases:
            writer.write(case)
            written += 1
    return written
