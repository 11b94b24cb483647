"""The Ray backend: the same case function, run as Ray tasks over a Ray Data dataset, on the cluster `ray.init` finds.

JSON Lines are read as text lines (`ray.data.read_text`), so a malformed
row reaches the case function like any other and becomes an ``error``
outcome there, exactly as in the local backends; Parquet with
`ray.data.read_parquet`; case folders as a list of references (they must be
on a file system every node sees). Each batch of rows is judged in memory by
a task; the outcomes stream back to this process in the sources' order
(`preserve_order`), where they are written and summed up. Without an
address, `ray.init` joins the cluster `RAY_ADDRESS` names or starts a local
one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from editblocks.eval.dataset import ref_from_line, ref_from_row
from editblocks.eval.extras import ray
from editblocks.eval.judge import CaseOutcome
from editblocks.eval.records import case_json, outcome_of
from editblocks.eval.runner import CaseRef, RunSettings, Shard, chosen, run_one
from editblocks.eval.sources import FolderRef, Sources

BATCH_ROWS = 64
RECORD = "record"
SKIPPED = "skipped"


class _Judge:
    """The function each task runs on a batch of rows: references made from the rows, the slice kept, each case
    judged; a batch comes back as the JSON of each outcome, and how many rows were left out."""

    def __init__(self, kind: str, settings: RunSettings, shard: Shard | None, done: frozenset[str]) -> None:
        self.kind = kind
        self.settings = settings
        self.shard = shard
        self.done = done

    def __call__(self, batch: Any) -> dict[str, list[Any]]:
        refs = list(self._refs(batch.to_pylist()))
        left_out = 0

        def skipped() -> None:
            nonlocal left_out
            left_out += 1

        records = [json.dumps(case_json(run_one(ref, self.settings)))
                   for ref in chosen(refs, self.shard, self.done, skipped)]
        return {RECORD: records + [""] * left_out, SKIPPED: [False] * len(records) + [True] * left_out}

    def _refs(self, rows: list[dict[str, Any]]) -> Iterator[CaseRef]:
        columns = self.settings.columns
        for row in rows:
            if self.kind == "text":
                ref = ref_from_line(row["text"], columns)
                if ref is not None:
                    yield ref
            elif self.kind == "folders":
                yield FolderRef(row["path"], row["name"])
            else:
                yield ref_from_row(row, columns)


def run_on_ray(sources: Sources, settings: RunSettings, shard: Shard | None, done: frozenset[str],
               address: str | None, passed_over: Callable[[], None] | None = None) -> Iterator[CaseOutcome]:
    """Every chosen case's outcome from Ray tasks, in the sources' order."""
    ray_module = ray()
    if not ray_module.is_initialized():
        ray_module.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    data = ray_module.data
    context = data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    for kind, dataset in _datasets(sources, data):
        judged = dataset.map_batches(_Judge(kind, settings, shard, done), batch_size=BATCH_ROWS,
                                     batch_format="pyarrow")
        for batch in judged.iter_batches(batch_format="pyarrow", batch_size=None):
            for record, skipped in zip(batch.column(RECORD).to_pylist(), batch.column(SKIPPED).to_pylist()):
                if skipped:
                    if passed_over is not None:
                        passed_over()
                else:
                    yield outcome_of(json.loads(record))


def _datasets(sources: Sources, data: Any) -> Iterator[tuple[str, Any]]:
    folders = sources.folder_refs()
    if folders:
        yield "folders", data.from_items([{"path": ref.path, "name": ref.name} for ref in folders])
    for path in sources.datasets:
        if path.endswith(".parquet"):
            yield "rows", data.read_parquet(path)
        else:
            yield "text", data.read_text(path, drop_empty_lines=True)

