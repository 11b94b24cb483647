"""Growth of the shapes that once grew faster than their input: CPU time at 8N over CPU time at N.

    .venv/bin/python bench/growth_bench.py [--rounds 5]

Linear work measures about 8x, quadratic about 64x. The shapes: a live answer with k blocks on one file (k and
the file's lines both times 8), a V4A patch whose `@@` anchors are missing, one whose anchors are found, and a
`-U0` diff of pure insertions (hunks and lines both times 8). Each ratio is the median of ``--rounds``
interleaved measurements (`process_time`). The tests guard the same shapes with a wide threshold
(tests/test_v4a_fidelity.py, tests/test_reliability.py); this script reports the figures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from ask_bench import answer, big_file, sources

from editblocks import parse
from editblocks.plan import TargetFile, plan_edits
from editblocks.service.live import LiveAnswer, LiveLocator

FACTOR = 8


def numbered(size: int) -> str:
    return "".join(f"line {n}\n" for n in range(size))


def missing_anchors(size: int) -> Callable[[], object]:
    hunks = "".join(f"@@ not in the file {n}\n-line {n}\n+LINE {n}\n" for n in range(0, size, 4))
    return planned(numbered(size), f"*** Begin Patch\n*** Update File: a.py\n{hunks}*** End Patch\n", "v4a")


def found_anchors(size: int) -> Callable[[], object]:
    hunks = "".join(f"@@ line {n}\n-line {n + 1}\n+LINE {n + 1}\n" for n in range(0, size - 1, 4))
    return planned(numbered(size), f"*** Begin Patch\n*** Update File: a.py\n{hunks}*** End Patch\n", "v4a")


def u0_insertions(size: int) -> Callable[[], object]:
    hunks = "".join(f"@@ -{n},0 +{n + n // 4 + 1} @@\n+new {n}\n" for n in range(0, size, 4))
    return planned(numbered(size), f"--- a/a.py\n+++ b/a.py\n{hunks}", "udiff")


def planned(text: str, patch: str, fmt: str) -> Callable[[], object]:
    blocks = parse(patch, fmt).blocks
    return lambda: plan_edits(blocks, {"a.py": TargetFile("a.py", text)})


def live_blocks(blocks: int) -> Callable[[], object]:
    """``blocks`` blocks streamed in 4-character chunks onto a file of 500 lines per block."""
    file_text, text = big_file(blocks * 500), answer(blocks)
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]

    def run() -> object:
        stream = LiveAnswer(LiveLocator(sources(file_text)))
        for chunk in chunks:
            stream.feed(chunk)
        stream.close()
        return stream
    return run


SHAPES: dict[str, tuple[Callable[[int], Callable[[], object]], int]] = {
    "live answer, k blocks on one file (k 20 -> 160, lines 10,000 -> 80,000)": (live_blocks, 20),
    "V4A hunks whose @@ anchor is missing (2,000 -> 16,000 lines)": (missing_anchors, 2_000),
    "V4A hunks whose @@ anchor is found (2,000 -> 16,000 lines)": (found_anchors, 2_000),
    "-U0 pure insertions (4,000 -> 32,000 lines)": (u0_insertions, 4_000),
}


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    for name, (make, size) in SHAPES.items():
        small, large = make(size), make(FACTOR * size)
        small()
        ratios = [cpu(large) / max(cpu(small), 1e-9) for _ in range(args.rounds)]
        print(f"{statistics.median(ratios):6.1f}x  {name}")


if __name__ == "__main__":
    main()
