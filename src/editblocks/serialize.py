"""The `--json` shapes of SPEC §7: plain dicts that scripts can rely on.

`apply` and `check` add two keys to the SPEC shape, so a script can see why
a run with no results failed: the parser's `diagnostics` (as `parse` gives
them) and the run's `notes` (git add warnings and the like).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Sequence
from typing import Any

from editblocks.model import ApplyResult, Diagnostic, EditBlock, EditResult, ParseResult, ShellSuggestion


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
    }


def shell_json(suggestion: ShellSuggestion) -> dict[str, Any]:
    return {"command": suggestion.command, "line": suggestion.line}


def parse_json(result: ParseResult) -> dict[str, Any]:
    return {
        "format": result.format,
        "blocks": [block_json(block) for block in result.blocks],
        "shell": [shell_json(s) for s in result.shell],
        "diagnostics": diagnostics_json(result.diagnostics),
    }


def diagnostics_json(diagnostics: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    return [{"severity": d.severity.value, "line": d.line, "message": d.message} for d in diagnostics]


def result_json(result: EditResult) -> dict[str, Any]:
    return {
        "path": result.path,
        "status": result.status.value,
        "reason": result.reason,
        "block_line": result.block.line,
        "start_line": result.start_line,
        "end_line": result.end_line,
        "strategy": result.strategy,
        "similarity": result.similarity,
    }


def apply_json(result: ApplyResult) -> dict[str, Any]:
    return {
        "results": [result_json(r) for r in result.results],
        "files_modified": list(result.files_modified),
        "files_created": list(result.files_created),
        "shell": [shell_json(s) for s in result.shell],
        "written": result.written,
        "diagnostics": diagnostics_json(result.diagnostics),
        "notes": list(result.notes),
    }


def json_text(data: Any) -> str:
    """``data`` as indented JSON, readable (non-ASCII kept) but safe to print.

    JSON only requires escaping C0 controls, so a raw C1 control (which a
    terminal may obey), an invisible or bidi format character (which hides
    what a path really is) or a line separator would reach the output as is;
    those are written as `\\uXXXX` escapes, which decode to the same text.
    """
    lines = json.dumps(data, ensure_ascii=False, indent=2).split("\n")  # strings hold no raw newline or tab
    return "\n".join(line if line.isprintable() else "".join(_json_escape(char) if _unsafe(char) else char
                                                               for char in line) for line in lines)


def _unsafe(char: str) -> bool:
    return "\x7f" <= char <= "\x9f" or (not char.isprintable() and unicodedata.category(char) in ("Cf", "Zl", "Zp"))


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
