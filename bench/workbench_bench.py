"""The workbench in Chromium: how soon a block's verdict shows after its closing marker, and the page's memory.

Run by hand: ``.venv/bin/python bench/workbench_bench.py [--blocks 100] [--rounds 50] [--gap-ms 20]``.
Needs the `[ask]` and `[web]` extras, playwright and Chromium at /usr/bin/chromium (or $EDITBLOCKS_CHROMIUM).

The model is a paced OpenAI-compatible server on 127.0.0.1 written here: it
streams the answer one line per server-sent event and writes down the moment
it sends each block's closing marker. The page notes the moment each block's
final badge appears (a MutationObserver added before the page's own script);
both clocks are this machine's wall clock.

Reported:
- verdict latency: closing marker sent → badge on screen, median and 90th percentile over an answer of
  ``--blocks`` blocks (every tenth fails), paced (``--gap-ms`` between blocks, as a model writes) and unpaced
  (the whole answer at once, the worst case: every block queues behind the ones before);
- memory: the page's JS heap after a garbage collection (CDP `HeapProfiler.collectGarbage`, then
  `Runtime.getHeapUsage`) and its DOM nodes, after 1 round and after ``--rounds`` rounds of a conversation (each an
  instruction answered with 3 blocks, one failing), and the bytes of the last update sent to the page then, which
  stay flat as the conversation grows (only what changed is sent).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, sync_playwright

from editblocks.web.chat import ModelSettings
from editblocks.web.workbench import Workbench
from editblocks.web.workbench_app import WorkbenchServer

CHROMIUM = os.environ.get("EDITBLOCKS_CHROMIUM", "/usr/bin/chromium")
CLOSING = ">>>>>>> REPLACE"
WATCH_BADGES = """
window.__verdicts = {};
new MutationObserver(() => {
  for (const badge of document.querySelectorAll("button.badge[aria-label^='Block ']")) {
    const n = badge.getAttribute("aria-label").match(/^Block (\\d+):/)[1];
    if (!(n in window.__verdicts)) window.__verdicts[n] = performance.timeOrigin + performance.now();
  }
}).observe(document, { childList: true, subtree: true });
"""


class PacedModel:
    """Answers every request with the next answer of ``answers``, one line per event, ``gap`` seconds after each
    block's closing marker; ``sent`` keeps when each closing marker went out (seconds since the epoch)."""

    def __init__(self, answers: list[str], gap: float) -> None:
        self.answers = list(answers)
        self.gap = gap
        self.sent: list[float] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                model.answer(self)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"
        threading.Thread(target=self._http.serve_forever, daemon=True).start()

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        text = self.answers.pop(0) if self.answers else "Nothing more.\n"
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()

        def event(delta: dict[str, Any], finish: str | None = None) -> None:
            data = json.dumps({"id": "b", "object": "chat.completion.chunk", "created": 0, "model": "bench",
                               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            payload = f"data: {data}\n\n".encode()
            handler.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            handler.wfile.flush()

        event({"role": "assistant", "content": ""})
        for line in text.splitlines(keepends=True):
            event({"content": line})
            if line.startswith(CLOSING):
                self.sent.append(time.time())
                if self.gap:
                    time.sleep(self.gap)
        event({}, "stop")
        payload = b"data: [DONE]\n\n"
        handler.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n0\r\n\r\n")
        handler.wfile.flush()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()


def project(root: Path, functions: int) -> None:
    (root / "handlers.py").write_text("".join(
        f"def handler_{n}(request):\n    value = request.get('key_{n}')\n    return value * {n}\n\n\n"
        for n in range(functions)))


def answer(blocks: int, first: int = 0) -> str:
    parts = ["Here are the changes.\n\n"]
    for index in range(first, first + blocks):
        old = f"    return value * {index}\n" if index % 10 != 9 else f"    return value ** {index}\n"
        parts.append(f"handlers.py\n```python\n<<<<<<< SEARCH\n    value = request.get('key_{index}')\n{old}=======\n"
                     f"    value = request.get('key_{index}')\n    return (value or 0) * {index}\n{CLOSING}\n```\n\n")
    return "".join(parts)


def latency(page: Page, folder: Path, blocks: int, gap: float) -> list[float]:
    root = folder / f"latency-{gap}"
    root.mkdir()
    project(root, blocks)
    model = PacedModel([answer(blocks)], gap)
    bench = Workbench(root, ModelSettings("bench", model.base_url, "k", retries=0))
    try:
        with WorkbenchServer(bench) as server:
            page.goto(server.url)
            page.get_by_role("checkbox", name="handlers.py", exact=True).check()
            page.get_by_label("Instruction").fill("change every handler")
            page.get_by_role("button", name="Send").click()
            page.get_by_role("button", name=f"Block {blocks}:").first.wait_for(timeout=300_000)
            page.wait_for_function(f"Object.keys(window.__verdicts).length >= {blocks}", timeout=300_000)
            shown = page.evaluate("window.__verdicts")
    finally:
        model.stop()
    return [shown[str(n)] / 1000 - model.sent[n - 1] for n in range(1, blocks + 1)]


def memory(page: Page, folder: Path, rounds: int) -> list[tuple[int, float, int, int]]:
    """(round, JS heap in MB after a collection, DOM nodes, bytes of the last update) after round 1 and the last."""
    root = folder / "memory"
    root.mkdir()
    project(root, rounds * 3)
    model = PacedModel([answer(3, first=3 * n) for n in range(rounds)], 0)
    bench = Workbench(root, ModelSettings("bench", model.base_url, "k", retries=0))
    sizes: list[int] = []
    page.on("response", lambda response: None)
    out = []
    try:
        with WorkbenchServer(bench) as server:
            page.goto(server.url)
            session = page.context.new_cdp_session(page)
            for number in range(1, rounds + 1):
                ok = page.evaluate("""async (text) => (await fetch('api/send', {method: 'POST',
                    headers: {'content-type': 'application/json'},
                    body: JSON.stringify({instruction: text, files: ['handlers.py']})})).ok""", f"round {number}")
                assert ok, bench.message
                page.get_by_role("button", name=f"Block {3 * number}:").first.wait_for(timeout=120_000)
                page.wait_for_function("document.querySelectorAll('.card.assistant[aria-busy=true]').length === 0",
                                       timeout=120_000)
                while bench.running:
                    time.sleep(0.01)
                if number in (1, rounds):
                    update = page.evaluate(f"fetch('api/state?since={bench.version - 1}').then(r => r.text())")
                    sizes.append(len(update.encode()))
                    session.send("HeapProfiler.collectGarbage")
                    heap = session.send("Runtime.getHeapUsage")["usedSize"] / 2**20
                    nodes = page.evaluate("document.getElementsByTagName('*').length")
                    out.append((number, heap, nodes, sizes[-1]))
    finally:
        model.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--blocks", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--gap-ms", type=float, default=20.0)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        for gap, label in ((options.gap_ms / 1000, f"paced, {options.gap_ms:g} ms between blocks"),
                           (0.0, "unpaced, the whole answer at once")):
            page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            page.add_init_script(WATCH_BADGES)
            delays = sorted(latency(page, Path(folder), options.blocks, gap))
            page.close()
            p90 = delays[int(len(delays) * 0.9) - 1]
            median = statistics.median(delays) * 1000
            print(f"verdict latency, {options.blocks} blocks, {label}: median {median:.0f} ms,"
                  f" p90 {p90 * 1000:.0f} ms, max {delays[-1] * 1000:.0f} ms")
        page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        for number, heap, nodes, size in memory(page, Path(folder), options.rounds):
            print(f"after {number} round{'s' if number != 1 else ''}: JS heap {heap:.1f} MB, {nodes} DOM nodes, "
                  f"last update {size / 1024:.1f} KB")
        browser.close()


if __name__ == "__main__":
    main()
