"""The command that installs an optional extra, as it must be typed for the copy of editblocks that is running.

A copy run from a source checkout (an editable install, or `src/` on the path) gets its extras from
that checkout, `pip install -e '.[web]'`; `pip install 'editblocks[web]'` there would fetch a second
copy from the package index instead.
"""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def install_command(extra: str, *, package: Path = PACKAGE, cwd: Path | None = None) -> str:
    """`pip install 'editblocks[EXTRA]'`, or from a source checkout `pip install -e '.[EXTRA]'` (its path
    in place of `.` when the current folder is not the checkout)."""
    checkout = source_checkout(package)
    if checkout is None:
        return f"pip install {shlex.quote(f'editblocks[{extra}]')}"
    here = (cwd or Path.cwd()).resolve()
    where = "." if here == checkout else str(checkout)
    return f"pip install -e {shlex.quote(f'{where}[{extra}]')}"


def source_checkout(package: Path = PACKAGE) -> Path | None:
    """The checkout holding ``package`` as `src/editblocks` beside a pyproject.toml that builds editblocks."""
    top = package.parent.parent
    if package.parent.name != "src":
        return None
    try:
        project = tomllib.loads((top / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    name = project.get("project", {}).get("name") if isinstance(project.get("project"), dict) else None
    return top if name == "editblocks" else None
