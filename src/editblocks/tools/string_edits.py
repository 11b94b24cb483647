"""The `edit` and `multi_edit` tools' edits (Claude Code's shape), as pure functions on a file's lines.

An edit's old text is matched as text first, so it may start or end inside a
line. Without `replace_all` it must occur exactly once; with it every
occurrence is replaced; `expected` refuses any other count. Old text that does
not occur as written goes through the matching ladder as whole lines, which
demands one place too. The edits of one call apply in order, each to the text
the previous ones left, and the outcome is all of them or none. Each line of the
result knows the original line it reproduces unchanged, so the caller can keep
that line's own ending (mixed files stay mixed).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from editblocks.locate.diagnosis import line_span
from editblocks.locate.ladder import locate
from editblocks.locate.types import Ambiguous, LocateOptions, NotFound
from editblocks.model import percent
from editblocks.tools.edit_arguments import StringEdit
from editblocks.tools.text_editor import LineEdit, at_lines, joined, occurrences


@dataclass(frozen=True)
class EditDone:
    """What one edit replaced: how many places, the 1-based line each started on, and the rung that found it."""

    count: int
    lines: tuple[int, ...]
    strategy: str = "exact"


@dataclass(frozen=True)
class EditsPlanned:
    """Every edit applied: ``change`` turns the file into the result (``change.sources`` are its kept lines)."""

    change: LineEdit
    done: tuple[EditDone, ...]


@dataclass(frozen=True)
class EditRefused:
    """Edit number ``index`` (0-based) cannot be made; ``reason`` says why and how to fix it."""

    index: int
    reason: str


@dataclass
class _Text:
    lines: list[str]
    final_newline: bool
    origins: list[int | None]  # per line, the original line it reproduces unchanged


def plan_string_edits(lines: Sequence[str], final_newline: bool, edits: Sequence[StringEdit], path: str,
                      options: LocateOptions = LocateOptions()) -> EditsPlanned | EditRefused:
    """Apply ``edits`` in order to the file's ``lines`` (no endings); all of them, or the first refusal."""
    state = _Text(list(lines), final_newline, list(range(len(lines))))
    done: list[EditDone] = []
    for index, edit in enumerate(edits):
        outcome = _apply_one(state, edit, path, options)
        if isinstance(outcome, str):
            return EditRefused(index, outcome)
        state, report = outcome
        done.append(report)
    return EditsPlanned(_change(len(lines), final_newline, state), tuple(done))


def _apply_one(state: _Text, edit: StringEdit, path: str, options: LocateOptions) -> tuple[_Text, EditDone] | str:
    text = joined(state.lines, state.final_newline)
    if edit.replace_all or (edit.expected or 1) > 1:
        positions = _every(text, edit.old)
        if edit.expected is not None and len(positions) != edit.expected:
            where = f" (at {at_lines(_line_numbers(text, positions))})" if positions else ""
            return (f"`old_string` occurs {len(positions)} times in {path}{where}, but `expected_replacements` "
                    f"is {edit.expected}; nothing was changed. Check the count, or quote more text to pick the "
                    "places")
    else:
        found = occurrences(text, edit.old)
        if len(found.lines) > 1 or found.truncated:
            more = " or more" if found.truncated else ""
            return (f"`old_string` occurs {len(found.lines)}{more} times in {path} (starting at "
                    f"{at_lines(found.lines)}); it must occur exactly once. Include more of the surrounding text so "
                    "it matches one place, or set `replace_all` to change every occurrence")
        positions = [text.find(edit.old)] if found.lines else []
    if positions:
        return _replaced(state, text, positions, edit), EditDone(len(positions), tuple(_line_numbers(text, positions)))
    return _by_lines(state, edit, path, options)


def _every(text: str, old: str) -> list[int]:
    """Where each occurrence of ``old`` starts, left to right, none overlapping the one before."""
    positions: list[int] = []
    position = text.find(old)
    while position != -1:
        positions.append(position)
        position = text.find(old, position + len(old))
    return positions


def _line_numbers(text: str, positions: Sequence[int]) -> list[int]:
    numbers, line, counted_to = [], 1, 0
    for position in positions:
        line += text.count("\n", counted_to, position)
        counted_to = position
        numbers.append(line)
    return numbers


def _replaced(state: _Text, text: str, positions: Sequence[int], edit: StringEdit) -> _Text:
    """The text with ``edit.old`` at each of ``positions`` replaced; a line of the result keeps its origin when it
    is an old line copied whole from between the replaced places."""
    pieces: list[str] = []
    copied: list[tuple[int, int, int]] = []  # (start in the new text, start in the old text, length)
    cursor = written = 0
    for position in positions:
        copied.append((written, cursor, position - cursor))
        pieces += [text[cursor:position], edit.new]
        written += position - cursor + len(edit.new)
        cursor = position + len(edit.old)
    copied.append((written, cursor, len(text) - cursor))
    pieces.append(text[cursor:])
    result = "".join(pieces)
    new_lines = _split(result)
    starts = _line_starts(state.lines)
    origins: list[int | None] = []
    region = 0
    offset = 0
    for line in new_lines:
        length = len(line) + (1 if offset + len(line) < len(result) else 0)
        while region + 1 < len(copied) and copied[region + 1][0] <= offset:
            region += 1
        origins.append(_origin(state, starts, copied[region], offset, length, text))
        offset += length
    final = result.endswith("\n") if result else state.final_newline
    return _Text(new_lines, final, origins)


def _origin(state: _Text, starts: list[int], region: tuple[int, int, int], offset: int, length: int,
            text: str) -> int | None:
    """The origin of the new line at ``offset`` (``length`` characters with its newline), if it is a whole old
    line copied unchanged."""
    new_start, old_start, size = region
    if not new_start <= offset or offset + length > new_start + size:
        return None
    old_offset = old_start + offset - new_start
    index = bisect_right(starts, old_offset) - 1
    if index < 0 or starts[index] != old_offset:
        return None
    old_length = len(state.lines[index]) + (1 if old_offset + len(state.lines[index]) < len(text) else 0)
    return state.origins[index] if old_length == length else None


def _line_starts(lines: Sequence[str]) -> list[int]:
    starts, offset = [], 0
    for line in lines:
        starts.append(offset)
        offset += len(line) + 1
    return starts


def _by_lines(state: _Text, edit: StringEdit, path: str, options: LocateOptions) -> tuple[_Text, EditDone] | str:
    """Old text that does not occur as written, looked for as whole lines by the tolerant rungs."""
    search, replace = _split(edit.old), _split(edit.new)
    if not search or not any(line.strip() for line in search):
        return f"`old_string` does not occur in {path}; `view` the file and copy the text to replace exactly"
    outcome = locate(state.lines, search, replace, options)
    if isinstance(outcome, Ambiguous):
        more = " and more" if outcome.truncated else ""
        return (f"`old_string` does not occur in {path} as written, and read as whole lines ({outcome.strategy}) it "
                f"matches at {at_lines([start + 1 for start in outcome.starts])}{more}; include more of the "
                "surrounding text so it matches one place")
    if isinstance(outcome, NotFound):
        return _not_found(state, edit, path, outcome)
    origins = [state.origins[source] if source is not None else None for source in outcome.sources]
    lines = state.lines[: outcome.start] + list(outcome.new_lines) + state.lines[outcome.end :]
    kept = state.origins[: outcome.start] + origins + state.origins[outcome.end :]
    return _Text(lines, state.final_newline, kept), EditDone(1, (outcome.start + 1,), outcome.strategy.value)


def _not_found(state: _Text, edit: StringEdit, path: str, outcome: NotFound) -> str:
    reason = f"`old_string` was not found in {path}"
    near = outcome.near_miss
    if near is not None:
        reason += f"; the closest text is at {line_span(near.start, near.end)} ({percent(near.similarity)} similar)"
    if outcome.hint:
        reason += f" ({outcome.hint})"
    text = joined(state.lines, state.final_newline)
    if edit.new.strip() and (again := occurrences(text, edit.new)).lines and not again.truncated:
        reason += f"; `new_string` already occurs at {at_lines(again.lines)}, so the edit may already be made"
    reason += "."
    if near is not None and near.diff:
        reason += "\nHow the closest lines differ from old_string (`-` old_string, `+` the file):\n" + "\n".join(
            near.diff)
    return reason + "\nCopy `old_string` exactly from the file (`view` it first), including whitespace"


def _change(old_count: int, old_final: bool, state: _Text) -> LineEdit:
    """The smallest span of the original file that the result replaces, with the lines it keeps."""
    lines, origins = state.lines, state.origins
    start = 0
    while start < min(old_count, len(lines)) and origins[start] == start:
        start += 1
    tail = 0
    while (tail < min(old_count, len(lines)) - start
           and origins[len(lines) - 1 - tail] == old_count - 1 - tail):
        tail += 1
    final = state.final_newline if state.final_newline != old_final else None
    return LineEdit(start, old_count - tail, tuple(lines[start : len(lines) - tail]), final,
                    tuple(origins[start : len(lines) - tail]))


def _split(text: str) -> list[str]:
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts
