"""The `--jsonl` events: one JSON object per line as `apply`, `ask` and `eval` go, for pipelines and integrations.

Every event is a plain dict with `schema_version` (the `--json` outputs' own,
`serialize.SCHEMA_VERSION`) and a `type`, described exactly by the JSON Schema
shipped in `editblocks/report/schemas/events.schema.json` (printed standing
alone by `editblocks schema events`); it shares the outputs' shapes (a block,
a result, a case) with output.schema.json. docs/json.md lists the events in
the order a run gives them. New event types and new optional keys are a MINOR
change of `schema_version`, as for the outputs.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from editblocks.model import ApplyResult, Diagnostic, EditBlock, EditResult, ShellSuggestion, Status
from editblocks.report.serialize import SCHEMA_VERSION, block_json, json_line, result_json, shell_json

EVENT_TYPES = ("run_started", "round_started", "diagnostic", "shell_suggested", "block_parsed", "block_located",
               "block_withdrawn", "block_applied", "block_failed", "block_skipped", "tool_called", "files_written",
               "round_finished", "case_finished", "note", "run_finished", "error")
COMMANDS = ("apply", "ask", "eval")
_OUTCOME_TYPES = {Status.APPLIED: "block_applied", Status.FAILED: "block_failed", Status.SKIPPED: "block_skipped"}


def event(type_: str, round: int | None = None, **fields: Any) -> dict[str, Any]:
    """An event of ``type_`` (one of `EVENT_TYPES`); ``round`` is given for the events of an `ask` round."""
    if type_ not in EVENT_TYPES:
        raise ValueError(f"no event called {type_!r}; the events are {', '.join(EVENT_TYPES)}")
    return {"schema_version": SCHEMA_VERSION, "type": type_, **({"round": round} if round is not None else {}),
            **fields}


def event_line(data: Mapping[str, Any]) -> str:
    """One event as one line of JSON (no newline inside it, whatever its strings hold)."""
    return json_line(data)


def run_started(command: str, *, dry_run: bool, cases: int | None = None) -> dict[str, Any]:
    return event("run_started", command=command, dry_run=dry_run, **({"cases": cases} if cases is not None else {}))


def diagnostic_event(diagnostic: Diagnostic, round: int | None = None) -> dict[str, Any]:
    return event("diagnostic", round, diagnostic={"severity": diagnostic.severity.value, "line": diagnostic.line,
                                                  "message": diagnostic.message})


def shell_event(suggestion: ShellSuggestion, round: int | None = None) -> dict[str, Any]:
    return event("shell_suggested", round, shell=shell_json(suggestion))


def block_parsed(block: EditBlock, round: int | None = None) -> dict[str, Any]:
    return event("block_parsed", round, block=block_json(block))


def block_located(result: EditResult, round: int | None = None) -> dict[str, Any] | None:
    """Where ``result``'s block goes, or None when its old text was not found (its outcome event says why)."""
    if result.start_line is None or result.end_line is None or result.strategy is None:
        return None
    return event("block_located", round, path=result.path, block_line=result.block.line, start_line=result.start_line,
                 end_line=result.end_line, strategy=result.strategy, similarity=result.similarity)


def block_withdrawn(block: EditBlock, round: int | None = None) -> dict[str, Any]:
    return event("block_withdrawn", round, block_line=block.line)


def block_outcome(result: EditResult, *, written: bool, round: int | None = None) -> dict[str, Any]:
    """`block_applied`, `block_failed` or `block_skipped`, as the result's status says."""
    return event(_OUTCOME_TYPES[result.status], round, result=result_json(result),
                 written=written and result.status is Status.APPLIED)


def files_written(result: ApplyResult, round: int | None = None) -> dict[str, Any]:
    return event("files_written", round, run_id=result.run_id, files_modified=list(result.files_modified),
                 files_created=list(result.files_created), files_deleted=list(result.files_deleted),
                 files_renamed=[{"from": old, "to": new} for old, new in result.files_renamed])


def counts(result: ApplyResult) -> dict[str, int]:
    return {status.value: result.count(status) for status in Status}


def result_events(result: ApplyResult, round: int | None = None, *, located: bool = True) -> Iterator[dict[str, Any]]:
    """What an apply's result says, in order: each block located (unless that was said live) and its outcome, then
    the files written."""
    for item in result.results:
        where = block_located(item, round) if located else None
        if where is not None:
            yield where
        yield block_outcome(item, written=result.written, round=round)
    if result.written and result.paths_changed:
        yield files_written(result, round)


def answer_events(blocks: tuple[EditBlock, ...], diagnostics: tuple[Diagnostic, ...],
                  shell: tuple[ShellSuggestion, ...]) -> Iterator[dict[str, Any]]:
    """What a parsed answer holds: its diagnostics, its shell suggestions, then its blocks."""
    yield from (diagnostic_event(d) for d in diagnostics)
    yield from (shell_event(s) for s in shell)
    yield from (block_parsed(b) for b in blocks)


def note(message: str, round: int | None = None) -> dict[str, Any]:
    return event("note", round, message=message)


def error_event(code: str, message: str) -> dict[str, Any]:
    """The one event of a run stopped before it began (exit 2)."""
    return event("error", error={"code": code, "message": message})
