"""Regenerate every screenshot the documentation shows, from the shipped example, in Chromium.

Run by hand after changing the review page, then commit the images:
``python scripts/screenshots.py`` (``--out DIR`` writes them elsewhere). Each image is what
the command in its caption shows: the answers are `examples/response.md` and
`examples/misquoted.md`, the project a fresh copy of `examples/project` (so Apply
changes nothing in the checkout). Chromium is Debian's `/usr/bin/chromium`, or the
program `EDITBLOCKS_CHROMIUM` names.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

from editblocks.web import ReviewServer, ReviewSession

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
IMAGES = REPO / "docs" / "images"
CHROMIUM = os.environ.get("EDITBLOCKS_CHROMIUM", "/usr/bin/chromium")
WIDTH = 1280


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


def shoot(out: Path) -> list[Path]:
    """Write every image of `SHOTS` into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        for name, (answer, dark, act, part) in SHOTS.items():
            with tempfile.TemporaryDirectory(prefix="editblocks-") as folder:
                root = Path(folder) / "examples" / "project"
                shutil.copytree(EXAMPLES / "project", root)
                session = ReviewSession(root)
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
