"""Turn a recorded model answer and the git commit it produced into an evaluation case.

Real answers are the best test data there is (peers §11 item 6: store raw
model outputs once, then score every later version of the parser and matcher
for free). A commit already holds both trees a case needs: the files it
touched as they were in its first parent become ``before/``, the same files as
the commit left them become ``after/``. Files the answer names but the commit
left alone go into both, unchanged: a block for such a file (one that failed
in the real run) must meet it in the case too, or an empty SEARCH meant for
an existing file would create it instead of being refused. Only git's
plumbing commands are used, through ``subprocess``, so nothing depends on a
git library or on the user's diff settings.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from editblocks.errors import ReplayError
from editblocks.eval.cases import CASE_FILE
from editblocks.eval.folders import AFTER_DIR, BEFORE_DIR, RESPONSE_FILE
from editblocks.parsing.stream import parse
from editblocks.workspace.git import git_command

GIT_TIMEOUT_SECONDS = 60.0
_ABSENT_MODE = "000000"
_FILE_MODES = frozenset({"100644", "100755", "120000"})  # regular, executable, symlink (kept as its target text)


@dataclass(frozen=True)
class _Change:
    """One file the commit touched; a blob of None means the file is absent on that side."""

    path: str
    old_blob: str | None
    new_blob: str | None


@dataclass(frozen=True)
class ReplayedCase:
    """The case folder written, the full commit id, and the files put in before/ and after/."""

    folder: Path
    commit: str
    before: tuple[str, ...]
    after: tuple[str, ...]


def import_commit(repo: str | os.PathLike[str], response: str | os.PathLike[str], commit: str,
                  out: str | os.PathLike[str]) -> ReplayedCase:
    """Write the case folder ``out`` from ``commit`` of ``repo`` and the answer in ``response``.

    ``out`` must not exist yet or be empty: a case is never overwritten. A
    root commit has an empty ``before/``. Raises `ReplayError` with a sentence
    a person can act on.
    """
    folder = Path(out)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ReplayError(f"{folder} already exists and is not an empty folder")
    try:
        answer = Path(response).read_bytes()
    except OSError as error:
        raise ReplayError(f"cannot read the response {response}: {error.strerror or error}") from None
    files = read_commit(repo, answer, commit)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for side, tree in ((BEFORE_DIR, files.before), (AFTER_DIR, files.after)):
            for path, data in tree.items():
                target = folder / side / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        (folder / RESPONSE_FILE).write_bytes(answer)
        note = {"why": replayed_why(files.sha, repo)}
        (folder / CASE_FILE).write_text(json.dumps(note, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        raise ReplayError(f"cannot write the case into {folder}: {error.strerror or error}") from None
    return ReplayedCase(folder, files.sha, tuple(sorted(files.before)), tuple(sorted(files.after)))


@dataclass(frozen=True)
class CommitFiles:
    """The files a case needs from a commit: as its first parent held them, and as it left them."""

    sha: str
    before: dict[str, bytes]
    after: dict[str, bytes]


def read_commit(repo: str | os.PathLike[str], answer: bytes, commit: str) -> CommitFiles:
    """The files ``commit`` of ``repo`` changed, before and after, with the files ``answer`` names unchanged on
    both sides; `ReplayError` says what is wrong."""
    if not commit or commit.startswith("-"):
        raise ReplayError(f"{commit!r} is not a commit name")
    sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}",
               what=f"{commit!r} is not a commit in {repo}").decode().strip()
    parent = _git(repo, "rev-parse", "--verify", "--quiet", f"{sha}^1", allow_failure=True).decode().strip()
    changes = _changes(repo, sha, parent)
    changes += _named_files(repo, parent, answer, {change.path for change in changes})
    blobs = _blobs(repo, {blob for change in changes for blob in (change.old_blob, change.new_blob) if blob})
    return CommitFiles(sha, {c.path: blobs[c.old_blob] for c in changes if c.old_blob},
                       {c.path: blobs[c.new_blob] for c in changes if c.new_blob})


def replayed_why(sha: str, repo: str | os.PathLike[str]) -> str:
    return (f"replayed from commit {sha} of {Path(repo).resolve().name}: the recorded answer must leave the files "
            "exactly as that commit did")


def _changes(repo: str | os.PathLike[str], sha: str, parent: str) -> list[_Change]:
    """Files ``sha`` changed against ``parent``, its first parent (everything it holds, for a root commit: "")."""
    base = parent or _git(repo, "hash-object", "-t", "tree", "--stdin", what="cannot compute the empty tree",
                          stdin=b"").decode().strip()
    raw = _git(repo, "diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", base, sha,
               what=f"cannot list the files {sha} changed")
    fields = raw.split(b"\0")
    changes: list[_Change] = []
    for header, name in zip(fields[0::2], fields[1::2]):
        if not header:
            break
        old_mode, new_mode, old_blob, new_blob, _status = header.decode().lstrip(":").split()
        path = _safe_path(os.fsdecode(name))
        for mode in (old_mode, new_mode):
            if mode != _ABSENT_MODE and mode not in _FILE_MODES:
                raise ReplayError(f"{path} has git mode {mode} (a submodule?); only files can be replayed")
        changes.append(_Change(path, None if old_mode == _ABSENT_MODE else old_blob,
                               None if new_mode == _ABSENT_MODE else new_blob))
    if not changes:
        raise ReplayError(f"commit {sha} changes no files")
    return changes


def _named_files(repo: str | os.PathLike[str], parent: str, answer: bytes, changed: set[str]) -> list[_Change]:
    """Files the answer's blocks name that exist in ``parent`` and are not in ``changed``, the same on both sides."""
    if not parent:
        return []
    named = {str(PurePosixPath(block.path)) for block in parse(answer.decode("utf-8-sig", "replace")).blocks}
    paths = sorted(path for path in named - changed if _inside(path))
    if not paths:
        return []
    found = _git(repo, "cat-file", "--batch-check=%(objecttype) %(objectname)",
                 what="cannot look up the files the answer names",
                 stdin="".join(f"{parent}:{path}\n" for path in paths).encode()).decode().split("\n")
    # A found file answers "blob <sha>"; a missing one echoes its "<parent>:<path>" line, which never starts so.
    blobs = {path: line.split(" ")[1] for path, line in zip(paths, found) if line.startswith("blob ")}
    return [_Change(path, blob, blob) for path, blob in blobs.items()]


def _inside(path: str) -> bool:
    """True for a relative path that stays inside the folder it is read from (no `.` or `..` steps)."""
    parts = PurePosixPath(path).parts
    return bool(parts) and not path.startswith("/") and "\n" not in path and not any(p in ("..", ".") for p in parts)


def _safe_path(path: str) -> str:
    """Git never records such paths, but the output folder must not be escaped even if one does."""
    if not _inside(path):
        raise ReplayError(f"refusing the path {path!r} recorded in the commit")
    return path


def _blobs(repo: str | os.PathLike[str], shas: set[str]) -> dict[str, bytes]:
    """The contents of ``shas``, read with one `git cat-file --batch` process."""
    if not shas:
        return {}
    ordered = sorted(shas)
    output = _git(repo, "cat-file", "--batch", what="cannot read file contents",
                  stdin="".join(f"{sha}\n" for sha in ordered).encode())
    contents: dict[str, bytes] = {}
    position = 0
    for sha in ordered:
        end = output.index(b"\n", position)
        header = output[position:end].decode().split()
        if len(header) != 3 or header[1] != "blob":
            raise ReplayError(f"object {sha} is not a readable blob ({' '.join(header)})")
        size = int(header[2])
        contents[sha] = output[end + 1 : end + 1 + size]
        position = end + 1 + size + 1
    return contents


def _git(repo: str | os.PathLike[str], *args: str, what: str = "", stdin: bytes | None = None,
         allow_failure: bool = False) -> bytes:
    """Run one git command in ``repo``; its stdout, or `ReplayError` starting with ``what``.

    With ``allow_failure``, a failing command gives empty output instead (for questions such as "has it a parent?").
    """
    try:
        done = subprocess.run(git_command(repo, *args), input=stdin, capture_output=True,
                              timeout=GIT_TIMEOUT_SECONDS, check=False)
    except FileNotFoundError:
        raise ReplayError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise ReplayError(f"git {args[0]} took longer than {GIT_TIMEOUT_SECONDS:g} s") from None
    if done.returncode != 0:
        if allow_failure:
            return b""
        message = done.stderr.decode("utf-8", "replace").strip()
        raise ReplayError(f"{what}" + (f" (git: {message})" if message else ""))
    return done.stdout
