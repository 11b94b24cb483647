"""Report files a command writes besides the project (`--feedback`, `--html`): checked first, written whole.

Exit status 2 promises that nothing was written, so a report path that cannot
work is refused before any project file changes (`check_report_path`), not
discovered afterwards. A report is replaced atomically (`write_report`): a
loop watching the file sees the old report or the new one, never half of one.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from editblocks.cli.shared import InputError


def check_report_path(path: str, what: str) -> None:
    """Refuse (exit 2) a report path whose file could not be written: a folder, or in a missing or read-only folder."""
    target = Path(os.path.realpath(path))
    if target.is_dir():
        raise InputError(f"cannot write the {what} to {path!r}: it is a folder", code="unwritable-report")
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"cannot write the {what} to {path!r}: the folder {str(folder)!r} does not exist",
                         code="unwritable-report")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"cannot write the {what} to {path!r}: the folder {str(folder)!r} is not writable",
                         code="unwritable-report")
    if target.exists() and not os.access(target, os.W_OK):
        raise InputError(f"cannot write the {what} to {path!r}: the file is read-only", code="unwritable-report")


def write_report(path: str, content: str | bytes) -> None:
    """Write ``content`` (text as UTF-8, or bytes as they are) to ``path`` through a temporary file in the
    same folder and one rename.

    A symbolic link at ``path`` is followed, so the file it points to is
    replaced, not the link. Raises OSError; the temporary file never stays.
    """
    import tempfile  # (with random and shutil) only when a report is written

    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    mode = _mode_for(target)
    descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content.encode("utf-8") if isinstance(content, str) else content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


def _mode_for(target: str) -> int:
    """The permission bits the report gets: those of the file it replaces, else what `open` would give."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
