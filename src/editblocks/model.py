"""The data every part of editblocks shares: blocks, diagnostics, events and results.

All values are frozen dataclasses so they can be compared, hashed and passed
between the pure core and the workspace without anyone mutating them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

PREVIEW_CHARS = 50


class Policy(StrEnum):
    """What happens to a file's other blocks after one of its blocks fails.

    `file`, the default: the file is written only when every block for it applied (a block already applied, or
    one that changes nothing, counts as done), so a file is never left half-edited; `continue`: write the blocks
    that applied; `skip-file`: do not try the file's later blocks; `abort`: write nothing at all.
    """

    FILE = "file"
    CONTINUE = "continue"
    SKIP_FILE = "skip-file"
    ABORT = "abort"


class Format(StrEnum):
    """The edit formats a response can be written in (docs/formats.md)."""

    AUTO = "auto"
    DIFF = "diff"
    DIFF_FENCED = "diff-fenced"
    EDITOR_DIFF = "editor-diff"
    EDITOR_DIFF_FENCED = "editor-diff-fenced"
    SEARCH_REPLACE = "search-replace"
    ANCHORED = "anchored"
    GUILLEMET = "guillemet"
    ORIGINAL_UPDATED = "original-updated"
    CLINE = "cline"
    ROO = "roo"
    ZED = "zed"
    V4A = "v4a"
    UDIFF = "udiff"
    WHOLE = "whole"


SEARCH_REPLACE_FAMILY = frozenset(
    {Format.DIFF, Format.DIFF_FENCED, Format.EDITOR_DIFF, Format.EDITOR_DIFF_FENCED, Format.SEARCH_REPLACE,
     Format.ORIGINAL_UPDATED, Format.CLINE, Format.ROO}
)
EXACT_ONLY_FORMATS = frozenset({Format.ANCHORED, Format.GUILLEMET})
FRONT_END_FORMATS = frozenset({Format.V4A, Format.UDIFF, Format.WHOLE})
"""Formats read by a front-end (frontends/), not by the marker parser."""


class BlockKind(StrEnum):
    """What a block does: edit text in place, create a file, or (patches, whole-file answers) the rest."""

    EDIT = "edit"
    CREATE = "create"
    WHOLE = "whole"  # the file's complete new content: replace it, or create it
    DELETE = "delete"  # remove the file (``old``, when given, is what the file must hold)
    MOVE = "move"  # rename the file (with the edits made to it so far) to ``move_to``
    MODE = "mode"  # set the file's executable bit from ``mode`` (a diff's `old mode`/`new mode`)


@dataclass(frozen=True)
class Scope:
    """Where a patch hunk may be located, beyond its own lines (V4A ``@@`` anchors, ``*** End of File``).

    ``anchors`` are lines each found in order, the first after the previous
    hunk of the same file when ``after_previous``; the hunk's own lines are
    then looked for after the last anchor. ``at_end`` pins the hunk to the
    end of the file. ``final_newline`` (with ``at_end``) is whether the file
    ends with a line break after the hunk, as a unified diff's `\\ No newline
    at end of file` lines say (None keeps the file's). ``exact`` marks a hunk
    with no old lines whose ``line_hint`` is its place, as `git diff -U0`
    writes it: the lines go before that line, and the hunk is refused when
    the file is shorter.
    """

    anchors: tuple[str, ...] = ()
    after_previous: bool = False
    at_end: bool = False
    # Left out of the repr (as `EditBlock.mode` and `marks` are): the pinned parser snapshots show what changed.
    final_newline: bool | None = field(default=None, repr=False)
    exact: bool = field(default=False, repr=False)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Reading:
    """One way to cut an ambiguous block's text into old and new text; ``note`` says which (for the report)."""

    old: str
    new: str
    note: str


@dataclass(frozen=True)
class EditBlock:
    """One edit: find ``leading + old + trailing`` in ``path``, make it ``leading + new + trailing``.

    Texts are LF-only (but see ``create`` below) and, when not empty, end with a newline. ``line`` is the
    1-based line of the block's first marker in the response.

    The optional fields are empty for an ordinary block. ``readings`` lists
    every way to read a block whose text alone cannot tell where old text
    ends (several candidate separators), the block's own ``old``/``new``
    first; the file decides at plan time. ``literal`` is the old and new text
    as written when backslash-escaped marker lines (a backslash before ``=======``) were read
    as the marker lines they stand for; a file that itself holds such escaped
    lines takes the block literally. ``line_hint`` is the 1-based line a
    ``:start_line:`` header named: it only breaks ties between identical
    candidates. ``scope`` narrows where a patch hunk is looked for; ``move_to``
    is the new path of a ``move`` block. ``mode`` is the git mode a diff gives
    the file (`new file mode 100755`, `new mode 100644`) on a ``create`` or
    ``mode`` block: only its executable bit is applied. A ``create`` block's
    new text may use CRLF line breaks: the file is then created with them.
    ``marks`` is a diff hunk's line prefixes in order, one character per line
    (`` `` in both texts, ``-`` only in the old, ``+`` only in the new): how
    its old and new text interleave, which the text alone cannot always tell.
    """

    path: str
    leading: str
    old: str
    new: str
    trailing: str
    kind: BlockKind
    format: Format
    line: int
    readings: tuple[Reading, ...] = ()
    literal: tuple[str, str] | None = None
    line_hint: int | None = None
    scope: Scope | None = None
    move_to: str | None = None
    mode: int | None = field(default=None, repr=False)
    marks: str = field(default="", repr=False)

    @property
    def search(self) -> str:
        return self.leading + self.old + self.trailing

    @property
    def replace(self) -> str:
        return self.leading + self.new + self.trailing

    @property
    def is_noop(self) -> bool:
        return self.old == self.new


@dataclass(frozen=True)
class ShellSuggestion:
    """A shell command the model suggested; reported, never executed."""

    command: str
    line: int


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Diagnostic:
    """A finding about the response. Slotted: a hostile answer may carry a million of them.

    The parser may hand out a compact subclass whose message is formatted when it is read (parsing/values.py);
    it compares, hashes and prints exactly as the Diagnostic it stands for, so equality and `repr` are written
    out here rather than generated (a generated `__eq__` would refuse any subclass).
    """

    severity: Severity
    line: int
    message: str

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Diagnostic):
            return NotImplemented
        return (self.severity, self.line, self.message) == (other.severity, other.line, other.message)

    def __hash__(self) -> int:
        return hash((self.severity, self.line, self.message))

    def __repr__(self) -> str:
        return f"Diagnostic(severity={self.severity!r}, line={self.line!r}, message={self.message!r})"

    def __str__(self) -> str:
        return f"line {self.line}: {self.severity.value}: {self.message}"

    @property
    def code(self) -> str:
        """A stable name for the kind of finding, where it has one (`no-op`), else ""; never part of equality."""
        return ""


class HasDiagnostics:
    """`errors` and `warnings` for any result that carries `diagnostics`."""

    diagnostics: tuple[Diagnostic, ...]

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity is Severity.WARNING)


@dataclass(frozen=True)
class ParseResult(HasDiagnostics):
    format: str
    blocks: tuple[EditBlock, ...]
    shell: tuple[ShellSuggestion, ...]
    diagnostics: tuple[Diagnostic, ...]


# --- streaming events (docs/python-api.md, "Stream") ------------------------------


@dataclass(frozen=True)
class TextEvent:
    """Response text outside any edit block (prose, fences, shell blocks)."""

    text: str
    line: int


@dataclass(frozen=True)
class BlockStarted:
    path: str | None
    line: int
    format: Format


@dataclass(frozen=True)
class BlockProgress:
    """Text added to an open block since the previous event for it.

    ``section`` is ``leading``, ``old``, ``new`` or ``trailing``; for guillemet
    blocks the anchor is only known at the end, so their text arrives as
    ``old`` and ``new``. The whole text so far is ``StreamParser.partial_block()``.
    """

    line: int
    section: str
    added: str


@dataclass(frozen=True)
class BlockCompleted:
    block: EditBlock


@dataclass(frozen=True)
class ShellSuggested:
    suggestion: ShellSuggestion


@dataclass(frozen=True)
class DiagnosticEvent:
    diagnostic: Diagnostic


Event = TextEvent | BlockStarted | BlockProgress | BlockCompleted | ShellSuggested | DiagnosticEvent


# --- applying (docs/locating.md) -------------------------------------------------


class Status(StrEnum):
    APPLIED = "applied"
    FAILED = "failed"
    SKIPPED = "skipped"


class ResultCode(StrEnum):
    """Why a block did not simply apply; a stable code next to the prose reason."""

    NONE = ""
    NOT_FOUND = "not-found"
    AMBIGUOUS = "ambiguous"
    NO_OP = "no-op"
    ALREADY_APPLIED = "already-applied"
    FILE_NOT_FOUND = "file-not-found"
    FILE_EXISTS = "file-exists"
    REFUSED = "refused"
    SKIPPED_AFTER_FAILURE = "skipped-after-failure"
    HELD = "held"  # it applies, but another block for its file failed: the file is not written (policy `file`)
    ABORTED = "aborted"
    CHANGED_ON_DISK = "changed-on-disk"
    WRITE_FAILED = "write-failed"


def percent(fraction: float) -> str:
    """A similarity as a whole percentage, rounded down so 99.6 % never reads as a perfect 100 %."""
    return f"{int(fraction * 100)}%"


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless the count is one: reports read "1 case", never "1 cases"."""
    return f"{count} {noun}{'s' if count != 1 else ''}"


def shared_line_prefix(first: str, second: str) -> int:
    """How many characters of whole lines both texts start with, compared up to the first difference only."""
    shared = 0
    while (end := first.find("\n", shared) + 1) and second.startswith(first[shared:end], shared):
        shared = end
    return shared


def preview(text: str) -> str:
    """First line of ``text``, cut to 50 characters, for one-line displays."""
    first = text.split("\n", 1)[0]
    return first if len(first) <= PREVIEW_CHARS else first[: PREVIEW_CHARS - 1] + "…"


@dataclass(frozen=True)
class EditResult:
    """What happened to one block. Line numbers are 1-based, in the file as it was when the block ran."""

    block: EditBlock
    status: Status
    reason: str = ""
    code: ResultCode = ResultCode.NONE
    start_line: int | None = None
    end_line: int | None = None
    strategy: str | None = None
    similarity: float | None = None
    candidates: tuple[int, ...] = ()
    hint: str = field(default="", compare=False)
    file: str = ""  # the canonical path inside the root, when the path could be resolved
    refusal: str = ""  # with code REFUSED: why the file may not be edited, as a stable code (`RefusalCode`)
    closest: tuple[int, int] | None = field(default=None, compare=False)
    """With code NOT_FOUND: first and last line of the file's region most like the old text, if any."""

    @property
    def path(self) -> str:
        return self.file or self.block.path

    @property
    def previews(self) -> tuple[str, str, str]:
        return preview(self.block.leading), preview(self.block.old), preview(self.block.new)


class _MadeWhenRead:
    """A dataclass field given as its text or as a function that makes it: made the first time it is read."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = "_" + name

    def __get__(self, instance: object, owner: type | None = None) -> str:
        if instance is None:
            raise AttributeError(self._slot)  # no class-level default: the field stays required
        made: str | Callable[[], str] = instance.__dict__[self._slot]
        if not isinstance(made, str):
            made = instance.__dict__[self._slot] = made()
        return made

    def __set__(self, instance: object, value: str | Callable[[], str]) -> None:
        instance.__dict__[self._slot] = value  # only __init__ sets it: a frozen dataclass refuses any later set


@dataclass(frozen=True)
class FileDiff:
    """One changed file: its unified diff for people and `--json`, and what a patch file needs besides.

    ``before`` (None for a created file) and ``after`` are the whole texts,
    and ``encoding`` the file's encoding as the workspace names it, so a
    patch can be written in the file's own bytes (byte-order mark included).
    ``unified`` may be given as a function that makes the text: it is called
    the first time the diff is read, so a dry run or an apply whose report
    shows no diff never aligns the lines of a big file.
    """

    path: str
    created: bool
    unified: _MadeWhenRead = _MadeWhenRead()
    before: str | None = field(default=None, repr=False, compare=False)
    after: str = field(default="", repr=False, compare=False)
    encoding: str = "utf-8"
    deleted: bool = False  # the file is removed (``after`` is empty)
    moved_from: str | None = None  # the file is ``moved_from`` renamed (``before`` is that file's text)


@dataclass(frozen=True)
class ApplyResult:
    results: tuple[EditResult, ...]
    files_modified: tuple[str, ...]
    files_created: tuple[str, ...]
    shell: tuple[ShellSuggestion, ...]
    diffs: tuple[FileDiff, ...]
    written: bool
    diagnostics: tuple[Diagnostic, ...] = ()
    notes: tuple[str, ...] = ()
    dry_run: bool = False  # blocks marked applied would apply; nothing was meant to be written
    files_deleted: tuple[str, ...] = ()
    files_renamed: tuple[tuple[str, str], ...] = ()  # (from, to); the new path is in neither list above
    run_id: str | None = None  # the undo journal's run that wrote the files (None: nothing was written)
    held_over: tuple[EditResult, ...] = ()
    """Blocks of earlier answers a session held (policy `file`), as this run decided them: applied (written now),
    held still, or failed (they no longer apply, or the file still waits for their fix)."""
    holding: tuple[str, ...] = ()
    """The files whose good blocks the session keeps for the next answer: it needs only the failed ones."""

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status is status)

    @property
    def paths_changed(self) -> tuple[str, ...]:
        """Every path whose file this result changes: modified, created, deleted, and both ends of a rename (what
        a commit stages or a caller reports as touched)."""
        return (self.files_modified + self.files_created + self.files_deleted
                + tuple(path for move in self.files_renamed for path in move))

    @property
    def ok(self) -> bool:
        return all(r.status is Status.APPLIED for r in self.results + self.held_over)


_RENAMED = {"Reason": "ResultCode"}
"""Old public names, kept for one minor version: each warns, then gives the new name's value."""


def __getattr__(name: str) -> Any:
    new = _RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn(f"editblocks.{name} is deprecated: use {new}", DeprecationWarning, stacklevel=2)
    return globals()[new]
