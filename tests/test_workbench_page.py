"""The workbench (`editblocks serve --root DIR`, no answer) in a real browser, against a scripted model.

The model is the scripted OpenAI-compatible server on 127.0.0.1 the `ask`
tests use (real HTTP, real server-sent events, the real `openai` SDK); the
page runs in Debian's Chromium driven by playwright. Everything is found by
role and accessible name, as a screen reader would, and every wait is an
expectation with a generous timeout, never a sleep.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from ask_server import Answer, Failure, scripted, use_local_endpoint
from playwright.sync_api import Browser, Locator, Page, expect

from editblocks import ApplyOptions
from editblocks.model import Policy
from editblocks.web.workbench import Workbench
from editblocks.web.workbench_app import WorkbenchServer
from editblocks.workspace import Workspace

from helpers_apply import diff_edit
from helpers_web import ANSWER, BROWSER_TIMEOUT_MS, FILES, make_project, read_tree, served_workbench

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
expect.set_options(timeout=BROWSER_TIMEOUT_MS)

CHUNK = 4
INSTRUCTION = "Say hello, add instead of doubling, halve to an int, move the port"
FIX = "The port block again, with the line as it is:\n\n" + diff_edit("app.py", ("PORT = 8000\n", "PORT = 8080\n"))
# These tests are about the page's mechanics, on an answer whose failing block shares app.py with a good one:
# they name `continue` so the good block is ready at once (the default, `file`, holds it; test_workbench_server
# covers that).
CONTINUE = ApplyOptions(on_failure=Policy.CONTINUE)


def mechanics(root: Path, base_url: str, **settings: Any) -> AbstractContextManager[tuple[Workbench, WorkbenchServer]]:
    return served_workbench(root, base_url, options=CONTINUE, **settings)


ROUND_ONE_AND_TWO = {
    "app.py": 'def greet(name):\n    return "hello " + name\n\nPORT = 8080\n',
    "util.py": "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x // 2\n",  # block 2 rejected
}


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local_endpoint(monkeypatch)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return make_project(root)


def new_page(browser: Browser, errors: list[str], width: int = 1280) -> Page:
    context = browser.new_context(viewport={"width": width, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(BROWSER_TIMEOUT_MS)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    return opened


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    errors: list[str] = []
    opened = new_page(browser, errors)
    yield opened
    opened.context.close()
    assert not errors, f"the page's script failed: {errors}"


def badge(page: Page, number: int, status: str) -> Locator:
    return page.get_by_role("button", name=f"Block {number}: {status}", exact=True)


def held_after(text: str, marker: str) -> int:
    """How many SSE events carry ``text`` up to (not including) ``marker``: the first event only names the role."""
    return text.index(marker) // CHUNK + 1


def ask(page: Page, instruction: str = INSTRUCTION, files: tuple[str, ...] = ("app.py", "util.py")) -> None:
    for path in files:
        page.get_by_role("checkbox", name=path, exact=True).check()
    page.get_by_label("Instruction").fill(instruction)
    page.get_by_label("Instruction").press("Control+Enter")


def answer_card(page: Page, number: int) -> Locator:
    return page.get_by_role("article", name=f"Round {number}: the model's answer")


def test_ask_watch_live_verdicts_review_rounds_apply_undo_and_reopen_from_history(page: Page, project: Path) -> None:
    hold = threading.Event()
    script = [Answer(ANSWER, chunk=CHUNK, hold=hold, hold_after=held_after(ANSWER, "That is all.")),
              Answer(FIX, chunk=CHUNK)]
    with scripted(script) as model, mechanics(project, model.base_url) as (_, server):
        page.goto(server.url)
        expect(page.get_by_text("model test-model at " + model.base_url)).to_be_visible()
        ask(page)
        # block 4 fails while the answer is still arriving: its verdict shows before the answer ends
        expect(badge(page, 4, "failed")).to_be_visible()
        expect(answer_card(page, 1)).to_have_attribute("aria-busy", "true")
        expect(page.get_by_role("button", name="Stop")).to_be_visible()
        for number in (1, 2, 3):
            expect(badge(page, number, "ready")).to_contain_text("ready · exact")
        expect(page.get_by_role("region", name="Summary")).to_contain_text("3 ready · 0 applied · 0 held · 1 failed")
        assert len(model.requests) == 1 and read_tree(project) == FILES
        hold.set()
        # the feedback goes back on its own; round 2 fixes the port, and round 1 stays as it was
        expect(badge(page, 5, "ready")).to_be_visible()
        expect(page.get_by_role("article", name="Round 2: feedback sent to the model")).to_be_visible()
        expect(answer_card(page, 2)).to_contain_text("The port block again")
        round_one = answer_card(page, 1)
        expect(round_one).to_contain_text("Three changes and a mistake.")
        expect(round_one.get_by_role("article", name=re.compile(r"^Block \d$"))).to_have_count(4)
        expect(badge(page, 4, "failed")).to_be_visible()
        expect(page.get_by_role("article", name="Block 4")).to_contain_text("its feedback went to the model in round 2")
        feedback = model.requests[1]["body"]["messages"][-1]["content"]
        assert "PORT = 9999" in feedback and "not found" in feedback
        assert read_tree(project) == FILES  # nothing is written before Apply

        page.get_by_role("button", name="Reject block 2").click()
        expect(badge(page, 2, "rejected")).to_be_visible()
        page.get_by_role("button", name="Apply", exact=True).click()
        for number in (1, 3, 5):
            expect(badge(page, number, "applied")).to_be_visible()
        expect(page.get_by_role("status").first).to_contain_text("applied: 2 files written (3 blocks)")
        assert read_tree(project) == ROUND_ONE_AND_TWO

        page.get_by_role("button", name="Undo").click()  # both rounds' writes go back in one step
        expect(badge(page, 5, "ready")).to_be_visible()
        expect(page.get_by_role("button", name="Undo")).to_be_disabled()
        assert read_tree(project) == FILES

        page.reload()
        expect(badge(page, 5, "ready")).to_be_visible()
        page.get_by_role("button", name="New conversation").click()
        expect(page.get_by_role("article", name=re.compile("^Round"))).to_have_count(0)
        page.get_by_role("button", name=f"Open conversation: {INSTRUCTION}").click()
        expect(badge(page, 4, "failed")).to_be_visible()
        expect(badge(page, 2, "rejected")).to_be_visible()  # the reviewer's choices were kept with it
        expect(badge(page, 5, "ready")).to_be_visible()
        expect(page.get_by_role("article", name="Round 1: you asked")).to_contain_text(INSTRUCTION)
        expect(page.get_by_role("article", name="Block 4")).to_contain_text("its feedback went to the model in round 2")
        expect(page.get_by_role("checkbox", name="util.py", exact=True)).to_be_checked()
    assert len(model.requests) == 2


def test_a_reopened_conversation_continues_in_the_same_record(page: Page, project: Path) -> None:
    more = "And the port once more:\n\n" + diff_edit("app.py", ("PORT = 8000\n", "PORT = 9090\n"))
    one = "Port:\n\n" + diff_edit("app.py", ("PORT = 8000\n", "PORT = 8080\n"))
    with scripted([Answer(one), Answer(more)]) as model, mechanics(project, model.base_url) as (bench, server):
        page.goto(server.url)
        ask(page, "move the port", ("app.py",))
        expect(badge(page, 1, "ready")).to_be_visible()
        name = bench.conversation.name
        page.get_by_role("button", name="New conversation").click()
        page.get_by_role("button", name="Open conversation: move the port").click()
        expect(badge(page, 1, "ready")).to_be_visible()
        page.get_by_label("Instruction").fill("now 9090 instead")
        page.get_by_role("button", name="Send").click()
        expect(page.get_by_role("article", name="Round 2: you asked")).to_contain_text("now 9090 instead")
        expect(badge(page, 2, "failed")).to_be_visible()  # round 1's held block already moved the port
    assert bench.conversation.name == name
    sent = model.requests[1]["body"]["messages"]
    assert [m["role"] for m in sent[-3:]] == ["user", "assistant", "user"]
    assert sent[-2]["content"] == one and "PORT = 8080" in sent[-1]["content"]  # the file as round 1 left it
    assert (project / ".editblocks" / "runs" / name / "round-2.answer.md").read_text() == more


@pytest.mark.parametrize(("script", "base", "expected"), [
    ([], "down", "cannot connect to"),
    ([Failure(401, "Incorrect API key provided")], "", "refused the API key (401)"),
    ([Failure(429, headers={"retry-after": "0"})] * 3, "", "is rate limiting requests (429)"),
    ([Failure(500)] * 3, "", "failed with a server error (500)"),
    ([Answer(ANSWER, chunk=CHUNK, drop_after=30)], "", "broke off mid-answer"),
], ids=["down", "401", "429", "500", "dropped"])
def test_an_endpoint_that_fails_is_one_line_in_the_conversation_and_nothing_is_written(
        page: Page, project: Path, script: list[Answer | Failure], base: str, expected: str) -> None:
    api_key = "other-key" if "401" in str(script) else "test-key"
    with scripted(script, api_key=api_key) as model:
        url = model.base_url
        if base == "down":
            model.stop()  # nothing listens there any more
        with served_workbench(project, url) as (_, server):
            page.goto(server.url)
            ask(page)
            alert = answer_card(page, 1).get_by_role("alert")
            expect(alert).to_contain_text(expected)
            expect(alert).to_contain_text("nothing")
            assert "\n" not in alert.inner_text().strip()
            expect(page.get_by_role("button", name="Send")).to_be_enabled()
            expect(page.get_by_role("button", name="Apply", exact=True)).to_be_disabled()
    assert read_tree(project) == FILES


def test_a_growing_block_shows_in_progress_and_stop_ends_the_round_with_nothing_applied(page: Page,
                                                                                      project: Path) -> None:
    hold = threading.Event()
    with scripted([Answer(ANSWER, chunk=CHUNK, hold=hold, hold_after=held_after(ANSWER, "    return x + x"))]) as model, \
            mechanics(project, model.base_url) as (_, server):
        page.goto(server.url)
        ask(page)
        expect(badge(page, 1, "ready")).to_be_visible()
        growing = page.get_by_role("article", name="Block in progress (reply line 14)")
        expect(growing).to_contain_text("in progress")
        expect(growing).to_contain_text("return x * 2")
        expect(page.get_by_role("region", name="Summary")).to_contain_text("1 in progress")
        page.get_by_role("button", name="Stop").click()
        expect(answer_card(page, 1)).to_contain_text("stopped")
        hold.set()
        expect(badge(page, 1, "skipped")).to_be_visible()
        expect(page.get_by_role("article", name="Block 1")).to_contain_text("never applied")
        expect(page.get_by_role("button", name="Apply", exact=True)).to_be_disabled()
    assert read_tree(project) == FILES


def test_two_tabs_cannot_both_apply_and_the_second_is_told_why(browser: Browser, project: Path) -> None:
    errors: list[str] = []
    first, second = new_page(browser, errors), new_page(browser, errors)
    try:
        with scripted([Answer(ANSWER)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
            first.goto(server.url)
            ask(first)
            expect(badge(first, 4, "failed")).to_be_visible()
            expect(first.get_by_role("button", name="Apply", exact=True)).to_be_enabled()
            second.goto(server.url)
            expect(badge(second, 1, "ready")).to_be_visible()
            second.route("**/events*", lambda route: route.abort())  # this tab hears nothing more
            second.reload()
            expect(second.get_by_role("button", name="Apply", exact=True)).to_be_enabled()
            first.get_by_role("button", name="Apply", exact=True).click()
            expect(badge(first, 1, "applied")).to_be_visible()
            written = read_tree(project)
            second.get_by_role("button", name="Apply", exact=True).click()
            expect(second.get_by_role("status").first).to_contain_text("this tab was out of date")
            assert read_tree(project) == written
            first.get_by_role("button", name="Undo").click()
            expect(badge(first, 1, "ready")).to_be_visible()
            with Workspace(project).lock():  # another process is applying to the project right now
                first.get_by_role("button", name="Apply", exact=True).click()
                expect(first.get_by_role("status").first).to_contain_text("is busy")
            assert read_tree(project) == FILES
    finally:
        first.context.close()
        second.context.close()
    assert not errors, errors


def test_a_file_changed_on_disk_is_announced_and_every_block_decided_again(page: Page, project: Path) -> None:
    with scripted([Answer(ANSWER)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        ask(page)
        expect(badge(page, 1, "ready")).to_be_visible()
        (project / "app.py").write_text('def greet(name):\n    return "hey " + name\n\nPORT = 9999\n')
        expect(page.get_by_role("alert").filter(has_text="changed on disk")).to_contain_text("app.py changed on disk")
        expect(badge(page, 1, "failed")).to_be_visible()  # its old text is gone now
        expect(badge(page, 4, "ready")).to_be_visible()  # and the port line it quoted is there
        expect(badge(page, 2, "ready")).to_be_visible()


def test_an_ambiguous_block_shows_where_its_old_text_is(page: Page, project: Path) -> None:
    (project / "twice.py").write_text("a = 1\nx = 2\nb = 3\nx = 2\n")
    answer = "Change x:\n\n" + diff_edit("twice.py", ("x = 2\n", "x = 3\n"))
    with scripted([Answer(answer)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        ask(page, "change x", ("twice.py",))
        expect(badge(page, 1, "failed")).to_be_visible()
        panel = page.get_by_role("group", name="Block 1: its old text beside the file")
        expect(panel).to_contain_text("the old text is at lines 2, 4")
        expect(panel.get_by_role("group", name="match at line 2")).to_contain_text("x = 2")
        expect(panel.get_by_role("group", name="match at line 4")).to_be_visible()
        expect(panel).not_to_contain_text("no similar lines")
        expect(page.get_by_role("article", name="Block 1")).to_contain_text(
            "Accept sends this block's feedback to the model")


def test_prose_is_markdown_rendered_safely_and_fence_lines_are_not_text(page: Page, project: Path) -> None:
    prose = ("# Plan\n\nSome **bold** words, `code`, <script>window.owned = 1</script> "
             "<img src=x onerror=\"window.owned = 2\"> ![remote](http://example.invalid/x.png) "
             "[bad](javascript:window.owned=3) [good](https://example.invalid/)\n\n")
    answer = prose + diff_edit("app.py", ("PORT = 8000\n", "PORT = 8080\n")) + "Done.\n"
    with scripted([Answer(answer)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        ask(page, "port", ("app.py",))
        expect(badge(page, 1, "ready")).to_be_visible()
        card = answer_card(page, 1)
        expect(card.get_by_role("heading", name="Plan")).to_be_visible()
        expect(card.locator("strong")).to_have_text("bold")
        expect(card).to_contain_text("<script>window.owned = 1</script>")
        expect(card).to_contain_text("[image: remote · http://example.invalid/x.png]")
        expect(card.get_by_role("link", name="good")).to_have_attribute("rel", "noopener noreferrer")
        expect(card.get_by_role("link", name="bad")).to_have_count(0)
        expect(card).not_to_contain_text("```")
        expect(card).not_to_contain_text("null")
        expect(card.locator(".prose").filter(has_text=re.compile(r"^app\.py$"))).to_have_count(0)
        assert page.evaluate("window.owned") is None
        assert card.locator("img, script").count() == 0


def test_one_change_inside_a_block_can_be_refused(page: Page, project: Path) -> None:
    old = 'def greet(name):\n    return "hi " + name\n\nPORT = 8000\n'
    new = 'def greet(name):\n    return "hello " + name\n\nPORT = 8080\n'
    answer = "Both at once:\n\n" + diff_edit("app.py", (old, new))
    with scripted([Answer(answer)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        ask(page, "both", ("app.py",))
        expect(badge(page, 1, "ready")).to_be_visible()
        expect(page.get_by_role("group", name="Change 2 of block 1")).to_contain_text("change 2 of 2: kept")
        page.get_by_role("button", name="Refuse change 2 of block 1").click()
        expect(page.get_by_role("group", name="Change 2 of block 1")).to_contain_text("refused")
        expect(page.get_by_role("region", name="Diff of app.py")).not_to_contain_text("PORT = 8080")
        page.get_by_role("button", name="Apply", exact=True).click()
        expect(badge(page, 1, "applied")).to_be_visible()
    assert (project / "app.py").read_text() == 'def greet(name):\n    return "hello " + name\n\nPORT = 8000\n'


def test_the_diff_viewer_widens_to_the_whole_file_and_goes_side_by_side(page: Page, project: Path) -> None:
    long_file = "".join(f"line_{n} = {n}\n" for n in range(1, 41))
    (project / "long.py").write_text(long_file)
    answer = diff_edit("long.py", ("line_20 = 20\n", "line_20 = 2000\n"))
    with scripted([Answer(answer)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        ask(page, "change line 20", ("long.py",))
        diff = page.get_by_role("region", name="Diff of long.py")
        expect(diff).to_contain_text("line_17 = 17")
        expect(diff).not_to_contain_text("line_16 = 16")
        diff.get_by_role("button", name="Expand context of long.py").click()
        expect(diff).to_contain_text("line_7 = 7")  # 3 + 10 lines around the change
        expect(diff).not_to_contain_text("line_6 = 6")
        diff.get_by_role("button", name="Whole file long.py").click()
        expect(diff).to_contain_text("line_1 = 1")
        expect(diff).to_contain_text("line_40 = 40")
        page.get_by_role("button", name="Side by side").click()
        row = diff.locator("table.split tr").filter(has_text="line_20 = 2000")
        expect(row).to_contain_text(re.compile(r"20\s*line_20 = 20\s*20\s*line_20 = 2000"))
        table_width = diff.locator("table.split").evaluate("t => t.getBoundingClientRect().width")
        conversation_width = page.get_by_role("region", name="Conversation").evaluate(
            "c => c.getBoundingClientRect().width")
        assert table_width >= conversation_width - 2  # as wide as the main column, not half of it


def test_keyboard_moves_between_blocks_decides_and_applies(page: Page, project: Path) -> None:
    with scripted([Answer(ANSWER)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        ask(page)
        expect(badge(page, 4, "failed")).to_be_visible()
        page.get_by_role("heading", name="Changes").click()
        page.keyboard.press("?")
        dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
        expect(dialog).to_be_visible()
        for what in ("next block", "previous block", "accept the current block", "reject the current block", "apply"):
            expect(dialog).to_contain_text(what)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        page.keyboard.press("j")
        expect(page.get_by_role("article", name="Block 1")).to_be_focused()
        page.keyboard.press("j")
        expect(page.get_by_role("article", name="Block 2")).to_be_focused()
        page.keyboard.press("r")
        expect(badge(page, 2, "rejected")).to_be_visible()
        expect(page.get_by_role("article", name="Block 2")).to_be_focused()
        page.keyboard.press("k")
        expect(page.get_by_role("article", name="Block 1")).to_be_focused()
        page.keyboard.press("Shift+A")
        expect(badge(page, 1, "applied")).to_be_visible()
    assert read_tree(project)["util.py"] == "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x // 2\n"


def test_the_picker_greys_out_ignored_and_binary_files_and_filters(page: Page, project: Path) -> None:
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    (project / "debug.log").write_text("noise\n")
    (project / "build").mkdir()
    (project / "build" / "out.py").write_text("x = 1\n")
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    (project / "src").mkdir()
    (project / "src" / "deep.py").write_text("y = 2\n")
    (project / "src" / ".gitignore").write_text("secret.py\n")
    (project / "src" / "secret.py").write_text("z = 3\n")
    with served_workbench(project, None, model=None) as (_, server):
        page.goto(server.url)
        tree = page.get_by_role("group", name="Project files")
        expect(tree.get_by_role("checkbox", name="src/deep.py")).to_be_enabled()
        for path in ("debug.log", "build/out.py", "src/secret.py"):
            expect(tree.get_by_role("checkbox", name=path)).to_be_disabled()
        expect(tree.get_by_role("checkbox", name="debug.log")).to_have_accessible_description("ignored (.gitignore)")
        expect(tree.get_by_role("checkbox", name="logo.png")).to_be_disabled()
        expect(tree.get_by_role("checkbox", name="logo.png")).to_have_accessible_description("binary")
        page.get_by_role("searchbox", name="Filter files").fill("deep")
        expect(tree.get_by_role("checkbox", name="src/deep.py")).to_be_visible()
        expect(tree.get_by_role("checkbox", name="app.py")).to_be_hidden()
        tree.get_by_role("checkbox", name="src/deep.py").check()
        expect(page.get_by_text("1 file picked: src/deep.py")).to_be_visible()
        # no model was given: the page says how to set one, and Send stays off
        expect(page.get_by_text("no model: start `editblocks serve` with --model")).to_be_visible()
        expect(page.get_by_role("button", name="Send")).to_be_disabled()


def test_the_format_can_be_switched_for_the_next_instruction(page: Page, project: Path) -> None:
    whole = "app.py\n```python\ndef greet(name):\n    return name\n\nPORT = 1\n```\n"
    with scripted([Answer(whole)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        page.get_by_label("Format").select_option("whole")
        expect(page.get_by_role("status").first).to_contain_text("the next instruction asks for the whole format")
        ask(page, "rewrite it", ("app.py",))
        expect(badge(page, 1, "ready")).to_be_visible()
    system = model.requests[0]["body"]["messages"][0]["content"]
    assert "whole" in system.lower() and "<<<<<<< SEARCH" not in system


def test_every_control_has_a_name_focus_shows_and_status_is_more_than_colour(page: Page, project: Path) -> None:
    with scripted([Answer(ANSWER)]) as model, mechanics(project, model.base_url, retries=0) as (_, server):
        page.goto(server.url)
        ask(page)
        expect(badge(page, 4, "failed")).to_be_visible()
        unnamed = page.evaluate("""() => [...document.querySelectorAll(
                'button, input, select, textarea, a[href], summary, [role=button], [role=dialog], [role=group]')]
            .filter((node) => {
                const labelled = node.getAttribute('aria-label') || node.getAttribute('aria-labelledby')
                    || (node.labels && node.labels.length) || node.textContent.trim();
                return !labelled;
            }).map((node) => node.outerHTML.slice(0, 120))""")
        assert unnamed == []
        for status, mark in (("ready", "✓"), ("failed", "✗")):
            number = 1 if status == "ready" else 4
            expect(badge(page, number, status)).to_contain_text(f"{mark} {status}")
        button = page.get_by_role("button", name="Reject block 1")
        button.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        outline = button.evaluate("b => getComputedStyle(b).outlineStyle")
        assert outline not in ("", "none")
