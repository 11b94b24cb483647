"""The review page in a real browser (Debian's Chromium, driven by playwright), one server per test.

The browser is shared by the whole session (starting it is the slow part);
each test gets a fresh page and a fresh server on a free port. Everything
is found by role and accessible name, as a screen reader would.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from editblocks.service import ApplyOptions

from helpers_apply import diff_edit
from helpers_web import ANSWER, BROWSER_TIMEOUT_MS, FILES, make_project, read_tree
from helpers_web import served as served_with

CONTINUE = ApplyOptions(on_failure="continue")
"""The page's mechanics are shown on ANSWER's blocks as each applies on its own (`continue`); under the default
policy block 1 is held until block 4's fix lands: test_a_held_block_waits_on_the_page_and_lands_with_the_fixed_block…"""


def served(root: Path, answer: str | None = ANSWER, options: ApplyOptions | None = CONTINUE) -> Any:
    return served_with(root, answer, options)

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
expect.set_options(timeout=BROWSER_TIMEOUT_MS)


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(BROWSER_TIMEOUT_MS)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"the page's script failed: {errors}"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def badge(page: Page, number: int, status: str) -> Locator:
    return page.get_by_role("button", name=f"Block {number}: {status}", exact=True)


def test_the_page_lists_every_block_in_place_with_its_badge(page: Page, project: Path) -> None:
    with served(project) as (_, server):
        page.goto(server.url)
        for number, status in ((1, "pending"), (2, "pending"), (3, "pending"), (4, "failed")):
            expect(badge(page, number, status)).to_have_text(status)
        expect(page.get_by_role("article")).to_have_count(4)
        expect(page.get_by_text("Three changes and a mistake.")).to_be_visible()
        summary = page.get_by_role("region", name="Summary")
        expect(summary).to_contain_text("4 blocks · 0 applied · 3 pending · 0 held · 1 failed · 0 skipped")
        expect(summary).to_contain_text("Block 4 (app.py): the old text was not found in app.py")
        expect(page.get_by_role("navigation", name="Files").get_by_role("link")).to_have_text(["app.py", "util.py"])
        expect(page.get_by_role("heading", name="Feedback for the model")).to_be_visible()
    assert read_tree(project) == FILES  # showing the page writes nothing


def test_rejecting_a_block_then_apply_writes_exactly_the_others(page: Page, project: Path) -> None:
    with served(project) as (_, server):
        page.goto(server.url)
        page.get_by_role("button", name="Reject block 2").click()
        expect(badge(page, 2, "skipped")).to_be_visible()
        expect(page.get_by_role("article", name="Block 2")).to_contain_text("rejected on this page")
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(badge(page, 1, "applied")).to_be_visible()
        expect(badge(page, 3, "applied")).to_be_visible()
        expect(badge(page, 2, "skipped")).to_be_visible()
        expect(badge(page, 4, "failed")).to_be_visible()
        expect(page.get_by_role("status").first).to_contain_text("applied: 2 files written")
    assert read_tree(project) == {
        "app.py": 'def greet(name):\n    return "hello " + name\n\nPORT = 8000\n',
        "util.py": "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x // 2\n",
    }


def test_undo_restores_what_apply_wrote(page: Page, project: Path) -> None:
    with served(project) as (_, server):
        page.goto(server.url)
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(badge(page, 1, "applied")).to_be_visible()
        assert read_tree(project) != FILES
        page.get_by_role("button", name="Undo").click()
        expect(badge(page, 1, "pending")).to_be_visible()
        expect(page.get_by_role("button", name="Undo")).to_be_disabled()
    assert read_tree(project) == FILES


def test_rejecting_a_file_leaves_it_untouched(page: Page, project: Path) -> None:
    with served(project) as (_, server):
        page.goto(server.url)
        page.get_by_role("button", name="Reject file util.py").click()
        expect(badge(page, 2, "skipped")).to_be_visible()
        expect(badge(page, 3, "skipped")).to_be_visible()
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(badge(page, 1, "applied")).to_be_visible()
    assert read_tree(project)["util.py"] == FILES["util.py"]
    assert "hello" in read_tree(project)["app.py"]


def test_a_failed_block_shows_its_search_text_beside_the_files_closest_lines(page: Page, project: Path) -> None:
    with served(project) as (_, server):
        page.goto(server.url)
        closest = page.get_by_role("group", name="Block 4: its SEARCH text beside the closest lines of the file")
        expect(closest).to_contain_text("SEARCH (the block)")
        expect(closest).to_contain_text("PORT = 9999")
        expect(closest).to_contain_text("app.py: closest lines")
        expect(closest).to_contain_text("4PORT = 8000")  # line number 4, then the file's own line
        badge(page, 4, "failed").click()
        expect(closest).to_be_focused()


def test_blocks_and_hunks_link_both_ways_and_the_layout_toggles(page: Page, project: Path) -> None:
    with served(project) as (_, server):
        page.goto(server.url)
        page.get_by_role("article", name="Block 3").get_by_role("link", name="util.py").click()
        hunk = page.locator(":focus")
        expect(hunk).to_contain_text("block 3")
        expect(hunk).to_contain_text("return x // 2")
        hunk.get_by_role("link", name="block 3").click()
        expect(page.get_by_role("article", name="Block 3")).to_be_focused()
        diff = page.get_by_role("region", name="Diff of app.py")
        expect(diff.locator("table.unified")).to_have_count(1)
        page.get_by_role("button", name="Side by side").click()
        expect(page.get_by_role("button", name="Side by side")).to_have_attribute("aria-pressed", "true")
        rows = diff.locator("table.split tr")
        expect(rows.nth(1)).to_contain_text(re.compile(r'2\s*return "hi " \+ name\s*2\s*return "hello " \+ name'))
        expect(diff.locator(".del .ch")).to_have_text("hi")  # the changed characters, highlighted
        expect(diff.locator(".add .ch")).to_have_text("hello")
        expect(diff.locator(".tk").first).to_have_text("def")  # syntax highlighting


def test_streaming_shows_blocks_in_progress_then_their_badges(page: Page, project: Path) -> None:
    with served(project, answer=None) as (session, server):
        page.goto(server.url)
        session.new_answer()
        cut = ANSWER.index("hello")
        session.feed(ANSWER[:cut])
        in_progress = page.get_by_role("article", name="Block in progress (reply line 5)")
        expect(in_progress).to_contain_text("in progress")
        expect(in_progress).to_contain_text('return "hi " + name')
        expect(page.get_by_role("button", name="Apply", exact=True)).to_be_disabled()
        session.feed(ANSWER[cut:])
        session.close_answer()
        expect(badge(page, 1, "pending")).to_be_visible()
        expect(badge(page, 4, "failed")).to_be_visible()
        expect(page.get_by_text("in progress")).to_have_count(0)
        expect(page.get_by_role("button", name="Apply", exact=True)).to_be_enabled()


def test_a_block_shows_its_final_verdict_as_soon_as_it_closes_while_the_answer_still_streams(
        page: Page, project: Path) -> None:
    """The verdict comes from the live planner `ask` uses: a failing block turns failed before the answer ends,
    and a block that will apply says so, never `pending` for want of a verdict."""
    failing = diff_edit("app.py", ("PORT = 9999\n", "PORT = 8080\n"))
    applying = diff_edit("util.py", ("    return x * 2\n", "    return x + x\n"))
    with served(project, answer=None) as (session, server):
        page.goto(server.url)
        session.new_answer()
        session.feed("First the port.\n\n" + failing + applying + "\nAnd then a third block:\n\napp.py\n```\n")
        expect(badge(page, 1, "failed")).to_be_visible()
        block = page.get_by_role("article", name=re.compile("^Block 1"))
        expect(block).to_contain_text("the old text was not found in app.py")
        expect(badge(page, 2, "pending")).to_be_visible()
        expect(page.get_by_role("article", name=re.compile("^Block 2"))).to_contain_text("ready to apply at line 2 (exact)")
        expect(page.get_by_role("button", name="Apply", exact=True)).to_be_disabled()  # still arriving
        assert session.view()["streaming"]
        session.close_answer()
        expect(badge(page, 1, "failed")).to_be_visible()
        expect(page.get_by_role("button", name="Apply", exact=True)).to_be_enabled()


def test_a_hostile_answer_renders_as_text(page: Page, project: Path) -> None:
    script = "<script>window.owned = 1</script>"
    image = '<img src=x onerror="window.owned = 2">'
    entity_path = "x&lt;img&gt;.py"  # innerHTML would decode it into a tag
    answer = (f"Prose {script} {image}\n\n"
              + diff_edit(f"{script}.py", ("", "x = 1\n"))  # the parser refuses it: its diagnostic names it
              + diff_edit(entity_path, ("", f"x = '{script}'\n"))
              + diff_edit("app.py", ("PORT = 8000\n", f"PORT = 8000  # {image}\n")))
    with served(project, answer) as (_, server):
        page.goto(server.url)
        expect(page.get_by_role("article")).to_have_count(2)
        expect(page.get_by_text(f"Prose {script} {image}")).to_be_visible()
        expect(page.get_by_role("region", name="Summary")).to_contain_text("mentions `1</script>.py`")
        first = page.get_by_role("article", name="Block 1")
        expect(first.get_by_text(entity_path, exact=True)).to_be_visible()
        expect(first).to_contain_text(f"x = '{script}'")
        expect(page.get_by_role("article", name="Block 2")).to_contain_text(image)
        assert page.evaluate("window.owned") is None
        assert page.locator("img, main script").count() == 0


def test_a_path_outside_the_root_is_refused_and_never_written(page: Page, project: Path) -> None:
    outside = project.parent / "outside.txt"
    answer = diff_edit("../outside.txt", ("", "written from the page\n"), lang="")
    with served(project, answer) as (_, server):
        page.goto(server.url)
        expect(badge(page, 1, "failed")).to_be_visible()
        expect(page.get_by_role("button", name="Apply", exact=True)).to_be_disabled()
        page.evaluate("fetch('api/apply', {method: 'POST', headers: {'content-type': 'application/json'}, body: '{}'})")
        expect(page.get_by_role("status").first).to_contain_text("nothing written")
    assert not outside.exists()


def test_the_page_fits_480_pixels_and_follows_the_dark_theme(browser: Browser, project: Path) -> None:
    context = browser.new_context(viewport={"width": 480, "height": 800}, color_scheme="dark")
    narrow = context.new_page()
    long_line = "x = '" + "long " * 200 + "'\n"
    answer = ANSWER + diff_edit("app.py", ("PORT = 8000\n", long_line))
    try:
        with served(project, answer) as (_, server):
            narrow.goto(server.url)
            expect(badge(narrow, 5, "pending")).to_be_visible()
            assert narrow.evaluate("document.documentElement.scrollWidth") <= 480
            background = narrow.evaluate("getComputedStyle(document.documentElement).backgroundColor")
            assert background == "rgb(13, 17, 23)"
    finally:
        context.close()


def test_the_feedback_message_is_copied(browser: Browser, project: Path) -> None:
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    copier = context.new_page()
    try:
        with served(project) as (_, server):
            copier.goto(server.url)
            copier.get_by_role("button", name="Copy feedback").click()
            expect(copier.get_by_role("status").first).to_have_text("feedback copied")
            copied = copier.evaluate("navigator.clipboard.readText()")
            assert copied.startswith("1 of your 4 edit blocks would not apply")
            assert "PORT = 9999" in copied
    finally:
        context.close()


def test_an_answer_pasted_into_the_page_is_reviewed(page: Page, project: Path) -> None:
    with served(project, answer=None) as (_, server):
        page.goto(server.url)
        expect(page.get_by_text("No answer yet.")).to_be_visible()
        page.get_by_text("Paste another answer").click()
        page.get_by_role("textbox", name="Answer text").fill(ANSWER)
        page.get_by_role("button", name="Show answer").click()
        expect(badge(page, 4, "failed")).to_be_visible()


def test_the_page_works_from_the_keyboard_and_keeps_the_focus_across_updates(page: Page, project: Path) -> None:
    with served(project) as (_, server):
        page.goto(server.url)
        reject = page.get_by_role("button", name="Reject block 2")
        reject.focus()
        page.keyboard.press("Enter")
        expect(badge(page, 2, "skipped")).to_be_visible()
        expect(reject).to_be_focused()  # the redrawn button has the focus back
        expect(reject).to_have_attribute("aria-pressed", "true")
        page.get_by_role("button", name="Apply", exact=True).focus()
        page.keyboard.press("Space")
        expect(badge(page, 1, "applied")).to_be_visible()
    assert read_tree(project)["util.py"] == "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x // 2\n"


def test_a_delete_and_a_move_are_applied_and_undone_from_the_page(page: Page, project: Path) -> None:
    patch = "*** Begin Patch\n*** Delete File: app.py\n*** Update File: util.py\n*** Move to: halves.py\n*** End Patch\n"
    with served(project, patch) as (_, server):
        page.goto(server.url)
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(page.get_by_text("applied: 2 files written")).to_be_visible()
        assert not (project / "app.py").exists() and (project / "halves.py").read_text() == FILES["util.py"]
        expect(page.get_by_role("button", name="Undo")).to_be_enabled()
        page.get_by_role("button", name="Undo").click()
        expect(page.get_by_role("button", name="Undo")).to_be_disabled()
    assert read_tree(project) == FILES and not (project / "halves.py").exists()


def test_a_held_block_waits_on_the_page_and_lands_with_the_fixed_block_of_the_next_answer(
        page: Page, project: Path) -> None:
    """Block 1 applies but block 4 of the same file fails: app.py is left as it was, block 1 is held and kept, and
    the next answer needs to carry only the fixed block 4 for app.py to get both."""
    with served(project, options=None) as (_, server):  # the default policy, file
        page.goto(server.url)
        expect(badge(page, 1, "held")).to_be_visible()
        expect(badge(page, 4, "failed")).to_be_visible()
        summary = page.get_by_role("region", name="Summary")
        expect(summary).to_contain_text("4 blocks · 0 applied · 2 pending · 1 held · 1 failed · 0 skipped")
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(page.get_by_role("status").first).to_contain_text(
            "applied: 1 file written; held until their failed blocks land: app.py")
        expect(page.get_by_role("article", name="Block 1")).to_contain_text("do not send it again")
        assert read_tree(project)["app.py"] == FILES["app.py"]
        page.get_by_text("Paste another answer").click()
        page.get_by_role("textbox", name="Answer text").fill(
            "The port, fixed.\n\n" + diff_edit("app.py", ("PORT = 8000\n", "PORT = 8080\n")))
        page.get_by_role("button", name="Show answer").click()
        expect(badge(page, 1, "pending")).to_be_visible()
        expect(summary).to_contain_text("held from an earlier answer: written now with the other blocks for app.py")
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(badge(page, 1, "applied")).to_be_visible()
    assert read_tree(project)["app.py"] == 'def greet(name):\n    return "hello " + name\n\nPORT = 8080\n'
