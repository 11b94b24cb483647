"""Time to first render of the review page for a 200-block answer over 20 files (goal: at most 1 s).

Run by hand: ``.venv/bin/python bench/serve_bench.py [--blocks 200] [--files 20] [--runs 5]``.
Needs the `[web]` extra, playwright and Chromium at /usr/bin/chromium (or
$EDITBLOCKS_CHROMIUM). Each file has 30 small functions; every block changes
one function's body, and one block in twenty quotes a line that is not in
its file (a failed block, so the closest-lines panel is drawn too).

Reported, best and median of the runs:
- load: parse the answer and decide every block against the files (a dry run);
- view: build the page's view (highlighted, diffed, as JSON), as the first request does;
- first render: from asking the browser for the address until every block's badge is on screen, as seen from
  here (includes playwright's own round trips); "in the page" is the page's own clock: from the start of
  navigation to the end of its first drawing (the `editblocks:first-render` performance mark);
- total: load + first render, what a person waits after `editblocks serve` starts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from editblocks.web import ReviewServer, ReviewState
from editblocks.web.highlight import _tokens

CHROMIUM = os.environ.get("EDITBLOCKS_CHROMIUM", "/usr/bin/chromium")
FUNCTIONS = 30


def source(file: int) -> str:
    return "".join(f"def handler_{file}_{n}(request):\n    value = request.get('key_{n}')\n"
                   f"    return value * {n}\n\n\n" for n in range(FUNCTIONS))


def answer(files: int, blocks: int) -> str:
    parts = ["Here are the changes.\n\n"]
    for index in range(blocks):
        file, n = index % files, (index // files) % FUNCTIONS
        old = f"    return value * {n}\n" if index % 20 != 19 else f"    return value ** {n}\n"
        new = f"    return (value or 0) * {n} + 1\n"
        parts.append(f"src/module_{file}.py\n```python\n<<<<<<< SEARCH\n    value = request.get('key_{n}')\n{old}"
                     f"=======\n    value = request.get('key_{n}')\n{new}>>>>>>> REPLACE\n```\n\n")
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=200)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    text = answer(options.files, options.blocks)
    loads, views, renders, in_page, totals = [], [], [], [], []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        root = Path(folder)
        (root / "src").mkdir()
        for file in range(options.files):
            (root / "src" / f"module_{file}.py").write_text(source(file))
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        for _ in range(options.runs):
            _tokens.cache_clear()  # every run starts cold, as a fresh `editblocks serve` does
            session = ReviewState(root)
            started = time.perf_counter()
            session.load(text)
            loaded = time.perf_counter()
            session.view_json()
            viewed = time.perf_counter()
            _tokens.cache_clear()
            session = ReviewState(root)  # a fresh session: the page's request builds the view itself
            session.load(text)
            with ReviewServer(session) as server:
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                before = time.perf_counter()
                page.goto(server.url)
                page.wait_for_function(f"document.querySelectorAll('button.badge').length === {options.blocks}")
                rendered = time.perf_counter()
                mark = page.evaluate("performance.getEntriesByName('editblocks:first-render')[0].startTime")
                failed = page.locator("button.badge.failed").count()
                page.close()
            loads.append(loaded - started)
            views.append(viewed - loaded)
            renders.append(rendered - before)
            in_page.append(mark / 1000)
            totals.append(loaded - started + rendered - before)
        browser.close()
    print(f"{options.blocks} blocks over {options.files} files ({failed} failed), answer {len(text):,} chars, "
          f"{options.runs} runs (best / median):")
    for name, values in (("load (parse + dry run)", loads), ("view (JSON, highlighted)", views),
                         ("first render in Chromium", renders), ("  of which in the page", in_page),
                         ("total", totals)):
        print(f"  {name:26} {min(values) * 1000:7.0f} ms / {statistics.median(values) * 1000:7.0f} ms")


if __name__ == "__main__":
    main()
