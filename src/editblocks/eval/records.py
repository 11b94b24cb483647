"""An evaluation's JSON Lines: `run_started`, one `case_finished` per case as it ends, `run_finished`.

The lines are the `--jsonl` events every command shares (each with
`schema_version` and `type`); a case is the object `eval --json` lists. They
are read back to resume a run (the cases already finished are skipped) and
to merge the outputs of shards into one summary. A line cut short by a
killed run is dropped and rewritten, never taken for a case.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from typing import IO, Any

from editblocks.eval.judge import CaseOutcome, Verdict
from editblocks.report.events import event

CASE_FINISHED = "case_finished"


def case_json(outcome: CaseOutcome) -> dict[str, Any]:
    """One case's verdict, as `eval --json` lists it and `eval --jsonl` writes it."""
    return {
        "name": outcome.name,
        "verdict": outcome.verdict.value,
        "detail": outcome.detail,
        "seconds": round(outcome.seconds, 4),
        "difference": list(outcome.difference),
        "why": outcome.why,
        "model": outcome.model,
        "format": outcome.format,
        "code": outcome.code,
        "metadata": dict(outcome.metadata),
    }


def outcome_of(case: Mapping[str, Any]) -> CaseOutcome:
    """The outcome a case object describes; ValueError (or KeyError, TypeError) when it is not one."""
    metadata = case.get("metadata", {})
    if not isinstance(case["name"], str) or not isinstance(metadata, dict):
        raise ValueError("not a case")
    return CaseOutcome(case["name"], Verdict(case["verdict"]), str(case.get("detail", "")),
                       float(case.get("seconds", 0.0)), tuple(map(str, case.get("difference", ()))),
                       str(case.get("why", "")), str(case.get("model", "")), str(case.get("format", "")),
                       str(case.get("code", "")), metadata)


def line(data: Mapping[str, Any]) -> str:
    """One event as one line (non-ASCII escaped, so no reader can find a line break inside it)."""
    return json.dumps(data, separators=(",", ":")) + "\n"


def write_case(out: IO[str], outcome: CaseOutcome) -> None:
    out.write(line(event(CASE_FINISHED, case=case_json(outcome))))
    out.flush()


def read_outcomes(path: str | os.PathLike[str]) -> Iterator[CaseOutcome]:
    """The cases an events file records, in order; other events and lines that are not events are passed over."""
    with open(path, "rb") as lines:
        for raw in lines:
            try:
                data = json.loads(raw)
                if isinstance(data, dict) and data.get("type") == CASE_FINISHED:
                    yield outcome_of(data["case"])
            except (ValueError, KeyError, TypeError):
                continue


def cut_partial_line(path: str | os.PathLike[str]) -> None:
    """Drop a last line without its newline (a run killed mid-write), so appending starts on a line of its own."""
    with open(path, "rb+") as file:
        size = file.seek(0, os.SEEK_END)
        if size == 0:
            return
        position = size
        while position > 0:
            step = min(65536, position)
            file.seek(position - step)
            chunk = file.read(step)
            newline = chunk.rfind(b"\n")
            if newline != -1:
                file.truncate(position - step + newline + 1)
                return
            position -= step
        file.truncate(0)
