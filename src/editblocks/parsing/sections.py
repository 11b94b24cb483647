"""An open block's data, and how its body is cut into sections (leading, old, new, trailing).

Kept apart from the parser's state machine because the cutting is pure: it
reads a finished block and either returns its sections or reports, through
the error callback it is given, why the block cannot be cut unambiguously.
The event sink reads the same section bounds to report progress per section.

The marker-length rule lives here. Markers of the block's own length are
preferred; a SEARCH block with no separator of its own kind (a strict 8- or
9-character block whose separator has another length, or any block whose
only separator is a run of 10+ `=`) is cut at its one *look-alike*
separator, with a warning. Where several separators remain, every way to
cut the block is kept as a `Reading` and the file decides at plan time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from editblocks.model import Format, Reading, shared_line_prefix
from editblocks.parsing.marker_guard import introduced_marker
from editblocks.parsing.markers import MarkerKind
from editblocks.record import Record

ErrorSink = Callable[[int, str], None]
Sections = tuple[str, str, str, str]  # leading, old, new, trailing

_SEARCH_START = MarkerKind.SEARCH_START  # compared once per block, kept at hand
_SEPARATOR_KINDS = frozenset({MarkerKind.SEPARATOR, MarkerKind.LONG_SEPARATOR})
NOTHING_HELD = 1 << 62
MAX_READINGS = 4
"""Separators a block may hold and still be read every way at plan time; more are reported as malformed."""

SECTION_NAMES: dict[MarkerKind, tuple[str, ...]] = {
    MarkerKind.SEARCH_START: ("old", "new"),
    MarkerKind.NEW_FILE_START: ("new",),
    MarkerKind.ANCHORED_START: ("leading", "old", "new", "trailing"),
    MarkerKind.GUILLEMET_START: ("old", "new"),
    MarkerKind.OLD_TEXT_START: ("old", "old", "new"),  # between `</old_text>` and `<new_text>`: blank lines only
}


class Divider(Record):
    """A marker line inside a block that ends one section and begins the next (or a separator kept as content)."""

    __slots__ = ("index", "kind", "length", "line", "text")
    index: Final[int]  # position in the block body where the next section starts
    kind: Final[MarkerKind]
    length: Final[int]
    line: Final[int]
    text: Final[str]  # the marker line as written, to re-read a strict block that never closed

    def __init__(self, index: int, kind: MarkerKind, length: int, line: int, text: str) -> None:
        self.index = index
        self.kind = kind
        self.length = length
        self.line = line
        self.text = text


class OpenBlock:
    """The block being read: how it opened, its body so far, and its dividers (mutable; one per block)."""

    __slots__ = ("start", "line", "length", "strict", "path", "format", "missing_path_hint", "indent", "candidates",
                 "structure", "interrupting", "body", "dividers", "look_alikes", "reported", "held_from", "dialect",
                 "tags", "conflict", "line_hint")

    def __init__(self, start: MarkerKind, line: int, length: int, strict: bool, path: str | None, format: Format,
                 missing_path_hint: str, indent: str, candidates: re.Pattern[str], structure: frozenset[MarkerKind],
                 interrupting: bool = False, *, tags: bool = False, conflict: bool = False,
                 line_hint: int | None = None) -> None:
        self.start = start
        self.line = line
        self.length = length
        self.strict = strict
        self.path = path
        self.format = format
        self.missing_path_hint = missing_path_hint
        self.indent = indent
        self.candidates = candidates
        self.structure = structure  # the marker kinds that are structure inside this block, not content
        self.interrupting = interrupting  # opened inside a block that had no divider yet: its text may hold markers
        self.body: list[str] = []  # content as slices of whole lines, each ending in a newline
        self.dividers: list[Divider] = []
        self.look_alikes: list[Divider] = []
        """Separator lines kept as content (another length in a strict block, or 10+ `=`); each is its own body
        slice at ``index``. A block with no real separator is cut at one of them."""
        self.reported = 0  # body lines already sent as progress
        self.held_from = NOTHING_HELD  # body position from which progress waits for the block's end (see EventSink)
        self.dialect = False  # a content line starts with `\` or `:` (maybe Roo's escaped markers or hints)
        self.tags = tags  # Zed's edit: its structure is `</old_text>`, `<new_text>` and `</new_text>` lines
        self.conflict = conflict  # opened by `<<<<<<< HEAD`: a git conflict if a `>>>>>>> branch` line follows
        self.line_hint = line_hint  # the line its start marker names (`line=42`)

    def reopened_tolerant(self) -> OpenBlock:
        """The same block opened again with standard rules: not strict, and nothing read into it yet."""
        block = OpenBlock(self.start, self.line, self.length, False, self.path, self.format, self.missing_path_hint,
                          self.indent, self.candidates, self.structure, self.interrupting, tags=self.tags,
                          conflict=self.conflict, line_hint=self.line_hint)
        block.dialect = self.dialect
        return block

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


Cut = tuple[Sections, tuple[Reading, ...], int]
"""A finished block's sections; when its text alone cannot tell where old text ends, every reading of it (the
first one is the sections'); and the length of the separator it was cut at (0: none). A plain tuple: one is made
per block, on the parser's hot path."""


def split_sections(block: OpenBlock, error: ErrorSink, warn: ErrorSink, end_length: int = 0) -> Cut | None:
    """Cut the block body at its dividers, or report why it cannot be cut unambiguously. ``end_length`` is the
    length of the marker the block ended at (0: it ended otherwise)."""
    body, dividers, line = block.body, block.dividers, block.line
    start = block.start
    if start is _SEARCH_START:  # (the assembler cuts a SEARCH block with one separator itself, without this call)
        return _split_search(block, error, warn, end_length)
    if start is MarkerKind.NEW_FILE_START:
        return ("", "", "".join(body), ""), (), 0
    if start is MarkerKind.ANCHORED_START:
        sections = _split_anchored(block, error)
        return (sections, (), 0) if sections is not None else None
    if start is MarkerKind.OLD_TEXT_START:
        return _split_tags(block, error)
    if len(dividers) == 1:
        index = dividers[0].index
        return _split_common_prefix("".join(body[:index]), "".join(body[index:])), (), 0
    if not dividers:
        error(line, f"block at line {line} has no separator")
        return None
    chosen = _pick_one(dividers, block.length)
    if chosen is None:
        _too_many_separators(block, dividers, error)
        return None
    return _split_common_prefix(*_around(block, chosen)), (), 0


def _split_tags(block: OpenBlock, error: ErrorSink) -> Cut | None:
    """Zed's edit: the old text up to `</old_text>`, the new text from `<new_text>` on, nothing but blank lines
    between the two."""
    body, dividers, line = block.body, block.dividers, block.line
    if [d.kind for d in dividers] != [MarkerKind.OLD_TEXT_END, MarkerKind.NEW_TEXT_START]:
        error(line, f"edit at line {line} needs `</old_text>`, then `<new_text>`, then `</new_text>`, each once and "
                    "on its own line")
        return None
    closing, opening = dividers
    if "".join(body[closing.index : opening.index]).strip():
        error(line, f"edit at line {line} has text between `</old_text>` and `<new_text>`; nothing of it is applied")
        return None
    return ("", "".join(body[: closing.index]), "".join(body[opening.index :]), ""), (), 0


def _split_search(block: OpenBlock, error: ErrorSink, warn: ErrorSink, end_length: int) -> Cut | None:
    """SEARCH/REPLACE: one separator, the one of the block's own length among several, or every reading that does
    not write one of the block's marker lines into the file."""
    line = block.line
    candidates = block.dividers or [d for d in block.look_alikes if d.kind in _SEPARATOR_KINDS]
    if not candidates:
        error(line, f"block at line {line} has no separator")
        return None
    chosen = candidates[0] if len(candidates) == 1 else None
    same_length = [d for d in candidates if d.length == block.length]
    if chosen is None and len(same_length) == 1 and block.dividers:
        chosen = same_length[0]
    if chosen is not None:
        old, new = _around(block, chosen)
        marker = marker_written(block, chosen, old, new, end_length)
        if marker is not None:
            error(line, f"block at line {line} would write the marker line `{marker}` into the file as text: its "
                        f"markers have mixed lengths, so where it ends is unclear; nothing of it is applied. Write "
                        f"every marker of a block with one length (9 characters, `<<<<<<<<< SEARCH`, `=========`, "
                        f"`>>>>>>>>> REPLACE`, when its text holds marker-like lines)")
            return None
        return ("", old, new, ""), (), chosen.length
    if len(candidates) > MAX_READINGS:
        _too_many_separators(block, candidates, error)
        return None
    cuts = _readings(block, candidates, end_length)
    readings = [reading for reading, _ in cuts]
    where = _line_numbers(d.line for d in candidates)
    if not readings:
        error(line, f"block at line {line} has {len(candidates)} separator lines (lines {where}), and every way of "
                    "reading it would write a marker line into the file as text; nothing of it is applied. If its "
                    "text holds such lines, write it with 9-character markers (`<<<<<<<<< SEARCH`, `=========`, "
                    "`>>>>>>>>> REPLACE`)")
        return None
    if len(cuts) == 1:
        only, divider = cuts[0]
        warn(line, f"block at line {line} has {len(candidates)} separator lines (lines {where}); read as "
                   f"{only.note}, its only reading that does not write a marker line into the file")
        return ("", only.old, only.new, ""), (), divider.length
    warn(line, f"block at line {line} has {len(candidates)} separator lines (lines {where}); each way of reading it "
               "is tried against the file, and only a reading whose old text the file holds is applied")
    first = readings[0]
    return ("", first.old, first.new, ""), tuple(readings), 0


def marker_written(block: OpenBlock, divider: Divider, old: str, new: str, end_length: int) -> str | None:
    """The marker line of the block's own dialect that cutting it at ``divider`` would put into its new text
    (and its old text does not hold there), if any. Every marker length is the dialect of a block with standard
    markers, where only a reading of several separators can leave one in the text; a strict (8 or 9 character)
    block's dialect is the lengths it used itself, so its shorter look-alike lines are text."""
    if not block.strict:
        return introduced_marker(old, new)
    if not any(look.index > divider.index for look in block.look_alikes):
        return None
    return introduced_marker(old, new, {block.length, divider.length, end_length or block.length})


def _readings(block: OpenBlock, candidates: list[Divider], end_length: int) -> list[tuple[Reading, Divider]]:
    """Every cut at one of ``candidates`` that does not write a marker line into the file, with the separator it
    is cut at; when the last of two separators stands right before the end marker, it may also be a doubled end
    (aider reads the second `=======` as one)."""
    cuts = [(Reading(*_around(block, divider), f"the split at the separator on line {divider.line}"), divider)
            for divider in candidates]
    first, last = candidates[0], candidates[-1]
    if len(candidates) == 2 and block.dividers and last.index == len(block.body):
        between = "".join(block.body[first.index : last.index])
        doubled = Reading(cuts[0][0].old, between, f"the split at line {first.line} with the `=======` on line "
                                                   f"{last.line} as a stray end")
        cuts.insert(0, (doubled, first))
    return [(reading, divider) for reading, divider in cuts
            if marker_written(block, divider, reading.old, reading.new, end_length) is None]


def _around(block: OpenBlock, chosen: Divider) -> tuple[str, str]:
    """The block's text before and after ``chosen``: its other separators are content lines where they stand."""
    body = block.body
    if chosen not in block.dividers:  # a look-alike: its line is a body slice of its own
        return "".join(body[: chosen.index]), "".join(body[chosen.index + 1 :])
    if len(block.dividers) == 1:
        return "".join(body[: chosen.index]), "".join(body[chosen.index :])
    at = block.dividers.index(chosen)
    return (_with_dividers(body, block.dividers[:at], 0, chosen.index),
            _with_dividers(body, block.dividers[at + 1 :], chosen.index, len(body)))


def _with_dividers(body: list[str], dividers: list[Divider], begin: int, end: int) -> str:
    """``body[begin:end]`` with the lines of ``dividers`` (all within that range) put back as content."""
    pieces: list[str] = []
    position = begin
    for divider in dividers:
        pieces.extend(body[position : divider.index])
        pieces.append(divider.text + "\n")
        position = divider.index
    pieces.extend(body[position:end])
    return "".join(pieces)


def _too_many_separators(block: OpenBlock, dividers: list[Divider], error: ErrorSink) -> None:
    line = block.line
    where = _line_numbers(d.line for d in dividers)
    error(line, f"block at line {line} has {len(dividers)} separator lines (lines {where}); cannot tell which one "
                "divides old from new text. If the text itself contains such lines, write the block with "
                "9-character markers (for example `<<<<<<<<< SEARCH`, `=========`, `>>>>>>>>> REPLACE`).")


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
    """Anchored blocks need dash, separator, dash in that order; extra look-alikes must not make it ambiguous,
    and stay in the text as the content lines they are."""
    dividers = block.dividers
    if len(dividers) == 3 and [d.kind for d in dividers] == _ANCHORED_LAYOUT:  # the common case, kept cheap
        body = block.body
        first, middle, second = (d.index for d in dividers)
        return "".join(body[:first]), "".join(body[first:middle]), "".join(body[middle:second]), "".join(body[second:])
    for candidates in ([d for d in dividers if d.length == block.length], dividers):
        layouts = _anchored_layouts(candidates)
        if len(layouts) == 1:
            return _anchored_sections(block, layouts[0])
        if len(layouts) > 1:
            break
    line = block.line
    if not any(d.kind is MarkerKind.SEPARATOR for d in block.dividers):
        error(line, f"block at line {line} has no separator")
    else:
        error(line, f"anchored block at line {line} needs `-------`, `=======` and `-------` in that order, "
                    "exactly once each; if its text contains such lines, use 9-character markers")
    return None


def _anchored_sections(block: OpenBlock, layout: tuple[Divider, Divider, Divider]) -> Sections:
    body, dividers = block.body, block.dividers
    first, middle, second = layout
    at = [next(position for position, d in enumerate(dividers) if d is chosen) for chosen in layout]
    return (_with_dividers(body, dividers[: at[0]], 0, first.index),
            _with_dividers(body, dividers[at[0] + 1 : at[1]], first.index, middle.index),
            _with_dividers(body, dividers[at[1] + 1 : at[2]], middle.index, second.index),
            _with_dividers(body, dividers[at[2] + 1 :], second.index, len(body)))


_ANCHORED_LAYOUT = [MarkerKind.DASH, MarkerKind.SEPARATOR, MarkerKind.DASH]


def _anchored_layouts(dividers: list[Divider]) -> list[tuple[Divider, Divider, Divider]]:
    """Every dash–separator–dash layout, but only up to two: one is the answer, two already mean ambiguity."""
    if len(dividers) == 3 and [d.kind for d in dividers] == _ANCHORED_LAYOUT:
        return [(dividers[0], dividers[1], dividers[2])]
    dashes = [d for d in dividers if d.kind is MarkerKind.DASH]
    layouts: list[tuple[Divider, Divider, Divider]] = []
    dashes_before = 0
    for middle in dividers:
        if middle.kind is MarkerKind.DASH:
            dashes_before += 1
            continue
        for first in dashes[: min(dashes_before, 2)]:
            for last in dashes[dashes_before : dashes_before + 2]:
                layouts.append((first, middle, last))
                if len(layouts) > 1:
                    return layouts
    return layouts
