"""`ask --git-commit`: commit exactly the files a run changed, with a message naming the instruction.

Only the named paths are committed (`git commit -- paths`, after `git add`
of those paths), so whatever else the user has staged stays staged and out
of the commit. The repository's hooks do not run unless the user asks: a
hook is a script of the work tree (husky's `.husky/`), which the model's
edits may just have changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from editblocks.errors import GitError
from editblocks.workspace.git import HOOKS_OFF, run_git, work_tree

SUBJECT_CHARS = 72


def commit_files(root: Path, files: Sequence[str], instruction: str, *, hooks: bool = False) -> str:
    """Commit ``files`` (relative to ``root``); returns the new commit's short id. Raises GitError.

    Without ``hooks`` no hook runs: git is pointed at no hook folder and told not to verify.
    """
    top, prefix = work_tree(root)
    names = [prefix + path for path in files]
    if not names:
        raise GitError("no files to commit")
    first = " ".join(instruction.split())
    subject = f"editblocks ask: {first}"
    if len(subject) > SUBJECT_CHARS:
        subject = subject[: SUBJECT_CHARS - 1] + "…"
    message = f"{subject}\n\nInstruction given to the model:\n\n{instruction.strip()}\n"
    run_git(top, "--literal-pathspecs", "add", "--", *names)
    no_hooks = () if hooks else HOOKS_OFF
    verify = () if hooks else ("--no-verify",)
    run_git(top, *no_hooks, "--literal-pathspecs", "commit", "--quiet", *verify, "-F", "-", "--", *names, stdin=message)
    return run_git(top, "rev-parse", "--short", "HEAD").strip()
