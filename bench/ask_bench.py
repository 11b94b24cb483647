"""What the live `ask` pipeline costs: CPU per streamed token, and how soon a finished block shows its verdict.

Run by hand: ``.venv/bin/python bench/ask_bench.py``. No model and no network:
a realistic answer (prose and edit blocks for a 20,000-line file) is fed in
4-character chunks (about one token each) through `LiveAnswer` and the
terminal view, drawing into a terminal that is a string buffer, with rich's
own redraw timer running; the CPU time (`process_time`, every thread) is
divided by the number of chunks. Then, for a block found at once and for one
that is not in the file (which runs the near-miss search), the time from
feeding the block's last line to its verdict event. Each figure is the best
of several runs.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable

from rich.console import Console

from editblocks.ask.display import LiveView
from editblocks.plan import TargetFile
from editblocks.service.live import BlockLocated, LiveAnswer, LiveLocator

LINES = 20_000
CHUNK = 4
RUNS = 5
PATH = "src/big_module.py"


def big_file(lines: int = LINES) -> str:
    out = []
    for number in range(lines // 5):
        out += [f"def handler_{number}(request, context):", f"    value = request.get('field_{number}')",
                "    if value is None:", f"        return context.default({number})", ""]
    return "\n".join(out) + "\n"


def block(old: str, new: str) -> str:
    return f"{PATH}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def answer(blocks: int = 6) -> str:
    parts = ["I'll make the handlers return early and log the missing fields. Here are the edits, one per handler, "
             "keeping the surrounding code exactly as it is.\n\n"]
    for index in range(blocks):
        number = (index + 1) * (LINES // 5) // (blocks + 1)
        parts.append(f"Handler {number} gets a log line so a missing field is visible in production.\n\n")
        parts.append(block(f"    if value is None:\n        return context.default({number})\n",
                           f"    if value is None:\n        context.log('missing field_{number}')\n"
                           f"        return context.default({number})\n"))
        parts.append("\n")
    parts.append("That is all: every handler now logs before falling back to its default.\n")
    return "".join(parts)


def sources(text: str) -> Callable[[str], TargetFile]:
    return lambda path: TargetFile(path, text if path == PATH else None)


def cpu_per_token(text: str, file_text: str) -> tuple[float, int]:
    """Best CPU µs per chunk over RUNS full streams through the live view, and the chunk count."""
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    best = float("inf")
    for _ in range(RUNS):
        view = LiveView(Console(file=io.StringIO(), force_terminal=True, width=120, emoji=False, highlight=False))
        live = LiveAnswer(LiveLocator(sources(file_text)))
        start = time.process_time()
        view.round_started(1, "bench")
        for chunk in chunks:
            view.chunk(chunk, live.feed(chunk))
        view.chunk("", live.close())
        view.stream_ended()
        best = min(best, time.process_time() - start)
    return best / len(chunks) * 1e6, len(chunks)


def verdict_latency(file_text: str, old: str, new: str) -> float:
    """Best wall-clock ms from feeding a block's last line (its end marker) to its verdict event."""
    text = "Here is the change.\n\n" + block(old, new)
    last = ">>>>>>> REPLACE\n"  # the block's end marker: its last line
    head = text[: text.rindex(last)]
    best = float("inf")
    for _ in range(RUNS):
        live = LiveAnswer(LiveLocator(sources(file_text)))
        live.feed(head)
        start = time.perf_counter()
        events = live.feed(last)
        elapsed = time.perf_counter() - start
        assert any(isinstance(event, BlockLocated) for event in events), "no verdict on the last line"
        best = min(best, elapsed)
    return best * 1000


def main() -> None:
    file_text = big_file()
    text = answer()
    micros, chunks = cpu_per_token(text, file_text)
    print(f"live pipeline (parse + locate + terminal view), {CHUNK}-char chunks, {chunks} chunks, "
          f"{LINES}-line file: {micros:.1f} µs CPU per chunk (goal ≤ 30)")
    number = LINES // 5 - 3
    found = verdict_latency(file_text, f"    if value is None:\n        return context.default({number})\n",
                            "    if value is None:\n        return None\n")
    missing = verdict_latency(file_text, f"    if value is None:\n        return context.fallback({number})\n",
                              "    return None\n")
    print(f"block's last line -> verdict, {LINES}-line file: found (exact) {found:.1f} ms, "
          f"not found (near-miss search) {missing:.1f} ms (goal ≤ 50)")


if __name__ == "__main__":
    main()
