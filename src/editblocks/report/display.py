"""Terminal output for people: parse results, validation, format catalog.

Plumbing (`--json`) lives in `serialize`; this module is the porcelain, and
only builds `rich` renderables so tests can render them to plain text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from editblocks.model import (
    ApplyResult,
    Diagnostic,
    EditBlock,
    EditResult,
    ParseResult,
    ResultCode,
    Severity,
    ShellSuggestion,
    Status,
    counted,
    preview,
    shared_line_prefix,
)
from editblocks.parsing.catalog import CATALOG
from editblocks.report.diffs import render_diff
from editblocks.report.grouping import (
    SHOWN_IN_ALL,
    SHOWN_PER_KIND,
    Capped,
    capped,
    describe_diagnostic,
    describe_result,
    diagnostic_kind,
    diff_head,
    omitted_lines,
    result_kind,
)
from editblocks.text.diff import printable

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow"}


def _line_count(text: str) -> int:
    return text.count("\n")


def parse_report(result: ParseResult) -> RenderableType:
    """Blocks grouped per file with previews, then shell suggestions and diagnostics."""
    parts: list[RenderableType] = [
        Text.assemble(
            ("Format: ", "bold"), result.format, "  ",
            (f"{counted(len(result.blocks), 'block')}, {counted(len({b.path for b in result.blocks}), 'file')}", "dim"),
        )
    ]
    cut = capped(result.blocks, lambda block: block.path, lambda block: f"blocks for {block.path}")
    by_path: dict[str, list[EditBlock]] = {}
    for block in cut.shown:
        by_path.setdefault(block.path, []).append(block)
    for path, blocks in by_path.items():
        parts.append(Text(""))
        parts.append(Text(printable(path), style="bold cyan"))
        parts.append(_block_table(blocks))
    if cut.omitted:
        parts.append(Text(""))
        parts += [Text(printable(line), style="dim") for line in omitted_lines(cut)]
    if result.shell:
        parts.append(Text(""))
        parts.append(Text("Suggested shell commands (not run):", style="bold"))
        parts.append(shell_table(result.shell))
    if result.diagnostics:
        parts.append(Text(""))
        parts.append(diagnostics_table(result.diagnostics))
    return Group(*parts)


def _line_table(columns: int) -> Table:
    """A borderless table whose first column is a dim, right-aligned `line N`."""
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right", style="dim")
    for _ in range(columns - 1):
        table.add_column()
    return table


def _first_change(old: str, new: str) -> tuple[str, str]:
    """The first pair of lines that differ, so a preview shows the change rather than shared context."""
    position = shared_line_prefix(old, new)
    return _line_from(old, position), _line_from(new, position)


def _line_from(text: str, position: int) -> str:
    end = text.find("\n", position)
    return text[position:] if end == -1 else text[position:end]


def _block_table(blocks: Sequence[EditBlock]) -> Text:
    """One row per block (`line N`, what it does, the first changed lines), aligned as columns.

    Plain aligned text rather than a rich `Table`: laying out a table costs
    about a millisecond a row, and a long answer holds thousands of blocks.
    """
    rows = [(f"line {block.line}", *_block_row(block)) for block in blocks]
    where_width = max(len(where) for where, _, _ in rows)
    summary_width = max(len(summary.plain) for _, summary, _ in rows)
    table = Text()
    for where, summary, details in rows:
        indent = " " * (where_width + 2 + summary_width + 2)
        table.append(f"{where:>{where_width}}  ", style="dim")
        table.append(f"{summary.plain:<{summary_width}}  " if details else summary.plain, style=summary.style)
        for number, (detail, style) in enumerate(details):
            table.append(("\n" + indent if number else "") + detail, style=style)
        table.append("\n")
    table.rstrip()
    return table


def _block_row(block: EditBlock) -> tuple[Text, list[tuple[str, str]]]:
    """What a block does, and its first changed lines with their styles."""
    if block.kind.value == "create":
        summary = Text(f"create, {counted(_line_count(block.new), 'line')}", style="green")
        return summary, [("+ " + printable(preview(block.new)), "green")]
    anchors = ""
    if block.leading or block.trailing:
        anchors = (f" (anchors: {counted(_line_count(block.leading), 'line')} before, "
                   f"{counted(_line_count(block.trailing), 'line')} after)")
    if block.is_noop:
        return Text(f"no-op, {counted(_line_count(block.old), 'line')} unchanged{anchors}", style="yellow"), []
    change = f"{counted(_line_count(block.old), 'line')} → {counted(_line_count(block.new), 'line')}"
    removed, added = _first_change(block.old, block.new)
    return Text(f"edit, {change}{anchors}"), [("- " + printable(preview(removed)), "red"),
                                              ("+ " + printable(preview(added)), "green")]


def shell_table(suggestions: Iterable[ShellSuggestion], shown: int = SHOWN_PER_KIND) -> RenderableType:
    cut = capped(suggestions, lambda _: "shell", lambda s: f"shell command at line {s.line}", shown, shown)
    table = _line_table(2)
    for suggestion in cut.shown:
        table.add_row(f"line {suggestion.line}", Text(printable(suggestion.command), style="magenta"))
    return _with_omitted(table, cut)


def diagnostics_table(diagnostics: Iterable[Diagnostic], per_kind: int = SHOWN_PER_KIND,
                      total: int = SHOWN_IN_ALL) -> RenderableType:
    """One row per diagnostic, up to ``per_kind`` of each kind and ``total`` in all; the rest counted by kind."""
    cut = capped(diagnostics, diagnostic_kind, describe_diagnostic, per_kind, total)
    table = _line_table(3)
    for diagnostic in cut.shown:
        style = _SEVERITY_STYLE[diagnostic.severity]
        # A Text, not a str: rich would read `[...]` in a message (which quotes the model) as markup.
        message = Text(printable(diagnostic.message))
        table.add_row(f"line {diagnostic.line}", Text(diagnostic.severity.value, style=style), message)
    return _with_omitted(table, cut)


def _with_omitted(shown: RenderableType, cut: Capped[Any]) -> RenderableType:
    if not cut.omitted:
        return shown
    return Group(shown, *(Text(printable(line), style="dim") for line in omitted_lines(cut)))


def formats_report() -> RenderableType:
    parts: list[RenderableType] = []
    for info in CATALOG:
        parts.append(Text.assemble((info.format.value, "bold cyan"), "  ", info.summary))
        parts.append(Text(info.example, style="dim"))
    return Group(*parts)


_STATUS_MARK = {
    Status.APPLIED: ("✓ applied", "green"),
    Status.FAILED: ("✗ failed ", "bold red"),
    Status.SKIPPED: ("- skipped", "yellow"),
}
_HELD_MARK = ("= held   ", "yellow")  # it applies, but its file waits for another block (policy `file`)


def _span(result: EditResult) -> str:
    path = printable(result.path)
    if result.start_line is None:
        return path
    if result.end_line is None or result.end_line == result.start_line:
        return f"{path}:{result.start_line}"
    return f"{path}:{result.start_line}-{result.end_line}"


def apply_report(result: ApplyResult, *, show_diffs: bool, dry_run: bool) -> RenderableType:
    """Each block's outcome, the diffs if asked, shell suggestions and a one-line summary, all cut to a readable
    size (`grouping`): the first of each kind, then how many more of that kind there are."""
    parts = outcome_list(result.results)
    if result.held_over:
        parts.append(Text("Held from earlier answers:", style="bold"))
        parts += outcome_list(result.held_over)
    if result.diagnostics:
        parts.append(diagnostics_table(result.diagnostics))
    if show_diffs:
        for diff in result.diffs:
            shown, note = diff_head(diff.unified)
            parts.append(render_diff(shown))
            if note:
                parts.append(Text(note, style="dim"))
    if result.shell:
        parts.append(Text("Suggested shell commands (not run):", style="bold"))
        parts.append(shell_table(result.shell))
    for note in result.notes:
        parts.append(Text(printable(note), style="yellow"))
    parts.append(summary_line(result, dry_run=dry_run))
    return Group(*parts)


def outcome_list(results: Sequence[EditResult], per_kind: int = SHOWN_PER_KIND,
                 total: int = SHOWN_IN_ALL) -> list[RenderableType]:
    """Each block's outcome, up to ``per_kind`` of each status and code and ``total`` in all; the rest counted."""
    cut = capped(results, result_kind, describe_result, per_kind, total)
    shown: list[RenderableType] = [outcome_lines(outcome) for outcome in cut.shown]
    shown += [Text(printable(line), style="dim") for line in omitted_lines(cut)]
    return shown


def outcome_lines(outcome: EditResult) -> Text:
    """`✓ applied src/a.py:3-5  block at line 12  exact`, then the reason and any near-miss diff, indented."""
    mark, style = _HELD_MARK if outcome.code is ResultCode.HELD else _STATUS_MARK[outcome.status]
    text = Text.assemble((mark, style), " ", (_span(outcome), "cyan"), (f"  block at line {outcome.block.line}", "dim"))
    if outcome.status is Status.APPLIED:
        text.append(f"  {outcome.reason or outcome.strategy or ''}", style="dim")
    else:
        text.append(f"\n    {printable(outcome.reason)}")
    # The hint quotes file lines: split at newlines only (a form feed is part of a line), shown safely.
    for line in outcome.hint.split("\n") if outcome.hint else ():
        text.append(f"\n      {printable(line)}", style="dim")
    return text


def summary_counts(result: ApplyResult) -> str:
    """`2 applied, 1 failed, 0 skipped`."""
    return (f"{result.count(Status.APPLIED)} applied, {result.count(Status.FAILED)} failed, "
            f"{result.count(Status.SKIPPED)} skipped")


def summary_line(result: ApplyResult, *, dry_run: bool) -> Text:
    text = Text.assemble(("Summary: ", "bold"), summary_counts(result))
    already = sum(1 for r in result.results if r.code is ResultCode.ALREADY_APPLIED)
    held = sum(1 for r in result.results + result.held_over if r.code is ResultCode.HELD)
    notes = [f"{already} already applied"] * bool(already) + [f"{held} held"] * bool(held)
    if notes:
        text.append(f" ({', '.join(notes)})")
    if result.files_modified:
        text.append(" · modified: " + printable(", ".join(result.files_modified)))
    if result.files_created:
        text.append(" · created: " + printable(", ".join(result.files_created)))
    if result.files_deleted:
        text.append(" · deleted: " + printable(", ".join(result.files_deleted)))
    if result.files_renamed:
        text.append(" · renamed: " + printable(", ".join(f"{old} → {new}" for old, new in result.files_renamed)))
    held_files = dict.fromkeys(r.path for r in result.results + result.held_over if r.code is ResultCode.HELD)
    if held_files:
        kept = "; the blocks that apply are held" if set(held_files) <= set(result.holding) else ""
        text.append(f" · not written (a block for it failed{kept}): " + printable(", ".join(held_files)),
                    style="yellow")
    if dry_run:
        text.append(" · dry run, nothing written", style="yellow")
    elif not result.written and result.diffs:
        text.append(" · nothing written", style="bold red")
    return text
