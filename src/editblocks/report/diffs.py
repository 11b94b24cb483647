"""Diffs shown in a terminal: removed and added lines in colour, the changed words emphasised."""

from __future__ import annotations

from rich.text import Text

from editblocks.text.diff import diff_rows, word_changes


def render_diff(diff: str) -> Text:
    """A unified diff as styled text: removed/added lines in red/green, changed characters emphasised."""
    text = Text()
    rows = diff_rows(diff)
    index = 0
    while index < len(rows):
        kind, line = rows[index]
        if kind == "-":
            removed = _run(rows, index, "-")
            added = _run(rows, index + len(removed), "+")
            _append_pair(text, removed, added)
            index += len(removed) + len(added)
            continue
        text.append(line + "\n", style=_ROW_STYLE[kind])
        index += 1
    return text


_ROW_STYLE = {"header": "bold", "hunk": "cyan", "+": "green", " ": "dim", "\\": "dim"}


def _run(rows: list[tuple[str, str]], start: int, kind: str) -> list[str]:
    end = start
    while end < len(rows) and rows[end][0] == kind:
        end += 1
    return [line for _, line in rows[start:end]]


def _append_pair(text: Text, removed: list[str], added: list[str]) -> None:
    """Removed and added lines in order, with changed characters highlighted where the lines pair up."""
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
