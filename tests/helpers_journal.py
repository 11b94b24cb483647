"""Reading and rewriting a run's record file in tests, to plant damage and tampering the way a disk or a
repository could: the head (magic, state, JSON length), the JSON, then the saved bytes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

HEAD = re.compile(rb"(editblocks-run 2 )(.{9}) ([0-9]{12})\n", re.DOTALL)


def record_path(root: Path, run_id: str) -> Path:
    return root / ".editblocks" / "journal" / run_id


def read_record(path: Path) -> tuple[str, dict[str, Any], bytes]:
    """(state, JSON document, saved bytes) of a record file."""
    data = path.read_bytes()
    found = HEAD.match(data)
    assert found is not None, data[:40]
    start = found.end() + int(found[3])
    return found[2].decode().strip(), json.loads(data[found.end():start]), data[start:]


def write_record(path: Path, state: str, document: dict[str, Any], payload: bytes) -> None:
    """Write a record as editblocks lays one out (the JSON's length recomputed)."""
    body = json.dumps(document).encode()
    path.write_bytes(b"editblocks-run 2 " + state.encode().ljust(9) + f" {len(body):012d}\n".encode() + body
                     + payload)
