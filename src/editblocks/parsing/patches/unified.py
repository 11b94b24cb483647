r"""Unified diffs: `git diff`, `diff -u`, and the hunks models write with bare `@@ ... @@` or wrong numbers.

A file section starts at `diff --git` or at a `---` line followed by a
`+++` line; `a/` and `b/` prefixes are dropped (git's C-quoted names are
unquoted), `/dev/null` means the file is created or deleted, git's `rename
from`/`rename to` move it and its `new mode`/`new file mode` lines set its
executable bit. Each hunk becomes a block whose old text is its context and
removed lines; the header's line numbers are kept only as a hint that breaks
ties between identical places (models get them wrong), except for a hunk
with no old lines and a zero old count, as `git diff -U0` writes insertions,
whose header is the only place there is. `\ No newline at end of file`
lines pin their hunk to the end of the file and say whether the file ends
with a line break. Counts that disagree with the hunk's body are reported as
a warning and otherwise ignored, unless the answer ends before a hunk's
counted lines do: a diff cut short writes nothing to that file. Binary
patches are refused. One forward pass with one line of look-ahead: linear,
never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from editblocks.model import BlockKind, EditBlock, Format, ParseResult, Scope
from editblocks.parsing.patches.common import RUN_LINES, Collector, RawLines, clean_path, lf_only, split_run
from editblocks.parsing.patches.git_names import git_pair, git_path

DEV_NULL = "/dev/null"
_ANYWHERE = Scope()
"""The scope of a hunk with no old lines (it only adds): one immutable value shared by every such hunk."""
_HUNK_PREFIXES = (" ", "-", "+")
_STRUCTURE = ("@@", "rename from ", "rename to ", "new file mode", "deleted file mode", "old mode", "new mode",
              "index ", "similarity index", "Binary files ", "GIT binary patch")
# A run of hunk lines that are surely content: a prefix and not a `---`/`+++` line (which counts decide), or a
# blank line with such a line after it. One alternative per line, nothing nested: linear (in steps of RUN_LINES).
_HUNK_RUN = re.compile(rf"(?:(?![-+]{{3}} )[ +\-][^\n]*\n|\n(?=[ +\-])(?![-+]{{3}} )){{1,{RUN_LINES}}}")
# `@@ -a,b +c,d ` (counts optional) then anything: the header read as `_open_hunk`'s general path reads it.
_USUAL_HEADER = re.compile(r"@@ -([0-9]+)(?:,([0-9]+))? \+([0-9]+)(?:,([0-9]+))?(?:[ \t]|$)")


@dataclass
class _Hunk:
    line: int
    old_start: int | None
    counts: tuple[int, int] | None
    old: list[str] = field(default_factory=list)  # pieces of text, each ending with a newline
    new: list[str] = field(default_factory=list)
    old_lines: int = 0
    new_lines: int = 0
    marks: list[str] = field(default_factory=list)  # each line's prefix (a blank line's is a space)
    last_run_lines: int = 0
    unterminated: int = 0  # `\\ No newline at end of file` after an old line (OLD_END), a new line (NEW_END), or both


OLD_END, NEW_END = 1, 2
_Done = tuple[int, "int | None", str, str, int, int, int, bool, str]
"""A finished hunk: its header's line, the old start line, old text, new text, their numbers of lines, which
sides end without a line break (`OLD_END`, `NEW_END`), whether its header counted zero old lines, and its
lines' prefixes."""


@dataclass
class _File:
    line: int
    old_path: str | None = None  # None: /dev/null (created)
    new_path: str | None = None  # None: /dev/null (deleted)
    rename: tuple[str, str] | None = None
    git_new: bool = False
    git_deleted: bool = False
    binary: int = 0  # the line of a binary patch marker, if any
    hunks: list[_Done] = field(default_factory=list)
    headers: bool = False  # the ---/+++ pair was seen
    new_mode: int | None = None  # `new mode` / `new file mode`
    cut_short: str = ""  # why the answer ended inside one of its hunks
    last_line: int = 0  # the last line of the section's hunks in the answer

    @property
    def created(self) -> bool:
        return self.git_new or (self.headers and self.old_path is None)

    @property
    def deleted(self) -> bool:
        return self.git_deleted or (self.headers and self.new_path is None)


def looks_like_unified(text: str) -> bool:
    """Whether ``text`` holds a unified diff's file header (cheap: `auto` asks this of answers with no block).

    The searches look for needles that end in a rare character (`t`, `+`): one ending in a space is several times
    slower to scan for through prose, and this runs on every answer without a marker block."""
    position = text.find("diff --git")
    while position != -1:
        if (position == 0 or text[position - 1] == "\n") and text.startswith(" ", position + 10):
            return True
        position = text.find("diff --git", position + 10)
    position = text.find("\n+++")
    while position != -1:
        if text.startswith(" ", position + 4) and text.startswith("--- ", text.rfind("\n", 0, position) + 1):
            return True
        position = text.find("\n+++", position + 4)
    return False


def parse_unified(text: str) -> ParseResult:
    """Every file change in the unified diffs of ``text``; never raises."""
    return read_unified(text)[0]


def read_unified(text: str) -> tuple[ParseResult, list[tuple[int, int]]]:
    """`parse_unified`, and where the diff's file sections lie in ``text`` (CRLF read as LF): (start, end) offsets.

    Structure lines are read one by one; a hunk's run of content lines is taken in one regular-expression
    step and cut into old and new text by `split_run`. Lines the run leaves (`--- ` / `+++ ` lines, which the
    counts may still claim, blank lines, the no-newline marker) are decided one at a time.
    """
    raw = RawLines(text)
    text = lf_only(text)
    if not text.endswith("\n"):
        text += "\n"
    out = Collector(Format.UDIFF)
    current: _File | None = None
    hunk: _Hunk | None = None
    finished: list[_Done] = []  # where the open hunk goes when it ends: its section's hunks
    position, number, end = 0, 0, len(text)
    spans: list[tuple[int, int]] = []
    section_start = covered = 0
    after_run = False  # a run shorter than `RUN_LINES` just ended: the line at `position` cannot start another
    while position < end:
        if hunk is not None and not after_run:
            run = _HUNK_RUN.match(text, position)
            if run is not None:
                _hunk_run(hunk, run.group())
                number += hunk.last_run_lines
                if current is not None:
                    current.last_line = number
                position = covered = run.end()
                after_run = hunk.last_run_lines < RUN_LINES
                continue
        after_run = False
        start = position
        newline = text.index("\n", position)
        line = text[position:newline]
        number += 1
        position = newline + 1
        # The next line matters only after a blank line (inside a hunk) or a `--- ` line (a file header?).
        following = _line_at(text, position) if not line or line.startswith("--- ") else None
        if hunk is not None:
            if _in_hunk(hunk, line, following):
                if line.startswith("\\"):
                    _no_newline(hunk, text[text.rfind("\n", 0, start - 1) + 1])
                else:
                    _hunk_line(hunk, line)
                covered = position
                if current is not None:
                    current.last_line = number
                continue
            _close_hunk(out, hunk, finished)
            hunk = None
        if current is not None and line.startswith(_STRUCTURE):
            covered = position
        if line.startswith("diff --git "):
            if current is not None:
                spans.append((section_start, covered))
            _emit(out, current, raw)
            current, section_start, covered = _File(number), start, position
            _git_names(current, line[len("diff --git ") :])
        elif line.startswith("--- ") and following is not None and following.startswith("+++ "):
            if current is None or current.headers or current.hunks:
                if current is not None:
                    spans.append((section_start, covered))
                _emit(out, current, raw)
                current, section_start = _File(number), start
            current.old_path, current.new_path = _header_path(line[4:], "a/"), _header_path(following[4:], "b/")
            current.headers = True
            number += 1
            position = covered = position + len(following) + 1
        elif current is None:
            continue
        elif line.startswith("@@"):
            hunk, finished = _open_hunk(line, number), current.hunks
        elif line.startswith("rename from "):
            current.rename = (git_path(line[len("rename from ") :]), current.rename[1] if current.rename else "")
        elif line.startswith("rename to "):
            current.rename = (current.rename[0] if current.rename else "", git_path(line[len("rename to ") :]))
        elif line.startswith("new file mode"):
            current.git_new = True
            current.new_mode = _mode(line[len("new file mode") :])
        elif line.startswith("new mode"):
            current.new_mode = _mode(line[len("new mode") :])
        elif line.startswith("deleted file mode"):
            current.git_deleted = True
        elif line.startswith(("Binary files ", "GIT binary patch")):
            current.binary = current.binary or number
    if hunk is not None:
        cut_short = _cut_short(hunk)
        if current is not None:
            current.cut_short = cut_short
        _close_hunk(out, hunk, finished, counted=not cut_short)
    if current is not None:
        spans.append((section_start, covered))
    _emit(out, current, raw)
    _refuse_type_changes(out)
    return out.result(), spans


def _line_at(text: str, position: int) -> str | None:
    """The line starting at ``position`` (``text`` ends with a newline), None past the end."""
    return text[position : text.index("\n", position)] if position < len(text) else None


def _hunk_run(hunk: _Hunk, run: str) -> None:
    """Several hunk lines at once: each starts with its prefix, or is blank with a hunk line after it."""
    old, new, old_lines, new_lines, lines = split_run(run)
    hunk.last_run_lines = len(lines)
    hunk.marks.append("".join([line[:1] or " " for line in lines]))
    hunk.old.append(old)
    hunk.new.append(new)
    hunk.old_lines += old_lines
    hunk.new_lines += new_lines


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
    return max(hunk.counts[0] - hunk.old_lines, hunk.counts[1] - hunk.new_lines)


def _no_newline(hunk: _Hunk, previous: str) -> None:
    """`\\ No newline at end of file` after a line whose prefix is ``previous``: that side of the hunk ends the file
    without a line break (a context line ends both sides; a blank line with no prefix is context)."""
    if previous == "-":
        hunk.unterminated |= OLD_END
    elif previous == "+":
        hunk.unterminated |= NEW_END
    elif previous in (" ", "\n"):
        hunk.unterminated |= OLD_END | NEW_END


def _cut_short(hunk: _Hunk) -> str:
    """Why the answer, ending inside ``hunk``, ended before the hunk did ("" when the hunk is complete): its header
    counts more lines than it has (on neither side fewer: a side with more lines than counted was miscounted, not
    cut off), or it has no line at all."""
    remaining = _remaining(hunk)
    miscounted = hunk.counts is not None and (hunk.old_lines > hunk.counts[0] or hunk.new_lines > hunk.counts[1])
    if remaining is not None and remaining > 0 and not miscounted:
        return (f"the answer ends inside the hunk at line {hunk.line}, {remaining} of its counted lines short "
                "(cut off?)")
    if not hunk.old_lines and not hunk.new_lines:
        return f"the answer ends right after the hunk header at line {hunk.line} (cut off?)"
    return ""


def _hunk_line(hunk: _Hunk, line: str) -> None:
    first, text = line[:1], line[1:] + "\n"
    hunk.marks.append(first or " ")
    if first != "+":
        hunk.old.append(text)
        hunk.old_lines += 1
    if first != "-":
        hunk.new.append(text)
        hunk.new_lines += 1


def _open_hunk(line: str, number: int) -> _Hunk:
    """A hunk from its header: `@@ -a,b +c,d @@`, or a bare `@@` / `@@ ... @@` without usable numbers."""
    usual = _USUAL_HEADER.match(line)
    if usual is not None:  # the shape nearly every header has, read in one step
        old_start, old_count, new_start, new_count = usual.groups()
        return _Hunk(number, int(old_start), (int(old_count or 1), int(new_count or 1)))
    parts = line.split()
    old = next((part for part in parts[1:3] if part.startswith("-")), "")
    new = next((part for part in parts[1:3] if part.startswith("+")), "")
    old_range, new_range = _range(old[1:]), _range(new[1:])
    if old_range is None or new_range is None:
        return _Hunk(number, old_range[0] if old_range else None, None)
    return _Hunk(number, old_range[0], (old_range[1], new_range[1]))


def _range(text: str) -> tuple[int, int] | None:
    start, comma, count = text.partition(",")
    if not start.isdecimal() or (comma and not count.isdecimal()):  # `isdigit` takes `²`, which `int` refuses
        return None
    return int(start), int(count) if comma else 1


def _close_hunk(out: Collector, hunk: _Hunk, finished: list[_Done], *, counted: bool = True) -> None:
    """The hunk is over: kept for its section, with a warning when its counts disagree with it (``counted``; a hunk
    the answer cut off gets an error instead)."""
    finished.append((hunk.line, hunk.old_start, "".join(hunk.old), "".join(hunk.new), hunk.old_lines,
                     hunk.new_lines, hunk.unterminated, hunk.counts is not None and hunk.counts[0] == 0,
                     "".join(hunk.marks)))
    if counted and hunk.counts is not None and (hunk.old_lines, hunk.new_lines) != hunk.counts:
        out.warn(hunk.line, f"the hunk at line {hunk.line} says {hunk.counts[0]} old and {hunk.counts[1]} new lines "
                            f"but has {hunk.old_lines} and {hunk.new_lines}; the counts were ignored")


def _emit(out: Collector, section: _File | None, raw: RawLines) -> None:
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
    if section.cut_short:
        out.error(section.line, f"{section.cut_short}; nothing is applied to {name}")
        return
    hunks = section.hunks
    creating = new_path if section.created or section.rename is not None else None
    if creating is not None and "\\" in creating:
        out.error(section.line, f"the diff at line {section.line} creates {creating}, whose name holds a backslash: "
                                "editblocks reads a backslash in a new path as a folder separator (as Windows writes "
                                f"paths), so nothing is applied to {creating}")
        return
    if section.created and not any(hunk[4] for hunk in hunks):
        if new_path is None:
            out.error(section.line, f"the diff at line {section.line} creates a file but names none")
            return
        text = raw.with_endings("".join(hunk[3] for hunk in hunks), hunks[0][0], section.last_line) if hunks else ""
        ends_bare = any(hunk[6] & NEW_END for hunk in hunks)
        out.block(new_path, "", text, BlockKind.CREATE, section.line, mode=section.new_mode,
                  scope=_UNTERMINATED if ends_bare and text else None)
        return
    if old_path is None and new_path is None:
        out.error(section.line, f"the diff at line {section.line} names no file")
        return
    if section.deleted and old_path is not None:
        if any(hunk[5] for hunk in hunks):
            out.error(section.line, f"the diff at line {section.line} deletes {old_path} but its hunks add lines; "
                                    f"nothing is applied to {old_path}")
            return
        out.block(old_path, "".join(hunk[2] for hunk in hunks), "", BlockKind.DELETE, section.line)
        return
    # A `--- /dev/null` section whose hunks quote old lines changes a file that exists: applied by its content.
    source = old_path if old_path is not None else new_path
    assert source is not None
    moving = section.rename is not None and new_path is not None and new_path != source
    target = source if moving or new_path is None else new_path
    for hunk in hunks:
        line, old_start, old, new, old_lines, new_lines, unterminated, zero_old, marks = hunk
        if not old_lines and not new_lines:
            out.warn(line, f"the hunk at line {line} has no lines and was ignored")
            continue
        if old_lines:
            scope = _at_end(unterminated) if unterminated else None
            hint = old_start or None
        elif zero_old and old_start is not None:
            scope = Scope(exact=True, final_newline=_final_newline(unterminated)) if unterminated else _EXACT
            hint = old_start + 1  # after line `old_start`: before the line that follows it
        else:
            scope = _at_end(unterminated) if unterminated else _ANYWHERE
            hint = old_start or None
        out.block(target, old, new, BlockKind.EDIT, line, line_hint=hint, scope=scope, marks=marks)
    if moving:
        out.block(source, "", "", BlockKind.MOVE, section.line, move_to=new_path)
    if section.new_mode is not None:
        out.block(new_path if moving and new_path is not None else target, "", "", BlockKind.MODE, section.line,
                  mode=section.new_mode)
    elif not hunks and not section.rename:
        out.warn(section.line, f"the diff of {target} at line {section.line} has no hunks and was ignored")


def _final_newline(unterminated: int) -> bool | None:
    """Whether the file ends with a line break after a hunk with `\\ No newline at end of file` lines: only the new
    side's marker says it does not."""
    return not unterminated & NEW_END if unterminated else None


def _at_end(unterminated: int) -> Scope:
    return _AT_END_UNTERMINATED if unterminated & NEW_END else _AT_END_TERMINATED


_AT_END_TERMINATED = Scope(at_end=True, final_newline=True)
_AT_END_UNTERMINATED = Scope(at_end=True, final_newline=False)
_UNTERMINATED = Scope(final_newline=False)
"""A created file's scope when its last line has no line break."""
_EXACT = Scope(exact=True)


def _mode(raw: str) -> int | None:
    """A git mode (`100755`), read as octal; None for anything else."""
    value = raw.strip()
    return int(value, 8) if value.isdecimal() and len(value) <= 7 and set(value) <= set("01234567") else None


def _refuse_type_changes(out: Collector) -> None:
    """A diff that deletes a file and creates one below a folder of the same name (or deletes the folder's files and
    creates the file) changes the path's type. Both halves are refused together, so the diff is never applied by
    half."""
    deleted = {block.path: block.line for block in out.blocks if block.kind is BlockKind.DELETE}
    created = {block.path: block.line for block in out.blocks if block.kind is BlockKind.CREATE}
    if not deleted or not created:
        return
    clashing: dict[str, str] = {}
    for inner, outer_kinds in ((created, deleted), (deleted, created)):
        for path in inner:
            parts = path.split("/")
            for depth in range(1, len(parts)):
                folder = "/".join(parts[:depth])
                if folder in outer_kinds:
                    clashing[path] = folder
                    clashing.setdefault(folder, path)
    if not clashing:
        return
    kept: list[EditBlock] = []
    for block in out.blocks:
        if block.path in clashing and block.kind in (BlockKind.DELETE, BlockKind.CREATE, BlockKind.MODE):
            continue
        kept.append(block)
    out.blocks[:] = kept
    for path in sorted(clashing, key=lambda p: deleted.get(p) or created.get(p) or 0):
        line = deleted.get(path) or created.get(path) or 1
        out.error(line, f"the diff turns {_type_change(path, clashing[path])}; editblocks does not change a path "
                        f"between file and folder, so nothing is applied to {path} (nor to {clashing[path]})")


def _type_change(path: str, other: str) -> str:
    return f"the file {other} into a folder" if path.startswith(other + "/") else f"the folder {path} into a file"


def _header_path(raw: str, prefix: str) -> str | None:
    """The path of a `---`/`+++` line: the timestamp `diff -u` adds dropped, `a/`/`b/` dropped, None for /dev/null."""
    if raw.lstrip().startswith('"'):
        path = git_path(raw)
    else:
        path = raw.split("\t", 1)[0].strip()
        if path == DEV_NULL:
            return None
        path = clean_path(path)
    return path[len(prefix) :] if path.startswith(prefix) else path


def _git_names(section: _File, names: str) -> None:
    """`diff --git a/x b/y`: the names, for sections without `---`/`+++` lines (renames, empty files)."""
    pair = git_pair(names)
    if pair is not None:
        section.old_path, section.new_path = pair
