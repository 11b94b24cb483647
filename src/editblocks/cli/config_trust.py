"""What a project's own config file may set: behaviour, never where files, requests or secrets go.

A `pyproject.toml` or `.editblocks.toml` is content of the repository, written
by whoever prepared it, and is read from the current folder or any folder
above it. It may state how answers are parsed, located and reported (an
allowlist), and name report or list files inside its own folder. Anything
that chooses which files may change, where the project's files are sent,
which secret goes with them, whether a person confirms, what git records or
whether a server listens stays with the user: the command line, the
environment, or the user's own config file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

PROJECT_SETTINGS = frozenset({
    # how an answer is parsed, located and decided
    "format", "fuzzy", "strict", "first-match", "on-failure", "max-bytes",
    # what a run shows, and a dry run (which only writes less)
    "dry-run", "diff", "json", "failures-only",
    # the undo journal's bounds, inside the project's own .editblocks/
    "keep-runs", "journal-max-mb",
    # ask: the prompt and the round trip with the endpoint the user chose
    "editor", "tools", "retries", "timeout", "backoff", "max-file-bytes",
    # prompt: what is printed
    "no-shell", "fence", "examples",
})
"""Options a project file may set to any value the option accepts."""

PROJECT_PATHS = frozenset({"feedback", "html", "patch", "known-files"})
"""Options a project file may set to a file inside its own folder (never into `.git/` or `.editblocks/`)."""

NOT_PATHS = {"known-files": frozenset({"git", "-"})}
"""Values of a path option that name no file: `git` lists the files git tracks, `-` reads standard input."""

_USER_CHOICE = "which is the user's choice"
REFUSED_FROM_PROJECT = {
    "root": "it chooses which files editblocks may read and change",
    "base-url": "it chooses the server that receives the project's files",
    "api-key-env": "it chooses which secret is sent with them",
    "model": "it chooses who answers and at what price, and on a router which provider receives the files",
    "yes": "it would skip the confirmation a person gives before the model's edits are written",
    "git-commit": f"it records the model's edits in git, {_USER_CHOICE}",
    "git-add": f"it changes the git index, where the user may have staged work by hand, {_USER_CHOICE}",
    "git-hooks": "it lets git run the repository's own hook scripts",
    "force": "it makes undo overwrite edits made after the run",
    "undo-any-run": "it lets a model's undo take back the user's own runs",
    "serve": "it starts a server",
    "review": "it starts a server",
    "http": "it makes the server listen on a port instead of talking to its client alone",
    "port": "it chooses where a server listens",
    "jobs": f"it chooses how much of the machine a run takes, {_USER_CHOICE}",
    "scratch": "it chooses where temporary copies go",
    "from-git": "it chooses what the command does, not how",
    "from-run": "it chooses what the command does, not how",
    "response": "it chooses what the command does, not how",
    "commit": "it chooses what the command does, not how",
    "out": "it chooses what the command does, not how",
    "round": "it chooses what the command does, not how",
}
"""Why a project file may not set an option; an option in neither list is refused as well, with a general reason."""

OTHER_OPTIONS = "it is not among the options a project's file may set"


def project_value(key: str, value: Any, folder: Path) -> tuple[Any, str | None]:
    """``value`` as the option gets it from a project file in ``folder``, or why it is refused.

    A path is taken relative to the folder and must stay inside it once
    links and `..` are resolved, and out of `.git/` and `.editblocks/`
    (git runs what lands in `.git/hooks`); it is returned resolved, so a link
    planted later is not followed to somewhere else.
    """
    if key in PROJECT_SETTINGS:
        return value, None
    if key not in PROJECT_PATHS:
        return None, f"a project's file may not set it ({REFUSED_FROM_PROJECT.get(key, OTHER_OPTIONS)})"
    if value in NOT_PATHS.get(key, ()):
        return value, None
    if not isinstance(value, str):
        return None, "a path must be a string"
    from editblocks.workspace.paths import Refusal, resolve_path

    real_folder = Path(os.path.realpath(folder))
    inside = resolve_path(real_folder, value, root_aliases=(folder,))
    if isinstance(inside, Refusal):
        why = inside.reason.removeprefix("refused: ").replace("the project root", "the file's folder")
        return None, f"a project's file may only name files inside its own folder, and {why}"
    return str(real_folder / inside), None
