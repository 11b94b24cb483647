"""What the planner knows and keeps per file: the caller's view of each file, the options, and the file being edited.

`FileState` is the planner's working copy of one file; every planning
module reads and changes it, so it is public inside the package.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from editblocks.locate.cache import FileCache
from editblocks.locate.line_index import LineIndex
from editblocks.locate.types import DEFAULT_RUNGS, EXACT_ONLY, Rung
from editblocks.model import EditResult, Format, Policy, Status
from editblocks.text.document import Document, TextBuffer

INDEX_FROM_BLOCK = 4  # a file's 4th block on: index its lines, so many blocks never cost blocks × lines
BOM = "\ufeff"


def default_policy(fmt: Format | None = None) -> Policy:
    """`file` for every format: a file is written only when every block for it applied, never half-edited."""
    return Policy.FILE


@dataclass(frozen=True)
class TargetFile:
    """What the caller knows about one target file.

    `key` is the canonical path (two spellings of one file share it); `text`
    is None when the file does not exist; a non-empty `refusal` means the file
    may not be edited (outside the root, binary, ...) and says why.
    """

    key: str
    text: str | None
    refusal: str = ""
    refusal_code: str = ""  # the stable code of the refusal (`paths.RefusalCode`), for scripts
    bom: bool = False  # the file starts with a byte-order mark (kept by the workspace, not part of `text`)
    links: frozenset[str] = frozenset()  # spellings that reach the file through a symlink: not to delete or move by
    executable: bool | None = None  # the file's executable bit, when the caller knows it


@dataclass(frozen=True)
class PlanOptions:
    policy: Policy | None = None  # None: the default (`file`)
    fuzzy: bool = False
    first_match: bool = False
    strict: bool = False  # exact matching only, for every format

    def rungs(self, exact_format: bool = False) -> tuple[Rung, ...]:
        """The ladder text climbs to be found: exact only when strict (or, unless fuzzy, for a format matched
        exactly), the fuzzy rung on top when fuzzy."""
        if self.strict:
            return EXACT_ONLY
        if self.fuzzy:
            return (*DEFAULT_RUNGS, Rung.FUZZY)
        return EXACT_ONLY if exact_format else DEFAULT_RUNGS


@dataclass(frozen=True)
class FilePlan:
    key: str
    original: str | None  # None: the file is created
    text: str
    deleted: bool = False  # the file is removed (``text`` is empty)
    moved_from: str | None = None  # the file is created by moving this one (which is removed)
    executable: bool | None = None  # set or clear the file's executable bit (None: keep it)


@dataclass(frozen=True)
class Plan:
    results: tuple[EditResult, ...]
    files: tuple[FilePlan, ...]
    aborted: bool = False

    @property
    def failed(self) -> bool:
        return any(result.status is Status.FAILED for result in self.results)


class FileBuffer(TextBuffer):
    """A file being planned: its lines, an index of them once many blocks edit it, and what locating shares."""

    def __init__(self, document: Document | str) -> None:
        super().__init__(document)
        self.index: LineIndex | None = None
        self.cache = FileCache(sum(map(len, self.lines)), len(self.lines))
        """What locating blocks in this text shares from block to block; told of every splice."""

    def indexed(self) -> LineIndex:
        """An index of the lines, kept up to date by `splice` from now on (worth it for a file with many blocks)."""
        if self.index is None:
            self.index = LineIndex(self.lines)
        return self.index

    def forget_lookups(self) -> None:
        self.index = None
        self.cache.forget_view()

    def replace_lines(self, start: int, end: int, new_lines: Sequence[str]) -> None:
        self.cache.changed(start, end, new_lines)  # first: keys that are the lines still show the old ones
        if self.index is not None:
            self.index.splice(start, end, new_lines)
        else:
            super().replace_lines(start, end, new_lines)


@dataclass(frozen=True)
class Splice:
    """Lines ``[start, end)`` of the file ``key`` become ``new_lines`` (``sources``: the old line each one keeps)."""

    key: str
    start: int
    end: int
    new_lines: tuple[str, ...]
    sources: tuple[int | None, ...]
    advances: bool = False  # a patch hunk: the file's next hunk is looked for after these lines


@dataclass(frozen=True)
class NewText:
    """The file ``key`` comes to hold ``document`` (a created file, or a whole file replacing a missing one)."""

    key: str
    document: Document


@dataclass(frozen=True)
class Removal:
    key: str


@dataclass(frozen=True)
class Move:
    """The file ``key``, with the edits made to it so far, becomes ``target``."""

    key: str
    target: str


@dataclass(frozen=True)
class Ending:
    """The file ``key`` ends with a line break, or without one (as a diff's `\\ No newline at end of file` says)."""

    key: str
    final_newline: bool


@dataclass(frozen=True)
class Permission:
    """The file ``key`` becomes executable, or stops being so (as a diff's mode says)."""

    key: str
    executable: bool


Change = Splice | NewText | Removal | Move | Ending | Permission


@dataclass
class FileState:
    """The planner's copy of one file. Deciding a block only records the changes it would make (``pending``);
    `apply` makes them once the block is accepted, so a verdict can be given before the block is taken."""

    source: TargetFile
    buffer: FileBuffer | None  # None while the file does not exist
    pending: list[Change] = field(default_factory=list)
    """Shared by every file of one planner: the changes of the block being decided."""
    blocks_seen: int = 0
    many_blocks: bool = False  # the whole answer is known to hold many blocks for this file: index it at once
    failed_at: int | None = None
    failed_lines: list[int] = field(default_factory=list)
    """The answer lines of every failed block for this file, in order (policy `file` names them all)."""
    edits: list[tuple[int, int, int]] = field(default_factory=list)
    """(start, end, lines written) of every splice so far, in order: maps a line hint onto the current text."""
    cursor: int = 0  # where the last hunk ended: a patch's next hunk of this file is looked for after it
    removed: bool = False  # deleted, or moved away, by a block
    moved_from: str | None = None
    moved_to: str | None = None
    links: set[str] = field(default_factory=set)
    """Spellings that reach the file through a symlink (gathered from every spelling's `TargetFile`)."""
    executable: bool | None = None  # the executable bit a block set (None: as the file has it)
    _ends: list[int] = field(default_factory=list)
    """While the edits came top to bottom: the original line each edit ended at, and (in ``_shifts``) by how many
    lines the edits up to it moved what follows; a line hint is then mapped by bisection, not edit by edit."""
    _shifts: list[int] = field(default_factory=list)
    _in_order: bool = True

    def record_edit(self, start: int, end: int, written: int) -> None:
        """Lines ``[start, end)`` of the current text were replaced by ``written`` lines."""
        edits = self.edits
        if self._in_order and edits:
            last_start, _, last_written = edits[-1]
            self._in_order = start >= last_start + last_written
        edits.append((start, end, written))
        if self._in_order:
            shift = self._shifts[-1] if self._shifts else 0
            self._ends.append(end - shift)
            self._shifts.append(shift + written - (end - start))

    def current_line(self, line: int) -> int:
        """Where the file's original 0-based ``line`` is now, after the edits made so far."""
        if self._in_order:
            count = bisect_right(self._ends, line)
            return line + self._shifts[count - 1] if count else line
        for start, end, written in self.edits:
            if line >= end:
                line += written - (end - start)
        return line

    def lines_and_index(self) -> tuple[list[str], LineIndex | None]:
        assert self.buffer is not None
        self.blocks_seen += 1
        many = self.many_blocks or self.blocks_seen >= INDEX_FROM_BLOCK
        index = self.buffer.indexed() if many else self.buffer.index
        return self.buffer.lines, index

    # --- what a block would do (recorded, not made) ---------------------------------------------------------------

    def splice(self, start: int, end: int, new_lines: Sequence[str], sources: Sequence[int | None], *,
               advances: bool = False) -> None:
        self.pending.append(Splice(self.source.key, start, end, tuple(new_lines), tuple(sources), advances))

    def fill(self, document: Document) -> None:
        self.pending.append(NewText(self.source.key, document))

    def remove(self) -> None:
        self.pending.append(Removal(self.source.key))

    def move_to(self, target: FileState) -> None:
        self.pending.append(Move(self.source.key, target.source.key))

    def end_with_newline(self, wanted: bool) -> None:
        self.pending.append(Ending(self.source.key, wanted))

    def make_executable(self, wanted: bool) -> None:
        self.pending.append(Permission(self.source.key, wanted))


def apply_change(change: Change, state_of: Callable[[str], FileState]) -> None:
    """Make one change a block was accepted with."""
    state = state_of(change.key)
    if isinstance(change, Splice):
        assert state.buffer is not None
        state.buffer.splice(change.start, change.end, change.new_lines, change.sources)
        state.record_edit(change.start, change.end, len(change.new_lines))
        if change.advances:
            state.cursor = change.start + len(change.new_lines)
    elif isinstance(change, NewText):
        state.buffer = FileBuffer(change.document)
        state.removed = False
    elif isinstance(change, Removal):
        state.buffer = None
        state.removed = True
    elif isinstance(change, Ending):
        assert state.buffer is not None
        state.buffer.end_with_newline(change.final_newline)
    elif isinstance(change, Permission):
        state.executable = change.executable
    else:
        target = state_of(change.target)
        target.buffer, state.buffer = state.buffer, None
        target.executable = state.executable if state.executable is not None else state.source.executable
        target.moved_from = state.moved_from or state.source.key
        target.removed = False
        state.removed = True
        state.moved_to = target.source.key


StateOf = Callable[[str], FileState]
"""The state of the file a path names (a move's target may be a file no block edits)."""


def lines_of(text: str) -> list[str]:
    """A block text as lines; CRLF counts as LF (both sides are normalised), whoever built the block."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def text_of(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def span_words(start: int, end: int) -> str:
    """`line 4` or `lines 4–6`, from a 0-based half-open span."""
    return f"line {start + 1}" if end - start <= 1 else f"lines {start + 1}–{end}"
