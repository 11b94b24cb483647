"""The outcome of an apply as one self-contained HTML page, for review in a browser.

The page is built from the very renderables the terminal shows (`display`,
`diffs.render_diff`), converted segment by segment, so both say the same
thing and highlight the same characters. Everything from the model or the
files is escaped, and the page forbids scripts and network fetches outright.
Diffs keep their lines and scroll sideways; the other sections wrap long
lines (a reason can run to hundreds of characters), each wrapped line going on
under its own indentation.
"""

from __future__ import annotations

import io
from html import escape

from rich.console import Console, RenderableType
from rich.terminal_theme import DEFAULT_TERMINAL_THEME
from rich.text import Text

from editblocks.model import ApplyResult, FileDiff
from editblocks.report.diffs import render_diff
from editblocks.report.display import diagnostics_table, outcome_list, shell_table, summary_counts, summary_line
from editblocks.report.grouping import diff_head
from editblocks.text.diff import printable

SHOWN_PER_KIND = 200
SHOWN_IN_ALL = 1_000
SHOWN_DIFF_LINES = 5_000
"""A page stays quick to write and to open however long the answer: past these, items are counted by kind and a
diff is cut (the patch file and `--json` hold everything)."""

_WIDTH = 100_000  # wide enough that rich never wraps a line; the browser scrolls or wraps instead

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem;
       color: #000; background: #fff; }}
pre {{ font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 0.85rem; line-height: 1.35;
       padding: 0.75rem; border: 1px solid #ddd; border-radius: 4px; background: #fcfcfc; overflow-x: auto; }}
pre.wrap {{ white-space: pre-wrap; overflow-wrap: anywhere; overflow-x: visible; }}
pre.wrap .line {{ display: block; min-height: 1.35em; }}
h2 {{ font-size: 1.1rem; margin-top: 2rem; }}
.tag {{ font-size: 0.8rem; font-weight: normal; padding: 0 0.4em; border-radius: 3px; background: #e6f4e6; }}
</style>
</head>
<body>
<h1>editblocks apply</h1>
{body}
</body>
</html>
"""


def apply_html(result: ApplyResult) -> str:
    """The summary, every block's outcome (failures with reasons), the diagnostics and shell
    suggestions, then each file's diff with the changed characters highlighted."""
    sections = [f'<p class="summary">{_html(summary_line(result, dry_run=result.dry_run))}</p>']
    if result.results:
        sections.append(_section("Blocks", *outcome_list(result.results, SHOWN_PER_KIND, SHOWN_IN_ALL)))
    if result.diagnostics:
        sections.append(_section("Diagnostics", diagnostics_table(result.diagnostics, SHOWN_PER_KIND, SHOWN_IN_ALL)))
    if result.shell:
        sections.append(_section("Suggested shell commands (not run)", shell_table(result.shell, SHOWN_IN_ALL)))
    if result.notes:
        sections.append(_section("Notes", *(Text(printable(note)) for note in result.notes)))
    sections += map(_diff_section, result.diffs)
    return _PAGE.format(title=escape(f"editblocks: {summary_counts(result)}"), body="\n".join(sections))


def _section(heading: str, *parts: RenderableType) -> str:
    return f'<h2>{escape(heading)}</h2>\n<pre class="wrap">{_wrapped_html(*parts)}</pre>'


def _diff_section(diff: FileDiff) -> str:
    tag = ' <span class="tag">new file</span>' if diff.created else ""
    if diff.deleted:
        tag = ' <span class="tag">deleted</span>'
    elif diff.moved_from is not None:
        tag = f' <span class="tag">renamed {escape(printable(diff.moved_from))} → {escape(printable(diff.path))}</span>'
    shown, note = diff_head(diff.unified, SHOWN_DIFF_LINES)
    cut = f'\n<p class="cut">{escape(note)}</p>' if note else ""
    return f"<h2>{escape(printable(diff.path))}{tag}</h2>\n<pre>{_html(render_diff(shown))}</pre>{cut}"


def _html(*renderables: RenderableType) -> str:
    """Rich renderables as escaped HTML with inline styles (unlike `Console.export_html`, never a link)."""
    return "".join(_fragment(text, rule) for text, rule in _styled(*renderables)).rstrip("\n")


def _wrapped_html(*renderables: RenderableType) -> str:
    """As `_html`, one block per line, padded by the line's own indentation so its wrapped part lines up under it."""
    lines: list[list[tuple[str, str]]] = [[]]
    for text, rule in _styled(*renderables):
        for number, piece in enumerate(text.split("\n")):
            if number:
                lines.append([])
            if piece:
                lines[-1].append((piece, rule))
    while lines and not lines[-1]:
        lines.pop()
    rendered = []
    for line in lines:
        indent = 0
        while line and not line[0][0].strip(" "):
            indent += len(line.pop(0)[0])
        if line:
            first, rule = line[0]
            stripped = first.lstrip(" ")
            indent += len(first) - len(stripped)
            line[0] = (stripped, rule)
        padding = f' style="padding-left: {indent}ch"' if indent else ""
        rendered.append(f'<span class="line"{padding}>' + "".join(_fragment(t, r) for t, r in line) + "</span>")
    return "".join(rendered)


def _styled(*renderables: RenderableType) -> list[tuple[str, str]]:
    """The text of the renderables, piece by piece, each with its inline CSS ("" for none)."""
    console = Console(file=io.StringIO(), width=_WIDTH, emoji=False)
    options = console.options.update(no_wrap=True, overflow="ignore")
    return [(segment.text, segment.style.get_html_style(DEFAULT_TERMINAL_THEME) if segment.style else "")
            for renderable in renderables for segment in console.render(renderable, options) if not segment.control]


def _fragment(text: str, rule: str) -> str:
    return f'<span style="{rule}">{escape(text)}</span>' if rule else escape(text)
