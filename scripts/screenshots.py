"""Regenerate every screenshot the documentation shows, from the shipped example, in Chromium.

Run by hand after changing the review page or the workbench, then commit the images:
``python scripts/screenshots.py`` (``--out DIR`` writes them elsewhere). Each image is what
the command in its caption shows: the answers are `examples/response.md` and
`examples/misquoted.md`, the project a fresh copy of `examples/project` (so Apply
changes nothing in the checkout). The workbench's model is the scripted
OpenAI-compatible server the tests use (`tests/ask_server.py`, on 127.0.0.1), and its
images follow one conversation step by step. Chromium is Debian's `/usr/bin/chromium`,
or the program `EDITBLOCKS_CHROMIUM` names.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Browser, Page, expect, sync_playwright

from editblocks.web import ReviewServer, ReviewState
from editblocks.web.chat import ModelSettings
from editblocks.web.workbench import Workbench
from editblocks.web.workbench_app import WorkbenchServer

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
from ask_server import Answer, Failure, scripted  # noqa: E402  (the tests' scripted model, found through tests/)

EXAMPLES = REPO / "examples"
IMAGES = REPO / "docs" / "images"
CHROMIUM = os.environ.get("EDITBLOCKS_CHROMIUM", "/usr/bin/chromium")
WIDTH = 1280
expect.set_options(timeout=60_000)  # a busy machine is slow; a step that works never waits this long


def badge(page: Page, number: int, status: str) -> None:
    expect(page.get_by_role("button", name=f"Block {number}: {status}", exact=True)).to_be_visible()


def opened(page: Page) -> None:
    """`editblocks serve examples/response.md --root examples/project`, as it opens."""
    for number in (1, 2, 3):
        badge(page, number, "pending")


def applied(page: Page) -> None:
    """The same page after Apply: every block written."""
    opened(page)
    page.get_by_role("button", name="Apply", exact=True).click()
    for number in (1, 2, 3):
        badge(page, number, "applied")


def misquoted(page: Page) -> None:
    """`editblocks serve examples/misquoted.md --root examples/project`: the block beside the file's closest lines."""
    badge(page, 1, "failed")


# name: (answer, dark theme, what to do on the page, the block to show: None for the whole page)
SHOTS: dict[str, tuple[str, bool, Callable[[Page], None], str | None]] = {
    "review-page.png": ("response.md", False, opened, None),
    "review-page-applied-dark.png": ("response.md", True, applied, None),
    "review-page-failed.png": ("misquoted.md", False, misquoted, "Block 1"),
}


WORKBENCH_FIX = """The `total_value` block again, quoting the file as it is:

inventory.py
```python
<<<<<<< SEARCH
def total_value(items):
    return sum(item.quantity * item.price for item in items)
=======
def total_value(items):
    return sum(item.quantity * item.price for item in items if item.price)
>>>>>>> REPLACE
```
"""
WORKBENCH_SHOTS = ("workbench-ask.png", "workbench-live.png", "workbench-round-2.png", "workbench-review.png",
                   "workbench-applied-dark.png", "workbench-history.png", "workbench-shortcuts.png",
                   "workbench-endpoint-error.png")
INSTRUCTION = "Refuse negative restocks, add a report module, and skip unpriced items in total_value"


def workbench_story(browser: Browser, out: Path) -> list[Path]:
    """`editblocks serve --root examples/project --model …`: one conversation, an image per step."""
    answer = (EXAMPLES / "response.md").read_text(encoding="utf-8") + "\n" + \
        (EXAMPLES / "misquoted.md").read_text(encoding="utf-8") + "\nThat is all.\n"
    hold = threading.Event()
    held_at = answer.index("That is all.") // 8 + 1  # SSE events up to the end of the failing block
    shots = iter(WORKBENCH_SHOTS)
    written = []

    def shot(page: Page, part: str | None = None) -> None:
        target = out / next(shots)
        page.mouse.move(0, 0)
        page.evaluate("window.scrollTo(0, 0)")
        if part is None:
            page.screenshot(path=target, full_page=True)
        else:
            page.get_by_role("region", name=part).screenshot(path=target)
        written.append(target)

    with tempfile.TemporaryDirectory(prefix="editblocks-") as folder, \
            scripted([Answer(answer, chunk=8, hold=hold, hold_after=held_at), Answer(WORKBENCH_FIX, chunk=8),
                      Failure(401, "Incorrect API key provided")]) as model:
        root = Path(folder) / "examples" / "project"
        shutil.copytree(EXAMPLES / "project", root)
        bench = Workbench(root, ModelSettings("gpt-4.1", model.base_url, "test-key", backoff=0.01))
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        try:
            with WorkbenchServer(bench) as server:
                page.goto(server.url)
                page.get_by_role("checkbox", name="inventory.py", exact=True).check()
                page.get_by_role("checkbox", name="README.md", exact=True).check()
                page.get_by_label("Instruction").fill(INSTRUCTION)
                shot(page)
                page.get_by_role("button", name="Send").click()
                badge(page, 4, "failed")
                shot(page)
                hold.set()
                badge(page, 5, "ready")
                shot(page)
                page.get_by_role("button", name="Reject block 3").click()
                badge(page, 3, "rejected")
                page.get_by_role("button", name="Side by side").click()
                shot(page, "Changes")
                page.emulate_media(color_scheme="dark")
                page.get_by_role("button", name="Apply", exact=True).click()
                badge(page, 5, "applied")
                shot(page)
                page.emulate_media(color_scheme="light")
                page.get_by_role("button", name="Undo").click()
                badge(page, 5, "ready")
                page.get_by_role("button", name="New conversation").click()
                page.get_by_role("button", name=f"Open conversation: {INSTRUCTION}").click()
                badge(page, 4, "failed")
                shot(page)
                page.get_by_role("heading", name="Changes").click()
                page.keyboard.press("?")
                expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
                shot(page)
                page.keyboard.press("Escape")
                page.get_by_role("button", name="New conversation").click()
                page.get_by_label("Instruction").fill("Rename Item to StockItem")
                page.get_by_role("button", name="Send").click()
                expect(page.get_by_role("alert").filter(has_text="401")).to_be_visible()
                shot(page, "Conversation")
        finally:
            hold.set()
            page.close()
    return written


def shoot(out: Path) -> list[Path]:
    """Write every image of `SHOTS` and of the workbench's story into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        written += workbench_story(browser, out)
        for name, (answer, dark, act, part) in SHOTS.items():
            with tempfile.TemporaryDirectory(prefix="editblocks-") as folder:
                root = Path(folder) / "examples" / "project"
                shutil.copytree(EXAMPLES / "project", root)
                session = ReviewState(root)
                session.load((EXAMPLES / answer).read_text(encoding="utf-8"))
                page = browser.new_page(viewport={"width": WIDTH, "height": 900},
                                        color_scheme="dark" if dark else "light")
                with ReviewServer(session) as server:
                    page.goto(server.url)
                    act(page)
                    page.mouse.move(0, 0)
                    target = out / name
                    if part is None:
                        page.screenshot(path=target, full_page=True)
                    else:
                        page.get_by_role("article", name=part).screenshot(path=target)
                page.close()
            written.append(target)
        browser.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help=f"where to write the images (default {IMAGES})")
    for path in shoot(parser.parse_args().out):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
