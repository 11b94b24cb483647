"""Where a run's cases come from: case folders, or the rows of a dataset, as picklable references.

A reference is read only where the case runs (a worker process, a Ray task),
so the process that hands cases out stays light and its memory flat.
"""

from __future__ import annotations

from dataclasses import dataclass

from editblocks.eval.cases import Case
from editblocks.eval.folders import load_folder
from editblocks.eval.judge import CaseOutcome
from editblocks.eval.runner import RunSettings


@dataclass(frozen=True)
class FolderRef:
    """A case folder and the name it is reported under."""

    path: str
    name: str

    def load(self, settings: RunSettings) -> Case | CaseOutcome:
        return load_folder(self.path, self.name)
