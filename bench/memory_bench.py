"""Memory: the peak RSS of applying 10,000 one-line blocks to a 200,000-line file, as a multiple of the input.

    .venv/bin/python bench/memory_bench.py [--blocks 10000] [--lines 200000] [--rounds 3]

Each run is a fresh process (its peak RSS from its own rusage, `ru_maxrss`): `editblocks apply ANSWER
--root DIR --dry-run` as a user runs it (parse, plan, diffs, the terminal report), and the library call
`apply(parse(answer), root, dry_run=True)` alone. The input is the file plus the answer, in bytes (the file
is code-like lines of about 47 bytes). Beside them, the peak of a process that only imports what the
library call imports, and of `python -c pass`: the floors. The inputs are written by a child process, since
a child's peak starts from its parent's. Medians of interleaved rounds. Goal: the whole peak at most 5x
the input.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from goalkit import Row, code_lines, command_line, editblocks_command, emit, options, run_child, timing_env

LIBRARY = """
import sys
from pathlib import Path
from editblocks import apply, parse
from editblocks.plan import plan_edits
from editblocks.report import diffs
if sys.argv[1] == "run":
    result = apply(parse(Path(sys.argv[2]).read_text()), sys.argv[3], dry_run=True)
    assert result.ok and len(result.results) == int(sys.argv[4])
"""


def answer(lines: list[str], blocks: int) -> str:
    step = len(lines) // blocks
    return "".join(f"big.py\n```\n<<<<<<< SEARCH\n{lines[n * step]}\n=======\n{lines[n * step]} # changed\n"
                   ">>>>>>> REPLACE\n```\n\n" for n in range(blocks))


def write_inputs(folder: Path, blocks: int, line_count: int) -> int:
    """The file and the answer under ``folder``; returns the input's size in bytes."""
    lines = code_lines(line_count)
    text = "".join(line + "\n" for line in lines)
    response = answer(lines, blocks)
    (folder / "project").mkdir()
    (folder / "project" / "big.py").write_text(text)
    (folder / "answer.md").write_text(response)
    return len(text.encode()) + len(response.encode())


def measure(blocks: int, line_count: int, rounds: int) -> tuple[list[Row], list[str]]:
    """The inputs are made by a child process: a child's peak RSS starts from its parent's (Linux carries the
    high-water mark across fork and exec), so this process stays small."""
    env = timing_env()
    with tempfile.TemporaryDirectory(prefix="editblocks-memory-") as tmp:
        made = run_child([sys.executable, __file__, "--write-inputs", tmp, "--blocks", str(blocks),
                          "--lines", str(line_count)], env=env)
        assert made.returncode == 0, "could not write the inputs"
        root, answer_path = Path(tmp, "project"), Path(tmp, "answer.md")
        sizes = (root / "big.py").stat().st_size, answer_path.stat().st_size
        input_bytes = sum(sizes)
        commands = {
            "cli": [*editblocks_command(), "apply", str(answer_path), "--root", str(root), "--dry-run"],
            "library": [sys.executable, "-c", LIBRARY, "run", str(answer_path), str(root), str(blocks)],
            "imports only": [sys.executable, "-c", LIBRARY, "floor"],
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        peaks: dict[str, list[int]] = {name: [] for name in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                outcome = run_child(command, env=env)
                assert outcome.returncode == 0, f"{name} failed ({outcome.returncode})"
                peaks[name].append(outcome.max_rss_kib * 1024)
    peak = {name: statistics.median(values) for name, values in peaks.items()}
    mib = 1 << 20
    figures = ", ".join(f"{name} {value / mib:.0f} MiB" for name, value in peak.items())
    notes = [f"input: {sizes[0] / mib:.1f} MiB file + {sizes[1] / mib:.1f} MiB answer = {input_bytes / mib:.1f} MiB; "
             f"peak RSS (median of {rounds}): {figures}"]
    rows = [Row(f"memory: {blocks:,} one-line blocks on a {line_count:,}-line file, {label} (peak RSS)",
                f"{peak[name] / mib:.0f} MiB", f"input {input_bytes / mib:.1f} MiB", peak[name] / input_bytes,
                "<= 5x the input", peak[name] <= 5 * input_bytes, command_line())
            for name, label in (("cli", "editblocks apply --dry-run"), ("library", "apply(parse(...), dry_run)"))]
    return rows, notes


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--write-inputs", metavar="DIR", help=argparse.SUPPRESS)
    parser.set_defaults(rounds=3)
    args = parser.parse_args()
    if args.write_inputs:
        write_inputs(Path(args.write_inputs), args.blocks, args.lines)
        return
    rows, notes = measure(args.blocks, args.lines, args.rounds)
    emit(rows, args.json, notes)


if __name__ == "__main__":
    main()
