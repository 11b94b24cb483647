"""`undo`: take back the last `apply` under a root, through the session, holding the workspace lock as `apply` does."""

from __future__ import annotations

import os

from editblocks.service.options import LOCK_WAIT_SECONDS, ApplyOptions
from editblocks.service.session import EditSession
from editblocks.workspace.undo import UndoOutcome


def undo(root: str | os.PathLike[str], *, force: bool = False, lock_wait: float = LOCK_WAIT_SECONDS) -> UndoOutcome:
    """Restore the files (and git index entries) the most recent run under `root` changed, byte for byte.

    All or nothing: a file changed since the run wrote it makes undo refuse and change nothing, unless
    ``force``. A root that was never written to has nothing to undo (``ok`` False), and no journal is
    created to find that out. Raises `WorkspaceBusy` if another process holds the workspace longer than
    ``lock_wait`` seconds and `WorkspaceError` if the root or its journal cannot be used, as `apply` does.
    """
    return EditSession.on_disk(root, ApplyOptions(lock_wait=lock_wait)).undo(force=force)
