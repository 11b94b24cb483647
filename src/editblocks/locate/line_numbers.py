"""Line-number prefixes a model copied from a numbered file view into its old text (`12 | def f():`).

Tools show files with numbered lines (Roo's and Cline's `read_file` print
`12 | text`, `cat -n` and Anthropic's `view` print `    12<TAB>text`), and
models sometimes copy the numbers along. They are taken off only when the
old text as written is not in the file, every old line carries one, in one
style, with consecutive numbers; the new text loses its prefixes too when
every one of its lines has one. Anything in between is refused with a reason,
since a half-numbered block cannot be read with confidence.
"""

from __future__ import annotations

import re
from typing import Final

from editblocks.record import Record

_STYLES = (
    ("`12 | `", re.compile(r"[ \t]*(\d{1,9})[ \t]*\|(?: |$)")),
    ("`12<TAB>`", re.compile(r"[ \t]*(\d{1,9})\t")),
)


class Unnumbered(Record):
    __slots__ = ("search", "replace", "first", "style")
    search: Final[list[str]]
    replace: Final[list[str]]
    first: Final[int]
    """The number on the first old line: where the model saw it (a line hint)."""
    style: Final[str]

    def __init__(self, search: list[str], replace: list[str], first: int, style: str) -> None:
        self.search = search
        self.replace = replace
        self.first = first
        self.style = style


def strip_line_numbers(search: list[str], replace: list[str]) -> Unnumbered | str | None:
    """The lines without their number prefixes; a reason when they are numbered inconsistently; None when the old
    text does not start with a numbered line at all."""
    if not search:
        return None
    found_style = next(((style, pattern) for style, pattern in _STYLES if pattern.match(search[0])), None)
    if found_style is None:
        return None
    style, pattern = found_style
    numbers: list[int] = []
    stripped: list[str] = []
    for position, line in enumerate(search, start=1):
        found = pattern.match(line)
        if found is None:
            return _refusal(style, f"old line {position} has none")
        numbers.append(int(found.group(1)))
        stripped.append(line[found.end() :])
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return _refusal(style, "their numbers are not consecutive")
    new_matches = [pattern.match(line) for line in replace]
    if all(new_matches):
        new_lines = [line[found.end() :] for line, found in zip(replace, new_matches) if found is not None]
    elif any(new_matches):
        return _refusal(style, "only some of the new lines carry one")
    else:
        new_lines = list(replace)
    return Unnumbered(stripped, new_lines, numbers[0], style)


def _refusal(style: str, problem: str) -> str:
    return (f"the old text carries line-number prefixes ({style}) copied from a numbered view, but {problem}; "
            "copy the lines without their numbers")
