"""Where editblocks' time (and memory) goes in each speed goal's workload: the top entries of a profile.

    .venv/bin/python bench/profile_goals.py [GOAL ...] [--top 15]

GOAL is one of: startup, str_replace, v4a, udiff, durability, mcp, parsing, live, memory (all when none is
given). CPU profiles are cProfile's, sorted by cumulative time and by own time; a whole process (start-up,
the unified diff) is profiled with ``python -m cProfile`` in a child; start-up adds `-X importtime`'s slowest
imports; durability lists the paths the traced edit opened, stat-ed, renamed and synced (strace); memory is
tracemalloc's largest allocations, by line, when the apply's result is complete. Workloads are the goal
scripts' own, at their default sizes unless noted.
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import pstats
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from goalkit import ROOT, changed_text, code_lines, hunk_places, timing_env, unified_patch, v4a_patch

from editblocks import apply, parse

TOOL = "str_replace_based_edit_tool"


def show_stats(stats: pstats.Stats, top: int) -> None:
    for key, label in (("cumulative", "cumulative"), ("tottime", "own time")):
        out = io.StringIO()
        stats.stream = out  # type: ignore[attr-defined]
        stats.sort_stats(key).print_stats(top)
        body = out.getvalue()
        body = body[body.index("ncalls"):] if "ncalls" in body else body
        print(f"-- by {label}\n{body.rstrip()}")


def profile_call(run: Callable[[], object], top: int, repeat: int = 1) -> None:
    profiler = cProfile.Profile(time.process_time)
    profiler.enable()
    for _ in range(repeat):
        run()
    profiler.disable()
    show_stats(pstats.Stats(profiler).strip_dirs(), top)


PROFILED_CLI = """
import cProfile, runpy, sys, time
out, sys.argv = sys.argv[1], ["editblocks", *sys.argv[2:]]
profiler = cProfile.Profile(time.process_time)
profiler.enable()
try:
    runpy.run_module("editblocks", run_name="__main__")
except SystemExit:
    pass
profiler.disable()
profiler.dump_stats(out)
"""
"""`python -m cProfile` times by the wall clock, which a loaded machine stretches; this times by CPU."""


def profile_process(arguments: list[str], top: int, cwd: Path) -> None:
    """Profile a whole `editblocks ARGUMENTS` process, imports included."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "profile.out")
        subprocess.run([sys.executable, "-c", PROFILED_CLI, str(out), *arguments], cwd=cwd, env=timing_env(),
                       check=True, stdout=subprocess.DEVNULL)
        show_stats(pstats.Stats(str(out)).strip_dirs(), top)


def slowest_imports(command: list[str], top: int) -> None:
    traced = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True, text=True,
                            cwd=ROOT, env=timing_env(), check=False)
    rows = []
    for line in traced.stderr.splitlines():
        parts = line.split("|")
        if line.startswith("import time:") and parts[1].strip().isdigit():
            rows.append((int(parts[1]), int(parts[0].split(":")[1]), parts[2].rstrip()))
    rows.sort(reverse=True)
    by_package: collections.Counter[str] = collections.Counter()
    for _, own, name in rows:
        by_package[name.strip().split(".")[0]] += own
    print("-- slowest imports (cumulative us, own us, module)")
    for cumulative, own, name in rows[:top]:
        print(f"{cumulative:9} {own:9}  {name}")
    print("-- own import time by top-level package (ms): " + ", ".join(
        f"{name} {micros / 1000:.0f}" for name, micros in by_package.most_common(12)))


# --- the goals --------------------------------------------------------------------------------------------------


def startup(top: int) -> None:
    arguments = ["apply", str(ROOT / "examples" / "response.md"), "--root", str(ROOT / "examples" / "project"),
                 "--dry-run"]
    slowest_imports(["-m", "editblocks", *arguments], top)
    print("-- import editblocks alone")
    slowest_imports(["-c", "import editblocks"], top // 2)
    profile_process(arguments, top, ROOT)


def str_replace(top: int, lines_count: int = 100_000) -> None:
    from editblocks.tools import ToolHandler

    lines = code_lines(lines_count)
    middle = lines_count // 2
    old = "\n".join(lines[middle : middle + 3])
    new = old + "\n    inserted = True"
    with tempfile.TemporaryDirectory() as root:
        Path(root, "big.py").write_text("".join(line + "\n" for line in lines))
        handler = ToolHandler(root)
        pair = [old, new]

        def edit() -> None:
            reply = handler.call(TOOL, {"command": "str_replace", "path": "big.py", "old_str": pair[0],
                                        "new_str": pair[1]})
            assert reply.ok, reply.text
            pair.reverse()

        edit()
        profile_call(edit, top, repeat=4)


def v4a(top: int, line_count: int = 100_000, hunks: int = 200) -> None:
    from editblocks.plan import TargetFile, plan_edits

    lines = code_lines(line_count)
    places = hunk_places(lines, hunks)
    original, patch = "".join(line + "\n" for line in lines), v4a_patch("big.py", lines, places)
    print(f"-- parse + plan, {hunks} hunks, {line_count:,} lines")
    profile_call(lambda: plan_edits(parse(patch, "v4a").blocks, {"big.py": TargetFile("big.py", original)}), top, 3)
    with tempfile.TemporaryDirectory() as root:
        Path(root, "big.py").write_text(original)
        print("-- dry run")
        profile_call(lambda: apply(parse(patch), root, dry_run=True), top, 3)


def udiff(top: int, line_count: int = 100_000, hunks: int = 1000) -> None:
    lines = code_lines(line_count)
    places = hunk_places(lines, hunks)
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "change.patch").write_text(unified_patch("big.py", lines, places))
        root = Path(tmp, "project")
        root.mkdir()
        (root / "big.py").write_text("".join(line + "\n" for line in lines))
        profile_process(["apply", str(Path(tmp, "change.patch")), "--root", "."], top, root)
        assert (root / "big.py").read_text() == changed_text(lines, places)


def durability(top: int) -> None:
    from durability_bench import EDIT_CHILD, MARK

    text = "".join(line + "\n" for line in code_lines(20_000))
    with tempfile.TemporaryDirectory() as root:
        Path(root, "big.py").write_text(text)
        trace = Path(root).parent / f"{Path(root).name}.strace"
        traced = "trace=%file,fsync,fdatasync,fstat,close,getdents64,dup,fcntl"
        subprocess.run(["strace", "-f", "-qq", "-o", str(trace), "-e", traced, sys.executable, "-c", EDIT_CHILD,
                        root, "editblocks", "", "8"], check=True, stdout=subprocess.DEVNULL)
        lines = trace.read_text(errors="replace").splitlines()
        trace.unlink()
    begin = next(i for i, line in enumerate(lines) if f"{MARK}-begin" in line)
    end = next(i for i, line in enumerate(lines) if f"{MARK}-end" in line)
    print("-- system calls of the 9th str_replace, by call and file (fds named by the open that made them; "
          "journal run names folded)")
    for entry, count in calls_by_file(lines[begin + 1 : end], root).most_common(top * 2):
        print(f"{count:5}  {entry}")


_SYSCALL = re.compile(r'(?:\d+\s+)?(\w+)\((?:AT_FDCWD, )?(?:(\d+), )?"?([^",)]*)"?.*?= (-?\d+)')


def calls_by_file(lines: list[str], root: str) -> collections.Counter[str]:
    """Each traced call, keyed by its name and the file it touched (a descriptor's path is the one it was opened
    with; journal run names and temporary names folded so repeats add up)."""
    names: dict[str, str] = {}
    counts: collections.Counter[str] = collections.Counter()
    for line in lines:
        match = _SYSCALL.match(line)
        if not match:
            continue
        call, fd, path, result = match.groups()
        if call.startswith("open") and path:
            names[result] = path
        if call in ("dup", "fcntl"):  # os.scandir(fd) reads a duplicate of the folder's descriptor
            names[result] = names.get(fd or path, f"fd {fd or path}")
            continue
        target = path or names.get(fd or path or "", f"fd {fd}")
        if call in ("close", "fsync", "fdatasync", "fstat", "getdents64"):
            descriptor = fd or path
            target = names.get(descriptor, f"fd {descriptor}")
        target = re.sub(r"\d{8}-\d{8}T\d{6}Z", "<run>", target.replace(root, "<root>"))
        target = re.sub(r"\.[\w.]*?\.?[0-9a-f]{8}\.tmp", ".<tmp>", target)
        counts[f"{call:12} {target}"] += 1
    return counts


def mcp(top: int) -> None:
    from editblocks.tools import ToolHandler

    slowest_imports(["-c", "import editblocks.mcp.server"], top)
    lines = code_lines(1000)
    with tempfile.TemporaryDirectory() as root:
        Path(root, "big.py").write_text("".join(line + "\n" for line in lines))
        handler = ToolHandler(root)
        pair = [lines[500], lines[500] + "  # edited"]

        def edit() -> None:
            reply = handler.call(TOOL, {"command": "str_replace", "path": "big.py", "old_str": pair[0],
                                        "new_str": pair[1]})
            assert reply.ok
            pair.reverse()

        edit()
        print("-- ToolHandler.call str_replace on the 1,000-line file (the server's work per call), 20 calls")
        profile_call(edit, top, repeat=20)


def parsing(top: int) -> None:
    from peer_bench import FENCE_BY_VALUE, corpus, real_answers

    answers = real_answers(None) or corpus(2000)
    print(f"-- parse, fence by value, {len(answers):,} answers")
    profile_call(lambda: [parse(a, fence=FENCE_BY_VALUE) for a in answers], top, 2)


def live(top: int) -> None:
    from ask_bench import answer, big_file, sources

    from editblocks.ask.live import LiveAnswer
    from editblocks.ask.locator import LiveLocator

    file_text, text = big_file(20_000), answer(40)

    def run() -> None:
        stream = LiveAnswer(LiveLocator(sources(file_text)))
        for i in range(0, len(text), 4):
            stream.feed(text[i : i + 4])
        stream.close()

    profile_call(run, top, 2)


def memory(top: int) -> None:
    from memory_bench import answer as many_blocks

    from editblocks.plan import TargetFile, plan_edits
    from editblocks.text.diff import unified_diff

    lines = code_lines(200_000)
    text = "".join(line + "\n" for line in lines)
    response = many_blocks(lines, 10_000)
    del lines
    print(f"-- stages of a 10,000-block dry run on a 200,000-line file: input {len(text) / 2**20:.1f} MiB file + "
          f"{len(response) / 2**20:.1f} MiB answer; tracemalloc, MiB held after each stage and its peak above the "
          "start of the stage")
    tracemalloc.start(4)
    held: list[object] = []
    stages: list[tuple[str, Callable[[], object]]] = [
        ("parse", lambda: parse(response)),
        ("plan_edits", lambda: plan_edits(held[0].blocks, {"big.py": TargetFile("big.py", text)})),  # type: ignore
        ("unified_diff", lambda: unified_diff("big.py", text, held[1].files[0].text)),  # type: ignore
    ]
    snapshots = []
    for name, stage in stages:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        held.append(stage())
        current, peak = tracemalloc.get_traced_memory()
        print(f"{name:14} held {(current - before) / 2**20:7.1f} MiB   peak above start {(peak - before) / 2**20:7.1f}")
        snapshots.append(tracemalloc.take_snapshot())
    tracemalloc.stop()
    print("-- largest allocations still held after planning, by line")
    for stat in snapshots[1].compare_to(snapshots[0], "lineno")[:top]:
        print(f"{stat.size_diff / 2**20:8.1f} MiB {stat.count_diff:9} blocks  {stat.traceback[0]}")


GOALS: dict[str, Callable[[int], None]] = {"startup": startup, "str_replace": str_replace, "v4a": v4a,
                                           "udiff": udiff, "durability": durability, "mcp": mcp,
                                           "parsing": parsing, "live": live, "memory": memory}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("goals", nargs="*", metavar="GOAL", help=", ".join(GOALS))
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    unknown = [name for name in args.goals if name not in GOALS]
    if unknown:
        parser.error(f"unknown goal {unknown[0]!r}; choose from {', '.join(GOALS)}")
    for name in args.goals or GOALS:
        print(f"\n===== {name} =====")
        GOALS[name](args.top)


if __name__ == "__main__":
    main()
