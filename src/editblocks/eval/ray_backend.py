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
from collections.abc import Iterator
from typing import Any

from editblocks.eval.extras import ray
from editblocks.eval.judge import CaseOutcome
from editblocks.eval.records import case_json, outcome_of
from editblocks.eval.runner import RunSettings, Selection, judge_item
from editblocks.eval.sources import FolderRef, Sources

BATCH_ROWS = 64
RECORD = "record"
LEFT_OUT = ""
"""The record of a row the run does not take (another shard's, or already done)."""


class _Judge:
    """What each task runs on a batch of rows: `judge_item` on each; a batch comes back as each outcome's JSON."""

    def __init__(self, kind: str, settings: RunSettings, selection: Any) -> None:
        self.kind = kind
        self.settings = settings
        self.selection = selection  # an object-store reference: the names already done can be many

    def __call__(self, batch: Any) -> dict[str, list[str]]:
        selection: Selection = ray().get(self.selection)
        records = []
        for row in batch.to_pylist():
            outcome = judge_item(self._item(row), self.settings, selection)
            records.append(LEFT_OUT if outcome is None else json.dumps(case_json(outcome)))
        return {RECORD: records}

    def _item(self, row: dict[str, Any]) -> Any:
        if self.kind == "text":
            return row["text"]
        if self.kind == "folders":
            return FolderRef(row["path"], row["name"])
        return row


def run_on_ray(sources: Sources, settings: RunSettings, selection: Selection,
               address: str | None) -> Iterator[CaseOutcome | None]:
    """Each case's outcome (None: not taken) from Ray tasks, in the sources' order."""
    ray_module = ray()
    if not ray_module.is_initialized():
        ray_module.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    data = ray_module.data
    context = data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    shared = ray_module.put(selection)
    for kind, dataset in _datasets(sources, data):
        judged = dataset.map_batches(_Judge(kind, settings, shared), batch_size=BATCH_ROWS, batch_format="pyarrow")
        for batch in judged.iter_batches(batch_format="pyarrow", batch_size=None):
            for record in batch.column(RECORD).to_pylist():
                yield None if record == LEFT_OUT else outcome_of(json.loads(record))


def _datasets(sources: Sources, data: Any) -> Iterator[tuple[str, Any]]:
    folders = sources.folder_refs()
    if folders:
        yield "folders", data.from_items([{"path": ref.path, "name": ref.name} for ref in folders])
    for path in sources.datasets:
        if path.endswith(".parquet"):
            yield "rows", data.read_parquet(path)
        else:
            yield "text", data.read_text(path, drop_empty_lines=True)
