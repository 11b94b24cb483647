"""The disk layer: the only part of editblocks that reads or writes files.

`Workspace` is its face; the modules behind it each do one job (listed in
`workspace.py`). The public function `apply`, which joins the pure core to
this layer, lives in `editblocks.workspace.apply` and is not re-exported
here: a name `apply` in this package would shadow that module.
"""

from editblocks.workspace.commit import CommitOutcome, PlannedWrite
from editblocks.workspace.lock import WorkspaceBusy, WorkspaceError
from editblocks.workspace.paths import Refusal, RefusalCode
from editblocks.workspace.reading import ENCODINGS, FileSnapshot
from editblocks.workspace.undo import UndoOutcome
from editblocks.workspace.workspace import Workspace

__all__ = [
    "ENCODINGS",
    "CommitOutcome",
    "FileSnapshot",
    "PlannedWrite",
    "Refusal",
    "RefusalCode",
    "UndoOutcome",
    "Workspace",
    "WorkspaceBusy",
    "WorkspaceError",
]
