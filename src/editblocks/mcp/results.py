"""A tool call's outcome as MCP structured content, beside the text the model reads, and its output schema.

The text (the feedback message) is what a model acts on; the structured
content is for the client and its scripts: the call's status, whether files
were written, counts and one entry per block or edit. Every key that has no
value is left out rather than sent as null, so the schema needs no `anyOf`.
"""

from __future__ import annotations

from typing import Any

from editblocks.model import EditResult, ResultCode, Status
from editblocks.service.tool_handler import ToolReply

_COUNT = {"type": "integer", "minimum": 0}
_LINE = {"type": "integer", "minimum": 1}
_PATHS = {"type": "array", "items": {"type": "string"}}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "What the call did; the text content says it in words, with how to fix what failed.",
    "properties": {
        "status": {"type": "string", "enum": ["ok", "partial", "failed"],
                   "description": "ok: everything asked for was done (or already so); partial: some blocks applied "
                                  "(with check_edits: would apply), others did not; failed: nothing asked for was "
                                  "done."},
        "written": {"type": "boolean", "description": "Whether this call wrote files."},
        "counts": {"type": "object", "description": "How many blocks or edits got each status.",
                   "properties": {"applied": _COUNT, "failed": _COUNT, "skipped": _COUNT},
                   "required": ["applied", "failed", "skipped"], "additionalProperties": False},
        "results": {"type": "array", "description": "One per block or edit, in order.", "items": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "status": {"type": "string", "enum": [status.value for status in Status]},
                "code": {"type": "string", "enum": [code.value for code in ResultCode if code.value],
                         "description": "Why it did not simply apply (absent when it applied)."},
                "reason": {"type": "string"},
                "block_line": _LINE,
                "start_line": _LINE,
                "end_line": _LINE,
                "strategy": {"type": "string", "description": "The matching rung that found the old text."},
            },
            "required": ["path", "status"], "additionalProperties": False}},
        "files_changed": {**_PATHS, "description": "Files this call modified, created, deleted or moved."},
        "run_id": {"type": "string", "description": "The undo journal's run, when files were written."},
        "replacements": {**_COUNT, "description": "For edit and multi_edit: how many places were replaced."},
        "version": {"type": "string", "description": "With stale-read protection: the version of the file viewed "
                                                     "or written, as the text shows it."},
    },
    "required": ["status", "written", "counts", "results"],
    "additionalProperties": False,
}


def structured(reply: ToolReply) -> dict[str, Any]:
    """The structured content of ``reply``; `OUTPUT_SCHEMA` describes it."""
    result = reply.result
    results = result.results if result is not None else ()
    counts = {status.value: sum(1 for r in results if r.status is status) for status in Status}
    applied = counts[Status.APPLIED.value] > 0 or any(r.code is ResultCode.ALREADY_APPLIED for r in results)
    status = "ok" if reply.ok else "partial" if applied else "failed"
    data: dict[str, Any] = {"status": status, "written": bool(result is not None and result.written),
                            "counts": counts, "results": [_result(r) for r in results]}
    if result is not None and result.written:
        data["files_changed"] = list(result.paths_changed)
        if result.run_id is not None:
            data["run_id"] = result.run_id
    if reply.replacements is not None:
        data["replacements"] = reply.replacements
    if reply.version is not None:
        data["version"] = reply.version
    return data


def _result(result: EditResult) -> dict[str, Any]:
    found: dict[str, Any] = {"path": result.path, "status": result.status.value}
    optional = {"code": result.code.value or None, "reason": result.reason or None, "block_line": result.block.line,
                "start_line": result.start_line, "end_line": result.end_line, "strategy": result.strategy}
    found.update((key, value) for key, value in optional.items() if value is not None)
    return found
