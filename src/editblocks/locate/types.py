"""The ladder's vocabulary: its rungs, the options a caller sets, and the answers it gives.

A module of its own so that every rung module, the dispatcher and the
planner share these names without importing one another.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from editblocks.record import Record


class Rung(StrEnum):
    """The rungs of the matching ladder, strictest first."""

    EXACT = "exact"
    TRAILING_WHITESPACE = "trailing-whitespace"
    INDENTATION = "indentation"
    TYPOGRAPHY = "typography"
    INTERNAL_WHITESPACE = "internal-whitespace"
    BLANK_LINES = "blank-lines"  # diff hunks only (locate/blank_lines.py); never part of a ladder run
    OMITTED_LINES = "omitted-lines"  # diff hunks only (locate/omitted_lines.py); never part of a ladder run
    ELISION = "elision"
    FUZZY = "fuzzy"


LADDER = tuple(Rung)
DEFAULT_RUNGS = (
    Rung.EXACT, Rung.TRAILING_WHITESPACE, Rung.INDENTATION, Rung.TYPOGRAPHY, Rung.INTERNAL_WHITESPACE, Rung.ELISION,
)
EXACT_ONLY = (Rung.EXACT,)
LINE_RUNGS = (Rung.EXACT, Rung.TRAILING_WHITESPACE, Rung.INDENTATION, Rung.TYPOGRAPHY, Rung.INTERNAL_WHITESPACE)
"""The rungs that compare a block line by line; elision uses them for each piece."""
FOLDING_RUNGS = (Rung.TYPOGRAPHY, Rung.INTERNAL_WHITESPACE)
"""The rungs that compare typography-folded lines (and shift indentation uniformly, as the indentation rung does)."""


@dataclass(frozen=True)
class LocateOptions:
    rungs: tuple[Rung, ...] = DEFAULT_RUNGS
    """Tried in ladder order whatever their order here."""
    first_match: bool = False
    """Take the lowest of several candidates instead of answering ``Ambiguous``."""
    fuzzy_threshold: float = 0.90
    """Least similarity (0..1) a fuzzy window needs to be applied."""
    fuzzy_margin: float = 0.05
    """How much better the best fuzzy window must be than the best window that does not overlap it."""
    max_candidates: int = 100
    hint: int | None = None
    """0-based file line a line-number hint names: of several identical candidates, the one it points inside."""
    diagnose: bool = True
    """Name the closest text when nothing matches (off for a caller that only asks whether the text is there)."""
    min_start: int = 0
    """0-based first file line a match may start at (a patch hunk is looked for after its anchors)."""


class Found(Record):
    __slots__ = ("start", "end", "new_lines", "sources", "strategy", "similarity")
    start: Final[int]
    """0-based index of the first file line replaced."""
    end: Final[int]
    """Exclusive end of the replaced lines."""
    new_lines: Final[tuple[str, ...]]
    """The replacement lines (no line endings), adapted to the file."""
    sources: Final[tuple[int | None, ...]]
    """Per new line, the index of the file line it reproduces unchanged (context), else ``None``."""
    strategy: Final[Rung]
    similarity: Final[float]

    def __init__(self, start: int, end: int, new_lines: tuple[str, ...], sources: tuple[int | None, ...],
                 strategy: Rung, similarity: float = 1.0) -> None:
        self.start = start
        self.end = end
        self.new_lines = new_lines
        self.sources = sources
        self.strategy = strategy
        self.similarity = similarity


class NearMiss(Record):
    """The region ``[start, end)`` of the file most like the searched text.

    ``similarity`` is defined in ``editblocks.locate.fuzzy`` (a length-weighted mean
    of line similarities; 1.0 only for a region equal line by line). ``diff``
    renders searched against actual lines, differences with one line of
    context, at most 12 lines of at most about 100 characters:
    ``"  41 | text"`` is a line both share (file line 41), ``"-    | text"`` a
    searched line, ``"+ 42 | text"`` the file's line 42 in its place, and
    ``"     ... 9 matching lines"`` stands for lines not shown.
    """

    __slots__ = ("start", "end", "similarity", "diff")
    start: Final[int]
    end: Final[int]
    similarity: Final[float]
    diff: Final[tuple[str, ...]]

    def __init__(self, start: int, end: int, similarity: float, diff: tuple[str, ...]) -> None:
        self.start = start
        self.end = end
        self.similarity = similarity
        self.diff = diff


class NotFound(Record):
    __slots__ = ("near_miss", "hint")
    near_miss: Final[NearMiss | None]
    hint: Final[str]
    """Why a rung that seemed to apply refused (elision pieces, fuzzy thresholds); empty otherwise."""

    def __init__(self, near_miss: NearMiss | None, hint: str = "") -> None:
        self.near_miss = near_miss
        self.hint = hint


class Ambiguous(Record):
    __slots__ = ("starts", "strategy", "truncated")
    starts: Final[tuple[int, ...]]
    """0-based start of every candidate, lowest first, at most ``max_candidates`` of them."""
    strategy: Final[Rung]
    truncated: Final[bool]

    def __init__(self, starts: tuple[int, ...], strategy: Rung, truncated: bool) -> None:
        self.starts = starts
        self.strategy = strategy
        self.truncated = truncated
