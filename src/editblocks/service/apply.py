"""`apply`: the public function: an answer's blocks applied to the files under a root, through `EditSession`.

It holds the workspace lock from the first read to the last write, so a
concurrent run can neither interleave nor overwrite.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

from editblocks.model import ApplyResult, EditBlock, ParseResult, Policy
from editblocks.service.options import LOCK_WAIT_SECONDS, MIB, ApplyOptions
from editblocks.service.results import file_diffs, without_restated_warnings
from editblocks.service.session import EditSession
from editblocks.workspace.journal import KEEP_RUNS, MAX_BYTES

__all__ = ["LOCK_WAIT_SECONDS", "apply", "file_diffs", "without_restated_warnings"]


def apply(
    edits: ParseResult | Sequence[EditBlock],
    root: str | os.PathLike[str],
    *,
    policy: Policy | str | None = None,
    dry_run: bool = False,
    fuzzy: bool = False,
    first_match: bool = False,
    strict: bool = False,
    git_add: bool = False,
    lock_wait: float = LOCK_WAIT_SECONDS,
    keep_runs: int = KEEP_RUNS,
    journal_max_bytes: int = MAX_BYTES,
    known_files: Collection[str] | None = None,
    options: ApplyOptions | None = None,
) -> ApplyResult:
    """Apply edit blocks to the files under `root`; nothing outside it is ever touched.

    Raises `WorkspaceBusy` if another process holds the workspace for longer
    than `lock_wait` seconds, and `WorkspaceError` if its undo journal cannot
    be used (the root is not writable, or `.editblocks/` is a symlink);
    everything a model can get wrong comes back as a status and a reason in
    the result. The journal keeps the newest `keep_runs` runs, within
    `journal_max_bytes` of saved copies (the newest run always stays).
    ``known_files`` (the project's files, as given to `parse`) is where a missing file's likely intended
    path is looked up; without it, the root's files are listed for that, only when some file was not found.
    ``options``, when given, stands for every other keyword (the one option set of every door).
    """
    if options is None:
        options = ApplyOptions(on_failure=Policy(policy) if policy else None, fuzzy=fuzzy, first_match=first_match,
                               strict=strict, git_add=git_add, keep_runs=keep_runs,
                               journal_max_mb=journal_max_bytes / MIB, known_files=None if known_files is None
                               else tuple(known_files), lock_wait=lock_wait)
    session = EditSession.on_disk(root, options)
    return session.preview(edits) if dry_run else session.apply(edits)
