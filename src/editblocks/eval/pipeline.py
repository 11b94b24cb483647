"""One evaluation run from its sources to a stream of outcomes: the slice, the cases already done, the backend.

`outcomes` is what `editblocks eval` iterates: the cases of the shard not
yet in the output being resumed, judged by the local backends (in memory or
on disk, in this process or in workers) or by Ray tasks, in the order the
sources give them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from editblocks.eval.judge import Backend, CaseOutcome
from editblocks.eval.runner import RunSettings, Selection, Shard, run_local, workers_for
from editblocks.eval.sources import Sources


class Engine(StrEnum):
    """The `--backend` choices: the two local backends, and Ray."""

    MEMORY = "memory"
    DISK = "disk"
    RAY = "ray"


@dataclass(frozen=True)
class Run:
    """What to evaluate and how."""

    sources: Sources
    settings: RunSettings
    engine: Engine = Engine.MEMORY
    jobs: int | None = None
    shard: Shard | None = None
    done: frozenset[str] = field(default_factory=frozenset)
    ray_address: str | None = None

    def workers(self, cases: int) -> int:
        return workers_for(self.jobs, cases)


def settings_for(engine: Engine, settings: RunSettings) -> RunSettings:
    """The settings of each case: Ray's tasks judge in memory."""
    backend = Backend.DISK if engine is Engine.DISK else Backend.MEMORY
    return RunSettings(settings.overrides, backend, settings.scratch, settings.columns)


def outcomes(run: Run, cases: int, passed_over: Callable[[], None] | None = None) -> Iterator[CaseOutcome]:
    """Every chosen case's outcome, in source order; ``passed_over`` is told of each case left out."""
    settings = settings_for(run.engine, run.settings)
    selection = Selection(run.shard, run.done)
    if run.engine is Engine.RAY:
        from editblocks.eval.ray_backend import run_on_ray

        judged = run_on_ray(run.sources, settings, selection, run.ray_address)
    else:
        judged = run_local(run.sources.items(), settings, run.workers(cases), selection)
    for outcome in judged:
        if outcome is not None:
            yield outcome
        elif passed_over is not None:
            passed_over()
