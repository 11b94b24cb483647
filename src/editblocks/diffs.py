"""Unified diffs of what an apply changed, with word-level highlights for people.

The diff runs only over the changed region (common leading and trailing
lines are cut first), so showing a one-line edit in a 100,000-line file
costs next to nothing; hunk headers are shifted back to real line numbers.
"""

from __future__ import annotations

import difflib
import re

from rapidfuzz.distance import Indel
from rich.text import Text

CONTEXT_LINES = 3
_HUNK_HEADER = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


def unified_diff(path: str, original: str | None, new: str, context: int = CONTEXT_LINES) -> str:
    """The unified diff of one file (`original` None: the file is created)."""
    old_lines = original.splitlines(keepends=True) if original is not None else []
    new_lines = new.splitlines(keepends=True)
    head = 0
    limit = min(len(old_lines), len(new_lines))
    while head < limit and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < limit - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    start = max(0, head - context)
    old_window = old_lines[start : len(old_lines) - max(0, tail - context)]
    new_window = new_lines[start : len(new_lines) - max(0, tail - context)]
    body = difflib.unified_diff(
        old_window, new_window,
        fromfile="/dev/null" if original is None else f"a/{path}", tofile=f"b/{path}", n=context,
    )
    return "".join(_terminated(_shift_header(line, start)) for line in body)


def _terminated(line: str) -> str:
    """A last line without a newline is followed by diff's marker, so lines never run together."""
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def _shift_header(line: str, offset: int) -> str:
    match = _HUNK_HEADER.match(line)
    if match is None or offset == 0:
        return line
    old_start, old_count, new_start, new_count = match.groups()
    old_start = str(int(old_start) + offset) if int(old_start) or old_count != ",0" else old_start
    new_start = str(int(new_start) + offset) if int(new_start) or new_count != ",0" else new_start
    return f"@@ -{old_start}{old_count or ''} +{new_start}{new_count or ''} @@" + line[match.end() :]


def word_changes(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans that differ between two lines, compared word by word (readable, unlike char diffs)."""
    old_tokens, new_tokens = _TOKEN.findall(old), _TOKEN.findall(new)
    old_offsets, new_offsets = _offsets(old_tokens), _offsets(new_tokens)
    old_spans: list[tuple[int, int]] = []
    new_spans: list[tuple[int, int]] = []
    for opcode in Indel.opcodes(old_tokens, new_tokens):
        if opcode.tag == "equal":
            continue
        a1, a2, b1, b2 = opcode.src_start, opcode.src_end, opcode.dest_start, opcode.dest_end
        if a2 > a1:
            old_spans.append((old_offsets[a1], old_offsets[a2]))
        if b2 > b1:
            new_spans.append((new_offsets[b1], new_offsets[b2]))
    return old_spans, new_spans


def _offsets(tokens: list[str]) -> list[int]:
    offsets = [0]
    for token in tokens:
        offsets.append(offsets[-1] + len(token))
    return offsets


def render_diff(diff: str) -> Text:
    """A unified diff as styled text: removed/added lines in red/green, changed words emphasised."""
    text = Text()
    lines = diff.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith(("---", "+++")):
            text.append(line + "\n", style="bold")
        elif line.startswith("@@"):
            text.append(line + "\n", style="cyan")
        elif line.startswith("-"):
            removed = _run(lines, index, "-")
            added = _run(lines, index + len(removed), "+")
            _append_pair(text, removed, added)
            index += len(removed) + len(added)
            continue
        elif line.startswith("+"):
            text.append(line + "\n", style="green")
        else:
            text.append(line + "\n", style="dim")
        index += 1
    return text


def _run(lines: list[str], start: int, prefix: str) -> list[str]:
    end = start
    while end < len(lines) and lines[end].startswith(prefix) and not lines[end].startswith(prefix * 3 + " "):
        end += 1
    return lines[start:end]


def _append_pair(text: Text, removed: list[str], added: list[str]) -> None:
    """Removed and added lines side by side in order, with changed words highlighted where they pair up."""
    pairs = len(removed) == len(added)
    for position, line in enumerate(removed):
        spans = word_changes(line[1:], added[position][1:])[0] if pairs else []
        _append_highlighted(text, line, spans, "red", "bold white on red")
    for position, line in enumerate(added):
        spans = word_changes(removed[position][1:], line[1:])[1] if pairs else []
        _append_highlighted(text, line, spans, "green", "bold white on green")


def _append_highlighted(text: Text, line: str, spans: list[tuple[int, int]], style: str, emphasis: str) -> None:
    start = len(text)
    text.append(line + "\n", style=style)
    for begin, end in spans:
        text.stylize(emphasis, start + 1 + begin, start + 1 + end)
