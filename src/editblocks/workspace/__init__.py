"""The disk layer: the only part of editblocks that reads or writes files.

`Workspace` is its face; the modules behind it each do one job (see
`workspace.py`). The public function `apply`, which joins the pure core to
this layer, lives in `editblocks.workspace.apply` and is not re-exported
here: a name `apply` in this package would shadow that module.
"""

from editblocks.workspace.workspace import (
    ENCODINGS,
    CommitOutcome,
    FileSnapshot,
    PlannedWrite,
    Refusal,
    RefusalCode,
    UndoOutcome,
    Workspace,
    WorkspaceBusy,
    WorkspaceError,
)

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
