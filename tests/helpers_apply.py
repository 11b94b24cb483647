"""Shared builders for the end-to-end apply tests: responses as text, trees on disk, tree snapshots.

Every helper works on real folders; nothing here reaches into editblocks'
internals, so the tests drive the library exactly as a user does.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from editblocks import ApplyResult, EditResult, parse
from editblocks.service.apply import apply

JOURNAL = ".editblocks"
FENCE = "```"


# --- responses ----------------------------------------------------------------------------------


def sr(old: str, new: str) -> str:
    """One SEARCH/REPLACE pair; ``old`` and ``new`` end with a newline or are empty."""
    return f"<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


def diff_edit(path: str, *pairs: tuple[str, str], lang: str = "python") -> str:
    """aider's `diff` format: the path, then a fence holding one or more SEARCH/REPLACE pairs."""
    body = "".join(sr(old, new) for old, new in pairs)
    return f"{path}\n{FENCE}{lang}\n{body}{FENCE}\n\n"


def guillemet(path: str, edit: str, repl: str) -> str:
    """Seed 003: path, `««« EDIT`, edit section, `═══════ REPL`, replacement section, `»»» EDIT END`."""
    return f"{path}\n\u00ab\u00ab\u00ab EDIT\n{edit}\u2550\u2550\u2550\u2550\u2550\u2550\u2550 REPL\n{repl}\u00bb\u00bb\u00bb EDIT END\n\n"


def anchored(path: str, leading: str, old: str, new: str, trailing: str) -> str:
    """Seed 002: path, `<<<<<<< EDIT`, leading anchor, `-------`, old, `=======`, new, `-------`, trailing, `>>>>>>>`."""
    return f"{path}\n<<<<<<< EDIT\n{leading}-------\n{old}=======\n{new}-------\n{trailing}>>>>>>>\n\n"


def run(root: Path, response: str, **options) -> ApplyResult:
    """Parse ``response`` as a user's tool would and apply it under ``root``."""
    return apply(parse(response), root, **options)


def single(result: ApplyResult) -> EditResult:
    assert len(result.results) == 1, result.results
    return result.results[0]


def statuses(result: ApplyResult) -> list[str]:
    return [r.status.value for r in result.results]


# --- trees on disk ------------------------------------------------------------------------------


def make_tree(root: Path, files: Mapping[str, bytes | str]) -> None:
    """Create ``files`` (relative path → content; str is written as UTF-8 bytes, untranslated)."""
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)


def tree_state(root: Path, *, skip_journal: bool = True) -> dict[str, tuple]:
    """Everything observable under ``root``: files (bytes, mode), folders (mode), symlinks (target).

    Symlinks are recorded, never followed, so a link pointing out of the tree
    does not pull the outside into the snapshot.
    """
    state: dict[str, tuple] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        rel_folder = os.path.relpath(folder, root)
        if skip_journal and (rel_folder == JOURNAL or rel_folder.startswith(JOURNAL + os.sep)):
            dirs[:] = []
            continue
        for name in sorted(dirs + files):
            path = Path(folder) / name
            rel = os.path.normpath(os.path.join(rel_folder, name))
            if skip_journal and rel == JOURNAL:
                continue
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                state[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                state[rel] = ("dir", stat.S_IMODE(info.st_mode))
            else:
                state[rel] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return state


def temp_leftovers(root: Path) -> list[str]:
    """Temporary files an interrupted write could leave behind (outside the journal)."""
    found = []
    for folder, _dirs, files in os.walk(root):
        if os.path.relpath(folder, root).split(os.sep)[0] == JOURNAL:
            continue
        found += [os.path.join(folder, name) for name in files if ".editblocks-" in name and name.endswith(".tmp")]
    return found
