"""An evaluation as one HTML page: verdicts by model and format, the slowest cases, the failure reasons ranked.

The page stands alone: its charts are inline SVG and its style is inline, so
it opens from a file, a mail or a CI artifact with no network and no script.
Every text from a case (names, details, labels) is escaped.
"""

from __future__ import annotations

from html import escape

from editblocks.eval.judge import Verdict
from editblocks.eval.summary import Summary

COLORS = {
    Verdict.CORRECT.value: "#2e7d32",
    Verdict.REFUSED_OK.value: "#81c784",
    Verdict.MISSED.value: "#f9a825",
    Verdict.FALSE_REFUSAL.value: "#ef6c00",
    Verdict.WRONG.value: "#c62828",
    Verdict.MISREPORTED.value: "#8e24aa",
    Verdict.ERROR.value: "#455a64",
}
BAR_WIDTH = 520
ROW_HEIGHT = 22
LABEL_WIDTH = 300

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; }
td, th { padding: .2em .7em; text-align: right; border-bottom: 1px solid #ddd; white-space: nowrap; }
td:first-child, th:first-child, td.text { text-align: left; } code { font-size: 12px; }
.legend span { display: inline-block; margin-right: 1.2em; } .legend i { display: inline-block; width: .9em;
  height: .9em; margin-right: .3em; vertical-align: -.1em; }
.ok { color: #2e7d32; } .bad { color: #c62828; } svg text { font: 12px system-ui, sans-serif; }
"""


def render(summary: Summary, *, title: str = "editblocks eval", seconds: float | None = None) -> str:
    """The whole page for ``summary``."""
    passing = summary.cases - summary.failing
    rate = f"{passing / summary.cases:.1%}" if summary.cases else "n/a"
    timing = f" in {seconds:.1f} s ({summary.cases / seconds:,.0f} cases/s)" if seconds else ""
    state = '<b class="ok">every case passed</b>' if summary.ok else \
        f'<b class="bad">{summary.failing:,} not passing</b>'
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        f"<p>{summary.cases:,} cases: {passing:,} passing ({rate}), {state}{escape(timing)}.</p>",
        _legend(),
        "<h2>Verdicts</h2>", _totals_table(summary),
        "<h2>Verdicts by model and format</h2>", _group_chart(summary), _group_table(summary),
        "<h2>Failure reasons, most frequent first</h2>", _reasons(summary),
        "<h2>Slowest cases</h2>", _slowest(summary),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _legend() -> str:
    items = "".join(f'<span><i style="background:{color}"></i>{escape(verdict)}</span>'
                    for verdict, color in COLORS.items())
    return f'<p class="legend">{items}</p>'


def _totals_table(summary: Summary) -> str:
    cells = "".join(f"<tr><td>{escape(verdict)}</td><td>{count:,}</td></tr>"
                    for verdict, count in summary.verdict_totals().items())
    return f"<table><tr><th>verdict</th><th>cases</th></tr>{cells}</table>"


def _group_chart(summary: Summary) -> str:
    """One stacked bar per (model, format): the share of each verdict."""
    rows = summary.group_rows()
    if not rows:
        return "<p>No cases.</p>"
    height = ROW_HEIGHT * len(rows) + 4
    shapes = []
    for index, (model, fmt, counts) in enumerate(rows):
        y = index * ROW_HEIGHT + 2
        total = sum(counts.values())
        label = f"{model} · {fmt}"
        shapes.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 14}" text-anchor="end">{escape(_cut(label, 44))}</text>')
        x = float(LABEL_WIDTH)
        for verdict, count in counts.items():
            if not count:
                continue
            width = BAR_WIDTH * count / total
            shapes.append(f'<rect x="{x:.1f}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT - 6}" '
                          f'fill="{COLORS[verdict]}"><title>{escape(label)}: {count:,} {escape(verdict)}</title>'
                          "</rect>")
            x += width
        shapes.append(f'<text x="{LABEL_WIDTH + BAR_WIDTH + 6}" y="{y + 14}">{total:,}</text>')
    return _svg(LABEL_WIDTH + BAR_WIDTH + 70, height, shapes, "Verdicts by model and format")


def _group_table(summary: Summary) -> str:
    verdicts = [verdict.value for verdict in Verdict]
    head = "".join(f"<th>{escape(verdict)}</th>" for verdict in verdicts)
    body = []
    for model, fmt, counts in summary.group_rows():
        total = sum(counts.values())
        passing = counts[Verdict.CORRECT.value] + counts[Verdict.REFUSED_OK.value]
        cells = "".join(f"<td>{counts[verdict]:,}</td>" for verdict in verdicts)
        body.append(f'<tr><td class="text">{escape(model)}</td><td class="text">{escape(fmt)}</td>{cells}'
                    f"<td>{passing / total:.1%}</td></tr>")
    return (f"<table><tr><th>model</th><th>format</th>{head}<th>passing</th></tr>{''.join(body)}</table>")


def _reasons(summary: Summary) -> str:
    ranked = summary.top_reasons()
    if not ranked:
        return "<p>None: every case passed.</p>"
    most = ranked[0][2]
    shapes = []
    for index, (verdict, code, cases, _example) in enumerate(ranked):
        y = index * ROW_HEIGHT + 2
        width = max(2.0, BAR_WIDTH * cases / most)
        label = f"{verdict}: {code}"
        shapes.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 14}" text-anchor="end">{escape(_cut(label, 44))}</text>')
        shapes.append(f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT - 6}" '
                      f'fill="{COLORS[verdict]}"><title>{escape(label)}: {cases:,}</title></rect>')
        shapes.append(f'<text x="{LABEL_WIDTH + width + 6:.1f}" y="{y + 14}">{cases:,}</text>')
    chart = _svg(LABEL_WIDTH + BAR_WIDTH + 70, ROW_HEIGHT * len(ranked) + 4, shapes, "Failure reasons")
    rows = "".join(f"<tr><td>{escape(verdict)}</td><td class=\"text\"><code>{escape(code)}</code></td>"
                   f"<td>{cases:,}</td><td class=\"text\"><code>{escape(example)}</code></td></tr>"
                   for verdict, code, cases, example in ranked)
    return f"{chart}<table><tr><th>verdict</th><th>reason</th><th>cases</th><th>for example</th></tr>{rows}</table>"


def _slowest(summary: Summary) -> str:
    slowest = summary.slowest_cases()
    if not slowest:
        return "<p>No cases.</p>"
    most = slowest[0][2] or 1.0
    shapes = []
    for index, (name, verdict, seconds) in enumerate(slowest):
        y = index * ROW_HEIGHT + 2
        width = max(2.0, BAR_WIDTH * seconds / most)
        shapes.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 14}" text-anchor="end">{escape(_cut(name, 44))}</text>')
        shapes.append(f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" height="{ROW_HEIGHT - 6}" '
                      f'fill="{COLORS[verdict]}"><title>{escape(name)} ({escape(verdict)})</title></rect>')
        shapes.append(f'<text x="{LABEL_WIDTH + width + 6:.1f}" y="{y + 14}">{seconds * 1000:,.1f} ms</text>')
    return _svg(LABEL_WIDTH + BAR_WIDTH + 90, ROW_HEIGHT * len(slowest) + 4, shapes, "Slowest cases")


def _svg(width: int, height: int, shapes: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="{escape(label)}">' + "".join(shapes) + "</svg>")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
