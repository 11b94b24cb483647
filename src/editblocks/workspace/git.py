"""Staging written files with git, and putting git's index back when the run is undone.

`apply --git-add` stages what it wrote. Undo restores the files, so it must
restore the index entries too, or the next `git commit` commits the undone
edit. Each staged file records its index entries before and after `git add`;
undo puts "before" back only where the index still holds "after", so whatever
the user staged since is left alone, and named.

Every git command editblocks runs goes through `git_command`, which turns
the repository's `core.fsmonitor` off: that setting names a program git
starts on most commands, and whoever configured the repository (or a tool
that did) chose it, not the user running editblocks.

`Staged` is part of a run's record; `subprocess` is imported only when git
runs, so reading records costs no process machinery.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from editblocks.errors import GitError, NoWorkTree

if TYPE_CHECKING:
    import subprocess

GIT_TIMEOUT_SECONDS = 60.0
HOOKS_OFF = ("-c", "core.hooksPath=/dev/null")
"""Options that make a git command find no hook to run (`commit --no-verify` alone still runs post-commit)."""
_ENTRY = re.compile(r"[0-7]{6} [0-9a-f]{40}(?:[0-9a-f]{24})? [0-3]")  # `mode object stage` (SHA-1 or SHA-256)


@dataclass(frozen=True)
class Staged:
    """One file `git add` changed in the index: its entries (``mode object stage``) before and after."""

    path: str  # relative to the project root
    before: tuple[str, ...]  # () when the file was not in the index
    after: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "before": list(self.before), "after": list(self.after)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Staged:
        """Read a record back from a manifest, which is data on disk: every entry must be well-formed."""
        staged = cls(str(data["path"]), tuple(map(str, data["before"])), tuple(map(str, data["after"])))
        if "\0" in staged.path or not all(_ENTRY.fullmatch(entry) for entry in staged.before + staged.after):
            raise ValueError(f"malformed git index entry for {staged.path!r}")
        return staged


def stage(root: Path, files: Sequence[str]) -> tuple[Staged, ...]:
    """`git add` ``files`` (paths relative to ``root``) and return how each one's index entries changed.

    A file the run deleted is removed from the index, so a moved file is staged as git mv stages it.
    """
    top, prefix = work_tree(root)
    full = [prefix + path for path in files]
    before = _entries(top, full)
    # A deleted file is staged as a removal (`git rm`) when git knows it; one git never knew has nothing to stage.
    known = [name for name in full if name in before or os.path.lexists(os.path.join(top, name))]
    if not known:
        return ()
    # --literal-pathspecs: a file named `*.py` or `:(glob)x` stages that file only.
    run_git(top, "--literal-pathspecs", "add", "--", *known)
    after = _entries(top, full)
    return tuple(Staged(path, before.get(name, ()), after.get(name, ()))
                 for path, name in zip(files, full, strict=True) if before.get(name, ()) != after.get(name, ()))


def unstage(root: Path, staged: Sequence[Staged]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Put back the index entries of ``staged`` that still hold what `git add` made: (put back, left alone)."""
    top, prefix = work_tree(root)
    now = _entries(top, [prefix + item.path for item in staged])
    restorable = [item for item in staged if now.get(prefix + item.path, ()) == item.after]
    lines = []
    for item in restorable:
        name = prefix + item.path
        zeros = "0" * len(item.after[0].split()[1]) if item.after else "0" * 40
        lines.append(f"0 {zeros}\t{name}\0")  # mode 0 drops every entry of the path first
        lines += [f"{entry}\t{name}\0" for entry in item.before]
    if lines:
        run_git(top, "update-index", "-z", "--index-info", stdin="".join(lines))
    return (tuple(item.path for item in restorable),
            tuple(item.path for item in staged if item not in restorable))


def work_tree(root: Path) -> tuple[str, str]:
    """The top of the work tree holding ``root``, and ``root``'s path inside it (`sub/` or "")."""
    probe = _run(str(root), ["rev-parse", "--is-inside-work-tree", "--show-toplevel", "--show-prefix"])
    lines = probe.stdout.split("\n")
    if probe.returncode != 0 or len(lines) < 3 or lines[0] != "true":
        raise NoWorkTree(f"{root} is not inside a git work tree")
    return lines[1], lines[2]


def _entries(top: str, names: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each name's index entries (`mode object stage`); names not in the index are left out."""
    if not names:
        return {}
    found: dict[str, list[str]] = {}
    for record in filter(None, run_git(top, "--literal-pathspecs", "ls-files", "-s", "-z", "--", *names).split("\0")):
        entry, _, name = record.partition("\t")
        found.setdefault(name, []).append(entry)
    return {name: tuple(entries) for name, entries in found.items()}


def run_git(top: str, *args: str, stdin: str | None = None) -> str:
    done = _run(top, list(args), stdin)
    if done.returncode != 0:
        raise GitError(done.stderr.strip() or f"exit status {done.returncode}")
    return done.stdout


def git_command(where: str | os.PathLike[str], *args: str) -> list[str]:
    """The command line that runs ``git args`` in ``where`` without starting the repository's fsmonitor."""
    return ["git", "-c", "core.fsmonitor=false", "-C", os.fspath(where), *args]


def _run(where: str, args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    import subprocess  # only when git runs: the journal loads this module for `Staged` alone

    try:
        return subprocess.run(
            git_command(where, *args), input=stdin, capture_output=True, text=True, errors="surrogateescape",
            timeout=GIT_TIMEOUT_SECONDS, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except FileNotFoundError:
        raise NoWorkTree("git is not installed") from None
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitError(str(error)) from None
