"""What locating successive blocks in one file shares: the file's view while it is unchanged, and one diagnosis budget.

A run of blocks that are not found leaves the file as it was, so the keys,
joined texts and rankings its view computed for the first one serve the rest
(k not-found blocks on an n-line file: one pass over the file, not k). The
not-found diagnoses of all the file's blocks draw on one `CompareBudget`, so
thousands of them cannot each search a big file in full; the ones past it say so.
The omitted-lines rung's searches for diff hunks share another, for the same reason.
"""

from __future__ import annotations

from collections.abc import Sequence

from editblocks.locate.budget import CompareBudget, file_budget
from editblocks.locate.fuzzy import FuzzyLines
from editblocks.locate.line_index import LineIndex
from editblocks.locate.view import FileView

TOLERANT_HUNK_STEPS = 50_000
"""Steps the omitted-lines rung may take in one file over all its hunks (a step: one hunk line paired with one file
line it may stand for): some tenths of a second, a few hundred hunks of the usual size."""


class FileCache:
    """One per file being edited (the planner's buffer keeps it and reports every splice to `changed`)."""

    def __init__(self, chars: int = 0, lines: int = 0) -> None:
        """``chars`` and ``lines``: the file's size, which the shared diagnosis budget grows with."""
        self.diagnosis = file_budget(chars, lines)
        self.tolerant_hunks = CompareBudget(TOLERANT_HUNK_STEPS, 0)
        """What the omitted-lines rung may still do in this file (`CompareBudget.take_exact` of its steps)."""
        self._view: FileView | None = None

    def changed(self, start: int, end: int, new_lines: Sequence[str]) -> None:
        """Lines ``[start, end)`` of the file's (live) list were replaced by ``new_lines``."""
        if self._view is not None and not self._view.splice(start, end, new_lines):
            self._view = None

    def forget_view(self) -> None:
        """Drop the view (its key lists and their indexes); the next block makes a new one."""
        self._view = None

    def view(self, lines: Sequence[str], index: LineIndex | None) -> FileView:
        """The view of ``lines`` for locating one more block (the same list as last time: the same view)."""
        view = self._current(lines, index)
        view.start_call()
        return view

    def fuzzy(self, lines: Sequence[str], index: LineIndex | None) -> FuzzyLines:
        """The file's lines as fuzzy matching compares them, from the shared view."""
        return self._current(lines, index).fuzzy

    def _current(self, lines: Sequence[str], index: LineIndex | None) -> FileView:
        view = self._view
        if view is None or view.lines is not lines or view.index is not index:
            view = self._view = FileView(lines, index, self.diagnosis)
        return view
