"""Front-end speed (issue 14). Run by hand:

    .venv/bin/python bench/frontends_bench.py [--lines 100000] [--hunks 1000] [--megabytes 5]

Prints:
- the time to apply a unified diff of ``--hunks`` hunks to a file of ``--lines`` lines (parse + plan +
  atomic write + journal, through `editblocks.apply`; goal ≤ 1 s for 1,000 hunks on 100k lines), and the
  same for the same change as a V4A patch;
- the time to parse a ``--megabytes`` patch (unified and V4A, given by format and detected by `auto`)
  against `str.splitlines()` of the same text (goal ≤ 4×), for two shapes: dense 7-line hunks (one
  every 9 lines, the worst case: per-hunk work dominates) and 60-line hunks replacing 20 lines each.
  Dense hunks stay well above 4x in CPython: `str.splitlines` spends 0.4-0.7 µs on a 9-line hunk, while
  the parser spends about 7 µs: the header (a regular expression, three `int`s) ~1 µs, the body's run
  (one regular-expression step, then `split_run`) ~2-3 µs, the block (the quick builder of
  parsing/values.py) ~0.9 µs, the loop's bookkeeping the rest. Cutting whole runs of hunks with C-level
  passes instead (str.count / str.replace / re.sub over the run, split at NUL marks) was measured slower
  (126 ms against 107 on dense hunks, 77 against 35 on 60-line ones): each pass over 5 MB costs 4-15 ms
  (`count("\n ")` is slow because a space is common), and the dozen passes cost more than the Python steps
  they replace. bench/frontends_equivalence.py checks a change against the previous parsers.

Each figure is the best of a few runs, in CPU time (`time.process_time`: the machine may be shared) with
the wall time beside it.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from editblocks import apply, parse

WORDS = "alpha beta gamma delta value result items total count index self return None True".split()


def best_of(runs: int, function: Callable[[], object]) -> float:
    """The least CPU time of ``runs`` calls."""
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best


def source_lines(count: int, rng: random.Random) -> list[str]:
    """Code-like lines, each made unique by a counter so every 7-line hunk has one place."""
    return [f"{'    ' * rng.randint(0, 3)}{' '.join(rng.choice(WORDS) for _ in range(5))}  # {n}" for n in range(count)]


def changes(lines: list[str], hunks: int) -> list[int]:
    """The lines to change: spread evenly, at least 7 lines apart."""
    step = len(lines) // (hunks + 1)
    return [step * (k + 1) for k in range(hunks)]


def _hunk_body(lines: list[str], n: int, changed: int) -> list[str]:
    body = [f" {line}\n" for line in lines[n - 3 : n]]
    body += [f"-{line}\n" for line in lines[n : n + changed]]
    body += [f"+{line} changed\n" for line in lines[n : n + changed]]
    return body + [f" {line}\n" for line in lines[n + changed : n + changed + 3]]


def unified_diff(path: str, lines: list[str], at: list[int], changed: int = 1) -> str:
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    for n in at:
        out.append(f"@@ -{n - 2},{changed + 6} +{n - 2},{changed + 6} @@\n")
        out += _hunk_body(lines, n, changed)
    return "".join(out)


def v4a_patch(path: str, lines: list[str], at: list[int], changed: int = 1) -> str:
    out = ["*** Begin Patch\n", f"*** Update File: {path}\n"]
    for n in at:
        out.append("@@\n")
        out += _hunk_body(lines, n, changed)
    out.append("*** End Patch\n")
    return "".join(out)


def time_apply(text: str, original: str, expected_blocks: int) -> tuple[float, float]:
    """Best CPU and wall time of three fresh applies (each in a new root: every run writes and journals)."""
    cpu = wall = float("inf")
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "big.py").write_text(original)
            start, start_wall = time.process_time(), time.perf_counter()
            result = apply(parse(text), root)
            cpu, wall = min(cpu, time.process_time() - start), min(wall, time.perf_counter() - start_wall)
            assert result.ok and len(result.results) == expected_blocks, result.results[:3]
    return cpu, wall


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--lines", type=int, default=100_000)
    options.add_argument("--hunks", type=int, default=1_000)
    options.add_argument("--megabytes", type=float, default=5.0)
    arguments = options.parse_args()
    rng = random.Random(14)

    lines = source_lines(arguments.lines, rng)
    original = "".join(line + "\n" for line in lines)
    at = changes(lines, arguments.hunks)
    for name, text in (("unified diff", unified_diff("big.py", lines, at)),
                       ("V4A patch", v4a_patch("big.py", lines, at))):
        cpu, wall = time_apply(text, original, arguments.hunks)
        print(f"apply a {arguments.hunks:,}-hunk {name} to a {arguments.lines:,}-line file: {cpu:.3f} s CPU, "
              f"{wall:.3f} s wall (goal ≤ 1 s)")

    target = int(arguments.megabytes * 1_000_000)
    for shape, changed, every in (("7-line hunks", 1, 9), ("60-line hunks", 20, 60)):
        big_lines = source_lines(target // 35 + 100, rng)
        places = [n for n in range(3, len(big_lines) - changed - 3, every)]
        for name, fmt, whole in (("unified diff", "udiff", unified_diff("big.py", big_lines, places, changed)),
                                 ("V4A patch", "v4a", v4a_patch("big.py", big_lines, places, changed))):
            text = whole[: whole.rindex("\n@@", 0, target) + 1] + ("*** End Patch\n" if fmt == "v4a" else "")
            split = best_of(9, text.splitlines)
            named = best_of(3, lambda fmt=fmt, text=text: parse(text, fmt))
            auto = best_of(3, lambda text=text: parse(text))
            print(f"parse a {len(text) / 1e6:.1f} MB {name} ({shape}) as {fmt}: {named * 1000:.0f} ms = "
                  f"{named / split:.1f}x str.splitlines ({split * 1000:.1f} ms) (goal ≤ 4x); as auto: "
                  f"{auto * 1000:.0f} ms = {auto / split:.1f}x (the marker parser reads it first: "
                  f"+{(auto - named) * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
