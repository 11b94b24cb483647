"""Run cases one after another or in worker processes, streaming their outcomes in order.

Every backend runs the same case function, `judge_item`: a case as its source
hands it out (a folder, a dataset row) in, a `CaseOutcome` out, or None when
the run does not take it (another shard's, or already done). Locally, outcomes come
back in the order the cases were given, whatever the number of workers, and
only a bounded window of cases is in flight: memory stays flat however many
cases a run holds.
"""

from __future__ import annotations

import hashlib
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol

from editblocks.eval.cases import Case, CaseOptions
from editblocks.eval.dataset import Columns, ref_from_line, ref_from_row
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


CaseItem = Any
"""A case as a source hands it out: a `CaseRef`, or a dataset row not read yet (a JSON Lines line as bytes, a
Parquet row as a dict). Rows are read where they run, so the process handing them out only passes bytes on."""


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


@dataclass(frozen=True)
class Selection:
    """Which cases a run takes: those of its shard that the output being resumed does not hold yet."""

    shard: Shard | None = None
    done: frozenset[str] = frozenset()

    def takes(self, name: str) -> bool:
        return (self.shard is None or self.shard.holds(name)) and name not in self.done


def ref_of(item: CaseItem, columns: Columns) -> CaseRef | None:
    """The reference an item stands for (None: a blank line, no case at all)."""
    if isinstance(item, bytes | str):
        return ref_from_line(item, columns)
    if isinstance(item, dict):
        return ref_from_row(item, columns)
    ref: CaseRef = item
    return ref


def run_one(ref: CaseRef, settings: RunSettings) -> CaseOutcome:
    """Read the case, judge it."""
    case = ref.load(settings)
    if isinstance(case, CaseOutcome):
        return case
    return judge(case, settings.overrides, settings.backend, settings.scratch)


def judge_item(item: CaseItem, settings: RunSettings, selection: Selection = Selection()) -> CaseOutcome | None:
    """The case function every backend runs: the item's outcome, or None when the run does not take it."""
    ref = ref_of(item, settings.columns)
    if ref is None or not selection.takes(ref.name):
        return None
    return run_one(ref, settings)


_worker: tuple[RunSettings, Selection] = (RunSettings(), Selection())


def _start_worker(settings: RunSettings, selection: Selection) -> None:
    """Each worker process gets the run's settings and selection once, not with every batch."""
    global _worker
    _worker = (settings, selection)


def _run_batch(items: list[CaseItem]) -> list[CaseOutcome | None]:
    settings, selection = _worker
    return [judge_item(item, settings, selection) for item in items]


def run_local(items: Iterable[CaseItem], settings: RunSettings, workers: int,
              selection: Selection = Selection()) -> Iterator[CaseOutcome | None]:
    """Each item's outcome (None: not taken), in the order of ``items``, from ``workers`` processes (or this one)."""
    if workers == 1:
        for item in items:
            yield judge_item(item, settings, selection)
        return
    batches = _batches(iter(items))
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                             initargs=(settings, selection)) as pool:
        pending: deque[Future[list[CaseOutcome | None]]] = deque()
        for batch in islice(batches, workers * BATCHES_IN_FLIGHT_PER_WORKER):
            pending.append(pool.submit(_run_batch, batch))
        while pending:
            outcomes = pending.popleft().result()
            following = next(batches, None)
            if following is not None:
                pending.append(pool.submit(_run_batch, following))
            yield from outcomes


def _batches(items: Iterator[CaseItem]) -> Iterator[list[CaseItem]]:
    while batch := list(islice(items, BATCH_CASES)):
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

