"""Run every speed-goal script and print one table: goal, editblocks, peer, ratio (editblocks / peer), target.

    .venv/bin/python bench/issue_goals.py [--only WORD ...] [--markdown] [--quick]

Each script runs in a process of its own, one after the other (so one goal's memory and caches never weigh on
the next), with ``--json``; its rows are gathered here. A script whose peer is not installed gives a row
saying so, with the install command, and the others still run. ``--quick`` runs fewer rounds and smaller
inputs, to check that everything works (its figures are not the goals' figures). Peers are found as each
script says (options or environment variables; see bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from goalkit import PEER_MISSING, Row, timing_env

BENCH = Path(__file__).resolve().parent
SCRIPTS: list[tuple[str, list[str], list[str]]] = [
    # (script, arguments, quick arguments)
    ("import_bench.py", [], ["--rounds", "3"]),
    ("str_replace_bench.py", [], ["--rounds", "2", "--lines", "100000"]),
    ("v4a_bench.py", [], ["--rounds", "2"]),
    ("udiff_process_bench.py", [], ["--rounds", "2"]),
    ("durability_bench.py", [], ["--lines", "100000", "--history", "8"]),
    ("mcp_bench.py", [], ["--rounds", "2", "--calls", "10"]),
    ("peer_bench.py", [], ["--rounds", "2", "--answers", "500"]),
    ("live_bench.py", [], ["--rounds", "2"]),
    ("memory_bench.py", [], ["--rounds", "1", "--blocks", "2000", "--lines", "40000"]),
]


def run_script(script: str, arguments: list[str]) -> tuple[list[Row], str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(BENCH / script), "--json", *arguments], capture_output=True,
                          text=True, env=timing_env(), cwd=BENCH.parent, check=False)
    took = f"{script}: {time.perf_counter() - start:.0f} s"
    command = " ".join([f"bench/{script}", *arguments])
    if done.returncode == PEER_MISSING:
        why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "a peer is missing"
        return [Row(script, "-", why, None, "-", None, command)], took
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"
        return [Row(script, "-", f"failed: {last}", None, "-", None, command)], took
    rows = [Row(**json.loads(line)) for line in done.stdout.splitlines() if line.startswith("{")]
    return rows, took


def table(rows: list[Row], markdown: bool) -> str:
    header = ["goal", "editblocks", "peer", "ratio", "target", "met"]
    cells = [[row.goal, row.editblocks, row.peer, "-" if row.ratio is None else f"{row.ratio:.2f}x", row.target,
              {True: "yes", False: "no", None: "-"}[row.met]] for row in rows]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                                  for row in cells])
    widths = [max(len(str(line[k])) for line in [header, *cells]) for k in range(len(header))]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths))
                     for line in [header, *cells])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=[], help="run only the scripts whose name holds one of these")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown (for bench/README.md)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and smaller inputs: a smoke run")
    args = parser.parse_args()
    rows: list[Row] = []
    for script, arguments, quick in SCRIPTS:
        if args.only and not any(word in script for word in args.only):
            continue
        found, took = run_script(script, quick if args.quick else arguments)
        print(took, file=sys.stderr)
        rows += found
    print(table(rows, args.markdown))
    commands = dict.fromkeys(row.command for row in rows if row.command)
    print("\ncommands:\n" + "\n".join(f"  .venv/bin/python {command}" for command in commands))


if __name__ == "__main__":
    main()
