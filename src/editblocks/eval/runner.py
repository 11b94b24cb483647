"""Run cases one after another or in worker processes, streaming their outcomes in order.

Every backend runs the same case function, `run_one`: a reference to a case
(a folder, or a dataset row) in, a `CaseOutcome` out. Locally, outcomes come
back in the order the cases were given, whatever the number of workers, and
only a bounded window of cases is in flight: memory stays flat however many
cases a run holds.
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from typing import Protocol

from editblocks.eval.cases import Case, CaseOptions
from editblocks.eval.dataset import Columns
from editblocks.eval.judge import Backend, CaseOutcome, judge

PARALLEL_THRESHOLD = 50
"""Below this many cases, starting worker processes costs more than it saves."""
BATCH_CASES = 32
"""Cases sent to a worker at a time: enough to make the hand-over cheap, few enough to keep the order moving."""
BATCHES_IN_FLIGHT_PER_WORKER = 4


@dataclass(frozen=True)
class RunSettings:
    """What every case of a run shares: option overrides, the backend, the scratch folder and the dataset's
    column names."""

    overrides: CaseOptions = CaseOptions()
    backend: Backend = Backend.MEMORY
    scratch: str | None = None
    columns: Columns = Columns()


class CaseRef(Protocol):
    """A case not yet read: picklable, so it can go to a worker process or a Ray task."""

    @property
    def name(self) -> str: ...

    def load(self, settings: RunSettings) -> Case | CaseOutcome:
        """The case, or the ``error`` outcome saying why it cannot be one."""


def run_one(ref: CaseRef, settings: RunSettings) -> CaseOutcome:
    """The case function every backend runs: read the case, judge it."""
    case = ref.load(settings)
    if isinstance(case, CaseOutcome):
        return case
    return judge(case, settings.overrides, settings.backend, settings.scratch)


def run_batch(refs: list[CaseRef], settings: RunSettings) -> list[CaseOutcome]:
    return [run_one(ref, settings) for ref in refs]


@dataclass(frozen=True)
class Shard:
    """A stable slice of the cases: number ``index`` (1-based) of ``count``, chosen by a hash of the case's name,
    so a case lands in the same shard on every machine and every run."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """`K/N`, 1 ≤ K ≤ N; ValueError says what is wrong."""
        index, slash, count = text.partition("/")
        try:
            shard = cls(int(index), int(count)) if slash else None
        except ValueError:
            shard = None
        if shard is None or not 1 <= shard.index <= shard.count:
            raise ValueError(f"a shard is K/N with 1 <= K <= N, not {text!r}")
        return shard

    def holds(self, name: str) -> bool:
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1


def chosen(refs: Iterable[CaseRef], shard: Shard | None, done: frozenset[str] | set[str],
           passed_over: Callable[[], None] | None = None) -> Iterator[CaseRef]:
    """The refs of ``shard`` not already ``done``; ``passed_over`` is told of each one left out."""
    for ref in refs:
        if (shard is None or shard.holds(ref.name)) and ref.name not in done:
            yield ref
        elif passed_over is not None:
            passed_over()


def run_local(refs: Iterable[CaseRef], settings: RunSettings, workers: int) -> Iterator[CaseOutcome]:
    """Outcomes in the order of ``refs``, from ``workers`` processes (or this one)."""
    if workers == 1:
        for ref in refs:
            yield run_one(ref, settings)
        return
    batches = _batches(iter(refs))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[list[CaseOutcome]]] = deque()
        for batch in islice(batches, workers * BATCHES_IN_FLIGHT_PER_WORKER):
            pending.append(pool.submit(run_batch, batch, settings))
        while pending:
            outcomes = pending.popleft().result()
            following = next(batches, None)
            if following is not None:
                pending.append(pool.submit(run_batch, following, settings))
            yield from outcomes


def _batches(refs: Iterator[CaseRef]) -> Iterator[list[CaseRef]]:
    while batch := list(islice(refs, BATCH_CASES)):
        yield batch


def default_jobs() -> int:
    """Worker processes when none are asked for: one per CPU this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def workers_for(jobs: int | None, cases: int) -> int:
    """How many processes a run of ``cases`` cases uses when ``jobs`` are asked for."""
    workers = jobs if jobs is not None else default_jobs()
    if workers < 1:
        raise ValueError("jobs must be at least 1")
    return 1 if cases <= PARALLEL_THRESHOLD else workers

