"""What `apply` reports to people, as styled pieces of text that need no terminal library.

The terminal draws the pieces with `rich` (`display`); output that is not a
terminal is their plain text (`plain_apply_report`), so a piped or scripted
`editblocks apply` does not load `rich` at all. Both are made from the same
pieces, so they say the same words.
"""

from __future__ import annotations

from collections.abc import Sequence

from editblocks.model import ApplyResult, EditResult, ResultCode, Status
from editblocks.report.grouping import (
    SHOWN_IN_ALL,
    SHOWN_PER_KIND,
    capped,
    describe_result,
    diff_head,
    omitted_lines,
    result_kind,
)
from editblocks.text.diff import diff_rows, printable

Piece = tuple[str, str]
"""A run of text and its style (a `rich` style name; "" for none)."""

STATUS_MARK = {
    Status.APPLIED: ("✓ applied", "green"),
    Status.FAILED: ("✗ failed ", "bold red"),
    Status.SKIPPED: ("- skipped", "yellow"),
}
HELD_MARK = ("= held   ", "yellow")  # it applies, but its file waits for another block (policy `file`)
_CONTROL_CODES = dict.fromkeys((7, 8, 11, 12, 13))
"""What `rich` leaves out of any text it prints (bell, backspace, vertical tab, form feed, carriage return)."""


def span_label(result: EditResult) -> str:
    path = printable(result.path)
    if result.start_line is None:
        return path
    if result.end_line is None or result.end_line == result.start_line:
        return f"{path}:{result.start_line}"
    return f"{path}:{result.start_line}-{result.end_line}"


def outcome_pieces(outcome: EditResult) -> list[Piece]:
    """`✓ applied src/a.py:3-5  block at line 12  exact`, then the reason and any near-miss diff, indented."""
    mark, style = HELD_MARK if outcome.code is ResultCode.HELD else STATUS_MARK[outcome.status]
    pieces = [(mark, style), (" ", ""), (span_label(outcome), "cyan"), (f"  block at line {outcome.block.line}", "dim")]
    if outcome.status is Status.APPLIED:
        pieces.append((f"  {outcome.reason or outcome.strategy or ''}", "dim"))
    else:
        pieces.append((f"\n    {printable(outcome.reason)}", ""))
    # The hint quotes file lines: split at newlines only (a form feed is part of a line), shown safely.
    for line in outcome.hint.split("\n") if outcome.hint else ():
        pieces.append((f"\n      {printable(line)}", "dim"))
    return pieces


def summary_counts(result: ApplyResult) -> str:
    """`2 applied, 1 failed, 0 skipped`."""
    return (f"{result.count(Status.APPLIED)} applied, {result.count(Status.FAILED)} failed, "
            f"{result.count(Status.SKIPPED)} skipped")


def summary_pieces(result: ApplyResult, *, dry_run: bool) -> list[Piece]:
    pieces = [("Summary: ", "bold"), (summary_counts(result), "")]
    already = sum(1 for r in result.results if r.code is ResultCode.ALREADY_APPLIED)
    held = sum(1 for r in result.results + result.held_over if r.code is ResultCode.HELD)
    notes = [f"{already} already applied"] * bool(already) + [f"{held} held"] * bool(held)
    if notes:
        pieces.append((f" ({', '.join(notes)})", ""))
    if result.files_modified:
        pieces.append((" · modified: " + printable(", ".join(result.files_modified)), ""))
    if result.files_created:
        pieces.append((" · created: " + printable(", ".join(result.files_created)), ""))
    if result.files_deleted:
        pieces.append((" · deleted: " + printable(", ".join(result.files_deleted)), ""))
    if result.files_renamed:
        pieces.append((" · renamed: " + printable(", ".join(f"{old} → {new}" for old, new in result.files_renamed)),
                       ""))
    held_files = dict.fromkeys(r.path for r in result.results + result.held_over if r.code is ResultCode.HELD)
    if held_files:
        kept = "; the blocks that apply are held" if set(held_files) <= set(result.holding) else ""
        pieces.append((f" · not written (a block for it failed{kept}): " + printable(", ".join(held_files)),
                       "yellow"))
    if dry_run:
        pieces.append((" · dry run, nothing written", "yellow"))
    elif not result.written and result.diffs:
        pieces.append((" · nothing written", "bold red"))
    return pieces


def plain_apply_report(result: ApplyResult, *, show_diffs: bool, dry_run: bool) -> str | None:
    """The apply report as `display.apply_report` prints it to a file, or None where only `rich` can lay it out
    (a table of diagnostics or shell commands, or a tab to expand to the next column)."""
    if result.diagnostics or result.shell:
        return None
    outcomes, omitted = shown_outcomes(result.results)
    lines = [_plain(outcome_pieces(outcome)) for outcome in outcomes] + omitted
    if show_diffs:
        for diff in result.diffs:
            shown, note = diff_head(diff.unified)
            lines.append("".join(line + "\n" for _, line in diff_rows(shown)))
            if note:
                lines.append(note)
    lines += [printable(note) for note in result.notes]
    lines.append(_plain(summary_pieces(result, dry_run=dry_run)))
    text = "".join(line + "\n" for line in lines).translate(_CONTROL_CODES)
    return None if "\t" in text else text


def shown_outcomes(results: Sequence[EditResult], per_kind: int = SHOWN_PER_KIND,
                   total: int = SHOWN_IN_ALL) -> tuple[list[EditResult], list[str]]:
    """The outcomes to list one by one, and the lines that count the rest."""
    cut = capped(results, result_kind, describe_result, per_kind, total)
    return cut.shown, [printable(line) for line in omitted_lines(cut)]


def _plain(pieces: list[Piece]) -> str:
    return "".join(text for text, _ in pieces)
