"""Unified diffs of what an apply changed, and the changed words inside a changed line.

Lines are aligned by `line_diff` (common leading and trailing lines cut
first, lines unique on both sides as anchors), so a one-line edit in a
100,000-line file costs next to nothing, and 10,000 edits cost a few passes.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import Final

from editblocks.record import Record
from editblocks.text.line_diff import Opcode, hunks, line_opcodes

CONTEXT_LINES = 3
_HUNK_HEADER = r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@"
_TOKEN = r"\w+|\s+|[^\w\s]"


def unified_diff(path: str, original: str | None, new: str, context: int = CONTEXT_LINES, *, deleted: bool = False,
                 old_path: str | None = None) -> str:
    """The unified diff of one file (`original` None: the file is created; ``deleted``: it is removed;
    ``old_path``: it was renamed from there)."""
    window = _changed_window(original or "", new, context)
    old_lines = _lines_between(original, window.old_start, window.old_end) if original is not None else []
    new_lines = _lines_between(new, window.new_start, window.new_end, old_lines)
    groups = hunks(_opcodes(old_lines, new_lines, context), context)
    fromfile = "/dev/null" if original is None else f"a/{old_path or path}"
    tofile = "/dev/null" if deleted else f"b/{path}"
    if not groups:
        return f"--- {fromfile}\n+++ {tofile}\n" if old_path is not None else ""  # a pure rename: the names tell it
    out = [f"--- {fromfile}\n", f"+++ {tofile}\n"]
    first_line = window.first_line
    for group in groups:
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1] + first_line, last[2] + first_line)} "
                   f"+{_range(first[3] + first_line, last[4] + first_line)} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_row(" ", line) for line in old_lines[i1:i2])
                continue
            out.extend(_row("-", line) for line in old_lines[i1:i2])
            out.extend(_row("+", line) for line in new_lines[j1:j2])
    return "".join(out)


class _Window(Record):
    """The part of both texts a diff needs: the changed lines with ``context`` equal lines around them.

    Both start ``first_line`` lines into the files (at ``old_start`` and
    ``new_start``) and end where their last ``context`` equal lines end; the
    lines before and after are the same in both, so the diff of the windows
    is the diff of the files.
    """

    __slots__ = ("old_start", "old_end", "new_start", "new_end", "first_line")
    old_start: Final[int]
    old_end: Final[int]
    new_start: Final[int]
    new_end: Final[int]
    first_line: Final[int]

    def __init__(self, old_start: int, old_end: int, new_start: int, new_end: int, first_line: int) -> None:
        self.old_start = old_start
        self.old_end = old_end
        self.new_start = new_start
        self.new_end = new_end
        self.first_line = first_line


def _changed_window(old: str, new: str, context: int) -> _Window:
    """Found by comparing the texts a block of characters at a time (as fast as memory compares), so a small edit
    of a big file splits and aligns a few lines rather than all of them.

    Lines compare as `_bare_lines` makes them (a last line without a newline differs from the same line with
    one). The equal leading lines are those whose newline lies in the common leading characters; the equal
    trailing lines, those inside the common trailing characters of what follows them that begin a line in both
    texts. The window keeps ``context`` of each, as `_opcodes` would.
    """
    if old == new:
        return _Window(0, 0, 0, 0, 0)
    head_end = old.rfind("\n", 0, _common_prefix(old, new)) + 1  # where the first line that differs begins
    head = old.count("\n", 0, head_end)
    tail_chars = _common_suffix(old, new, min(len(old), len(new)) - head_end)
    tail = 0
    old_end = len(old)  # where the window ends: ``context`` lines into the equal trailing lines
    if tail_chars:
        old_tail, new_tail = len(old) - tail_chars, len(new) - tail_chars
        begins_line = ((old_tail == head_end or old[old_tail - 1] == "\n")
                       and (new_tail == head_end or new[new_tail - 1] == "\n"))
        tail = old.count("\n", old_tail, len(old) - 1) + begins_line
        if tail > context:
            old_end = old_tail if begins_line else old.find("\n", old_tail) + 1
            for _ in range(context):
                old_end = old.find("\n", old_end) + 1
    start = head_end
    for _ in range(min(head, context)):
        start = old.rfind("\n", 0, start - 1) + 1
    return _Window(start, old_end, start, len(new) - (len(old) - old_end), max(0, head - context))


COMPARE_CHUNK = 65_536
"""Characters compared at a time while looking for the first difference of two texts."""


def _common_prefix(first: str, second: str) -> int:
    """How many leading characters the texts share."""
    limit = min(len(first), len(second))
    low = 0
    while low < limit:
        high = min(limit, low + COMPARE_CHUNK)
        if first[low:high] != second[low:high]:
            while high - low > 1:  # the first difference is in [low, high)
                middle = (low + high) // 2
                if first[low:middle] == second[low:middle]:
                    low = middle
                else:
                    high = middle
            return low
        low = high
    return limit


def _common_suffix(first: str, second: str, limit: int) -> int:
    """How many trailing characters the texts share, at most ``limit``."""
    first_end, second_end = len(first), len(second)
    same = 0
    while same < limit:
        step = min(limit, same + COMPARE_CHUNK)
        if first[first_end - step : first_end - same] != second[second_end - step : second_end - same]:
            while step - same > 1:  # the last difference is between `same` and `step` characters from the end
                middle = (same + step) // 2
                if first[first_end - middle : first_end - same] == second[second_end - middle : second_end - same]:
                    same = middle
                else:
                    step = middle
            return same
        same = step
    return limit


def _bare_lines(text: str) -> list[str]:
    """Lines split at `\n` without their ends (half the memory of copies with them); a last line without a
    newline keeps a `\n` as its mark, so it differs from the same line with one, as it does for diff."""
    lines = text.split("\n")
    last = lines.pop()
    if last:
        lines.append(last + "\n")
    return lines


SHARE_CHUNK = 65_536
"""Characters of the new text split into lines at a time while sharing them with the old text's equal lines."""


def _lines_between(text: str, start: int, end: int, shared_with: list[str] | None = None) -> list[str]:
    """`_bare_lines` of ``text[start:end]`` (``end`` is the text's end or the start of a line), split a chunk at
    a time so that the window is never copied whole; with ``shared_with``, each line equal to one of those is
    that very string object.

    An edited big file is mostly its old lines: sharing them keeps one copy of the file's lines in memory
    during the diff instead of two.
    """
    if end - start <= SHARE_CHUNK:
        return _bare_lines(text[start:end])
    known = {line: line for line in shared_with} if shared_with is not None else None
    lines: list[str] = []
    while start < end:
        cut = min(end, text.find("\n", start + SHARE_CHUNK) + 1 or end)
        chunk = _bare_lines(text[start:cut])
        lines.extend(chunk if known is None else [known.get(line, line) for line in chunk])
        start = cut
    return lines


def _row(prefix: str, line: str) -> str:
    if line.endswith("\n"):
        return prefix + line + "\\ No newline at end of file\n"
    return prefix + line + "\n"


def _opcodes(old_lines: list[str], new_lines: list[str], context: int) -> list[Opcode]:
    """The alignment of the changed region with ``context`` lines around it (common edges cut first, so a
    small change in a big file aligns a small window), in the files' own line numbers."""
    head = 0
    limit = min(len(old_lines), len(new_lines))
    while head < limit and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < limit - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    start = max(0, head - context)
    cut = max(0, tail - context)
    whole = start == cut == 0  # no copies of a big file's lists when its first and last lines changed too
    old_window = old_lines if whole else old_lines[start : len(old_lines) - cut]
    new_window = new_lines if whole else new_lines[start : len(new_lines) - cut]
    return [(tag, i1 + start, i2 + start, j1 + start, j2 + start)
            for tag, i1, i2, j1, j2 in line_opcodes(old_window, new_window)]


def _range(start: int, stop: int) -> str:
    """A hunk side's `first,count` (1-based; `count` left out when 1, `first` one lower when the side is empty)."""
    count = stop - start
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"


def split_lines(text: str) -> list[str]:
    """Lines with their ends, split at `\\n` only, as diff and patch do.

    `str.splitlines` also splits at form feeds, U+2028, a lone CR and more,
    which would cut one file line in two and corrupt the hunks.
    """
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


def word_changes(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans that differ between two lines.

    Lines are compared word by word (readable, unlike raw character diffs);
    a changed run is then narrowed to its differing characters only when
    those are a small part of it (`greet` → `greets`, `8000` → `8080`).
    """
    old_tokens, new_tokens = re.findall(_TOKEN, old), re.findall(_TOKEN, new)
    old_offsets, new_offsets = _offsets(old_tokens), _offsets(new_tokens)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for a1, a2, b1, b2 in _changed_runs(old_tokens, new_tokens):
        old_span, new_span = _narrowed(old, new, (old_offsets[a1], old_offsets[a2]), (new_offsets[b1], new_offsets[b2]))
        if old_span[1] > old_span[0]:
            old_spans.append(old_span)
        if new_span[1] > new_span[0]:
            new_spans.append(new_span)
    return old_spans, new_spans


def _changed_runs(old_tokens: list[str], new_tokens: list[str]) -> list[tuple[int, int, int, int]]:
    """Token ranges that differ; a deletion next to an insertion is one replaced run."""
    from rapidfuzz.distance import Indel  # only the word highlighting of a drawn diff needs it

    runs: list[tuple[int, int, int, int]] = []
    after_equal = True
    for opcode in Indel.opcodes(old_tokens, new_tokens):
        if opcode.tag == "equal":
            after_equal = True
        elif after_equal:
            runs.append((opcode.src_start, opcode.src_end, opcode.dest_start, opcode.dest_end))
            after_equal = False
        else:
            runs[-1] = (runs[-1][0], opcode.src_end, runs[-1][2], opcode.dest_end)
    return runs


def _narrowed(old: str, new: str, old_span: tuple[int, int], new_span: tuple[int, int]) -> tuple[
    tuple[int, int], tuple[int, int]
]:
    """Both spans without the characters they share at their edges, when the shared part is at least half."""
    before, after = old[old_span[0] : old_span[1]], new[new_span[0] : new_span[1]]
    prefix = len(os.path.commonprefix([before, after]))
    room = min(len(before), len(after)) - prefix
    suffix = len(os.path.commonprefix([before[::-1][:room], after[::-1][:room]]))
    if 2 * (prefix + suffix) < max(len(before), len(after)):
        return old_span, new_span
    return (old_span[0] + prefix, old_span[1] - suffix), (new_span[0] + prefix, new_span[1] - suffix)


def _offsets(tokens: list[str]) -> list[int]:
    offsets = [0]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets


# Control characters, C1 controls, line separators and bidirectional overrides, shown as signs or escapes:
# a terminal obeys ESC sequences, rich silently drops a form feed or CR (shifting the highlights),
# U+2028 breaks one line in two on screen, and a bidi override makes text read unlike what it is.
_VISIBLE: dict[int, int | str] = {
    **{code: 0x2400 + code for code in range(32) if code not in (9, 10)},
    0x7F: 0x2421,
    **{code: f"\\x{code:02x}" for code in range(0x80, 0xA0)},
    **{code: f"\\u{code:04x}" for code in (0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A))},
}


def printable(text: str) -> str:
    """`text` safe to print for people: every character listed above (not tab or newline) made visible,
    and every other invisible format character (zero-width, bidi marks: Unicode category Cf) escaped,
    so `src/app\\u200b.py` never prints as `src/app.py`."""
    shown = text.translate(_VISIBLE)
    if shown.isascii() or shown.isprintable():
        return shown
    return "".join(format_escape(char) if _is_format(char) else char for char in shown)


def format_escape(char: str) -> str:
    """`\\u200b`, or `\\U000e0041` beyond the first plane: how an invisible character is shown."""
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _is_format(char: str) -> bool:
    return not char.isprintable() and unicodedata.category(char) == "Cf"


def diff_rows(diff: str) -> list[tuple[str, str]]:
    """Each line of a unified diff with its kind: `header`, `hunk`, `-`, `+`, ` ` or `\\` (no newline marker).

    Hunk headers give the number of lines that follow, so a removed `-- comment` is never mistaken for a
    `--- path` header. Lines are split at newlines only and made safe to print; the CR of a CRLF ending
    is the ending, not content, so it is left out.
    """
    rows: list[tuple[str, str]] = []
    old_left = new_left = 0
    for line in split_lines(diff):
        line = printable(line.removesuffix("\n").removesuffix("\r"))
        kind = line[:1] if line[:1] in ("-", "+", "\\") else " "
        if old_left > 0 or new_left > 0 or kind == "\\":
            old_left -= kind in ("-", " ")
            new_left -= kind in ("+", " ")
            rows.append((kind, line))
        elif match := re.match(_HUNK_HEADER, line):
            old_left, new_left = _count(match[2]), _count(match[4])
            rows.append(("hunk", line))
        else:
            rows.append(("header", line))
    return rows


def _count(group: str | None) -> int:
    """A hunk header's `,N` line count; a missing one means 1."""
    return int(group[1:]) if group else 1
