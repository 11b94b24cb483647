"""Reading the file path a model wrote near a block, and mapping it onto known files.

Models decorate paths (`**src/app.py**`, `### File: src/app.py`, `` `src/app.py`: ``)
and sometimes write prose where a path should be ("Here is the change for
utils.py:"). Cleaning removes the decoration; the plausibility rules refuse
prose, so a sentence never becomes a file name that gets created.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NamedTuple

_LABELS = ("file path:", "filepath:", "file name:", "filename:", "file:", "path:")
_WRAPPERS = ("**", "__", "*", "_", "`", '"', "'")
_WRAPPER_CHARS = frozenset("*_`\"'")
_BULLET_STARTS = frozenset("-*+0123456789")
_FORBIDDEN = frozenset('<>|"`*?\t\r\n\x00')
_EXTENSIONLESS_NAMES = frozenset(
    {
        "makefile", "dockerfile", "containerfile", "gemfile", "rakefile", "procfile", "jenkinsfile",
        "vagrantfile", "license", "licence", "readme", "changelog", "authors", "notice", "copying",
        "justfile", "brewfile", "podfile", "caddyfile", "pipfile", "gnumakefile", "cmakelists",
    }
)
MAX_PATH_CHARS = 1024
_PLAIN_PATH = re.compile(r"[^\W_][\w.-]*(?:/[\w.-]+)*")
"""A bare path: word characters, dots and dashes in `/`-separated parts, starting with a letter or digit."""


class PathLine(NamedTuple):
    """A path read from a line (a named tuple: one is made per block that has its own path line)."""

    path: str
    labelled: bool  # written as a `File:` header, the search-replace style


def path_from_line(line: str, known_files: Collection[str] | None = None) -> PathLine | None:
    """The path on this line, or None if the line is not plausibly just a path."""
    text = line.strip()
    if not text or len(text) > MAX_PATH_CHARS:
        return None
    if _PLAIN_PATH.fullmatch(text):  # nothing to peel, nothing to doubt: the common case, kept cheap
        return PathLine(text, False)
    text, decorated = _strip_comment_and_heading(text)
    if not text:
        return None
    text, bullet = _strip_list_bullet(text)
    text, labelled, colon, quoted = _strip_decoration(text)
    text = _without_line_number(_normalise_separators(text))
    if not _plausible(text, known_files, decorated=decorated or bullet or colon, labelled=labelled, quoted=quoted):
        return None
    return PathLine(text, labelled)


def path_in_fence_info(info: str, known_files: Collection[str] | None = None) -> PathLine | None:
    """A path written on the opening fence line: ```` ```src/a.py ````, ```` ```python:src/a.py ````, or after a
    language or command word (```` ```python src/a.py ````, gptme's ```` ```patch hello.py ````)."""
    language, colon, rest = info.partition(":")
    if colon and rest and language.isalnum():
        info = rest
    if "." not in info and "/" not in info:
        return None
    words = info.split()
    if len(words) == 2 and words[0].replace("-", "").isalnum():
        named = words[1]
        if "=" in named or not (_has_extension(named) or "/" in named.strip("/")):
            return None
        info = named
    return path_from_line(info, known_files)


_LABEL_LINE = re.compile(r"^[ \t]*(?:#{1,6}|//|[-*+])?[ \t]*[*_]*[ \t]*(?:file ?path|file ?name|file|path)[ \t]*:",
                         re.IGNORECASE | re.MULTILINE)


def misplaced_file_headers(text: str, own_path: str) -> list[str]:
    """`### File: other.py` lines inside a new file's text: a header for another file that belongs before a block
    (a model that forgot to end the new file). A header naming the file itself is an ordinary first-line comment."""
    found = []
    for match in _LABEL_LINE.finditer(text):
        end = text.find("\n", match.start())
        line = text[match.start() : end if end != -1 else len(text)].strip()
        named = path_from_line(line)
        if named is not None and named.labelled and named.path != own_path:
            found.append(line)
    return found


def is_file_label(line: str) -> bool:
    """Whether ``line`` is a `File:`-style header, usable as a path or not."""
    text, _ = _strip_comment_and_heading(line.strip()) if line.strip() else ("", False)
    text = _strip_list_bullet(text)[0] if text else text
    return text.lstrip("*_ ").lower().startswith(_LABELS)


def _strip_comment_and_heading(text: str) -> tuple[str, bool]:
    if text[0] not in "<#/-;":
        return text, False
    if text.startswith("<!--") and text.endswith("-->"):
        return text[4:-3].strip(), True
    if text.startswith("/*") and text.endswith("*/"):
        return text[2:-2].strip(), True
    if text.startswith("//") and not text.lstrip("/")[:1].isspace():
        return text, False  # `//tmp/x` and `//server/share/x` are absolute paths, not `// comments`
    for prefix in ("#", "//", "-- ", ";"):
        if text.startswith(prefix):
            return text.lstrip(prefix[0]).strip() if prefix == "#" else text[len(prefix) :].strip(), True
    return text, False


def _strip_list_bullet(text: str) -> tuple[str, bool]:
    if text[0] not in _BULLET_STARTS:
        return text, False
    if text[:2] in ("- ", "* ", "+ "):
        return text[2:].strip(), True
    digits = len(text) - len(text.lstrip("0123456789"))
    if 0 < digits < 4 and text[digits : digits + 2] in (". ", ") "):
        return text[digits + 2 :].strip(), True
    return text, False


def _strip_decoration(text: str) -> tuple[str, bool, bool, bool]:
    """Peel labels, trailing colons and symmetric wrappers until nothing changes.

    Also says whether a label was peeled, a bare trailing colon, and backticks.
    """
    if ":" not in text and text[0] not in _WRAPPER_CHARS and text[-1] not in _WRAPPER_CHARS:
        return text, False, False, False
    labelled = colon = quoted = False
    previous = None
    while text != previous:
        previous = text
        text = text.strip()
        if text.endswith(":"):
            text = text.rstrip(":").strip()
            colon = True
        bare = text.lstrip("*_ ")
        lowered = bare.lower()
        for label in _LABELS:
            if lowered.startswith(label):
                text = _without_closing_emphasis(bare[len(label) :])
                labelled = True
                break
        for wrapper in _WRAPPERS:
            size = len(wrapper)
            if len(text) > 2 * size and text.startswith(wrapper) and text.endswith(wrapper):
                text = text[size:-size]
                quoted = quoted or wrapper == "`"
                break
    return text.strip(), labelled, colon and not labelled, quoted


def _without_closing_emphasis(text: str) -> str:
    """What follows a label: `**File:** a.py` leaves `** a.py`; the closing `**` goes, a leading `__init__` stays."""
    run = len(text) - len(text.lstrip("*_"))
    if run and (run == len(text) or text[run].isspace()):
        text = text[run:]
    return text.strip()


def _normalise_separators(text: str) -> str:
    """Windows separators become `/`; a backslash only ever before `_` or `*` is a markdown escape instead."""
    if "\\" not in text and not text.startswith("./"):
        return text
    escapes_only = all(piece[:1] in ("_", "*") for piece in text.split("\\")[1:])
    if escapes_only:
        text = text.replace("\\_", "_").replace("\\*", "*")
    else:
        # One leading backslash (`\src\app.py`) is relative to the drive's root in Windows terms, which a
        # model means relative to the project; two (`\\server\share`) stay a network path, refused later.
        relative = text.startswith("\\") and not text.startswith("\\\\")
        text = text.replace("\\", "/")
        if relative:
            text = text[1:]
    while text.startswith("./"):
        text = text[2:]
    return text


def _without_line_number(text: str) -> str:
    """`src/app.py:12` (a location, as compilers print it) names `src/app.py`."""
    stem, colon, number = text.rpartition(":")
    return stem if colon and stem and number.isdigit() else text


def _plausible(
    text: str, known_files: Collection[str] | None, *, decorated: bool, labelled: bool, quoted: bool
) -> bool:
    """Whether ``text`` can be taken for a path: prose must never become a file name that gets created.

    A `File:` label vouches for any one-word name; a name in backticks may
    hold spaces if it ends in an extension; other decorated words need to
    look like files (a folder, an extension, a dotfile, a known name).
    """
    if not text or text in (".", "..", "...", "/") or "://" in text:
        return False
    if not _FORBIDDEN.isdisjoint(text) or not any(map(str.isalnum, text)):
        return False
    if known_files is not None and text in known_files:
        return True
    if len(text.split(maxsplit=1)) > 1:
        return quoted and _has_extension(text) and text == text.strip()
    if labelled or not decorated:
        return True
    return "/" in text or "." in text.strip(".") or _is_dotfile(text) or text.lower() in _EXTENSIONLESS_NAMES


def _has_extension(path: str) -> bool:
    stem, dot, extension = _basename(path).rpartition(".")
    return bool(dot and stem.strip() and 1 <= len(extension) <= 10 and extension.isalnum() and not extension.isdigit())


def _is_dotfile(word: str) -> bool:
    """`.env`, `.gitignore`, `.github/...`: a leading dot, then a name."""
    return len(word) > 1 and word[0] == "." and word[1].isalnum()


def mentions_path(line: str) -> set[str]:
    """Path-looking words in a prose line (`utils.py`, `src/app`), used to refuse a wrong carry-over."""
    found = set()
    for word in line.replace("`", " ").replace("*", " ").split():
        word = word.strip("\"'()[]{},;:!?")
        word = word.rstrip(".")
        if "/" in word.strip("/") and any(ch.isalnum() for ch in word):
            found.add(_normalise_separators(word))
            continue
        if _is_dotfile(word) and _is_name(word[1:]):
            found.add(word)
            continue
        stem = word.rpartition(".")[0]
        if _has_extension(word) and len(stem) > 1 and _is_name(stem.replace("/", "")):
            found.add(_normalise_separators(word))
    return found


def _is_name(text: str) -> bool:
    """Letters and digits, with `_`, `-` and `.` among them: a file name, not punctuation or prose."""
    return text.replace("_", "").replace("-", "").replace(".", "").isalnum()


def resolve_known(path: str, known_files: Collection[str] | None, *, creating: bool) -> str:
    """Map a path onto the one known file it clearly means (same path ignoring case, or same basename).

    A file being created is never mapped: a new `tests/util.py` must not land
    on an existing `src/util.py`.
    """
    if not known_files or path in known_files or creating:
        return path
    for prefix in ("a/", "b/"):
        if path.startswith(prefix) and path[len(prefix) :] in known_files:
            return path[len(prefix) :]
    lowered = path.lower()
    for matches in (
        [known for known in known_files if known.lower() == lowered],
        [known for known in known_files if _basename(known) == _basename(path)],
        [known for known in known_files if _basename(known).lower() == _basename(path).lower()],
    ):
        if len(matches) == 1:
            return matches[0]
        if matches:
            return path
    return path


MAX_SUGGESTIONS = 3


def closest_paths(path: str, existing: Collection[str]) -> list[str]:
    """The existing files a path that does not exist most likely meant: those differing only by case, else those
    with the same file name elsewhere (ignoring case last), at most three, the most similar folders first."""
    if not existing:
        return []
    lowered, name = path.lower(), _basename(path)
    for matches in (
        [known for known in existing if known.lower() == lowered],
        [known for known in existing if _basename(known) == name],
        [known for known in existing if _basename(known).lower() == name.lower()],
    ):
        matches = [known for known in matches if known != path]
        if matches:
            return sorted(matches, key=lambda known: (-_shared_tail(known, path), known))[:MAX_SUGGESTIONS]
    return []


def _shared_tail(first: str, second: str) -> int:
    """How many trailing path parts two paths share, ignoring case."""
    shared = 0
    for a, b in zip(reversed(first.lower().split("/")), reversed(second.lower().split("/"))):
        if a != b:
            break
        shared += 1
    return shared


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]
