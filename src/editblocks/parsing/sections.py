"""An open block's data, and how its body is cut into sections (leading, old, new, trailing).

Kept apart from the parser's state machine because the cutting is pure: it
reads a finished block and either returns its sections or reports, through
the error callback it is given, why the block cannot be cut unambiguously.
The event sink reads the same section bounds to report progress per section.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from editblocks.model import Format, shared_line_prefix
from editblocks.parsing.markers import MarkerKind

ErrorSink = Callable[[int, str], None]
Sections = tuple[str, str, str, str]  # leading, old, new, trailing

SECTION_NAMES: dict[MarkerKind, tuple[str, ...]] = {
    MarkerKind.SEARCH_START: ("old", "new"),
    MarkerKind.NEW_FILE_START: ("new",),
    MarkerKind.ANCHORED_START: ("leading", "old", "new", "trailing"),
    MarkerKind.GUILLEMET_START: ("old", "new"),
}


@dataclass(slots=True)
class Divider:
    index: int  # position in the block body where the next section starts
    kind: MarkerKind
    length: int
    line: int
    text: str  # the marker line as written, to re-read a strict block that never closed


@dataclass(slots=True)
class OpenBlock:
    start: MarkerKind
    line: int
    length: int
    strict: bool
    path: str | None
    format: Format
    missing_path_hint: str
    indent: str
    candidates: re.Pattern[str]
    structure: frozenset[MarkerKind]  # the marker kinds that are structure inside this block, not content
    interrupting: bool = False  # opened inside a block that had no divider yet: its text may hold markers
    body: list[str] = field(default_factory=list)  # content as slices of whole lines, each ending in a newline
    dividers: list[Divider] = field(default_factory=list)
    reported: int = 0  # body lines already sent as progress

    def text_after_start(self) -> str:
        """The block's lines after its start marker, as written (content and dividers interleaved)."""
        pieces: list[str] = []
        position = 0
        for divider in self.dividers:
            pieces.extend(self.body[position : divider.index])
            pieces.append(divider.text + "\n")
            position = divider.index
        pieces.extend(self.body[position:])
        return "".join(pieces)


def section_bounds(block: OpenBlock, since: int = 0) -> list[tuple[str, int, int]]:
    """Sections as (name, begin, end) body ranges, from body position `since` on (later dividers only)."""
    names = SECTION_NAMES[block.start]
    dividers = block.dividers
    first = len(dividers)
    while first > 0 and dividers[first - 1].index > since:
        first -= 1
    cuts = [since] + [d.index for d in dividers[first:]] + [len(block.body)]
    return [(names[min(first + i, len(names) - 1)], cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]


def split_sections(block: OpenBlock, error: ErrorSink) -> Sections | None:
    """Cut the block body at its dividers, or report why it cannot be cut unambiguously."""
    body, dividers, line = block.body, block.dividers, block.line
    if block.start is MarkerKind.NEW_FILE_START:
        return "", "", "".join(body), ""
    if block.start is MarkerKind.ANCHORED_START:
        return _split_anchored(block, error)
    if not dividers:
        error(line, f"block at line {line} has no separator")
        return None
    chosen = _pick_one(dividers, block.length)
    if chosen is None:
        where = _line_numbers(d.line for d in dividers)
        error(line, f"block at line {line} has {len(dividers)} separator lines (lines {where}); cannot tell which one "
                    "divides old from new text. If the text itself contains such lines, write the block with "
                    "9-character markers (for example `<<<<<<<<< SEARCH`, `=========`, `>>>>>>>>> REPLACE`).")
        return None
    old, new = "".join(body[: chosen.index]), "".join(body[chosen.index :])
    if block.start is MarkerKind.GUILLEMET_START:
        return _split_common_prefix(old, new)
    return "", old, new, ""


def dedent(text: str, indent: str) -> str:
    """Remove the indentation of a block written inside a markdown list, when every content line has it."""
    if not indent or not text:
        return text
    lines = text.split("\n")[:-1]
    if not all(line.startswith(indent) or not line.strip() for line in lines):
        return text
    size = len(indent)
    return _lines_text([line[size:] if line.startswith(indent) else "" for line in lines])


def _split_common_prefix(old: str, new: str) -> Sections:
    """The guillemet anchor: the whole lines both sections start with."""
    shared = shared_line_prefix(old, new)
    return old[:shared], old[shared:], new[shared:], ""


def _lines_text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n" if lines else ""


def _line_numbers(numbers: Iterable[int], shown: int = 5) -> str:
    """`3, 9, 12` — or the first few and how many more, so a diagnostic stays short whatever the block holds."""
    listed = list(numbers)
    head = ", ".join(str(n) for n in listed[:shown])
    return head if len(listed) <= shown else f"{head} and {len(listed) - shown} more"


def _pick_one(dividers: list[Divider], length: int) -> Divider | None:
    if len(dividers) == 1:
        return dividers[0]
    same_length = [d for d in dividers if d.length == length]
    return same_length[0] if len(same_length) == 1 else None


def _split_anchored(block: OpenBlock, error: ErrorSink) -> Sections | None:
    """Anchored blocks need dash, separator, dash in that order; extra look-alikes must not make it ambiguous."""
    for candidates in ([d for d in block.dividers if d.length == block.length], block.dividers):
        layouts = _anchored_layouts(candidates)
        if len(layouts) == 1:
            first, middle, second = layouts[0]
            body = block.body
            return ("".join(body[:first]), "".join(body[first:middle]), "".join(body[middle:second]),
                    "".join(body[second:]))
        if len(layouts) > 1:
            break
    line = block.line
    if not any(d.kind is MarkerKind.SEPARATOR for d in block.dividers):
        error(line, f"block at line {line} has no separator")
    else:
        error(line, f"anchored block at line {line} needs `-------`, `=======` and `-------` in that order, "
                    "exactly once each; if its text contains such lines, use 9-character markers")
    return None


_ANCHORED_LAYOUT = [MarkerKind.DASH, MarkerKind.SEPARATOR, MarkerKind.DASH]


def _anchored_layouts(dividers: list[Divider]) -> list[tuple[int, int, int]]:
    """Every dash–separator–dash layout, but only up to two: one is the answer, two already mean ambiguity."""
    if len(dividers) == 3 and [d.kind for d in dividers] == _ANCHORED_LAYOUT:
        return [(dividers[0].index, dividers[1].index, dividers[2].index)]
    dash_indices = [d.index for d in dividers if d.kind is MarkerKind.DASH]
    layouts: list[tuple[int, int, int]] = []
    dashes_before = 0
    for middle in dividers:
        if middle.kind is MarkerKind.DASH:
            dashes_before += 1
            continue
        for first in dash_indices[: min(dashes_before, 2)]:
            for last in dash_indices[dashes_before : dashes_before + 2]:
                layouts.append((first, middle.index, last))
                if len(layouts) > 1:
                    return layouts
    return layouts
