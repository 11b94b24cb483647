"""A screenshot of the review page after applying 3 blocks with 1 failing (for the issue's note).

Run by hand: ``.venv/bin/python bench/serve_screenshot.py OUT.png [--width 1280] [--dark]``.
The answer is the shipped example (examples/response.md, three blocks that
apply) plus a fourth block whose SEARCH text misquotes `total_value`; the
project is a copy of examples/project. The script clicks Apply on the page,
waits for the badges, and saves the whole page.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from editblocks.web import ReviewServer, ReviewState

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CHROMIUM = os.environ.get("EDITBLOCKS_CHROMIUM", "/usr/bin/chromium")
MISQUOTED = """
And `total_value` should skip items without a price:

inventory.py
```python
<<<<<<< SEARCH
def total_value(items):
    return sum(item.qty * item.price for item in items)
=======
def total_value(items):
    return sum(item.quantity * item.price for item in items if item.price)
>>>>>>> REPLACE
```
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--dark", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        root = Path(folder) / "project"
        shutil.copytree(EXAMPLES / "project", root)
        session = ReviewState(root)
        session.load((EXAMPLES / "response.md").read_text() + MISQUOTED)
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": options.width, "height": 900},
                                color_scheme="dark" if options.dark else "light")
        with ReviewServer(session) as server:
            page.goto(server.url)
            page.get_by_role("button", name="Apply", exact=True).click()
            page.get_by_role("button", name="Block 3: applied").wait_for()
            page.mouse.move(0, 0)
            page.screenshot(path=options.out, full_page=True)
        browser.close()
    print(f"wrote {options.out}")


if __name__ == "__main__":
    main()
