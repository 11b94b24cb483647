"""What the speed-goal scripts share: finding a peer, timing workloads side by side, and the table row.

Each goal script measures editblocks and its peer in ONE run: the workloads take
turns within every round (a slow spell of the shared machine hits them alike)
and the median of the rounds is kept. In-process work is timed with
`time.process_time`; a child process by its own rusage (`os.wait4`), so what
the parent does meanwhile never counts. A script prints its rows as text, or as
JSON lines with ``--json`` (how `issue_goals.py` gathers them); a peer that is
not installed stops the script with exit code 3 and a line saying how to
install it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PEER_MISSING = 3
PYTHON_VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


@dataclass(frozen=True)
class Peer:
    """Where a peer is looked for: an option of the script, else an environment variable, else a default under /tmp."""

    env: str
    default: str
    what: str
    install: str


OPENHANDS = Peer("OPENHANDS_SITE", f"/tmp/oh-venv/lib/{PYTHON_VERSION}/site-packages",
                 "OpenHands' file editor (openhands-aci's OHEditor): its site-packages folder",
                 "see bench/README.md, 'Peers' (openhands-aci needs Python 3.12; installed --ignore-requires-python)")
OPENAI_AGENTS = Peer("AGENTS_SITE", f"/tmp/agents-venv/lib/{PYTHON_VERSION}/site-packages",
                     "openai-agents (agents/apply_diff.py): its site-packages folder",
                     "python3 -m venv /tmp/agents-venv && /tmp/agents-venv/bin/pip install openai-agents")
AIDER = Peer("AIDER_SITE", f"/tmp/aider-venv/lib/{PYTHON_VERSION}/site-packages",
             "aider-chat 0.86.2 (aider/coders/editblock_coder.py): its site-packages folder",
             "python3 -m venv /tmp/aider-venv && /tmp/aider-venv/bin/pip install --no-deps aider-chat==0.86.2 "
             "diff-match-patch==20241021 tqdm")
MCP_FILESYSTEM = Peer("MCP_FILESYSTEM_SERVER",
                      "/tmp/mcp-fs/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
                      "the reference MCP filesystem server (dist/index.js)",
                      "mkdir -p /tmp/mcp-fs && cd /tmp/mcp-fs && npm install @modelcontextprotocol/server-filesystem")


def locate_peer(peer: Peer, given: str | None = None) -> Path:
    """The peer's path, or exit with code 3 and a line saying where it was looked for and how to install it."""
    path = Path(given or os.environ.get(peer.env) or peer.default)
    if not path.exists():
        print(f"missing peer: {peer.what} not found at {path}; pass its path or set {peer.env}. "
              f"Install: {peer.install}", file=sys.stderr)
        raise SystemExit(PEER_MISSING)
    return path


def add_site(site: Path) -> None:
    """Let a peer's modules be imported from its own site-packages, after editblocks' own (which win a clash)."""
    if str(site) not in sys.path:
        sys.path.append(str(site))


def quiet_peer_logging() -> None:
    """Some peers switch the root logger to DEBUG on import; logging would then be what their timing measures."""
    logging.disable(logging.WARNING)


# --- rows -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One line of the goals table: the two figures as text, the ratio (editblocks / peer) and the target."""

    goal: str
    editblocks: str
    peer: str
    ratio: float | None
    target: str
    met: bool | None
    command: str = ""


def ratio_row(goal: str, ours: float, theirs: float, unit: str, peer_name: str, limit: float,
              command: str, scale: float = 1000.0) -> Row:
    """A row whose goal is ``ours / theirs <= limit`` (figures in seconds, shown in ``unit`` after ``scale``)."""
    ratio = ours / theirs if theirs else None
    return Row(goal, f"{ours * scale:.1f} {unit}", f"{theirs * scale:.1f} {unit} ({peer_name})", ratio,
               f"<= {limit:g}x", None if ratio is None else ratio <= limit, command)


def emit(rows: Sequence[Row], as_json: bool, notes: Sequence[str] = ()) -> None:
    if as_json:
        for row in rows:
            print(json.dumps(asdict(row)))
        return
    for note in notes:
        print(note)
    for row in rows:
        ratio = "-" if row.ratio is None else f"{row.ratio:.2f}x"
        met = {True: "met", False: "NOT met", None: ""}[row.met]
        print(f"{row.goal}: editblocks {row.editblocks} | peer {row.peer} | ratio {ratio} | target {row.target} "
              f"{met}")


def options(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON lines (for issue_goals.py)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds; the median is kept")
    return parser


def command_line() -> str:
    """How this script was run (without ``--json``), for the table's command column."""
    return " ".join(["bench/" + Path(sys.argv[0]).name, *(arg for arg in sys.argv[1:] if arg != "--json")])


# --- timing -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Work:
    """A workload: ``run`` is timed; ``prepare`` (untimed) runs before each timed call."""

    run: Callable[[], object]
    prepare: Callable[[], object] | None = None


def interleaved_cpu(workloads: Mapping[str, Work], rounds: int, warmup: int = 1) -> dict[str, float]:
    """Median CPU seconds (`process_time`) of each workload over ``rounds`` rounds in which they take turns."""
    samples: dict[str, list[float]] = {name: [] for name in workloads}
    for round_number in range(warmup + rounds):
        for name, work in workloads.items():
            if work.prepare is not None:
                work.prepare()
            start = time.process_time()
            work.run()
            elapsed = time.process_time() - start
            if round_number >= warmup:
                samples[name].append(elapsed)
    return {name: statistics.median(values) for name, values in samples.items()}


@dataclass(frozen=True)
class ChildRun:
    cpu: float  # user + system seconds of the child (and its own children it waited for)
    wall: float
    max_rss_kib: int
    returncode: int


def run_child(command: Sequence[str], *, cwd: str | os.PathLike[str] | None = None,
              env: Mapping[str, str] | None = None, stdin: bytes | None = None) -> ChildRun:
    """Run a command to its end; its CPU time and peak memory come from its own rusage, not the parent's."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=None if env is None else dict(env),
                               stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if stdin is not None and process.stdin is not None:
        process.stdin.write(stdin)
        process.stdin.close()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return ChildRun(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss, process.returncode)


def interleaved_children(commands: Mapping[str, Callable[[], ChildRun]], rounds: int,
                         warmup: int = 1) -> dict[str, tuple[float, float]]:
    """Median (CPU, wall) seconds of each child-process workload, interleaved over ``rounds`` rounds."""
    samples: dict[str, list[ChildRun]] = {name: [] for name in commands}
    for round_number in range(warmup + rounds):
        for name, run in commands.items():
            outcome = run()
            if round_number >= warmup:
                samples[name].append(outcome)
    return {name: (statistics.median(r.cpu for r in runs), statistics.median(r.wall for r in runs))
            for name, runs in samples.items()}


def timing_env() -> dict[str, str]:
    """The environment for timed children: `.pyc` files written and read (start-up is measured warm)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def editblocks_command() -> list[str]:
    """The `editblocks` console script of this interpreter's environment (what a user runs), else `-m`."""
    script = Path(sys.executable).with_name("editblocks")
    return [str(script)] if script.exists() else [sys.executable, "-m", "editblocks"]


class Toggle:
    """Replace ``old`` by ``new`` in a file, then ``new`` by ``old`` the next time: each call edits the file."""

    def __init__(self, old: str, new: str) -> None:
        self.pair = (old, new)

    def next(self) -> tuple[str, str]:
        old, new = self.pair
        self.pair = (new, old)
        return old, new


# --- inputs -----------------------------------------------------------------------------------------------------

WORDS = "alpha beta gamma delta value result items total count index self return None True".split()


def code_lines(count: int, seed: int = 14) -> list[str]:
    """Code-like lines (about 47 bytes each), each made unique by a counter, so any few lines have one place."""
    rng = random.Random(seed)
    return [f"{'    ' * rng.randint(0, 3)}{' '.join(rng.choice(WORDS) for _ in range(5))}  # {n}" for n in range(count)]


def hunk_places(lines: Sequence[str], hunks: int) -> list[int]:
    """Lines to change, spread evenly and far enough apart that hunks with 3 lines of context never overlap."""
    step = len(lines) // (hunks + 1)
    return [step * (k + 1) for k in range(hunks)]


def hunk_body(lines: Sequence[str], at: int) -> list[str]:
    """Three lines of context, line ``at`` replaced, three lines of context (patch body lines, with newlines)."""
    return ([f" {line}\n" for line in lines[at - 3 : at]] + [f"-{lines[at]}\n", f"+{lines[at]} changed\n"]
            + [f" {line}\n" for line in lines[at + 1 : at + 4]])


def unified_patch(path: str, lines: Sequence[str], places: Sequence[int]) -> str:
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    for at in places:
        out.append(f"@@ -{at - 2},7 +{at - 2},7 @@\n")
        out += hunk_body(lines, at)
    return "".join(out)


def v4a_hunks(lines: Sequence[str], places: Sequence[int]) -> str:
    """The hunks of a V4A update, as `apply_diff` takes them (no Begin/Update/End lines)."""
    return "".join("@@\n" + "".join(hunk_body(lines, at)) for at in places)


def v4a_patch(path: str, lines: Sequence[str], places: Sequence[int]) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n{v4a_hunks(lines, places)}*** End Patch\n"


def changed_text(lines: Sequence[str], places: Sequence[int]) -> str:
    """The file after every place's line got `` changed`` appended: what each patch must produce."""
    out = list(lines)
    for at in places:
        out[at] += " changed"
    return "".join(line + "\n" for line in out)
