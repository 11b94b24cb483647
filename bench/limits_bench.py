"""Limits: time and peak memory of editblocks on huge and degenerate inputs (issue 6). Run by hand:

    .venv/bin/python bench/limits_bench.py [--scale 1.0] [--only SUBSTRING]

Each case is timed once or a few times (best kept), then run again under
tracemalloc for its peak memory beyond the input it was given. Parser cases
are also run at a quarter size: the growth column is time(N) / time(N/4), about 4
for linear work and 16 for quadratic; anything over 5.5 is flagged. The hostile
parser shapes of issue 17 follow in a table of their own: CPU time, the ratio
to a typical answer of the same size, peak memory over the answer's size, and
growth from N/4 to N. The
behaviour at these sizes is asserted in tests/test_reliability.py, with
smaller inputs; this script only measures.
"""

from __future__ import annotations

import argparse
import gc
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hostile_shapes import SHAPES

from editblocks import StreamParser, apply, parse
from editblocks.plan import TargetFile, plan_edits

GROWTH_STEP = 4
GROWTH_FLAG = 5.5
MEGABYTE = 1_000_000


def diff_block(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def typical_response(megabytes: float) -> str:
    """Prose and blocks over 50 files until the text reaches the size asked for."""
    parts, size, number = [], 0, 0
    while size < megabytes * MEGABYTE:
        body = "".join(f"    total_{number}_{line} = compute(items, {line})\n" for line in range(8))
        piece = f"Step {number}: adjust the totals.\n\n" + diff_block(f"src/m{number % 50}.py", body, body.upper())
        parts.append(piece)
        size += len(piece)
        number += 1
    return "".join(parts)


def many_blocks(count: int) -> str:
    return "".join(diff_block(f"pkg/m{n % 1000}.py", f"v = {n}\n", f"v = {n + 1}\n") for n in range(count))


def parse_of(text: str) -> Callable[[], object]:
    return lambda: parse(text)


def stream_of(text: str, size: int) -> Callable[[], object]:
    def run() -> None:
        parser = StreamParser()
        for position in range(0, len(text), size):
            parser.feed(text[position : position + size])
        parser.close()
    return run


def separator_chunks(count: int) -> Callable[[], object]:
    """A streamed block that gains a content line and a separator line with every chunk."""
    def run() -> None:
        parser = StreamParser()
        parser.feed("a.py\n<<<<<<< SEARCH\n")
        for _ in range(count):
            parser.feed("x\n=======\n")
        parser.close()
    return run


def plan_many_blocks(count: int) -> Callable[[], object]:
    """``count`` blocks over 1,000 files, each file holding exactly the lines its blocks search for."""
    blocks = parse(many_blocks(count)).blocks
    texts: dict[str, list[str]] = {}
    for block in blocks:
        texts.setdefault(block.path, []).append(block.old)
    sources = {path: TargetFile(path, "".join(lines)) for path, lines in texts.items()}
    return lambda: plan_edits(blocks, sources)


def plan_on_big_file(blocks: int, lines: int) -> Callable[[], object]:
    text = "".join(f"value_{n} = {n}\n" for n in range(lines))
    step = lines // blocks
    edits = parse("".join(diff_block("big.py", f"value_{n * step} = {n * step}\n", f"value_{n * step} = 0\n")
                          for n in range(blocks))).blocks
    return lambda: plan_edits(edits, {"big.py": TargetFile("big.py", text)})


def apply_to_disk(file_text: str, answer: str) -> Callable[[], object]:
    """Write the file to a fresh folder and apply the answer there (the whole path: read, plan, journal, write)."""
    def run() -> None:
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "big.py").write_text(file_text, newline="")
            result = apply(parse(answer), folder)
            assert result.ok, result.results[0].reason
    return run


@dataclass
class Case:
    name: str
    size: str
    make: Callable[[float], Callable[[], object]]
    """Builds the run for a scale factor (1.0: the size in ``size``); growth compares 1.0 with 1 / GROWTH_STEP."""
    growth: bool = True


def cases() -> list[Case]:
    big_lines = [f"value_{n} = {n}\n" for n in range(200_000)]
    long_line = "data = '" + "x" * MEGABYTE + "'"
    return [
        Case("response, typical blocks", "100 MB", lambda s: parse_of(typical_response(100 * s))),
        Case("one 1 MB line in a block", "1 MB",
             lambda s: parse_of(diff_block("a.py", "x" * int(MEGABYTE * s) + "\n", "y\n"))),
        Case("one 1 MB line of prose", "1 MB", lambda s: parse_of("word " * int(MEGABYTE * s / 5) + "\n")),
        Case("1 MB line applied to a file", "1 MB", lambda s: apply_to_disk(
            f"before\n{long_line}\nafter\n", diff_block("big.py", long_line + "\n", "data = 'short'\n")), growth=False),
        Case("blocks", "100,000", lambda s: parse_of(many_blocks(int(100_000 * s)))),
        Case("blocks, streamed in 64-char chunks", "100,000", lambda s: stream_of(many_blocks(int(100_000 * s)), 64)),
        Case("blocks planned over 1,000 files", "100,000", lambda s: plan_many_blocks(int(100_000 * s))),
        Case("one edit in a 200,000-line file", "200,000 lines", lambda s: apply_to_disk(
            "".join(big_lines), diff_block("big.py", big_lines[100_000], "changed = True\n")), growth=False),
        Case("blocks x lines planned on one file", "400 x 100,000", lambda s: plan_on_big_file(
            int(400 * s), int(100_000 * s))),
        Case("`<<<<<<< SEARCH` lines", "100,000", lambda s: parse_of("a.py\n" + "<<<<<<< SEARCH\n" * int(100_000 * s))),
        Case("`=======` lines only", "100,000", lambda s: parse_of("=======\n" * int(100_000 * s))),
        Case("fence lines", "50,000", lambda s: parse_of("```\n" * int(50_000 * s))),
        Case("unclosed `<think>` tags", "10,000", lambda s: parse_of("<think>\n" * int(10_000 * s))),
        Case("SEARCH block of `=======` lines", "100,000", lambda s: parse_of(
            "a.py\n<<<<<<< SEARCH\n" + "=======\n" * int(100_000 * s) + ">>>>>>> REPLACE\n")),
        Case("anchored block of `=======` lines", "4,000", lambda s: parse_of(
            "a.py\n<<<<<<< EDIT\n" + "=======\n" * int(4_000 * s) + ">>>>>>>\n")),
        Case("streamed block gaining separators", "2,000 chunks", lambda s: separator_chunks(int(2_000 * s))),
        *(Case(name, size, make) for name, size, make in SHAPES),
    ]


# --- hostile answer shapes, parser side (issue 17) ----------------------------------------------------------------


def stray_end_markers(count: int) -> str:
    return ">>>>>>> REPLACE\n" * count


def search_markers(count: int) -> str:
    return "a.py\n" + "<<<<<<< SEARCH\n" * count


def unclosed_blocks_in_fences(count: int) -> str:
    """Unclosed blocks inside alternating backtick and tilde fences whose length grows (3 to 66, then again)."""
    return "".join(("`" if n % 2 else "~") * (3 + n % 64) + "\n<<<<<<< SEARCH\nx\n" for n in range(count))


def mixed_line_endings(count: int, seed: int = 17) -> str:
    """Blocks whose lines end in a random mix of LF, CRLF and bare CR."""
    rng = random.Random(seed)
    lines = []
    for n in range(count):
        for line in (f"src/m{n % 50}.py", "<<<<<<< SEARCH", f"value = {n}", "=======", f"value = {n + 1}",
                     ">>>>>>> REPLACE"):
            lines.append(line + rng.choice(("\n", "\r\n", "\r")))
    return "".join(lines)


PARSER_SHAPES: list[tuple[str, int, Callable[[int], str]]] = [
    ("stray `>>>>>>> REPLACE` lines", 1_000_000, stray_end_markers),
    ("`<<<<<<< SEARCH` lines", 1_000_000, search_markers),
    ("unclosed blocks in growing fences", 100_000, unclosed_blocks_in_fences),
    ("blocks with mixed LF/CRLF/CR", 6_000, mixed_line_endings),
]
PARSER_GROWTH = 4


def parser_shapes(scale: float, only: str, repeats: int) -> None:
    """Each shape at its size: parse time (least CPU time), that time over a typical answer's of the same size,
    peak memory over the answer's size, and growth from N/4 to N (about 4 when linear, 16 when quadratic)."""
    print(f"\n{'parser shape':36} {'size':>20} {'MB':>6} {'time':>8} {'x typical':>9} {'peak/size':>9} "
          f"{'growth N/4->N':>13}")
    for name, size, make in PARSER_SHAPES:
        if only not in name:
            continue
        count = max(PARSER_GROWTH, int(size * scale))
        text = make(count)
        seconds = cpu_timed(parse_of(text), repeats)
        typical = cpu_timed(parse_of(typical_response(len(text) / MEGABYTE)), repeats)
        peak = peak_megabytes(parse_of(text)) * MEGABYTE / len(text)
        growth = seconds / cpu_timed(parse_of(make(count // PARSER_GROWTH)), repeats)
        flag = " !" if growth > GROWTH_FLAG else ""
        print(f"{name:36} {count:>20,} {len(text) / MEGABYTE:6.1f} {seconds:7.2f}s {seconds / typical:8.1f}x "
              f"{peak:8.1f}x {growth:12.2f}x{flag}", flush=True)


def cpu_timed(run: Callable[[], object], repeats: int) -> float:
    """Least CPU time (`time.process_time`) of a few runs, the garbage collector off: other processes on a shared
    machine count less than in wall time."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            run()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


def timed(run: Callable[[], object], repeats: int) -> float:
    """Best wall time of a few runs, with the garbage collector off while timing (as `timeit` does)."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def peak_megabytes(run: Callable[[], object]) -> float:
    """Peak traced memory of one run, beyond what was allocated before it started."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        run()
        return (tracemalloc.get_traced_memory()[1] - base) / MEGABYTE
    finally:
        tracemalloc.stop()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    options.add_argument("--scale", type=float, default=1.0, help="multiply every size (0.1 for a quick look)")
    options.add_argument("--only", default="", help="run only cases whose name contains this")
    options.add_argument("--repeats", type=int, default=3)
    args = options.parse_args()

    print(f"{'case':36} {'size':>20} {'time':>9} {'peak MB':>9} {'growth':>8}")
    for case in cases():
        if args.only not in case.name:
            continue
        run = case.make(args.scale)
        seconds = timed(run, args.repeats)
        peak = peak_megabytes(run)
        growth = ""
        if case.growth:
            ratio = seconds / timed(case.make(args.scale / GROWTH_STEP), args.repeats)
            growth = f"{ratio:5.2f}x" + (" !" if ratio > GROWTH_FLAG else "")
        size = case.size if args.scale == 1.0 or not case.growth else f"{case.size} x{args.scale:g}"
        print(f"{case.name:36} {size:>20} {seconds:8.3f}s {peak:9.1f} {growth:>8}", flush=True)
    print(f"growth = time(N) / time(N/{GROWTH_STEP}); ! marks more than {GROWTH_FLAG}x (worse than linear)")
    parser_shapes(args.scale, args.only, args.repeats)


if __name__ == "__main__":
    main()
