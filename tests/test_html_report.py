"""`apply_html` and `editblocks apply --html`: one self-contained review page, safe against hostile text.

Model text and file contents are hostile: whatever they hold, the page must
show it as text and never run or fetch anything.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.model import Diagnostic, Severity, ShellSuggestion
from editblocks.report.html import apply_html

from helpers_apply import diff_edit, make_tree, run, tree_state

SCRIPT = "<script>alert(1)</script>"
PROJECT = {
    "app/config.py": f"DEBUG = False\nPORT = 8000\nBANNER = '{SCRIPT}'\n",
    "app/views.py": "def index():\n    return 'home'\n",
}
ANSWER = (
    diff_edit("app/config.py", ("PORT = 8000\n", "PORT = 8080\n"),
              (f"BANNER = '{SCRIPT}'\n", f"BANNER = '{SCRIPT}!'\n"))
    + diff_edit("app/urls.py", ("", "ROUTES = ['/']\n"))
    + diff_edit("app/views.py", ("    return 'nowhere'\n", "    return 'x'\n"))
    + diff_edit(f"app/{SCRIPT}.py", ("a = 1\n", "a = 2\n"))
)
ONE_EDIT = diff_edit("app/config.py", ("PORT = 8000\n", "PORT = 9000\n"))
EMPHASIS_RED = "background-color: #800000"
EMPHASIS_GREEN = "background-color: #008000"


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    make_tree(root, PROJECT)
    return root


def shown(page: str) -> str:
    """The page's text as a browser shows it."""
    return unescape(re.sub(r"<[^>]*>", "", page))


def emphasised(page: str, background: str) -> list[str]:
    return re.findall(rf'<span style="[^"]*{background}[^"]*">([^<]*)</span>', page)


class _Tags(HTMLParser):
    """Every tag and attribute of a page, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))


ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "pre", "span"}
ALLOWED_ATTRIBUTES = {"lang", "charset", "http-equiv", "content", "name", "class", "style"}


def assert_inert(page: str) -> None:
    """Only the page's own markup: no tag, attribute or style that input could have smuggled in."""
    parser = _Tags()
    parser.feed(page)
    for tag, attrs in parser.tags:
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs:
            assert name in ALLOWED_ATTRIBUTES, (tag, name)
            if name == "style":
                assert re.fullmatch(r"[a-z0-9#:; -]*", value or ""), value
    assert "default-src 'none'" in page and "http" not in page.replace("http-equiv", "")


def test_page_is_one_document_with_the_summary_and_every_outcome(project):
    page = apply_html(run(project, ANSWER, dry_run=True))
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<title>editblocks: 3 applied, 1 failed, 0 skipped</title>" in page
    assert "dry run, nothing written" in page
    assert "modified: app/config.py" in page and "created: app/urls.py" in page
    assert "✗ failed" in page and "the old text was not found in app/views.py" in page
    assert_inert(page)


def test_file_content_paths_and_reasons_are_escaped(project):
    page = apply_html(run(project, ANSWER, dry_run=True))
    assert SCRIPT not in page
    assert f"+BANNER = '{SCRIPT}!'" in shown(page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "mentions `app/&lt;script&gt;alert(1)&lt;/script&gt;.py`" in page  # the parser's diagnostic quotes it


def test_changed_characters_are_highlighted_in_removed_and_added_lines(project):
    page = apply_html(run(project, ANSWER, dry_run=True))
    assert "0" in emphasised(page, EMPHASIS_RED) and "8" in emphasised(page, EMPHASIS_GREEN)
    assert "!" in emphasised(page, EMPHASIS_GREEN)


def test_a_created_file_is_tagged_and_shown_as_added_lines(project):
    page = apply_html(run(project, ANSWER, dry_run=True))
    assert '<h2>app/urls.py <span class="tag">new file</span></h2>' in page
    assert "--- /dev/null" in page and "+ROUTES = ['/']" in shown(page)
    assert '<h2>app/config.py</h2>' in page


def test_a_real_run_says_nothing_about_a_dry_run(project):
    page = apply_html(run(project, ONE_EDIT))
    assert "1 applied, 0 failed, 0 skipped" in page and "dry run" not in page


def test_diagnostics_shell_and_notes_are_text_never_markup(project):
    result = run(project, ONE_EDIT, dry_run=True)
    hostile = "[link=javascript:alert(1)]click[/link] <img src=x onerror=alert(1)>"
    result = replace(result, diagnostics=(Diagnostic(Severity.WARNING, 3, hostile),),
                     shell=(ShellSuggestion(f"rm -rf {SCRIPT}", 9),), notes=(f"[bold]{SCRIPT}[/bold]",))
    page = apply_html(result)
    assert_inert(page)
    assert hostile in shown(page) and f"rm -rf {SCRIPT}" in shown(page) and f"[bold]{SCRIPT}[/bold]" in shown(page)


def test_control_characters_in_a_file_are_shown_not_passed_on(project):
    make_tree(project, {"odd.txt": "a\x0cb\x1b[2J = 1\n"})
    page = apply_html(run(project, diff_edit("odd.txt", ("a\x0cb\x1b[2J = 1\n", "a\x0cb\x1b[2J = 2\n")), dry_run=True))
    assert "\x1b" not in page and "\x0c" not in page
    assert "-a␌b␛[2J = 1" in shown(page)


LONG_REASON = ("the old text was not found in app/views.py; " + "the closest text differs in every word " * 9
               + "and the path it names is " + "app/" + "deeply_nested_folder_" * 8 + "module.py")[:500]


@pytest.mark.parametrize("width", [1280, 480])
def test_a_long_reason_is_wrapped_inside_its_box_in_a_real_browser(project, browser, width):
    """Reasons, diagnostics and notes wrap (a long path too, anywhere), each wrapped line under its own
    indentation; a box never scrolls or cuts them off. Diffs keep their lines."""
    assert len(LONG_REASON) == 500
    result = run(project, ANSWER, dry_run=True)
    results = tuple(replace(r, reason=LONG_REASON) if r.status.value == "failed" else r for r in result.results)
    page_html = apply_html(replace(result, results=results, notes=(LONG_REASON,)))
    assert_inert(page_html)
    page = browser.new_page(viewport={"width": width, "height": 800})
    try:
        page.set_content(page_html)
        for heading in ("Blocks", "Notes"):
            box = page.locator(f"h2:text-is('{heading}') + pre")
            assert LONG_REASON in box.inner_text()
            assert box.evaluate("e => e.scrollWidth <= e.clientWidth"), f"{heading}: cut off at the box's edge"
        reason_line = page.locator("pre .line", has_text=LONG_REASON[:60]).first
        assert reason_line.inner_text().strip() == LONG_REASON
        inside = reason_line.evaluate("""line => {
            const box = line.closest("pre").getBoundingClientRect();
            const range = document.createRange();
            range.selectNodeContents(line);
            return [...range.getClientRects()].every(r => r.left >= box.left && r.right <= box.right);
        }""")
        assert inside
        wrapped = reason_line.evaluate(
            "line => line.getClientRects()[0].height > 2 * parseFloat(getComputedStyle(line).lineHeight)")
        assert wrapped  # it did need wrapping, and got it
        indent = reason_line.evaluate("line => getComputedStyle(line).paddingLeft")
        assert indent != "0px"  # a reason's wrapped part stays under the reason, not under the ✗
    finally:
        page.close()


# --- the command line ---------------------------------------------------------------------------


def apply_cli(tmp_path: Path, project: Path, answer: str, *options: str):
    (tmp_path / "answer.md").write_text(answer, encoding="utf-8")
    return CliRunner().invoke(main, ["apply", str(tmp_path / "answer.md"), "--root", str(project), *options])


def test_apply_html_writes_the_page_on_a_dry_run_and_says_so(tmp_path, project):
    report = tmp_path / "report.html"
    before = tree_state(project)
    result = apply_cli(tmp_path, project, ANSWER, "--dry-run", "--html", str(report))
    assert result.exit_code == 1  # a block failed
    assert f"wrote the HTML report to {report}" in result.stdout
    page = report.read_text(encoding="utf-8")
    assert "dry run, nothing written" in page and "+ROUTES" in page
    assert_inert(page)
    assert tree_state(project) == before


def test_apply_html_with_json_keeps_stdout_pure_json(tmp_path, project):
    report = tmp_path / "report.html"
    result = apply_cli(tmp_path, project, ONE_EDIT, "--html", str(report), "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["written"] is True
    assert "1 applied, 0 failed, 0 skipped" in report.read_text(encoding="utf-8")


def test_apply_html_to_an_unwritable_place_is_a_usage_error(tmp_path, project):
    result = apply_cli(tmp_path, project, ONE_EDIT, "--dry-run", "--html", str(tmp_path / "no" / "such.html"))
    assert result.exit_code == 2
    assert "cannot write the HTML report" in result.output and "does not exist" in result.output
