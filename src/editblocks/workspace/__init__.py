"""The disk layer: the only part of editblocks that reads or writes files.

`Workspace` is its face; the modules behind it each do one job (listed in
`workspace.py`). What joins the pure core to this layer (`apply`, tool
calls, undo) is the service layer's job (`editblocks.service`).
"""

from editblocks.errors import WorkspaceBusy, WorkspaceError
from editblocks.text.encodings import ENCODINGS
from editblocks.workspace.commit import CommitOutcome, PlannedWrite
from editblocks.workspace.paths import Refusal, RefusalCode
from editblocks.workspace.reading import FileSnapshot
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
