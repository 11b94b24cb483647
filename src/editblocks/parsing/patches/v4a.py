"""V4A patches, the input of OpenAI's `apply_patch` tool: `*** Begin Patch` … `*** End Patch`.

A patch holds file sections: `*** Add File: p` (every line `+`), `*** Delete
File: p`, and `*** Update File: p` with an optional `*** Move to: q` and
hunks. A hunk starts with `@@`, optionally followed by an anchor line (a
line of the file, such as `class Foo:`, found before the hunk); several `@@`
lines in a row narrow the place step by step. Hunk lines start with ` `
(context), `-` (removed) or `+` (added); `*** End of File` pins a hunk to
the end of the file. As in Codex, a header line may be padded with spaces
where it cannot be a hunk's context line (outside an update section), and a
padded `*** End Patch` ends the patch unless hunk lines follow it. An added
file whose lines end with CRLF (in a patch whose own lines do not) is
created with CRLF line breaks.

One forward pass, line by line, with no regular expression: linear in the
answer's size and it never raises. A malformed file section (a line with no
prefix, a patch that never ends) is reported with its line and yields no
block at all, so nothing is written to that file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

from editblocks.model import BlockKind, Format, ParseResult, Scope
from editblocks.parsing.patches.common import RUN_LINES, Collector, RawLines, clean_path, lf_only, split_run

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File:"
DELETE = "*** Delete File:"
UPDATE = "*** Update File:"
MOVE = "*** Move to:"
END_OF_FILE = "*** End of File"
_FENCES = ("```", "~~~")
_AFTER_PREVIOUS = Scope(after_previous=True)
"""The scope of a hunk with no anchor: one immutable value shared by every such hunk."""
# A run of content lines: every line starts with its prefix or is empty (one alternative per line, no nesting).
# A padded `*** End Patch` line is left to the reader, which decides whether it ends the patch.
_HUNK_RUN = re.compile(rf"(?:(?![ \t]+\*\*\* End Patch[ \t]*\n)[ +\-][^\n]*\n|\n){{1,{RUN_LINES}}}")
_HEADERS = (BEGIN, END, ADD, DELETE, UPDATE, MOVE, END_OF_FILE)
_ADDED_RUN = re.compile(rf"(?:\+[^\n]*\n|\n){{1,{RUN_LINES}}}")


class _Kind(Enum):
    ADD = "Add File"
    DELETE = "Delete File"
    UPDATE = "Update File"


@dataclass
class _Hunk:
    line: int
    anchors: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)  # pieces of text, each ending with a newline
    new: list[str] = field(default_factory=list)
    at_end: bool = False

    @property
    def empty(self) -> bool:
        return not any(self.old) and not any(self.new)


@dataclass
class _Section:
    kind: _Kind
    path: str
    line: int
    first_block: int
    added: list[str] = field(default_factory=list)  # pieces of text, each ending with a newline
    move_to: str | None = None
    hunk: _Hunk | None = None
    hunks: int = 0
    broken: bool = False
    last: int = 0  # the last content line of an added file


def looks_like_v4a(text: str) -> bool:
    """Whether the answer holds a `*** Begin Patch` line (cheap: `auto` asks this of every answer)."""
    position = text.find(BEGIN)
    while position != -1:
        line_end = text.find("\n", position)
        rest = text[position + len(BEGIN) : line_end if line_end != -1 else len(text)]
        if text[text.rfind("\n", 0, position) + 1 : position].strip() == "" and not rest.strip():
            return True
        position = text.find(BEGIN, position + 1)
    return False


def parse_v4a(text: str) -> ParseResult:
    """Every file operation in the V4A patches of ``text``; never raises."""
    return read_v4a(text)[0]


def read_v4a(text: str) -> tuple[ParseResult, list[tuple[int, int]]]:
    """`parse_v4a`, and where the patches lie in ``text`` (CRLF read as LF): (start, end) offsets.

    Structure lines are read one by one; the run of content lines after them (a hunk's body, an added
    file's lines) is taken in one regular-expression step and cut into old and new text by `split_run`.
    """
    raw = RawLines(text)
    text = lf_only(text)
    if not text.endswith("\n"):
        text += "\n"
    reader = _Reader(Collector(Format.V4A), raw)
    position, number, end = 0, 0, len(text)
    spans: list[tuple[int, int]] = []
    opened_at = 0
    after_run = False  # a run shorter than `RUN_LINES` just ended: the line at `position` cannot start another
    while position < end:
        section = reader.section
        if (section is not None and not after_run and not section.broken and not reader.indent
                and section.kind is not _Kind.DELETE):
            run = (_ADDED_RUN if section.kind is _Kind.ADD else _HUNK_RUN).match(text, position)
            if run is not None:
                lines = reader.content_run(section, number + 1, run.group())
                number += lines
                position = run.end()
                after_run = lines < RUN_LINES
                continue
        after_run = False
        newline = text.index("\n", position)
        number += 1
        was_open = reader.patch_line is not None
        line = text[position:newline]
        hunk_follows = line[:1] in " \t" and line.strip() == END and _hunk_line_at(text, newline + 1)
        reader.line(number, line, hunk_follows)
        if not was_open and reader.patch_line is not None:
            opened_at = position
        elif was_open and (reader.patch_line is None or reader.patch_line == number):
            spans.append((opened_at, newline + 1 if reader.patch_line is None else position))
            opened_at = position
        position = newline + 1
    if reader.patch_line is not None:
        spans.append((opened_at, end))
    reader.finish(max(number, 1))
    return reader.out.result(), spans


def _hunk_line_at(text: str, position: int) -> bool:
    """Whether the line at ``position`` continues a hunk (a context, removed or added line, or an `@@` line)."""
    return text.startswith((" ", "-", "+", "@@"), position)


class _Reader:
    """The patch state machine: outside a patch, inside one before its first file, or inside a file section."""

    def __init__(self, out: Collector, raw: RawLines) -> None:
        self.out = out
        self.raw = raw
        self.patch_line: int | None = None  # the open patch's `*** Begin Patch` line
        self.indent = ""
        self.section: _Section | None = None

    def line(self, number: int, raw: str, hunk_follows: bool = False) -> None:
        """One line that is not part of a run of content lines; ``hunk_follows``: the next line continues a hunk
        (a padded `*** End Patch` line is then a context line)."""
        if self.patch_line is None:
            if raw.strip() == BEGIN:
                self.patch_line = number
                self.indent = raw[: len(raw) - len(raw.lstrip())]
            return
        line = raw[len(self.indent) :] if self.indent and raw.startswith(self.indent) else raw
        head = line.rstrip()
        if head[:1] in (" ", "\t") and self._padded_header(head.lstrip(), hunk_follows):
            head = head.lstrip()
        if head.startswith("*** "):
            self._header(number, head)
        elif head.lstrip().startswith(_FENCES):
            self._unfinished(number, f"the patch begun at line {self.patch_line} ends (a fence at line {number}) "
                                     f"without a `{END}` line")
        elif self.section is None:
            if head:
                self.out.warn(number, f"line {number} is outside any file section of the patch and was ignored")
        elif not self.section.broken:
            self._content(self.section, number, line)

    def finish(self, last: int) -> None:
        if self.patch_line is not None:
            self._unfinished(last, f"the patch begun at line {self.patch_line} has no `{END}` line (cut short?)")

    # --- headers ----------------------------------------------------------------------------------------------

    def _padded_header(self, head: str, hunk_follows: bool) -> bool:
        """Whether a header line written with leading spaces is read as the header: outside an update section,
        where a line starting with a space cannot be a context line, and for `*** End Patch` unless hunk lines
        follow it."""
        if not head.startswith(_HEADERS):
            return False
        if head == END:
            return not hunk_follows
        return self.section is None or self.section.kind is not _Kind.UPDATE

    def _header(self, number: int, head: str) -> None:
        section = self.section
        if head == END:
            self._close()
            self.patch_line = None
        elif head == BEGIN:
            self._unfinished(number, f"the patch begun at line {self.patch_line} has no `{END}` line before the "
                                     f"next `{BEGIN}`")
            self.patch_line = number
        elif head.startswith((ADD, DELETE, UPDATE)):
            self._close()
            kind = _Kind.ADD if head.startswith(ADD) else _Kind.DELETE if head.startswith(DELETE) else _Kind.UPDATE
            path = clean_path(head.split(":", 1)[1])
            self.section = _Section(kind, path, number, len(self.out.blocks))
            if not path:
                self._break(number, f"`*** {kind.value}:` names no file")
        elif head.startswith(MOVE):
            target = clean_path(head.split(":", 1)[1])
            if section is None or section.kind is not _Kind.UPDATE or section.hunk is not None or section.hunks:
                where = "" if section is None else f" of {section.path}"
                self._break(number, f"`{MOVE}` must follow its `{UPDATE}` line directly, before any hunk{where}")
            elif not target:
                self._break(number, f"`{MOVE}` names no file")
            else:
                section.move_to = target
        elif head == END_OF_FILE:
            if section is not None and section.broken:
                return
            if section is None or section.kind is not _Kind.UPDATE or section.hunk is None or section.hunk.empty:
                self.out.warn(number, f"`{END_OF_FILE}` at line {number} follows no hunk and was ignored")
            else:
                section.hunk.at_end = True
                self._end_hunk(section)
        elif section is not None and section.kind is not _Kind.DELETE and not section.broken:
            self._content(section, number, head)
        else:
            self.out.warn(number, f"unknown patch line `{head[:60]}` at line {number} was ignored")

    def _unfinished(self, number: int, why: str) -> None:
        """The open patch ends without `*** End Patch`: its last file section may be cut short, so it is dropped."""
        section = self.section
        if section is not None and not section.broken:
            self._break(number, why)
        elif section is None:
            self.out.error(number, why)
        self._close()
        self.patch_line = None

    # --- content ----------------------------------------------------------------------------------------------

    def content_run(self, section: _Section, number: int, run: str) -> int:
        """Several content lines at once (each starting with its prefix, or empty), ``number`` the first's; how
        many lines they are."""
        if section.kind is _Kind.ADD:
            section.added.append(("\n" + run).replace("\n+", "\n")[1:])
            count = run.count("\n")
            section.last = number + count - 1
            return count
        hunk = section.hunk
        if hunk is None:
            hunk = section.hunk = _Hunk(number)
        old, new, _, _, lines = split_run(run)
        hunk.old.append(old)
        hunk.new.append(new)
        return len(lines)

    def _content(self, section: _Section, number: int, line: str) -> None:
        first = line[:1]
        if section.kind is _Kind.DELETE:
            if line.strip():
                self._break(number, f"`{DELETE} {section.path}` takes no lines, but line {number} follows it")
        elif section.kind is _Kind.ADD:
            if first == "+" or not line:
                section.added.append(line[1:] + "\n")
                section.last = number
            else:
                self._break(number, _no_prefix(number, line, "`+`"))
        elif line.startswith("@@"):
            hunk = section.hunk
            if hunk is not None and not hunk.empty:
                self._end_hunk(section)
                hunk = None
            if hunk is None:
                hunk = section.hunk = _Hunk(number)
            anchor = _anchor(line[2:])
            if anchor:
                hunk.anchors.append(anchor)
        elif first in (" ", "-", "+") or not line:
            hunk = section.hunk
            if hunk is None:
                hunk = section.hunk = _Hunk(number)
            text = line[1:] + "\n"
            if first != "+":
                hunk.old.append(text)
            if first != "-":
                hunk.new.append(text)
        else:
            self._break(number, _no_prefix(number, line, "a space, `-` or `+`"))

    def _end_hunk(self, section: _Section) -> None:
        hunk = section.hunk
        section.hunk = None
        if hunk is None:
            return
        if hunk.empty:
            self._break(hunk.line, f"the hunk at line {hunk.line} of {section.path} has no lines")
            return
        scope = Scope(tuple(hunk.anchors), True, hunk.at_end) if hunk.anchors or hunk.at_end else _AFTER_PREVIOUS
        self.out.block(section.path, "".join(hunk.old), "".join(hunk.new), BlockKind.EDIT, hunk.line, scope=scope)
        section.hunks += 1

    def _break(self, number: int, why: str) -> None:
        """The section is malformed: say so once, naming the line, and write nothing to its file."""
        section = self.section
        if section is None:
            self.out.error(number, why)
            return
        if not section.broken:
            section.broken = True
            self.out.error(number, f"{why}; nothing is applied to {section.path or 'this file'}")
        section.hunk = None

    def _close(self) -> None:
        section, self.section = self.section, None
        if section is None:
            return
        if not section.broken:
            if section.kind is _Kind.ADD:
                added = self.raw.with_endings("".join(section.added), section.line, section.last)
                self.out.block(section.path, "", added, BlockKind.CREATE, section.line)
            elif section.kind is _Kind.DELETE:
                self.out.block(section.path, "", "", BlockKind.DELETE, section.line)
            else:
                self._end_hunk(section)
                if not section.broken and section.move_to is not None:
                    self.out.block(section.path, "", "", BlockKind.MOVE, section.line, move_to=section.move_to)
                elif not section.broken and not section.hunks:
                    self.section = section
                    self._break(section.line, f"`{UPDATE} {section.path}` has no hunks")
                    self.section = None
        if section.broken:
            self.out.withdraw(section.first_block)


def _anchor(rest: str) -> str:
    """The anchor line after `@@`; a unified-diff range header (`@@ -3,4 +3,5 @@ def f():`) keeps only its text."""
    text = rest.strip()
    if text.startswith("-") and "@@" in text:
        text = text.split("@@", 1)[1].strip()
    return text


def _no_prefix(number: int, line: str, prefixes: str) -> str:
    shown = line if len(line) <= 60 else line[:59] + "…"
    return f"line {number} (`{shown}`) does not start with {prefixes} (every line of the section must)"
