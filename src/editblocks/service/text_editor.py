"""The commands of Anthropic's text editor tool, run against one store through the service.

Every write is the session's commit (atomic, journaled, checked against what
was read) under the store's lock, so `undo` undoes a tool edit like any other
run. The edits themselves are computed by the pure `tools.text_editor`; this
module reads, lists folders and hands the decided text to the session.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from dataclasses import dataclass

from editblocks.model import ApplyResult, BlockKind, EditBlock, EditResult, Format, ResultCode, Status, counted
from editblocks.parsing.filenames import closest_paths
from editblocks.plan import FilePlan, Plan
from editblocks.service.read_versions import ReadVersions, stale_refusal
from editblocks.service.reading import StoreReader
from editblocks.service.session import EditSession
from editblocks.text.document import Document, TextBuffer
from editblocks.tools.text_editor import (
    LineEdit,
    Occurrences,
    at_lines,
    cut_view,
    insert_after,
    normalized,
    numbered,
    snippet,
)
from editblocks.workspace.dirfd import describe
from editblocks.workspace.paths import Refusal
from editblocks.workspace.reading import FileSnapshot

MAX_VIEW_CHARS = 100_000
MAX_LISTED = 400
MAX_SNIPPET_LINES = 60  # an edit that rewrote more lines (replace_all across a file) is not echoed back


@dataclass(frozen=True)
class EditorReply:
    """What a command tells the model, whether it failed, and the run's result when it wrote (or tried to)."""

    text: str
    ok: bool
    result: ApplyResult | None = None
    replacements: int | None = None  # how many places an `edit` or `multi_edit` replaced, when it wrote
    not_ours: str = ""  # the newest run, when `undo` was limited to some runs and this one is not among them
    version: str | None = None  # with stale-read protection: the file's version after the call (viewed or written)


@dataclass(frozen=True)
class PlannedEdit:
    """A decided edit: the lines to splice, and how to describe it."""

    change: LineEdit
    summary: str


Decided = PlannedEdit | EditorReply
Decide = Callable[[list[str], bool, str | None], Decided]
"""Called with the file's lines, whether it ends with a line break, and the lines as one LF text when that is the
file's own text (no CR in it: no join needed), else None."""


class TextEditor:
    """`view`, `create`, `str_replace`'s exact path, `insert` and `undo_edit`, inside one session's store."""

    def __init__(self, session: EditSession, *, max_view_chars: int = MAX_VIEW_CHARS,
                 versions: ReadVersions | None = None) -> None:
        self.session = session
        self.store = session.store
        self._max_view_chars = max_view_chars
        self.versions = versions  # stale-read protection, when given

    # --- reading ------------------------------------------------------------------------------------

    def view(self, path: str, view_range: tuple[int, int] | None) -> EditorReply:
        folder = self.store.folder(path)
        if folder is not None:
            if view_range is not None:
                return EditorReply(f"Error: {path} is a folder; `view_range` only applies to files.", False)
            return self._list(folder)
        snapshot = self.store.read(path)
        if isinstance(snapshot, Refusal):
            return EditorReply(f"Error: {snapshot.reason}", False)
        if not snapshot.exists or snapshot.text is None:
            return self._missing(path)
        lines = list(Document.from_text(snapshot.text).lines)
        first, last = 1, len(lines)
        if view_range is not None:
            first, last = view_range
            last = len(lines) if last == -1 else last
            if not 1 <= first <= max(1, len(lines)) or last < first or last > len(lines):
                return EditorReply(f"Error: invalid `view_range` {list(view_range)}: {snapshot.rel} has "
                                   f"{len(lines)} lines; give [first, last] with 1 <= first <= last <= "
                                   f"{len(lines)}, or last = -1 for the end of the file.", False)
        shown = cut_view(numbered(lines[first - 1 : last], first), self._max_view_chars)
        shown = shown or f"{snapshot.rel} is empty.\n"
        version = self.versions.saw(snapshot) if self.versions is not None else None
        return EditorReply(shown + (f"[{snapshot.rel} version {version}]\n" if version else ""), True,
                           version=version)

    def _list(self, folder: str) -> EditorReply:
        """Two levels of ``folder``; the store opens each folder without following a link, so a folder swapped
        for a link after its path was checked is refused (or, one level down, shown empty), never listed."""
        entries: list[str] = []
        try:
            for name, is_dir in self.store.entries(folder):
                entries.append(name + ("/" if is_dir else ""))
                if not is_dir:
                    continue
                with contextlib.suppress(OSError):
                    entries += [f"{name}/{inner}{'/' if inner_dir else ''}"
                                for inner, inner_dir in self.store.entries(f"{folder}/{name}" if folder else name)]
        except OSError as error:
            return EditorReply(f"Error: {folder or 'the project root'} cannot be listed ({describe(error)}).", False)
        shown = entries[:MAX_LISTED]
        more = f"\n[{len(entries) - len(shown)} more entries not shown]" if len(entries) > len(shown) else ""
        where = folder or "the project root"
        listing = "\n".join(shown) if shown else "(empty)"
        return EditorReply(f"Files and folders up to 2 levels deep in {where}, hidden ones left out:\n"
                           f"{listing}{more}\n", True)

    def _missing(self, path: str) -> EditorReply:
        suggestions = closest_paths(path, self.store.files())
        hint = (" Did you mean " + " or ".join(f"`{s}`" for s in suggestions) + "?") if suggestions else ""
        return EditorReply(f"Error: the file {path} does not exist.{hint}", False)

    # --- writing ------------------------------------------------------------------------------------

    def create(self, path: str, file_text: str) -> EditorReply:
        def write(snapshot: FileSnapshot) -> EditorReply:
            if snapshot.exists:
                return EditorReply(f"Error: {snapshot.rel} already exists; `create` never overwrites a file. "
                                   "Use `str_replace` or `insert` to change it (`view` it first).", False)
            recorded = Document.new_file(normalized(file_text)).to_text()  # a block's text: LF, a final newline
            block = EditBlock(snapshot.rel, "", "", recorded, "", BlockKind.CREATE, Format.SEARCH_REPLACE, 1)
            count = len(Document.from_text(file_text).lines)
            return self._commit(snapshot, file_text, block, (1 if count else None, count or None),
                                f"Created {snapshot.rel} ({counted(count, 'line')}).")
        return self._locked(path, write)

    def edit(self, path: str, decide: Decide, *, old: str = "", line: int | None = None) -> EditorReply:
        """Read ``path``, let ``decide`` choose the lines to change (or answer instead), and commit them. ``old``
        (the text it replaces) or ``line`` (the line it inserts after) say where the edit aims, for the reply when
        the file changed since the model saw it."""
        def write(snapshot: FileSnapshot) -> EditorReply:
            if not snapshot.exists or snapshot.text is None:
                return self._missing(path)
            document = Document.from_text(snapshot.text)
            decided = decide(list(document.lines), document.final_newline,
                             None if "\r" in snapshot.text else snapshot.text)
            if isinstance(decided, EditorReply):
                return decided
            buffer = TextBuffer(document)
            change = decided.change
            old_lines = buffer.lines[change.start : change.end]
            sources = change.sources if change.sources is not None else [
                change.start + i if i < len(old_lines) and line == old_lines[i] else None
                for i, line in enumerate(change.new_lines)]
            buffer.splice(change.start, change.end, change.new_lines, sources)
            if change.final_newline is not None:
                buffer.end_with_newline(change.final_newline)
            text = buffer.to_text()
            if text == snapshot.text:
                return EditorReply(f"Nothing changed: {snapshot.rel} already reads that way at line "
                                   f"{change.start + 1}, so nothing was written.", True)
            block = EditBlock(snapshot.rel, "", _text(old_lines), _text(change.new_lines), "", BlockKind.EDIT,
                              Format.SEARCH_REPLACE, 1, line_hint=change.start + 1)
            span = (change.start + 1, max(change.start + 1, change.end))
            summary = decided.summary
            if len(change.new_lines) <= MAX_SNIPPET_LINES:
                shown = snippet(buffer.lines, change.start, len(change.new_lines))
                summary += f"\nThe edited part of {snapshot.rel} now reads:\n{shown}"
            return self._commit(snapshot, text, block, span, summary)
        return self._locked(path, write, old=old, line=line)

    def insert(self, path: str, line: int, new_str: str) -> EditorReply:
        def decide(lines: list[str], final_newline: bool, _text: str | None) -> Decided:
            if not 0 <= line <= len(lines):
                return EditorReply(f"Error: `insert_line` {line} is outside the file, which has {len(lines)} "
                                   f"lines; give a number from 0 (the top) to {len(lines)} (the end).", False)
            change = insert_after(line, normalized(new_str))
            where = "at the top" if line == 0 else f"after line {line}"
            return PlannedEdit(change, f"Inserted {counted(len(change.new_lines), 'line')} {where}.")
        return self.edit(path, decide, line=line)

    def undo(self, path: str | None = None, *, only: Collection[str] | None = None) -> EditorReply:
        """Undo the most recent edit run; with ``path`` (`undo_edit`), only if that run changed the file; with
        ``only``, only if it is one of those runs."""
        outcome = self.session.undo(runs=only, refuse=(lambda: self._other_file(path)) if path is not None else None)
        if not outcome.ok:
            return EditorReply(f"Error: {outcome.message}", False, not_ours=outcome.not_ours)
        if self.versions is not None:
            self.versions.forget(outcome.restored + outcome.removed)
        return EditorReply(outcome.message or "Undid the last edit.", True)

    def _other_file(self, path: str) -> str | None:
        """Why `undo_edit` of ``path`` would undo something else, if it would."""
        rel = self.store.resolve(path)
        if isinstance(rel, Refusal):
            return rel.reason
        paths = self.store.next_undo_paths()
        if paths is None:
            return "there is nothing to undo."
        if rel not in paths:
            return (f"the most recent edit changed {', '.join(paths)}, not {rel}; `undo_edit` only takes back the most "
                    "recent edit.")
        return None

    def _locked(self, path: str, write: Callable[[FileSnapshot], EditorReply], *, old: str = "",
                line: int | None = None) -> EditorReply:
        with self.store.lock(wait=self.session.options.lock_wait):
            interrupted = self.store.interrupted_run()
            if interrupted is not None:
                return EditorReply(f"Error: a previous edit was interrupted (journal run {interrupted}); nothing can "
                                   "be written until it is undone (`undo`).", False)
            snapshot = self.store.read(path)
            if isinstance(snapshot, Refusal):
                return EditorReply(f"Error: {snapshot.reason}", False)
            seen = self.versions.stale(snapshot) if self.versions is not None else None
            if seen is not None and self.versions is not None:
                now = self.versions.saw(snapshot)
                return EditorReply(stale_refusal(snapshot, seen, now or "", old=old, line=line), False, version=now)
            return write(snapshot)

    def _commit(self, snapshot: FileSnapshot, text: str, block: EditBlock, span: tuple[int | None, int | None],
                summary: str) -> EditorReply:
        """Write the decided text through the session (the lock is held), as a one-block run `undo` takes back."""
        reader = StoreReader(self.store)
        reader.snapshots[snapshot.rel] = snapshot
        applied = EditResult(block, Status.APPLIED, "", ResultCode.NONE, span[0], span[1], "exact", 1.0,
                             file=snapshot.rel)
        result = self.session.commit(Plan((applied,), (FilePlan(snapshot.rel, snapshot.text, text),)), reader)
        if not result.written:
            return EditorReply(f"Error: {result.results[0].reason}", False, result)
        versions = self.versions.wrote(result) if self.versions is not None else {}
        return EditorReply(summary, True, result, version=versions.get(snapshot.rel))


def as_edit(found: LineEdit | Occurrences, path: str) -> Decided:
    """`str_replace`'s verdict on the text search: the edit, or why not (with every occurrence's line)."""
    if isinstance(found, LineEdit):
        return PlannedEdit(found, f"Replaced the text at line {found.start + 1} of {path}.")
    more = " or more" if found.truncated else ""
    return EditorReply(f"Error: `old_str` occurs {len(found.lines)}{more} times in {path} (starting at "
                       f"{at_lines(found.lines)}); it must occur exactly once. Include more of the surrounding text "
                       "so it matches one place.", False)


def _text(lines: tuple[str, ...] | list[str]) -> str:
    return "".join(line + "\n" for line in lines)
