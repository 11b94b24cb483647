"""MCP over stdio: `str_replace` per call and server start-up, against the reference filesystem server.

    .venv/bin/python bench/mcp_bench.py [--lines 1000] [--calls 40] [--rounds 9] [--server PATH/dist/index.js]

Both servers are driven by the official Python SDK's client (`mcp.Client` over stdio), in one event loop:
`editblocks mcp --root A` (its `str_replace_based_edit_tool`, command `str_replace`) and
`node dist/index.js B` (@modelcontextprotocol/server-filesystem, its `edit_file` with one edit), from
``--server`` or MCP_FILESYSTEM_SERVER. Each server edits its own copy of a ``--lines``-line file; the calls
alternate between the two servers and each call toggles one line, so every call writes. Per call: the wall
time from request to reply (median), and the server's CPU (user + system from /proc, over all calls, divided
by their number). Start-up: from spawning the server to the reply to the first tools/list, wall time (median
of interleaved rounds), with the server's CPU until then. Goals: `str_replace` at most `edit_file` in wall
time; start-up at most 1.5x.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from goalkit import (
    MCP_FILESYSTEM,
    PEER_MISSING,
    Row,
    Toggle,
    code_lines,
    command_line,
    editblocks_command,
    emit,
    locate_peer,
    options,
    ratio_row,
    timing_env,
)
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

TICK = os.sysconf("SC_CLK_TCK")


DEVNULL = open(os.devnull, "w")  # the servers' stderr (the filesystem server greets on it)


def client(name: str, root: Path, server_js: Path) -> Client:
    """A client that spawns the server ``name`` over stdio, its stderr discarded."""
    if name == "editblocks":
        command = [*editblocks_command(), "mcp", "--root", str(root)]
    else:
        command = ["node", str(server_js), str(root)]
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(root), env=timing_env())
    return Client(stdio_client(params, errlog=DEVNULL), read_timeout_seconds=120)


def children() -> set[int]:
    """The ids of this process's child processes (the servers the client spawned)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.add(int(entry.name))
    return found


def cpu_of(pid: int) -> float:
    """User + system seconds of a process so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def call_for(name: str, session: Client, root: Path, toggle: Toggle) -> Callable[[], Awaitable[Any]]:
    async def edit() -> Any:
        old, new = toggle.next()
        if name == "editblocks":
            result = await session.call_tool("str_replace_based_edit_tool", {
                "command": "str_replace", "path": "big.py", "old_str": old, "new_str": new})
        else:
            result = await session.call_tool("edit_file", {"path": str(root / "big.py"),
                                                          "edits": [{"oldText": old, "newText": new}]})
        assert not result.is_error, result
        return result
    return edit


async def per_call(folder: Path, server_js: Path, text: str, old: str, new: str, calls: int) -> dict[str, Any]:
    """Median wall seconds per call and CPU seconds per call of each server, the calls alternating."""
    roots = {name: folder / name for name in ("editblocks", "filesystem")}
    for root in roots.values():
        root.mkdir()
        (root / "big.py").write_text(text)
    before = children()
    async with client("editblocks", roots["editblocks"], server_js) as ours:
        ours_pid = (children() - before).pop()
        async with client("filesystem", roots["filesystem"], server_js) as theirs:
            theirs_pid = (children() - before - {ours_pid}).pop()
            edits = {"editblocks": call_for("editblocks", ours, roots["editblocks"], Toggle(old, new)),
                     "filesystem": call_for("filesystem", theirs, roots["filesystem"], Toggle(old, new))}
            pids = {"editblocks": ours_pid, "filesystem": theirs_pid}
            for edit in edits.values():  # warm-up: first call loads what the tool needs
                await edit()
                await edit()
            walls: dict[str, list[float]] = {name: [] for name in edits}
            cpu_start = {name: cpu_of(pid) for name, pid in pids.items()}
            for _ in range(calls):
                for name, edit in edits.items():
                    start = time.perf_counter()
                    await edit()
                    walls[name].append(time.perf_counter() - start)
            cpu = {name: (cpu_of(pid) - cpu_start[name]) / calls for name, pid in pids.items()}
    assert (roots["editblocks"] / "big.py").read_text() == (roots["filesystem"] / "big.py").read_text()
    return {name: (statistics.median(walls[name]), cpu[name]) for name in edits}


async def start_up(folder: Path, server_js: Path, name: str) -> tuple[float, float]:
    """Wall seconds from spawning a server to its first tools/list reply, and the server's CPU by then."""
    root = folder / f"start-{name}"
    root.mkdir(exist_ok=True)
    before = children()
    start = time.perf_counter()
    async with client(name, root, server_js) as session:
        await session.list_tools()
        wall = time.perf_counter() - start
        cpu = cpu_of((children() - before).pop())
    return wall, cpu


async def start_ups(folder: Path, server_js: Path, rounds: int) -> dict[str, tuple[float, float]]:
    samples: dict[str, list[tuple[float, float]]] = {"editblocks": [], "filesystem": []}
    for round_number in range(rounds + 1):
        for name in samples:
            outcome = await start_up(folder, server_js, name)
            if round_number:
                samples[name].append(outcome)
    return {name: (statistics.median(s[0] for s in values), statistics.median(s[1] for s in values))
            for name, values in samples.items()}


def measure(line_count: int, calls: int, rounds: int, server_js: Path) -> tuple[list[Row], list[str]]:
    if shutil.which("node") is None:
        print("missing peer: node is not on PATH. Install: apt-get install nodejs", file=sys.stderr)
        raise SystemExit(PEER_MISSING)
    lines = code_lines(line_count)
    middle = len(lines) // 2
    old = "\n".join(lines[middle : middle + 3])
    new = "\n".join([lines[middle], lines[middle + 1] + "  # edited", lines[middle + 2]])
    text = "".join(line + "\n" for line in lines)
    with tempfile.TemporaryDirectory(prefix="editblocks-mcp-") as tmp:
        calls_figures = anyio.run(per_call, Path(tmp), server_js, text, old, new, calls)
        starts = anyio.run(start_ups, Path(tmp), server_js, rounds)
    (ours_wall, ours_cpu), (theirs_wall, theirs_cpu) = calls_figures["editblocks"], calls_figures["filesystem"]
    notes = [f"per call, {line_count:,}-line file, {calls} calls each: wall median editblocks "
             f"{ours_wall * 1000:.1f} ms, filesystem {theirs_wall * 1000:.1f} ms; server CPU per call editblocks "
             f"{ours_cpu * 1000:.1f} ms, filesystem {theirs_cpu * 1000:.1f} ms "
             f"({ours_cpu / theirs_cpu if theirs_cpu else float('nan'):.2f}x)",
             f"start-up to first tools/list, {rounds} rounds: wall editblocks {starts['editblocks'][0] * 1000:.0f} ms, "
             f"filesystem {starts['filesystem'][0] * 1000:.0f} ms; server CPU editblocks "
             f"{starts['editblocks'][1] * 1000:.0f} ms, filesystem {starts['filesystem'][1] * 1000:.0f} ms"]
    peer = "filesystem server edit_file"
    rows = [
        ratio_row(f"MCP str_replace per call, {line_count:,} lines (wall)", ours_wall, theirs_wall, "ms", peer, 1,
                  command_line()),
        ratio_row("MCP start-up to first tools/list (wall)", starts["editblocks"][0], starts["filesystem"][0], "ms",
                  "filesystem server", 1.5, command_line()),
    ]
    return rows, notes


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--server", help=f"the filesystem server's dist/index.js (else ${MCP_FILESYSTEM.env})")
    parser.set_defaults(rounds=9)
    args = parser.parse_args()
    server_js = locate_peer(MCP_FILESYSTEM, args.server)
    rows, notes = measure(args.lines, args.calls, args.rounds, server_js)
    emit(rows, args.json, notes)


if __name__ == "__main__":
    main()
