"""Unified diffs: `git diff`, `diff -u`, and the hunks models write with bare `@@ ... @@` or wrong numbers.

A file section starts at `diff --git` or at a `---` line followed by a
`+++` line; `a/` and `b/` prefixes are dropped, `/dev/null` means the file
is created or deleted, and git's `rename from`/`rename to` move it. Each hunk
becomes a block whose old text is its context and removed lines; the
header's line numbers are kept only as a hint that breaks ties between
identical places (models get them wrong). Counts that disagree with the
hunk's body are reported as a warning and otherwise ignored; binary patches
are refused. One forward pass with one line of look-ahead: linear, never raises.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from editblocks.frontends.common import Collector, clean_path, joined
from editblocks.model import BlockKind, Format, ParseResult, Scope

DEV_NULL = "/dev/null"
_HUNK_PREFIXES = (" ", "-", "+")


@dataclass
class _Hunk:
    line: int
    old_start: int | None
    counts: tuple[int, int] | None
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    changed: bool = False


@dataclass
class _File:
    line: int
    old_path: str | None = None  # None: /dev/null (created)
    new_path: str | None = None  # None: /dev/null (deleted)
    rename: tuple[str, str] | None = None
    git_new: bool = False
    git_deleted: bool = False
    binary: int = 0  # the line of a binary patch marker, if any
    hunks: list[_Hunk] = field(default_factory=list)
    headers: bool = False  # the ---/+++ pair was seen

    @property
    def created(self) -> bool:
        return self.git_new or (self.headers and self.old_path is None)

    @property
    def deleted(self) -> bool:
        return self.git_deleted or (self.headers and self.new_path is None)


def looks_like_unified(text: str) -> bool:
    """Whether ``text`` holds a unified diff's file header (cheap: `auto` asks this of answers with no block)."""
    if "\ndiff --git " in text or text.startswith("diff --git "):
        return True
    position = text.find("--- ")
    while position != -1:
        if position == 0 or text[position - 1] == "\n":
            end = text.find("\n", position)
            if end != -1 and text.startswith("+++ ", end + 1):
                return True
        position = text.find("--- ", position + 4)
    return False


def parse_unified(text: str) -> ParseResult:
    """Every file change in the unified diffs of ``text``; never raises."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()  # the text's last line break ends a line; it does not start an empty one
    out = Collector(Format.UDIFF)
    current: _File | None = None
    hunk: _Hunk | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        number = index + 1
        following = lines[index + 1] if index + 1 < len(lines) else None
        index += 1
        if hunk is not None:
            if _in_hunk(hunk, line, following):
                _hunk_line(hunk, line)
                continue
            _close_hunk(out, hunk)
            hunk = None
        if line.startswith("diff --git "):
            _emit(out, current)
            current = _File(number)
            _git_names(current, line[len("diff --git ") :])
        elif line.startswith("--- ") and following is not None and following.startswith("+++ "):
            if current is None or current.headers or current.hunks:
                _emit(out, current)
                current = _File(number)
            current.old_path, current.new_path = _header_path(line[4:], "a/"), _header_path(following[4:], "b/")
            current.headers = True
            index += 1
        elif current is None:
            continue
        elif line.startswith("@@"):
            hunk = _open_hunk(line, number)
            current.hunks.append(hunk)
        elif line.startswith("rename from "):
            current.rename = (clean_path(line[len("rename from ") :]), current.rename[1] if current.rename else "")
        elif line.startswith("rename to "):
            current.rename = (current.rename[0] if current.rename else "", clean_path(line[len("rename to ") :]))
        elif line.startswith("new file mode"):
            current.git_new = True
        elif line.startswith("deleted file mode"):
            current.git_deleted = True
        elif line.startswith(("Binary files ", "GIT binary patch")):
            current.binary = current.binary or number
    if hunk is not None:
        _close_hunk(out, hunk)
    _emit(out, current)
    return out.result()


def _in_hunk(hunk: _Hunk, line: str, following: str | None) -> bool:
    """Whether ``line`` still belongs to ``hunk``: the counts decide while they last, the line's shape after."""
    if line.startswith("\\"):
        return True
    remaining = _remaining(hunk)
    counted = remaining is not None and remaining > 0
    if not line:  # a blank context line whose space was lost, or the end of the hunk: the next line tells
        if following is None:
            return False
        return (following[:1] in _HUNK_PREFIXES and not following.startswith(("--- ", "+++ "))) or (
            counted and not following)
    if counted:
        return line[:1] in _HUNK_PREFIXES
    if line.startswith(("--- ", "+++ ", "@@", "diff --git ")):
        return False
    return line[:1] in _HUNK_PREFIXES


def _remaining(hunk: _Hunk) -> int | None:
    """Lines the header's counts still expect (old side or new side, whichever has more left)."""
    if hunk.counts is None:
        return None
    return max(hunk.counts[0] - len(hunk.old), hunk.counts[1] - len(hunk.new))


def _hunk_line(hunk: _Hunk, line: str) -> None:
    if line.startswith("\\"):
        return  # `\ No newline at end of file`: the file keeps its own final-newline style
    first, text = line[:1], line[1:]
    if first != "+":
        hunk.old.append(text)
    if first != "-":
        hunk.new.append(text)
    if first in ("+", "-"):
        hunk.changed = True


def _open_hunk(line: str, number: int) -> _Hunk:
    """A hunk from its header: `@@ -a,b +c,d @@`, or a bare `@@` / `@@ ... @@` without usable numbers."""
    parts = line.split()
    old = next((part for part in parts[1:3] if part.startswith("-")), "")
    new = next((part for part in parts[1:3] if part.startswith("+")), "")
    old_range, new_range = _range(old[1:]), _range(new[1:])
    if old_range is None or new_range is None:
        return _Hunk(number, old_range[0] if old_range else None, None)
    return _Hunk(number, old_range[0], (old_range[1], new_range[1]))


def _range(text: str) -> tuple[int, int] | None:
    start, comma, count = text.partition(",")
    if not start.isdigit() or (comma and not count.isdigit()):
        return None
    return int(start), int(count) if comma else 1


def _close_hunk(out: Collector, hunk: _Hunk) -> None:
    if hunk.counts is not None and (len(hunk.old), len(hunk.new)) != hunk.counts:
        out.warn(hunk.line, f"the hunk at line {hunk.line} says {hunk.counts[0]} old and {hunk.counts[1]} new lines "
                            f"but has {len(hunk.old)} and {len(hunk.new)}; the counts were ignored")


def _emit(out: Collector, section: _File | None) -> None:
    """The blocks of one finished file section, or why it yields none."""
    if section is None:
        return
    old_path, new_path = section.old_path, section.new_path
    if section.rename is not None:
        old_path, new_path = section.rename[0] or old_path, section.rename[1] or new_path
    name = new_path or old_path or "?"
    if section.binary:
        out.error(section.binary, f"line {section.binary}: a binary patch for {name} is refused (editblocks applies "
                                  f"text changes only); nothing is applied to {name}")
        return
    hunks = section.hunks
    if section.created:
        if new_path is None:
            out.error(section.line, f"the diff at line {section.line} creates a file but names none")
            return
        if any(hunk.old for hunk in hunks):
            out.error(section.line, f"the diff at line {section.line} creates {new_path} but its hunks remove lines; "
                                    f"nothing is applied to {new_path}")
            return
        out.block(new_path, "", joined(line for hunk in hunks for line in hunk.new), BlockKind.CREATE, section.line)
        return
    if old_path is None:
        out.error(section.line, f"the diff at line {section.line} names no file")
        return
    if section.deleted:
        if any(hunk.new for hunk in hunks):
            out.error(section.line, f"the diff at line {section.line} deletes {old_path} but its hunks add lines; "
                                    f"nothing is applied to {old_path}")
            return
        out.block(old_path, joined(line for hunk in hunks for line in hunk.old), "", BlockKind.DELETE, section.line)
        return
    moving = section.rename is not None and new_path is not None and new_path != old_path
    target = old_path if moving or new_path is None else new_path
    for hunk in hunks:
        if not hunk.old and not hunk.new:
            out.warn(hunk.line, f"the hunk at line {hunk.line} has no lines and was ignored")
            continue
        hint = hunk.old_start if hunk.old_start else None
        scope = Scope() if not hunk.old else None
        out.block(target, joined(hunk.old), joined(hunk.new), BlockKind.EDIT, hunk.line, line_hint=hint, scope=scope)
    if moving:
        out.block(old_path, "", "", BlockKind.MOVE, section.line, move_to=new_path)
    elif not hunks and not section.rename:
        out.warn(section.line, f"the diff of {target} at line {section.line} has no hunks and was ignored")


def _header_path(raw: str, prefix: str) -> str | None:
    """The path of a `---`/`+++` line: the timestamp `diff -u` adds dropped, `a/`/`b/` dropped, None for /dev/null."""
    path = raw.split("\t", 1)[0].strip()
    if path == DEV_NULL:
        return None
    path = clean_path(path)
    return path[len(prefix) :] if path.startswith(prefix) else path


def _git_names(section: _File, names: str) -> None:
    """`diff --git a/x b/y`: the names, for sections without `---`/`+++` lines (renames, empty files)."""
    old, separator, new = names.partition(" b/")
    if separator and old.startswith("a/"):
        section.old_path, section.new_path = clean_path(old[2:]), clean_path(new)
