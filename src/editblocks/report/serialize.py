"""The `--json` shapes: plain dicts that scripts and agents can rely on.

Every output starts with `schema_version` and is described exactly by the
JSON Schema shipped in `editblocks/report/schemas/output.schema.json` (printed by
`editblocks schema`). The version is "MAJOR.MINOR": MINOR grows when keys
are added, MAJOR when a key is removed, renamed or changes its meaning, so a
script checks the part before the dot.

The JSON carries everything the terminal shows: each result's stable `code`,
its near-miss `hint` and ambiguous `candidates`, the per-file `diffs`, and
the run's `diagnostics` and `notes`.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from editblocks.model import (
    ApplyResult,
    Diagnostic,
    EditBlock,
    EditResult,
    FileDiff,
    ParseResult,
    ResultCode,
    ShellSuggestion,
    Status,
)

if TYPE_CHECKING:
    from editblocks.workspace import UndoOutcome

SCHEMA_VERSION = "1.2"


def versioned(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with `schema_version` as its first key."""
    return {"schema_version": SCHEMA_VERSION, **data}


def block_json(block: EditBlock) -> dict[str, Any]:
    return {
        "path": block.path,
        "leading": block.leading,
        "old": block.old,
        "new": block.new,
        "trailing": block.trailing,
        "kind": block.kind.value,
        "format": block.format.value,
        "line": block.line,
        **({"move_to": block.move_to} if block.move_to is not None else {}),
        **({"mode": f"{block.mode:o}"} if block.mode is not None else {}),
    }


def shell_json(suggestion: ShellSuggestion) -> dict[str, Any]:
    return {"command": suggestion.command, "line": suggestion.line}


def parse_json(result: ParseResult) -> dict[str, Any]:
    """The `parse --json` shape."""
    return versioned({
        "format": result.format,
        "blocks": [block_json(block) for block in result.blocks],
        "shell": [shell_json(s) for s in result.shell],
        "diagnostics": diagnostics_json(result.diagnostics),
    })


def check_json(result: ParseResult, *, ok: bool) -> dict[str, Any]:
    """The `check --json` shape without `--root`: the parse shape and the verdict the terminal prints."""
    return {**parse_json(result), "ok": ok}


def diagnostics_json(diagnostics: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    return [{"severity": d.severity.value, "line": d.line, "message": d.message} for d in diagnostics]


def result_json(result: EditResult) -> dict[str, Any]:
    """One block's outcome; `code` is None exactly when the block applied."""
    return {
        "path": result.path,
        "status": result.status.value,
        "code": result.code.value if result.code is not ResultCode.NONE else None,
        "reason": result.reason,
        "block_line": result.block.line,
        "start_line": result.start_line,
        "end_line": result.end_line,
        "strategy": result.strategy,
        "similarity": result.similarity,
        "candidates": list(result.candidates),
        "hint": result.hint.split("\n") if result.hint else [],
        "closest": {"start_line": result.closest[0], "end_line": result.closest[1]} if result.closest else None,
        "refusal": result.refusal or None,
    }


def diff_json(diff: FileDiff) -> dict[str, Any]:
    return {"path": diff.path, "created": diff.created, "deleted": diff.deleted, "moved_from": diff.moved_from,
            "diff": diff.unified}


def apply_json(result: ApplyResult) -> dict[str, Any]:
    """The `apply --json` and `check --root --json` shape."""
    return versioned({
        "results": [result_json(r) for r in result.results],
        "counts": {status.value: result.count(status) for status in Status},
        "files_modified": list(result.files_modified),
        "files_created": list(result.files_created),
        "files_deleted": list(result.files_deleted),
        "files_renamed": [{"from": old, "to": new} for old, new in result.files_renamed],
        "diffs": [diff_json(d) for d in result.diffs],
        "shell": [shell_json(s) for s in result.shell],
        "written": result.written,
        "dry_run": result.dry_run,
        "diagnostics": diagnostics_json(result.diagnostics),
        "notes": list(result.notes),
        "held_over": [result_json(r) for r in result.held_over],
        "holding": list(result.holding),
    })


def undo_json(outcome: UndoOutcome) -> dict[str, Any]:
    """The `undo --json` shape."""
    return versioned({"ok": outcome.ok, "restored": list(outcome.restored), "removed": list(outcome.removed),
                      "refused": list(outcome.refused), "unstaged": list(outcome.unstaged),
                      "still_staged": list(outcome.still_staged), "message": outcome.message})


def error_json(code: str, message: str) -> dict[str, Any]:
    """The object `--json` prints instead of a result when a command exits 2 (nothing was written)."""
    return versioned({"error": {"code": code, "message": message}})


def json_text(data: Any) -> str:
    """``data`` as indented JSON, readable (non-ASCII kept) but safe to print.

    JSON only requires escaping C0 controls, so a raw C1 control (which a
    terminal may obey), an invisible or bidi format character (which hides
    what a path really is) or a line separator would reach the output as is;
    those are written as `\\uXXXX` escapes, which decode to the same text.
    """
    lines = json.dumps(data, ensure_ascii=False, indent=2).split("\n")  # strings hold no raw newline or tab
    return "\n".join(_safe_line(line) for line in lines)


def json_line(data: Any) -> str:
    """``data`` as one line of compact JSON, safe to print as `json_text` is (a line separator inside a string
    is escaped too, so a reader that splits on every kind of line break still gets one object per line)."""
    return _safe_line(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _safe_line(line: str) -> str:
    return line if line.isprintable() else "".join(_json_escape(char) if _unsafe(char) else char for char in line)


def _unsafe(char: str) -> bool:
    return "\x7f" <= char <= "\x9f" or (not char.isprintable() and unicodedata.category(char) in ("Cf", "Zl", "Zp"))


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
