"""The files of a project as a list of relative paths: from a list, `git ls-files`, or a walk of the root.

I/O beside the workspace, kept apart from it because it reads only names,
never contents, and writes nothing: the list maps a misspelt path onto the
file it clearly means (`--known-files`) and names the file a model
probably meant when the one it wrote does not exist.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from editblocks.errors import KnownFilesError
from editblocks.workspace.dirfd import Kind, Tree

GIT_TIMEOUT_SECONDS = 30
MAX_WALKED_FILES = 20_000
"""A walk for suggestions stops here: a huge tree must not make a failed block slow."""
_SKIPPED_FOLDERS = frozenset({".git", ".editblocks"})


def read_known_files(source: str, root: str | os.PathLike[str]) -> list[str]:
    """The paths in ``source``: a file with one path per line, `-` for standard input, or `git` for the files
    `git ls-files` lists in ``root``. Blank lines are skipped; `\\` separators and a leading `./` are dropped."""
    if source == "git":
        text = _git_ls_files(Path(root))
        lines = text.split("\0")
    else:
        try:
            text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise KnownFilesError(f"cannot read the known files {source!r}: {_describe(error)}") from None
        lines = text.splitlines()
    paths = []
    for line in lines:
        path = line.strip().replace("\\", "/")
        while path.startswith("./"):
            path = path[2:]
        if path:
            paths.append(path)
    return paths


def walk_files(root: str | os.PathLike[str], limit: int = MAX_WALKED_FILES) -> list[str]:
    """Up to ``limit`` files under ``root`` (relative, `/`-separated), skipping `.git/` and `.editblocks/`.

    Folders are opened without following a link (`Tree.walk`), so a folder
    swapped for a link to somewhere else while the walk runs never adds the
    names found there. A link is listed as a file unless it leads to a folder.
    """
    found: list[str] = []
    try:
        tree = Tree(os.path.realpath(root))
    except OSError:
        return found
    with tree:
        for folder, name, kind in tree.walk(skip=_SKIPPED_FOLDERS):
            if kind is Kind.FOLDER or kind is Kind.LINK and _leads_to_folder(tree, folder, name):
                continue
            found.append(f"{folder}/{name}" if folder else name)
            if len(found) >= limit:
                break
    return found


def _leads_to_folder(tree: Tree, folder: str, name: str) -> bool:
    try:
        fd = tree.folder(folder)
        return fd is not None and stat.S_ISDIR(os.stat(name, dir_fd=fd).st_mode)
    except OSError:
        return False


def _git_ls_files(root: Path) -> str:
    import subprocess  # only here: listing files needs no process machinery otherwise

    from editblocks.workspace.git import git_command

    try:
        listed = subprocess.run(
            git_command(root, "ls-files", "-z"),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT_SECONDS,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except FileNotFoundError:
        raise KnownFilesError("cannot list the known files: git is not installed") from None
    except (OSError, subprocess.TimeoutExpired) as error:
        raise KnownFilesError(f"cannot list the known files with git: {error}") from None
    if listed.returncode != 0:
        why = listed.stderr.strip().splitlines()[0] if listed.stderr.strip() else f"exit status {listed.returncode}"
        raise KnownFilesError(f"cannot list the known files with `git ls-files` in {root}: {why}")
    return listed.stdout


def _describe(error: OSError | UnicodeDecodeError) -> str:
    if isinstance(error, UnicodeDecodeError):
        return "not valid UTF-8"
    return error.strerror or str(error)
