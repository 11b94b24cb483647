"""The project's files for the workbench's picker: every file, and whether git ignores it or it looks binary.

The names come from the workspace's confined listing (folders opened without
following a link, `.git/` and `.editblocks/` left out). A file is ignored
when the `.gitignore` files on its way (and `.git/info/exclude`) say so, read
as git reads them (`pathspec`), the deeper file winning; it is binary when
its first bytes hold a NUL, as git decides. Neither kind can be sent to the
model, so the page shows them greyed out and says why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import PurePosixPath

from pathspec import GitIgnoreSpec

from editblocks.workspace.project_files import file_heads, walk_files

MAX_LISTED = 5_000
"""The picker lists at most this many files; a larger tree is cut (and the page says so)."""
SNIFF_BYTES = 8_000  # as much as git looks at to call a file binary
MAX_IGNORE_FILE_BYTES = 256 << 10
EXCLUDE_FILE = ".git/info/exclude"


@dataclass(frozen=True)
class PickerFile:
    path: str
    binary: bool
    ignored: bool


@dataclass(frozen=True)
class Listing:
    files: tuple[PickerFile, ...]
    truncated: bool


def list_project(root: str | os.PathLike[str], limit: int = MAX_LISTED) -> Listing:
    """Up to ``limit`` files under ``root``, sorted, each marked binary or ignored."""
    paths = sorted(walk_files(root, limit + 1))
    truncated = len(paths) > limit
    paths = paths[:limit]
    rules = _ignore_rules(root, [p for p in paths if PurePosixPath(p).name == ".gitignore"])
    ignored = {path for path in paths if _ignored(path, rules)}
    heads = file_heads(root, [path for path in paths if path not in ignored], SNIFF_BYTES)
    files = tuple(PickerFile(path, binary=path not in ignored and b"\0" in (heads.get(path) or b""),
                             ignored=path in ignored) for path in paths)
    return Listing(files, truncated)


def _ignore_rules(root: str | os.PathLike[str], ignore_files: list[str]) -> list[tuple[str, GitIgnoreSpec]]:
    """(folder, its rules) from the shallowest to the deepest; `.git/info/exclude` counts as the root's."""
    texts = file_heads(root, [EXCLUDE_FILE, *ignore_files], MAX_IGNORE_FILE_BYTES)
    rules = []
    for path in [EXCLUDE_FILE, *sorted(ignore_files, key=lambda p: p.count("/"))]:
        raw = texts.get(path)
        if raw is None:
            continue
        folder = "" if path == EXCLUDE_FILE else str(PurePosixPath(path).parent).removeprefix(".")
        lines = raw.decode("utf-8", "replace").splitlines()
        rules.append((folder, GitIgnoreSpec.from_lines(lines)))
    return rules


def _ignored(path: str, rules: list[tuple[str, GitIgnoreSpec]]) -> bool:
    verdict = False
    for folder, spec in rules:
        if folder and not path.startswith(folder + "/"):
            continue
        include = spec.check_file(path[len(folder) + 1:] if folder else path).include
        if include is not None:
            verdict = include
    return verdict
