"""Where a run's cases come from: case folders and dataset files, one case at a time.

A case is read only where it runs (a worker process, a Ray task), so the
process that hands cases out stays light and its memory flat.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from editblocks.eval.cases import Case
from editblocks.eval.dataset import Columns, count_rows, is_dataset, read_rows
from editblocks.eval.folders import find_cases, load_folder
from editblocks.eval.judge import CaseOutcome
from editblocks.eval.runner import CaseItem, RunSettings


@dataclass(frozen=True)
class FolderRef:
    """A case folder and the name it is reported under."""

    path: str
    name: str

    def load(self, settings: RunSettings) -> Case | CaseOutcome:
        return load_folder(self.path, self.name)


@dataclass(frozen=True)
class Sources:
    """The case folders under some folders, then the rows of some dataset files."""

    folders: tuple[str, ...] = ()
    datasets: tuple[str, ...] = ()
    columns: Columns = Columns()

    @classmethod
    def split(cls, paths: Sequence[str], columns: Columns = Columns()) -> Sources:
        """Folders are searched for case folders; files ending in .jsonl, .ndjson or .parquet are datasets."""
        return cls(tuple(p for p in paths if not (is_dataset(p) and os.path.isfile(p))),
                   tuple(p for p in paths if is_dataset(p) and os.path.isfile(p)), columns)

    def folder_refs(self) -> list[FolderRef]:
        return [FolderRef(str(path), name) for path, name in find_cases(self.folders)] if self.folders else []

    def items(self) -> Iterator[CaseItem]:
        """Every case, as `runner.judge_item` takes it."""
        yield from self.folder_refs()
        for dataset in self.datasets:
            yield from read_rows(dataset)

    def count(self) -> int:
        """How many cases (rows) there are, without reading them."""
        return len(self.folder_refs()) + sum(count_rows(dataset) for dataset in self.datasets)
