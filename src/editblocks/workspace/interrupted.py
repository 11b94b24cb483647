"""A run left pending: really interrupted mid-write, or finished but for its committed mark.

Marking a run committed is not synced (`Journal.mark`), so a power failure soon
after a run finished can leave its record pending although every file holds
what the run wrote. Such a run is settled as committed here: sending the user to
`undo` would take back an edit that fully landed. A run with any file not wholly
new was really interrupted and still waits for `undo`.
"""

from __future__ import annotations

import stat

from editblocks.workspace.dirfd import Tree
from editblocks.workspace.journal import Journal
from editblocks.workspace.reading import Reader
from editblocks.workspace.records import Run, RunState, fingerprint


def interrupted_run(journal: Journal, reader: Reader) -> str | None:
    """The id of a run killed mid-write, which `undo` must recover first; a finished one is marked committed."""
    pending = journal.interrupted_run()
    if pending is None:
        return None
    run = next((run for run in journal.runs() if run.run_id == pending), None)
    if run is None or run.state is not RunState.PENDING or not _landed(run, reader):
        return pending
    journal.mark(run, RunState.COMMITTED)
    return journal.interrupted_run()


def _landed(run: Run, reader: Reader) -> bool:
    """Whether every file of ``run`` holds exactly what the run wrote (and the mode it gave it)."""
    try:
        with Tree(reader.root) as tree:
            for entry in run.entries:
                if reader.resolve(entry.path) != entry.path:
                    return False
                current = tree.read(entry.path)
                if (None if current is None else fingerprint(current[0])) != entry.new_fingerprint:
                    return False
                if current is not None and entry.new_mode is not None \
                        and stat.S_IMODE(current[1].st_mode) != entry.new_mode:
                    return False
    except OSError:
        return False
    return True
