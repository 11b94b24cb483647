"""What a run amounts to, gathered one outcome at a time in bounded memory: totals, groups, the slowest, the reasons.

A `Summary` keeps counts per verdict, per (model, format, verdict), per
failure reason, the slowest cases and the first failures in full; never the
outcomes themselves, so a run of millions of cases summarises in the memory
of a few thousand.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from editblocks.eval.judge import PASSING, CaseOutcome, Verdict

SLOWEST = 10
REASONS = 15
KEPT_FAILURES = 100
"""Failures kept whole for the report; the rest are counted (the `--jsonl` output has every one)."""
NO_LABEL = "(none)"


@dataclass
class Summary:
    """Counts over every outcome added so far."""

    cases: int = 0
    case_seconds: float = 0.0
    totals: Counter[Verdict] = field(default_factory=Counter)
    groups: Counter[tuple[str, str, Verdict]] = field(default_factory=Counter)
    reasons: Counter[tuple[Verdict, str]] = field(default_factory=Counter)
    example: dict[tuple[Verdict, str], str] = field(default_factory=dict)
    slowest: list[tuple[float, str, str]] = field(default_factory=list)  # a min-heap of (seconds, name, verdict)
    failures: list[CaseOutcome] = field(default_factory=list)

    def add(self, outcome: CaseOutcome) -> None:
        self.cases += 1
        self.case_seconds += outcome.seconds
        self.totals[outcome.verdict] += 1
        self.groups[(outcome.model or NO_LABEL, outcome.format or NO_LABEL, outcome.verdict)] += 1
        entry = (outcome.seconds, outcome.name, outcome.verdict.value)
        if len(self.slowest) < SLOWEST:
            heapq.heappush(self.slowest, entry)
        elif entry > self.slowest[0]:
            heapq.heapreplace(self.slowest, entry)
        if outcome.verdict in PASSING:
            return
        reason = (outcome.verdict, outcome.code or outcome.verdict.value)
        self.reasons[reason] += 1
        self.example.setdefault(reason, outcome.name)
        if len(self.failures) < KEPT_FAILURES:
            self.failures.append(outcome)

    def add_all(self, outcomes: Iterable[CaseOutcome]) -> Summary:
        for outcome in outcomes:
            self.add(outcome)
        return self

    @property
    def failing(self) -> int:
        return sum(count for verdict, count in self.totals.items() if verdict not in PASSING)

    @property
    def ok(self) -> bool:
        return self.failing == 0

    def verdict_totals(self) -> dict[str, int]:
        """Count per verdict, every verdict present, in the order of `Verdict`."""
        return {verdict.value: self.totals[verdict] for verdict in Verdict}

    def group_rows(self) -> list[tuple[str, str, dict[str, int]]]:
        """(model, format, count per verdict) for every pair that has cases, by model then format."""
        pairs = sorted({(model, fmt) for model, fmt, _ in self.groups})
        return [(model, fmt, {verdict.value: self.groups[(model, fmt, verdict)] for verdict in Verdict})
                for model, fmt in pairs]

    def slowest_cases(self) -> list[tuple[str, str, float]]:
        """(name, verdict, seconds), slowest first."""
        return [(name, verdict, seconds) for seconds, name, verdict in sorted(self.slowest, reverse=True)]

    def top_reasons(self, count: int = REASONS) -> list[tuple[str, str, int, str]]:
        """(verdict, reason code, cases, one case as an example), most frequent first."""
        ranked = sorted(self.reasons.items(), key=lambda item: (-item[1], item[0][0].value, item[0][1]))
        return [(verdict.value, code, cases, self.example[(verdict, code)])
                for (verdict, code), cases in ranked[:count]]

    def json(self) -> dict[str, Any]:
        """The summary as data: totals, groups, slowest cases and failure reasons."""
        return {
            "ok": self.ok,
            "cases_total": self.cases,
            "totals": self.verdict_totals(),
            "groups": [{"model": model, "format": fmt, "totals": counts} for model, fmt, counts in self.group_rows()],
            "slowest": [{"name": name, "verdict": verdict, "seconds": round(seconds, 4)}
                        for name, verdict, seconds in self.slowest_cases()],
            "reasons": [{"verdict": verdict, "code": code, "cases": cases, "example": example}
                        for verdict, code, cases, example in self.top_reasons()],
        }

