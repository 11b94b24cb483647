"""What a located block becomes: applied (the splice made), already applied, a no-op, ambiguous or not found.

Shared by marker edits and patch hunks, which locate their text differently
but report what they found the same way.
"""

from __future__ import annotations

from dataclasses import replace

from editblocks.locate.diagnosis import explain_anchor_failure
from editblocks.locate.fuzzy import FuzzyLines, score_window
from editblocks.locate.ladder import HINT_TOLERANCE, locate
from editblocks.locate.line_index import LineIndex
from editblocks.locate.types import (
    Ambiguous,
    Found,
    LocateOptions,
    NearMiss,
    NotFound,
    Rung,
)
from editblocks.model import EXACT_ONLY_FORMATS, FRONT_END_FORMATS, EditBlock, EditResult, ResultCode, Status, percent
from editblocks.plan.guards import (
    EDIT_MARKER,
    PLACEHOLDER,
    introduced_marker,
    introduced_placeholder,
    marker_reason,
    placeholder_reason,
)
from editblocks.plan.state import FileBuffer, FileState, PlanOptions, lines_of, span_words

MIN_ALREADY_APPLIED_CHARS = 12
MAX_ALREADY_APPLIED_CANDIDATES = 100
MAX_ALREADY_APPLIED_CHECKS = 10
ALREADY_APPLIED_SIMILARITY_MARGIN = 0.1
MAX_LISTED_CANDIDATES = 10


def locate_options(block: EditBlock, state: FileState, options: PlanOptions) -> LocateOptions:
    hint = state.current_line(block.line_hint - 1) if block.line_hint is not None else None
    return LocateOptions(rungs=options.rungs(block.format in EXACT_ONLY_FORMATS), first_match=options.first_match,
                         hint=hint)


def locate_in(state: FileState, lines: list[str], search: list[str], replacement: list[str],
              options: LocateOptions, index: LineIndex | None) -> Found | Ambiguous | NotFound:
    """`locate` on the file's current lines, sharing the file's cache from block to block."""
    return locate(lines, search, replacement, options, index, state.buffer.cache if state.buffer is not None else None)


def found(block: EditBlock, state: FileState, where: Found, note: str = "", *, advances: bool = False,
          repeats: bool = True) -> EditResult:
    """The block applies at ``where`` (the splice recorded), unless it changes nothing or (with ``repeats``) its
    new text already stands at the place a tolerant rung matched, or around the place (a re-sent insertion)."""
    assert state.buffer is not None
    first, last = where.start + 1, max(where.start + 1, where.end)
    similarity = round(where.similarity, 4)
    if block.is_noop:
        return EditResult(block, Status.SKIPPED,
                          f"no change: the old and new text are identical ({span_words(where.start, where.end)})",
                          ResultCode.NO_OP, first, last, where.strategy.value, similarity)
    lines = state.buffer.lines
    if repeats and where.strategy is not Rung.EXACT and _reads_as_new_text(lines, where, lines_of(block.replace)):
        return EditResult(
            block, Status.SKIPPED,
            f"already applied: the file already has the new text at {span_words(where.start, where.end)}, where the "
            "old text was matched (the two differ only in what the match ignores)",
            ResultCode.ALREADY_APPLIED, first, last, where.strategy.value, similarity,
        )
    there = _replacement_around(lines, where) if repeats else None
    if there is not None:
        end = there + len(where.new_lines)
        return EditResult(
            block, Status.SKIPPED,
            f"already applied: the new text is already in the file at {span_words(there, end)}, around the old "
            "text; applying it again would repeat the added lines",
            ResultCode.ALREADY_APPLIED, there + 1, end, where.strategy.value, similarity,
        )
    refused = refusal(block, state.source.key)
    if refused:
        code, why = refused
        return EditResult(block, Status.FAILED, why, ResultCode.REFUSED, first, last, where.strategy.value,
                          similarity, refusal=code)
    state.splice(where.start, where.end, where.new_lines, where.sources, advances=advances)
    reason = "; ".join(part for part in (note, _tolerance_note(where)) if part)
    return EditResult(block, Status.APPLIED, reason, ResultCode.NONE, first, last, where.strategy.value, similarity)


_TOLERANCE_NOTES = {
    Rung.EXACT: "",
    Rung.TRAILING_WHITESPACE: "matched after ignoring whitespace at line ends and blank edge lines",
    Rung.INDENTATION: "matched with the indentation shifted; the new lines were re-indented to fit",
    Rung.TYPOGRAPHY: "matched after folding typographic quotes, dashes and spaces",
    Rung.INTERNAL_WHITESPACE: "matched after reading runs of spaces and tabs inside lines as one space",
    Rung.BLANK_LINES: "matched by its non-blank lines (the hunk's blank context lines differ from the file's); the "
                      "file's own blank lines were kept",
    Rung.OMITTED_LINES: "matched piece by piece: the hunk's context leaves out lines of the file, which were kept",
    Rung.ELISION: "matched piece by piece around `...` lines; the elided lines were kept",
    Rung.FUZZY: "matched approximately (fuzzy)",
}


def would_apply(block: EditBlock, state: FileState, where: Found) -> bool:
    """Whether `found` would apply ``block`` at ``where`` (not a no-op, not already applied, not refused)."""
    assert state.buffer is not None
    lines = state.buffer.lines
    return not (block.is_noop or where.strategy is not Rung.EXACT
                and _reads_as_new_text(lines, where, lines_of(block.replace))
                or _replacement_around(lines, where) is not None or refusal(block, state.source.key) is not None)


def refusal(block: EditBlock, key: str) -> tuple[str, str] | None:
    """Why the block's new text may not be written, if it may not (the refusal code and the reason): it leaves
    code out, or (in a patch) holds another format's edit markers."""
    old, new = lines_of(block.search), lines_of(block.replace)
    placeholder = introduced_placeholder(old, new)
    if placeholder is not None:
        return PLACEHOLDER, placeholder_reason(*placeholder, key)
    marker = introduced_marker(old, new) if block.format in FRONT_END_FORMATS else None
    return (EDIT_MARKER, marker_reason(marker, key)) if marker is not None else None


def _tolerance_note(where: Found) -> str:
    note = _TOLERANCE_NOTES[where.strategy]
    if where.strategy is Rung.FUZZY:
        note += f", {percent(where.similarity)} similar"
    return note


def ambiguous(block: EditBlock, key: str, outcome: Ambiguous, state: FileState, length: int) -> EditResult:
    """Refused: the old text occurs more than once. With a line hint, the places nearest it are listed first."""
    lines = [start + 1 for start in outcome.starts]
    hint = state.current_line(block.line_hint - 1) if block.line_hint is not None else None
    ordered = sorted(lines, key=lambda line: abs(line - 1 - hint)) if hint is not None else lines
    shown = ordered[:MAX_LISTED_CANDIDATES]
    listed = ", ".join(str(n) for n in shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else str(shown[0])
    more = " and more" if outcome.truncated or len(lines) > len(shown) else ""
    reason = (f"edit location is ambiguous (matches at lines {listed}{more}) in {key}; "
              "include more surrounding lines so the old text occurs only once")
    if hint is not None:
        inside = sum(1 for start in outcome.starts
                     if start - HINT_TOLERANCE <= hint < start + length + HINT_TOLERANCE)
        where = "none of them" if not inside else "more than one of them"
        reason += f" (its line hint, line {block.line_hint}, points at {where})"
    return EditResult(block, Status.FAILED, reason, ResultCode.AMBIGUOUS, strategy=outcome.strategy.value,
                      candidates=tuple(lines))


def _reads_as_new_text(lines: list[str], where: Found, replacement: list[str]) -> bool:
    """Whether the place a tolerant rung matched already holds the new text: as the model wrote it, or as the rung
    adapted it (then writing it would change nothing, or re-indent lines that are right). The whole matched place
    must read so: a new text that only begins it (a deletion whose first lines stay) is an edit still to make."""
    here = lines[where.start : where.end]
    return list(where.new_lines) == here or bool(replacement) and here == replacement


def _replacement_around(lines: list[str], where: Found) -> int | None:
    """Where the file already holds the whole replacement around the located old text (a re-sent insertion).

    Only when the replacement adds non-blank lines: adding a blank line next
    to an existing one is a real edit, not a repeat.
    """
    new_lines = list(where.new_lines)
    added = [line for line, source in zip(new_lines, where.sources) if source is None]
    if not any(line.strip() for line in added):
        return None
    lowest = max(0, where.end - len(new_lines))
    highest = min(where.start, len(lines) - len(new_lines))
    for start in range(lowest, highest + 1):
        if lines[start : start + len(new_lines)] == new_lines:
            return start
    return None


def already_applied(block: EditBlock, lines: list[str], index: LineIndex | None,
                    replacement: list[str], near: NearMiss | None, buffer: FileBuffer | None) -> EditResult | None:
    """A re-sent edit: the old text is gone and the new text is where it was.

    "Where it was": the old text, placed where the new text is, is about as
    similar as it is to the region most like it anywhere. New text that only
    happens to occur elsewhere does not count (a typo in the old text must be
    reported, not hidden). Only when nothing is like the old text at all may a
    unique, substantial copy of the new text stand in.
    """
    if block.is_noop or not any(line.strip() for line in replacement):
        return None
    rungs = LocateOptions(rungs=(Rung.EXACT, Rung.TRAILING_WHITESPACE), max_candidates=MAX_ALREADY_APPLIED_CANDIDATES,
                          diagnose=False)
    outcome = locate(lines, replacement, replacement, rungs, index, buffer.cache if buffer is not None else None)
    if isinstance(outcome, NotFound):
        return None
    starts = outcome.starts if isinstance(outcome, Ambiguous) else (outcome.start,)
    if near is not None:
        search = FuzzyLines(lines_of(block.search))
        file = buffer.cache.fuzzy(lines, index) if buffer is not None else FuzzyLines(lines)
        beside = [start for start in starts[:MAX_ALREADY_APPLIED_CHECKS] if _where_old_was(file, search, start, near)]
        if not beside:
            return None
        start = beside[0]
    elif isinstance(outcome, Found) and len("".join(replacement).replace(" ", "")) >= MIN_ALREADY_APPLIED_CHARS:
        start = outcome.start
    else:
        return None
    end = start + len(replacement)
    return EditResult(
        block, Status.SKIPPED,
        f"already applied: the new text is already in the file at {span_words(start, end)} and the old text is not",
        ResultCode.ALREADY_APPLIED, start + 1, max(start + 1, end), outcome.strategy.value, 1.0,
    )


def _where_old_was(file: FuzzyLines, search: FuzzyLines, start: int, near: NearMiss) -> bool:
    """Whether the new text at ``start`` stands where the searched (old) text would have been."""
    if start < near.end and near.start < start + len(search):
        return True
    window = score_window(file, search, start)
    return window is not None and window.similarity >= near.similarity - ALREADY_APPLIED_SIMILARITY_MARGIN


def not_found(block: EditBlock, key: str, lines: list[str], outcome: NotFound) -> EditResult:
    near = outcome.near_miss
    if block.format in EXACT_ONLY_FORMATS:
        parts = lines_of(block.leading), lines_of(block.old), lines_of(block.trailing)
        reason = explain_anchor_failure(lines, *parts, where=f" in {key}")
    else:
        reason = f"the old text was not found in {key}"
        if near is not None:
            where = span_words(near.start, near.end)
            reason += f"; the closest text is at {where} ({percent(near.similarity)} similar)"
    if outcome.hint:
        reason += f" ({outcome.hint})"
    closest = (near.start + 1, max(near.start + 1, near.end)) if near is not None else None
    return EditResult(block, Status.FAILED, reason, ResultCode.NOT_FOUND, similarity=_similarity(near),
                      hint=_near_miss_hint(near), closest=closest)


def _similarity(near: NearMiss | None) -> float | None:
    return round(near.similarity, 4) if near is not None else None


def _near_miss_hint(near: NearMiss | None) -> str:
    return "\n".join(near.diff) if near is not None else ""


def with_note(result: EditResult, note: str) -> EditResult:
    return replace(result, reason=f"{result.reason} ({note})") if note else result
