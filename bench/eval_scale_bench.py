"""Evaluation at scale: cases per second on disk, in memory and on Ray, and peak memory as the cases grow.

    .venv/bin/python bench/eval_scale_bench.py [--cases 20000] [--rounds 3] [--jobs 2] [--skip-ray]

Writes one JSON Lines dataset of small generated cases (a 6 to 30 line module each, one or two edit blocks
in one of four formats, three model labels; about one case in eight fails on purpose and one in two hundred
is a malformed row), then runs `editblocks eval DATASET --backend B --jobs 2 --jsonl OUT` as a user would,
one child process per run, the backends taking turns in every round: `memory` and `disk` (medians of the
rounds; CPU time from the child's rusage, which includes its workers), and `ray` (a local Ray started by the
run with 2 CPUs; wall time, since Ray's workers belong to its own daemons). Every run's verdicts must equal
the memory backend's, case for case. Then the peak RSS (`ru_maxrss` of the child, which is the largest of
it and its workers) of the memory backend at 2,000 and at all the cases, `--jobs 1` (the whole run in one
process) and `--jobs 2`.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from goalkit import editblocks_command, options, run_child, timing_env

MODELS = ("model-a", "model-b", "model-c")
FORMATS = ("diff", "editor-diff", "search-replace", "v4a")
WORDS = "alpha beta gamma delta total count index value result items".split()


def module(rng: random.Random, number: int) -> list[str]:
    lines = [f"def task_{number}(items):\n"]
    for line in range(rng.randint(5, 29)):
        lines.append(f"    {rng.choice(WORDS)}_{line} = {rng.choice(WORDS)}({line}, {rng.randint(0, 999)})\n")
    return lines


def answer(fmt: str, path: str, pairs: list[tuple[str, str]]) -> str:
    """The answer that replaces each old line by its new line, written in ``fmt``."""
    if fmt == "v4a":
        hunks = "".join(f"@@\n-{old}+{new}" for old, new in pairs)
        return f"*** Begin Patch\n*** Update File: {path}\n{hunks}*** End Patch\n"
    blocks = []
    for old, new in pairs:
        body = f"<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"
        if fmt == "diff":
            blocks.append(f"{path}\n```python\n{body}```\n")
        elif fmt == "editor-diff":
            blocks.append(f"```python\n{path}\n{body}```\n")
        else:
            blocks.append(f"{path}\n{body}")
    return "Here is the change.\n\n" + "\n".join(blocks)


def case(rng: random.Random, number: int) -> dict[str, Any] | str:
    """One row: mostly right, some wrong on purpose, a few malformed."""
    if number % 200 == 199:
        return "{ not a row" if number % 400 == 399 else json.dumps(
            {"id": f"case-{number:06d}", "response": "x", "before": {"../escape.py": "x"}})
    fmt, model = rng.choice(FORMATS), rng.choice(MODELS)
    path = f"pkg/mod_{number % 97}.py"
    lines = module(rng, number)
    kind = number % 8
    places = sorted(rng.sample(range(1, len(lines)), 1 if kind == 3 else rng.choice((1, 1, 2))))
    after = list(lines)
    pairs = []
    for place in places:
        after[place] = lines[place].replace(" = ", " = changed + ", 1)
        pairs.append((lines[place], after[place]))
    if kind == 3:  # the answer quotes a line the file does not hold: must be refused
        pairs[0] = ("    missing_line = 0\n", pairs[0][1])
        after = lines
    elif kind == 5:  # after/ expects something else: a wrong verdict
        after = after[:-1]
    return json.dumps({"id": f"case-{number:06d}", "response": answer(fmt, path, pairs), "model": model,
                       "format": fmt, "before": {path: "".join(lines)}, "after": {path: "".join(after)},
                       "metadata": {"seed": number}})


def generate(path: Path, cases: int, seed: int = 28) -> Path:
    """Write the dataset (the same for the same arguments)."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for number in range(cases):
            row = case(rng, number)
            out.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return path


def verdicts(events: Path) -> Iterator[tuple[str, str, str]]:
    for line in events.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event["type"] == "case_finished":
            yield event["case"]["name"], event["case"]["verdict"], event["case"]["detail"]


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--small", type=int, default=2_000, help="the smaller run of the memory figures")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-ray", action="store_true")
    parser.set_defaults(rounds=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="eval-scale-"))
    dataset = generate(work / "cases.jsonl", args.cases)
    small = generate(work / "small.jsonl", args.small)
    env = timing_env()
    editblocks = editblocks_command()
    backends = ["memory", "disk"] + ([] if args.skip_ray else ["ray"])
    runs: dict[str, list[tuple[float, float]]] = {backend: [] for backend in backends}
    reference: list[tuple[str, str, str]] | None = None
    tiny = generate(work / "tiny.jsonl", 8)
    start_up: list[float] = []
    for _ in range(args.rounds):
        for backend in backends:
            out = work / f"{backend}.jsonl"
            ran = run_child([*editblocks, "eval", str(dataset), "--backend", backend, "--jobs", str(args.jobs),
                             "--jsonl", str(out), "--failures-only"], env=env)
            if ran.returncode not in (0, 1):
                sys.exit(f"{backend}: editblocks eval exited with {ran.returncode}")
            runs[backend].append((ran.wall, ran.cpu))
            if backend == "ray":  # Ray's start-up alone, to tell it from the work
                start_up.append(run_child([*editblocks, "eval", str(tiny), "--backend", "ray"], env=env).wall)
            got = list(verdicts(out))
            if reference is None:
                reference = got
            elif got != reference:
                sys.exit(f"{backend}: the verdicts differ from the memory backend's")
    assert reference is not None
    counts: dict[str, int] = {}
    for _, verdict, _ in reference:
        counts[verdict] = counts.get(verdict, 0) + 1
    print(f"{len(reference):,} cases ({', '.join(f'{n:,} {v}' for v, n in sorted(counts.items()))}); "
          f"{args.rounds} rounds, --jobs {args.jobs}, {os.cpu_count()} CPUs; medians")
    print("verdicts identical across " + ", ".join(backends))
    memory_rate = len(reference) / statistics.median(wall for wall, _ in runs["memory"])
    for backend in backends:
        wall = statistics.median(wall for wall, _ in runs[backend])
        cpu = statistics.median(cpu for _, cpu in runs[backend])
        rate = len(reference) / wall
        cpu_note = "" if backend == "ray" else f", {len(reference) / cpu:,.0f} cases per CPU-second"
        print(f"  {backend:<6} {wall:7.2f} s wall  {rate:8,.0f} cases/s{cpu_note}  "
              f"(memory is {memory_rate / rate:.1f}x)")
    if start_up:
        fixed = statistics.median(start_up)
        working = statistics.median(wall for wall, _ in runs["ray"]) - fixed
        print(f"  ray: {fixed:.1f} s of that is starting Ray and a run of 8 cases; the rest, "
              f"{len(reference) / working:,.0f} cases/s")
    for jobs in (1, args.jobs):
        peaks = {}
        for name, path in ((f"{args.small:,}", small), (f"{args.cases:,}", dataset)):
            ran = run_child([*editblocks, "eval", str(path), "--jobs", str(jobs), "--jsonl",
                             str(work / "peak.jsonl"), "--failures-only"], env=env)
            peaks[name] = ran.max_rss_kib / 1024
        shown = ", ".join(f"{mib:.0f} MiB at {name} cases" for name, mib in peaks.items())
        print(f"  peak RSS, memory backend, --jobs {jobs}: {shown}")


if __name__ == "__main__":
    main()
