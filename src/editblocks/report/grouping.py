"""Long lists for people, cut to a readable, bounded size: the first items of each kind, then counts of the rest.

A hostile or runaway answer can carry 30,000 stray markers or 10,000 blocks;
printing every one takes seconds and helps nobody. Items are kept in their
order while their kind has shown fewer than ``per_kind`` and the list fewer
than ``total``; the rest are counted by kind, with the first of them as the
example (`… and 29,950 more like this: ...`). `--json` still carries them all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Generic, TypeVar

from editblocks.model import Diagnostic, EditResult, counted

T = TypeVar("T")

SHOWN_PER_KIND = 50
SHOWN_IN_ALL = 200
LISTED_KINDS = 10
"""Kinds of cut items named one by one; the rest are summed on one line."""

EXAMPLE_CHARS = 160
SHOWN_DIFF_LINES = 400
"""Lines of each file's diff shown in the terminal (`--patch` and `--json` hold the whole diff)."""

_QUOTED = r"`[^`\n]*`|'[^'\n]*'|\"[^\"\n]*\""
_NUMBER = r"\d+"


class Omitted:
    """Items of one kind that were not shown: how many, and the first of them as the example."""

    __slots__ = ("kind", "count", "example")

    def __init__(self, kind: str, count: int, example: str) -> None:
        self.kind = kind
        self.count = count
        self.example = example


class Capped(Generic[T]):
    """The items to show, and the others counted by kind."""

    __slots__ = ("shown", "omitted")

    def __init__(self, shown: list[T], omitted: list[Omitted]) -> None:
        self.shown = shown
        self.omitted = omitted

    @property
    def hidden(self) -> int:
        return sum(group.count for group in self.omitted)


def capped(items: Iterable[T], kind_of: Callable[[T], str], describe: Callable[[T], str],
           per_kind: int = SHOWN_PER_KIND, total: int = SHOWN_IN_ALL) -> Capped[T]:
    """The items to show and the ones cut, counted by kind (most numerous first). One pass, no copies kept of
    the cut items beyond the first of each kind."""
    shown: list[T] = []
    shown_by_kind: dict[str, int] = {}
    omitted: dict[str, Omitted] = {}
    for item in items:
        kind = kind_of(item)
        so_far = shown_by_kind.get(kind, 0)
        if so_far < per_kind and len(shown) < total:
            shown.append(item)
            shown_by_kind[kind] = so_far + 1
        elif kind in omitted:
            omitted[kind].count += 1
        else:
            omitted[kind] = Omitted(kind, 1, describe(item))
    return Capped(shown, sorted(omitted.values(), key=lambda group: -group.count))


def omitted_lines(cut: Capped[T]) -> list[str]:
    """`… and 29,950 more like this: warning: `>>>>>>> REPLACE` without a block start before it`, per kind."""
    groups = cut.omitted
    lines = [f"… and {group.count:,} more like this: {group.example}" for group in groups[:LISTED_KINDS]]
    rest = groups[LISTED_KINDS:]
    if rest:
        lines.append(f"… and {sum(group.count for group in rest):,} more of {counted(len(rest), 'other kind')}")
    return lines


def diagnostic_kind(diagnostic: Diagnostic) -> str:
    """A diagnostic's message with what it quotes and its numbers left out: `"`…` without a block start"`."""
    return diagnostic.severity.value + ":" + _message_shape(diagnostic.message)


@lru_cache(maxsize=4096)
def _message_shape(message: str) -> str:
    """Cached: a hostile answer repeats the same few messages a million times."""
    return re.sub(_NUMBER, "N", re.sub(_QUOTED, "…", message))


def describe_diagnostic(diagnostic: Diagnostic) -> str:
    return _cut(f"{diagnostic.severity.value} at line {diagnostic.line}: {diagnostic.message}")


def result_kind(result: EditResult) -> str:
    return f"{result.status.value} {result.code.value}".strip()


def describe_result(result: EditResult) -> str:
    what = f"{result.status.value} ({result.code.value})" if result.code.value else result.status.value
    return _cut(f"{what}, first at block line {result.block.line} ({result.path})")


def _cut(text: str) -> str:
    first = text.split("\n", 1)[0]
    return first if len(first) <= EXAMPLE_CHARS else first[: EXAMPLE_CHARS - 1] + "…"


def diff_head(unified: str, max_lines: int = SHOWN_DIFF_LINES) -> tuple[str, str]:
    """The first hunks of a diff, about ``max_lines`` lines (whole hunks, at least part of the first), and a note
    saying what was left out ("" when nothing was)."""
    if unified.count("\n") <= max_lines:
        return unified, ""
    lines = unified.split("\n")
    cut = max_lines
    for position in range(max_lines, 2, -1):
        if lines[position].startswith("@@ "):
            cut = position
            break
    rest = lines[cut:]
    hunks = sum(1 for line in rest if line.startswith("@@ "))
    note = (f"… diff cut after {counted(cut, 'line')}: {counted(len(rest) - 1, 'more line')}"
            + (f" in {counted(hunks, 'more hunk')}" if hunks else "")
            + " (all of it: --patch FILE or --json)")
    return "\n".join(lines[:cut]) + "\n", note

