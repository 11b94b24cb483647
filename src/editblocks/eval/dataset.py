"""Cases as rows of a dataset (JSON Lines or Parquet): one row per case, checked as strictly as a case folder.

A row holds the answer (``response``) or the tool calls (``calls``), the
files before and after (path → content), and optionally ``id``, ``model``,
``metadata`` and the options of case.json (``format``, ``why``, ``expect``,
``on_failure``, ``strict``, ``fuzzy``, ``first_match``, ``known_files``).
`Columns` maps other column names onto these. A row that cannot be a case
(not an object, an unknown column, a path that leaves the root, a wrong type)
is an ``error`` outcome with its reason, never an exception: the run goes on.
docs/eval.md has the schema.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from editblocks.errors import CaseError
from editblocks.eval.calls import CallsError, ToolCall, parse_calls
from editblocks.eval.case_files import CaseTree
from editblocks.eval.cases import SPEC_KEYS, Case, labels_from_mapping, spec_from_mapping, tree_of
from editblocks.eval.judge import CaseOutcome, failed

CASE_FIELDS = ("response", "calls", "before", "after")
LABEL_FIELDS = ("id", "model", "metadata")
FIELDS = frozenset({*CASE_FIELDS, *LABEL_FIELDS, *SPEC_KEYS})
IGNORE = "ignore"
"""`--columns ignore=COLUMN`: a column the dataset has that is not part of a case."""
SHOWN_CHARS = 80


@dataclass(frozen=True)
class Columns:
    """Which column holds each field (``field → column``; a field not named here is read from its own name), and
    the columns to leave aside."""

    names: tuple[tuple[str, str], ...] = ()
    ignored: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, specs: Iterable[str]) -> Columns:
        """From `FIELD=COLUMN` items (each may hold several, comma-separated); ValueError says what is wrong."""
        names: dict[str, str] = {}
        ignored: set[str] = set()
        for spec in specs:
            for item in filter(None, (piece.strip() for piece in spec.split(","))):
                field, equals, column = (part.strip() for part in item.partition("="))
                if not equals or not column:
                    raise ValueError(f"--columns takes FIELD=COLUMN, not {item!r}")
                if field == IGNORE:
                    ignored.add(column)
                elif field not in FIELDS:
                    raise ValueError(f"{field!r} is not a field of a case; the fields are {', '.join(sorted(FIELDS))}"
                                     f" (and {IGNORE}=COLUMN leaves a column aside)")
                else:
                    names[field] = column
        return cls(tuple(sorted(names.items())), frozenset(ignored))

    def fields_of(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The row's values by field name (null values left out); CaseError names a column that is no field."""
        column_of = dict(self.names)
        field_of = {column: field for field, column in column_of.items()}
        values: dict[str, Any] = {}
        unknown: list[str] = []
        for column, value in row.items():
            if column in self.ignored:
                continue
            field = field_of.get(column, column if column in FIELDS and column not in column_of else None)
            if field is None:
                unknown.append(column)
            elif value is not None:
                values[field] = value
        if unknown:
            raise CaseError(f"unknown column {', '.join(map(repr, sorted(unknown)))}: name its field with "
                            f"--columns FIELD=COLUMN, or leave it aside with --columns {IGNORE}=COLUMN")
        return values

    def id_of(self, row: Mapping[str, Any]) -> str | None:
        value = row.get(dict(self.names).get("id", "id"))
        return str(value) if isinstance(value, str | int) and not isinstance(value, bool) and str(value) else None


class ReadsColumns(Protocol):
    """What a row needs of a run's settings: the column names."""

    @property
    def columns(self) -> Columns: ...


@dataclass(frozen=True)
class RowRef:
    """One row of a dataset, parsed (``row``) or not (``problem`` says why), and the name it is reported under."""

    name: str
    row: Mapping[str, Any] | None
    problem: str = ""

    def load(self, settings: ReadsColumns) -> Case | CaseOutcome:
        started = time.perf_counter()
        if self.row is None:
            return failed(self.name, f"broken row: {self.problem}", started)
        return case_from_row(self.row, self.name, settings.columns, started)


def row_name(digest_of: bytes) -> str:
    """The name of a row without an id: stable, and the same in every backend (a hash of the row)."""
    return "row-" + hashlib.sha256(digest_of).hexdigest()[:16]


def ref_from_line(line: bytes | str, columns: Columns) -> RowRef | None:
    """The row a JSON Lines line holds (None for a blank line)."""
    raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
    raw = raw.strip()
    if not raw:
        return None
    fallback = row_name(raw)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return RowRef(fallback, None, f"the line is not JSON ({error}): {_preview(raw)}")
    if not isinstance(data, dict):
        return RowRef(fallback, None, f"the line holds a JSON {type(data).__name__}, not an object: {_preview(raw)}")
    return RowRef(columns.id_of(data) or fallback, data)


def ref_from_row(row: Mapping[str, Any], columns: Columns) -> RowRef:
    """The row of a Parquet table (as `pyarrow.Table.to_pylist` gives it)."""
    name = columns.id_of(row) or row_name(json.dumps(row, sort_keys=True, default=_jsonable).encode())
    return RowRef(name, row)


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"base64": base64.b64encode(value).decode("ascii")}
    return repr(value)


def _preview(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def case_from_row(row: Mapping[str, Any], name: str, columns: Columns, started: float) -> Case | CaseOutcome:
    """The case a row holds, or the ``error`` outcome saying what is wrong with it."""
    why = ""
    try:
        values = columns.fields_of(row)
        spec = spec_from_mapping({key: _json_value(values[key], key) if key == "known_files" else values[key]
                                  for key in SPEC_KEYS if key in values}, where="the row")
        why = spec.why
        model, metadata = labels_from_mapping({"model": values.get("model", ""),
                                               "metadata": _json_value(values.get("metadata", {}), "metadata")},
                                              "the row")
        answer, calls = _answer(values)
        return Case(name, _files(values.get("before"), "before"), _files(values.get("after"), "after"), answer=answer,
                    calls=calls, spec=spec, model=model, metadata=metadata)
    except CaseError as error:
        return failed(name, f"broken row: {error}", started, why=why)


def _answer(values: Mapping[str, Any]) -> tuple[str | None, tuple[ToolCall, ...] | None]:
    if "response" in values and "calls" in values:
        raise CaseError("a row holds a response or calls, not both")
    if "response" in values:
        answer = values["response"]
        if not isinstance(answer, str):
            raise CaseError("the row's response must be a string")
        return answer.removeprefix("\ufeff"), None
    if "calls" not in values:
        raise CaseError("the row holds neither a response nor calls")
    try:
        return None, tuple(parse_calls(_json_value(values["calls"], "calls"), "the row's calls"))
    except CallsError as error:
        raise CaseError(str(error)) from None


def _json_value(value: Any, field: str) -> Any:
    """A nested value as such, or parsed from the JSON text a flat table holds it in."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as error:
        raise CaseError(f"the row's {field} is text that is not JSON ({error})") from None


def _files(value: Any, side: str) -> CaseTree:
    """A side's files from an object (path → content), a list of {path, content} objects or of [path, content]
    pairs (a Parquet map), or the JSON text of one of those; a null content is no file."""
    value = _json_value(value, side) if value is not None else {}
    where = f"the row's {side}"
    if isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, list):
        pairs = [_pair(item, where) for item in value]
    else:
        raise CaseError(f"{where} must map paths to contents")
    files: dict[str, bytes] = {}
    for path, content in pairs:
        if not isinstance(path, str):
            raise CaseError(f"{where} has a path that is not a string: {path!r}")
        data = _content(content, f"{where}[{path!r}]")
        if data is not None:
            if path in files:
                raise CaseError(f"{where} names {path!r} twice")
            files[path] = data
    return tree_of(files, where)


def _pair(item: Any, where: str) -> tuple[Any, Any]:
    if isinstance(item, Mapping) and set(item) <= {"path", "content"} and "path" in item:
        return item["path"], item.get("content")
    if isinstance(item, list | tuple) and len(item) == 2:
        return item[0], item[1]
    raise CaseError(f"{where} must map paths to contents; found {type(item).__name__} items")


def _content(content: Any, where: str) -> bytes | None:
    """A file's bytes from text (UTF-8), bytes, or `{"base64": ...}` for bytes JSON cannot hold."""
    if content is None:
        return None
    if isinstance(content, str):
        return content.encode("utf-8", "surrogatepass")
    if isinstance(content, bytes):
        return content
    if isinstance(content, Mapping) and set(content) == {"base64"} and isinstance(content["base64"], str):
        try:
            return base64.b64decode(content["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise CaseError(f"{where} is not valid base64") from None
    raise CaseError(f"{where} must be text, bytes or {{\"base64\": ...}}, not {type(content).__name__}")


# --- reading a dataset ---------------------------------------------------------------------------------------------


def is_dataset(path: str) -> bool:
    return path.endswith((".jsonl", ".ndjson", ".parquet"))


def read_rows(path: str) -> Iterator[bytes | dict[str, Any]]:
    """The rows of the dataset file ``path``, one at a time, not yet read as cases: a JSON Lines line (blank lines
    left out), or a Parquet row as `pyarrow` gives it."""
    if path.endswith(".parquet"):
        from editblocks.eval.extras import parquet

        for batch in parquet().ParquetFile(path).iter_batches(batch_size=1024):
            yield from batch.to_pylist()
        return
    with open(path, "rb") as lines:
        yield from (line for line in lines if line.strip())


def count_rows(path: str) -> int:
    """How many rows the dataset holds, read cheaply (Parquet's footer; JSON Lines' non-blank lines)."""
    if path.endswith(".parquet"):
        from editblocks.eval.extras import parquet

        return int(parquet().ParquetFile(path).metadata.num_rows)
    with open(path, "rb") as lines:
        return sum(1 for line in lines if line.strip())
