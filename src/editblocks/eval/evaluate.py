"""Score editblocks against a corpus of recorded answers: does each one leave exactly the expected files?

A *case* is a recorded answer with the files it was written for and the
files that must result (docs/eval.md): a folder (``response.md``, ``before/``,
``after/``, ``case.json``) or a row of a JSON Lines or Parquet dataset. Each
case is applied through the service (`EditSession`) in memory or on disk
(`judge`), and the resulting files are compared with the expected ones byte
for byte. This module is the Python face: `evaluate_cases` for a whole
report, `evaluate_stream` for outcomes one at a time.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from editblocks.eval.cases import CASE_FILE, CaseOptions, CaseSpec, Expect
from editblocks.eval.diffs import DIFFERENCE_LINES, tree_difference
from editblocks.eval.folders import (
    AFTER_DIR,
    BEFORE_DIR,
    RESPONSE_FILE,
    find_cases,
    read_case_spec,
)
from editblocks.eval.judge import (
    PASSING,
    Backend,
    CaseOutcome,
    Verdict,
    classify,
    read_tree,
    statuses_say,
    summarize,
)
from editblocks.eval.records import case_json
from editblocks.eval.runner import PARALLEL_THRESHOLD, RunSettings, default_jobs, run_local, workers_for
from editblocks.eval.sources import FolderRef

__all__ = [
    "AFTER_DIR", "BEFORE_DIR", "CASE_FILE", "DIFFERENCE_LINES", "PARALLEL_THRESHOLD", "PASSING", "RESPONSE_FILE",
    "Backend", "CaseOptions", "CaseOutcome", "CaseSpec", "EvalReport", "Expect", "Verdict", "classify",
    "default_jobs", "default_scratch", "evaluate_cases", "find_cases", "read_case_spec", "read_tree", "report_json",
    "statuses_say", "summarize", "tree_difference",
]


@dataclass(frozen=True)
class EvalReport:
    outcomes: tuple[CaseOutcome, ...]
    seconds: float
    jobs: int

    @property
    def totals(self) -> dict[str, int]:
        """Count per verdict, every verdict present, in the order of `Verdict`."""
        counts = Counter(outcome.verdict for outcome in self.outcomes)
        return {verdict.value: counts[verdict] for verdict in Verdict}

    @property
    def ok(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)

    @property
    def failures(self) -> tuple[CaseOutcome, ...]:
        return tuple(outcome for outcome in self.outcomes if not outcome.passed)


def default_scratch() -> str | None:
    """Where the disk backend copies case folders: a memory-backed folder when the system has one, else the temp
    folder. Every apply on disk fsyncs its journal and files; on a disk that costs tens of milliseconds per case,
    in memory almost nothing, and these copies are thrown away anyway."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def overrides_of(*, format: str | None = None, on_failure: str | None = None, strict: bool | None = None,
                 fuzzy: bool | None = None, first_match: bool | None = None) -> CaseOptions:
    return CaseOptions(format=format, on_failure=on_failure, strict=strict, first_match=first_match, fuzzy=fuzzy)


def evaluate_cases(
    paths: Iterable[str | os.PathLike[str]],
    *,
    format: str | None = None,
    on_failure: str | None = None,
    strict: bool | None = None,
    fuzzy: bool | None = None,
    first_match: bool | None = None,
    jobs: int | None = None,
    backend: Backend | str = Backend.MEMORY,
    scratch: str | os.PathLike[str] | None = None,
    progress: Callable[[CaseOutcome], None] | None = None,
) -> EvalReport:
    """Run every case found under ``paths``; options given here override each case's case.json.

    ``backend`` is `memory` (the default: no copies, no fsync) or `disk` (each case in a temporary folder under
    ``scratch``, default `default_scratch`, applied as `editblocks apply` would); both give the same verdicts.
    With more than `PARALLEL_THRESHOLD` cases and ``jobs`` > 1, cases run in worker processes; outcomes are
    always in case-name order, so a parallel run reports exactly what a serial one does. ``progress`` is
    called once per finished case, in that same order.
    """
    settings = _settings(backend, scratch, {"format": format, "on_failure": on_failure, "strict": strict,
                                            "fuzzy": fuzzy, "first_match": first_match})
    refs = [FolderRef(str(path), name) for path, name in find_cases(paths)]
    workers = workers_for(jobs, len(refs))
    started = time.perf_counter()
    outcomes: list[CaseOutcome] = []
    for outcome in run_local(refs, settings, workers):
        assert outcome is not None  # a run without a shard or a resumed output takes every case
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return EvalReport(tuple(outcomes), time.perf_counter() - started, workers)


def _settings(backend: Backend | str, scratch: str | os.PathLike[str] | None, options: dict[str, Any]) -> RunSettings:
    chosen = Backend(backend)
    folder = os.fspath(scratch) if scratch is not None else default_scratch() if chosen is Backend.DISK else None
    return RunSettings(overrides_of(**options), chosen, folder)


def report_json(report: EvalReport) -> dict[str, Any]:
    """The `editblocks eval --json` shape."""
    return {
        "ok": report.ok,
        "totals": report.totals,
        "cases_total": len(report.outcomes),
        "seconds": round(report.seconds, 3),
        "jobs": report.jobs,
        "cases": [case_json(outcome) for outcome in report.outcomes],
    }

