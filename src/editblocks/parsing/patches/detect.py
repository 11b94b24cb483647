"""Choosing a front-end: by the format asked for, or under `auto` by what the answer holds.

Under `auto` the marker parser reads the answer first (it is the common
case and the fastest); only when it finds no block is the answer checked
for a V4A patch, then for a unified diff. Whole-file answers look like any
code snippet, so they are read only when asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from editblocks.model import FRONT_END_FORMATS, Format, ParseResult, ShellSuggestion
from editblocks.parsing.patches.common import lf_only

ShellOf = Callable[[str], tuple[ShellSuggestion, ...]]
"""The shell suggestions in prose, read by the marker parser (which sits above the patch readers and hands itself
down)."""


def read_whole_answer(text: str, format: Format, known_files: Collection[str] | None,
                      markers: ParseResult | None, shell_of: ShellOf) -> ParseResult | None:
    """What a front-end reads in a complete answer: for a front-end format, its parse; under `auto`, when the
    marker parser found no block (``markers``), the patch the answer holds, if it yields a block or an error
    (a look-alike such as a `---` line over a `+++` line in prose yields neither); else None."""
    if format in FRONT_END_FORMATS:
        return front_end_parse(text, format, shell_of, known_files)
    if format is Format.AUTO and markers is not None and not markers.blocks:
        found = auto_patch(text, shell_of, known_files)
        return found if found is not None and (found.blocks or found.errors) else None
    return None


def front_end_parse(text: str, format: Format, shell_of: ShellOf,
                    known_files: Collection[str] | None = None) -> ParseResult:
    """The blocks of ``text`` read by the front-end of ``format`` (one of `FRONT_END_FORMATS`).

    A patch's shell suggestions come from the prose around it, read as the marker parser reads it.
    """
    if format is Format.WHOLE:
        from editblocks.parsing.patches.whole import parse_whole

        return parse_whole(text, known_files)
    if format is Format.V4A:
        from editblocks.parsing.patches.v4a import read_v4a

        found, spans = read_v4a(text)
    else:
        from editblocks.parsing.patches.unified import read_unified

        found, spans = read_unified(text)
    return ParseResult(found.format, found.blocks, _shell_outside(text, spans, shell_of), found.diagnostics)


def _shell_outside(text: str, spans: list[tuple[int, int]], shell_of: ShellOf) -> tuple[ShellSuggestion, ...]:
    """The shell suggestions in the prose around a patch: the patch's own lines are blanked (kept as line
    breaks, so line numbers hold) before the marker parser reads the rest, which costs next to nothing. An
    answer that is all patch has no prose to read at all."""
    text = lf_only(text)
    clamped, previous = [], 0
    for start, end in spans:  # clamped, so a span that is empty or overlaps the one before never repeats prose
        start = max(start, previous)
        previous = max(end, start)
        clamped.append((start, previous))
    prose, previous = [], 0
    for start, end in clamped:
        prose.append(text[previous:start])
        previous = end
    prose.append(text[previous:])
    if not any(piece.strip() for piece in prose):
        return ()
    pieces = []
    for before, (start, end) in zip(prose, clamped):
        pieces += [before, "\n" * text.count("\n", start, end)]
    pieces.append(prose[-1])
    return shell_of("".join(pieces))


def auto_patch(text: str, shell_of: ShellOf, known_files: Collection[str] | None = None) -> ParseResult | None:
    """Under `auto`, when the marker parser found no block: the V4A patch or unified diff ``text`` holds, if any,
    read as its own format reads it (shell suggestions from the prose around the patch only)."""
    from editblocks.parsing.patches.unified import looks_like_unified
    from editblocks.parsing.patches.v4a import looks_like_v4a

    if looks_like_v4a(text):
        return front_end_parse(text, Format.V4A, shell_of, known_files)
    if looks_like_unified(text):
        return front_end_parse(text, Format.UDIFF, shell_of, known_files)
    return None
