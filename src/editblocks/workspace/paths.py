"""Decide where a path named by the model may lead, before anything is read or written.

A path in a model's answer is untrusted text: it may climb out of the project
(`../`, an absolute path, a symlink, `~/` or `$HOME/` that a shell would
expand), reach into git's or editblocks' own bookkeeping, disguise itself with
invisible characters, or simply be malformed. Each such path becomes a
`Refusal` value with one sentence a person or the model can act on. This
module only looks at the disk (`lstat`, `realpath`); it never writes, and an
error from the disk while looking is a refusal too.

An accepted path is returned in canonical form: relative to the root, POSIX
separators (a backslash is read as one too, as Windows writes paths, unless
the project has a file whose name holds it), no `.`/`..`, and with every
symlink resolved, so a link inside
the root is written *through* (the link itself stays a link) and two names
for one file become one name. The workspace then reaches the canonical path
without following any link (`dirfd`), so a link that appears after this
check is never followed.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

GIT_DIR = ".git"
JOURNAL_DIR = ".editblocks"
NAME_MAX = 255  # bytes in one file name on the file systems editblocks targets
PATH_MAX = 4096  # bytes in a whole path handed to the kernel
SHOWN_CHARS = 120  # a refusal quotes the path, cut to this length

_DRIVE = re.compile(r"[A-Za-z]:")
_HOME = re.compile(r"~[\w.-]*")
_VARIABLE = re.compile(r"\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\}|%[A-Za-z_][\w()]*%")


class RefusalCode(StrEnum):
    """Stable codes for why a path or file is refused (the `refusal` of a `--json` result)."""

    OUTSIDE_ROOT = "outside-root"
    GIT_DIR = "git-dir"
    JOURNAL_DIR = "journal-dir"
    DIRECTORY = "directory"
    BINARY = "binary"
    ENCODING = "encoding"
    UNREADABLE = "unreadable"
    READ_ONLY = "read-only"
    INVALID_PATH = "invalid-path"


@dataclass(frozen=True)
class Refusal:
    """A path or file editblocks will not touch; ``path`` is as the model wrote it."""

    path: str
    code: RefusalCode
    reason: str


Problem = tuple[RefusalCode, str]


def refusal(path: str, code: RefusalCode, why: str) -> Refusal:
    """Build a refusal whose reason reads "refused: `path` <why>"."""
    return Refusal(path, code, f"refused: `{show(path)}` {why}")


def show(path: str) -> str:
    """The path as a reason may quote it: control characters escaped, very long paths cut."""
    shown = path if path.isprintable() else path.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= SHOWN_CHARS else shown[: SHOWN_CHARS - 1] + "…"


def _exists_literally(root: Path, path: str) -> bool:
    """Whether ``path``, its backslashes taken as part of a name (not as Windows separators), names an entry."""
    try:
        return os.path.lexists(os.path.join(root, path))
    except (OSError, ValueError):
        return False


def resolve_path(root: Path, path: str, *, root_aliases: tuple[Path, ...] = ()) -> str | Refusal:
    """Canonical relative path of ``path`` inside ``root`` (a resolved directory), or why not.

    ``root_aliases`` are other absolute spellings of the root (as the user typed
    it, before symlinks were resolved) under which an absolute path is accepted.
    """
    parts = checked_parts(path, lambda absolute: _strip_root(absolute, (root, *root_aliases)),
                          lambda parts: os.path.lexists(root.joinpath(*parts)), root)
    if isinstance(parts, Refusal):
        return parts
    try:
        real = Path(os.path.realpath(root.joinpath(*parts))).relative_to(root).parts
    except ValueError:
        return refusal(path, RefusalCode.OUTSIDE_ROOT, "leads outside the project root through a symlink")
    except OSError as error:  # a folder on the way changed while it was being resolved
        return refusal(path, RefusalCode.UNREADABLE, f"could not be resolved ({error.strerror or error})")
    if not real:
        return refusal(path, RefusalCode.DIRECTORY, "leads to the project root itself through a symlink")
    problem = _forbidden(real) or _inspect(root, real)
    if problem is not None:
        return refusal(path, *problem)
    return "/".join(real)


def checked_parts(path: str, inside: Callable[[str], str | None], exists: Callable[[list[str]], bool],
                  root: Path = Path("/")) -> list[str] | Refusal:
    """What the text of ``path`` alone says: its components inside the root, or why it may not be used.

    ``inside`` gives the part of an absolute path below the root (None: outside it); ``exists`` whether the
    project already holds a path (a disguised name is only refused for a new file); ``root`` bounds its length.
    """
    if not path:
        return Refusal(path, RefusalCode.INVALID_PATH, "refused: the file path is empty")
    if any(unicodedata.category(char) == "Cc" for char in path):
        return refusal(path, RefusalCode.INVALID_PATH, "contains a control character, which no file name may have")
    slashed = path.replace("\\", "/")
    if "\\" in path and not path.startswith(("/", "\\")) and _exists_literally(root, path):
        slashed = path  # the project has a file with a backslash in its name (git quotes such names in a diff)
    if _DRIVE.match(slashed):
        return refusal(
            path, RefusalCode.INVALID_PATH, "is a Windows drive path; give a path relative to the project root"
        )
    try:
        os.fsencode(slashed)
    except UnicodeEncodeError:
        return refusal(path, RefusalCode.INVALID_PATH, "cannot be encoded as a file name on this system")
    names_folder = slashed.endswith("/")
    if slashed.startswith("/"):
        below = inside(slashed)
        if below is None:
            return refusal(path, RefusalCode.OUTSIDE_ROOT, "is an absolute path outside the project root")
        slashed = below
    parts = _normalise(slashed)
    if parts is None:
        return refusal(path, RefusalCode.OUTSIDE_ROOT, "resolves outside the project root")
    if not parts:
        return refusal(path, RefusalCode.DIRECTORY, "is the project root itself, not a file")
    problem = _forbidden(parts) or _too_long(root, parts)
    if problem is None and names_folder:
        problem = (RefusalCode.DIRECTORY, "ends with `/`, so it names a folder, not a file")
    if problem is None:
        problem = _disguised(parts)
        if problem is not None and exists(parts):
            problem = None  # the project really has this name: editing it is no disguise
    if problem is not None:
        return refusal(path, *problem)
    return parts


def reaches_through_link(root: Path, path: str, canonical: str, *, root_aliases: tuple[Path, ...] = ()) -> bool:
    """Whether ``path`` (accepted as ``canonical``) names its file through a symlink inside the root.

    Writing through a link is fine (the link stays a link), but deleting or moving by the link's name would act on
    its target, where git removes or renames the link itself; the caller refuses that.
    """
    slashed = path.replace("\\", "/")
    if slashed.startswith("/"):
        inside = _strip_root(slashed, (root, *root_aliases))
        if inside is None:
            return False
        slashed = inside
    parts = _normalise(slashed)
    return parts is not None and "/".join(parts) != canonical


def is_canonical(rel: str) -> bool:
    """True if ``rel`` has the form `resolve_path` returns: no empty, `.` or `..` part, nothing reserved.

    Used before touching leftovers named in a journal manifest, which is data
    on disk and so must not be trusted to stay inside the root; links on the
    way are then refused by opening each folder without following one.
    """
    parts = rel.split("/")
    return not any(part in ("", ".", "..") for part in parts) and _forbidden(parts) is None


def name_key(name: str) -> str:
    """The form of a name used to spot `.git` and `.editblocks` in disguise.

    Case, compatibility forms (fullwidth letters), invisible format characters
    and trailing dots or spaces are ignored: some file systems ignore them too,
    and no real project needs a `.GIT.` that is not git's.
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return "".join(char for char in folded if unicodedata.category(char) != "Cf").rstrip(". ")


def _strip_root(absolute: str, roots: tuple[Path, ...]) -> str | None:
    """The part of an absolute path below one of the root's spellings, or None if it is outside."""
    normal = os.path.normpath(absolute)
    for root in roots:
        prefix = str(root).rstrip("/") + "/"
        if normal == str(root):
            return ""
        if normal.startswith(prefix):
            return normal[len(prefix) :]
    return None


def _normalise(relative: str) -> list[str] | None:
    """Path components with `.` and `..` applied lexically; None if `..` climbs above the root."""
    parts: list[str] = []
    for part in relative.split("/"):
        if part in ("", "."):
            continue
        if part != "..":
            parts.append(part)
        elif parts:
            parts.pop()
        else:
            return None
    return parts


def _forbidden(parts: list[str] | tuple[str, ...]) -> Problem | None:
    keys = [name_key(part) for part in parts]
    if GIT_DIR in keys:
        return RefusalCode.GIT_DIR, "points into git's own `.git` data, which editblocks never edits"
    if keys[0] == JOURNAL_DIR:
        return RefusalCode.JOURNAL_DIR, "points into `.editblocks/`, editblocks' own undo journal"
    return None


def _disguised(parts: list[str]) -> Problem | None:
    """A path that reads as something else: invisible or direction-changing characters, `~`, `$HOME`.

    A shell or a person would read `~/x` and `$HOME/x` as the home folder; as
    written, they would create a literal `~` or `$HOME` folder in the project.
    """
    hidden = next((char for part in parts for char in part if unicodedata.category(char) == "Cf"), None)
    if hidden is not None:
        name = unicodedata.name(hidden, "a format character")
        return RefusalCode.INVALID_PATH, (
            f"contains an invisible or direction-changing character (U+{ord(hidden):04X} {name}), which can make "
            "a new file look like another one; editblocks only edits such a name when the file already exists"
        )
    first = parts[0]
    if _HOME.fullmatch(first) and (len(parts) > 1 or first == "~"):
        return RefusalCode.OUTSIDE_ROOT, (
            f"starts with `{first}`, a home folder: editblocks does not expand it; give a path relative to the "
            "project root"
        )
    if _VARIABLE.fullmatch(first):
        return RefusalCode.OUTSIDE_ROOT, (
            f"starts with `{first}`, an environment variable: editblocks does not expand it; give a path relative "
            "to the project root"
        )
    return None


def _too_long(root: Path, parts: list[str]) -> Problem | None:
    if any(len(os.fsencode(part)) > NAME_MAX for part in parts):
        return RefusalCode.INVALID_PATH, f"has a name longer than {NAME_MAX} bytes, more than file systems allow"
    if len(os.fsencode(root.joinpath(*parts))) >= PATH_MAX:
        return RefusalCode.INVALID_PATH, f"is longer than the {PATH_MAX} bytes a path may have"
    return None


def _inspect(root: Path, parts: tuple[str, ...]) -> Problem | None:
    """Check a symlink-free path on disk: folders on the way, then a regular file or nothing."""
    current = root
    for index, part in enumerate(parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return None
        except OSError as error:
            if error.errno == errno.ENAMETOOLONG:
                return RefusalCode.INVALID_PATH, "is longer than the system allows"
            return RefusalCode.UNREADABLE, f"cannot be inspected ({error.strerror})"
        last = index == len(parts) - 1
        if stat.S_ISLNK(mode):
            return RefusalCode.INVALID_PATH, "goes through a symlink that loops or cannot be followed"
        if stat.S_ISDIR(mode):
            if last:
                return RefusalCode.DIRECTORY, "is a directory, not a file"
        elif not last:
            file = show("/".join(parts[: index + 1]))
            return RefusalCode.INVALID_PATH, f"goes through `{file}`, which is a file, not a folder"
        elif not stat.S_ISREG(mode):
            return RefusalCode.UNREADABLE, "is not a regular file (a device, pipe or socket)"
    return None
