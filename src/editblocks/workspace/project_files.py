"""The files of a project as a list of relative paths: from a list, `git ls-files`, or a walk of the root.

I/O beside the workspace, kept apart from it because it reads names (and at
most the first bytes of a file, or its status), never whole contents, and
writes nothing: the list maps a misspelt path onto the file it clearly means
(`--known-files`), names the file a model probably meant when the one it
wrote does not exist, and fills the workbench's file picker, which greys out
binary files by their first bytes and notices a file changing by its status.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from editblocks.errors import KnownFilesError
from editblocks.workspace.dirfd import READ_FLAGS, Kind, Tree, check_name, split

Found = TypeVar("Found")

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


def file_heads(root: str | os.PathLike[str], paths: list[str], size: int) -> dict[str, bytes | None]:
    """The first ``size`` bytes of each file ``paths`` names (relative, as `walk_files` gives them).

    None for a path that is not a regular file reached without a link, or
    that cannot be read; nothing else is opened, and no file is read whole.
    """
    return _each_file(root, paths, lambda tree, path: _head(tree, path, size))


def file_stamps(root: str | os.PathLike[str], paths: list[str]) -> dict[str, tuple[int, int, int] | None]:
    """What tells a change of each file: (inode, size, modification time in ns), None when it is not there."""
    return _each_file(root, paths, _stamp)


def _each_file(root: str | os.PathLike[str], paths: list[str],
               look: Callable[[Tree, str], Found | None]) -> dict[str, Found | None]:
    """What ``look`` finds of each path, inside the root and never through a link (None: the root cannot be
    opened)."""
    found: dict[str, Found | None] = dict.fromkeys(paths)
    try:
        tree = Tree(os.path.realpath(root))
    except OSError:
        return found
    with tree:
        for path in paths:
            found[path] = look(tree, path)
    return found


def _stamp(tree: Tree, path: str) -> tuple[int, int, int] | None:
    try:
        status = tree.status(path)
    except (OSError, ValueError):
        return None
    return None if status is None else (status.st_ino, status.st_size, status.st_mtime_ns)


def _head(tree: Tree, path: str, size: int) -> bytes | None:
    folder_rel, name = split(path)
    try:
        check_name(name)
        folder = tree.folder(folder_rel)
        if folder is None:
            return None
        fd = os.open(name, READ_FLAGS, dir_fd=folder)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


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
