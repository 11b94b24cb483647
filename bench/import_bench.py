"""Start-up cost: `import editblocks` + one parse, `editblocks --help`, and a dry-run apply of the shipped example.

Run by hand: `.venv/bin/python bench/import_bench.py [--runs N]`. Each figure is the median over N
fresh interpreters (warm `.pyc`), as CPU time (user + system of the child) and wall time; the bare
interpreter's start is measured the same way and shown beside them. The modules each workload
imports are listed from `python -X importtime`, so a heavy import creeping in shows by name.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
WORKLOADS = {
    "python -c pass (interpreter start)": [PYTHON, "-c", "pass"],
    "import editblocks; parse(text)": [
        PYTHON, "-c",
        "import editblocks; editblocks.parse('a.py\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n>>>>>>> REPLACE\\n')",
    ],
    "editblocks --help": [PYTHON, "-m", "editblocks", "--help"],
    "editblocks apply example --dry-run": [
        PYTHON, "-m", "editblocks", "apply", str(ROOT / "examples" / "response.md"),
        "--root", str(ROOT / "examples" / "project"), "--dry-run",
    ],
}
HEAVY = ("rich", "click", "rapidfuzz", "subprocess", "fcntl")


def run_once(command: list[str]) -> tuple[float, float]:
    """(CPU seconds of the child, wall seconds) for one fresh run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def heavy_imports(command: list[str]) -> list[str]:
    """The heavy top-level modules a workload imports, read from `-X importtime`."""
    traced = subprocess.run(
        [command[0], "-X", "importtime", *command[1:]], capture_output=True, text=True, cwd=ROOT, check=False
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in traced.stderr.splitlines() if line.startswith("import time:")}
    return sorted(name for name in names if name.split(".")[0] in HEAVY and "." not in name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    for command in WORKLOADS.values():  # warm the .pyc files
        run_once(command)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in WORKLOADS}
    for _ in range(runs):  # interleaved, so machine load touches every workload alike
        for name, command in WORKLOADS.items():
            samples[name].append(run_once(command))
    print(f"median of {runs} runs, {os.cpu_count()} CPUs")
    print(f"{'workload':40} {'CPU ms':>8} {'wall ms':>8}  heavy modules imported")
    for name, command in WORKLOADS.items():
        cpu = statistics.median(s[0] for s in samples[name]) * 1000
        wall = statistics.median(s[1] for s in samples[name]) * 1000
        print(f"{name:40} {cpu:8.1f} {wall:8.1f}  {', '.join(heavy_imports(command)) or '-'}")


if __name__ == "__main__":
    main()
