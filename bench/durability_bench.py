"""Durability I/O per edit: the system calls one `str_replace` makes, and the journal's bytes after 8 edits.

    .venv/bin/python bench/durability_bench.py [--lines 1000000] [--edits 8] [--trace-lines 100000]
        [--history 1 8 20] [--openhands-site DIR | --no-peer]

System calls are counted with `strace -f` (Debian's strace; `apt-get install strace`): a child process
makes N earlier `str_replace` edits through `ToolHandler` (``--history``: 1, 8, 20: the count must not grow
with the runs the journal keeps), then marks the start and end of one more edit with a `stat`
of a path that does not exist; the calls between the marks are counted by name: fsync/fdatasync, rename*,
open*, stat* (stat, lstat, fstat, newfstatat, statx) and all calls. OpenHands' editor (openhands-aci's
`OHEditor`, from ``--openhands-site`` or OPENHANDS_SITE) is counted the same way, for reference; it keeps no
crash-safe journal. Then ``--edits`` small edits (one line each) are made to a ``--lines``-line file (45 MB
at 1M lines) and the bytes under `.editblocks/` are added up.
Goals: per edit one journal record with one fsync, one fsync of the new file and one per touched folder
(here the file's and the journal's: 4 fsyncs in all); for a small edit of a big file the journal keeps a
reverse patch, not a copy (here: all journal bytes at most 1% of the file).
"""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from goalkit import OPENHANDS, PEER_MISSING, Row, code_lines, command_line, emit, locate_peer, options

from editblocks.tools import ToolHandler

MARK = "/editblocks-bench-mark"
CATEGORIES = {"fsync": ("fsync", "fdatasync"), "rename": ("rename", "renameat", "renameat2"),
              "open": ("open", "openat", "openat2", "creat"),
              "stat": ("stat", "lstat", "fstat", "newfstatat", "statx", "fstatat64")}
FSYNC_TARGET = 4

EDIT_CHILD = """
import os, sys
root, who, site, warm = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
path = os.path.join(root, "big.py")
lines = open(path).read().split("\\n")
def pair(n):
    return lines[n], lines[n] + "  # edited"
if who == "editblocks":
    from editblocks.tools import ToolHandler
    handler = ToolHandler(root)
    def edit(n):
        old, new = pair(n)
        reply = handler.call("str_replace_based_edit_tool",
                             {"command": "str_replace", "path": "big.py", "old_str": old, "new_str": new})
        assert reply.ok, reply.text
else:
    sys.path.append(site)
    import logging
    from openhands_aci.editor import OHEditor
    logging.disable(logging.WARNING)
    editor = OHEditor(max_file_size_mb=10_000, workspace_root=root)
    def edit(n):
        old, new = pair(n)
        editor(command="str_replace", path=path, old_str=old, new_str=new)
for k in range(warm):
    edit(10 + k)
try:
    os.stat(MARK + "-begin")
except OSError:
    pass
edit(len(lines) // 2)
try:
    os.stat(MARK + "-end")
except OSError:
    pass
""".replace("MARK", repr(MARK))

_CALL = re.compile(r"^(?:\[pid\s+\d+\]\s+|\d+\s+)?([a-z_0-9]+)\(")


def syscalls_of_one_edit(who: str, text: str, site: str, warm: int) -> collections.Counter[str]:
    with tempfile.TemporaryDirectory(prefix="editblocks-durability-") as root:
        Path(root, "big.py").write_text(text)
        trace = Path(root).parent / f"{Path(root).name}.strace"
        command = [sys.executable, "-c", EDIT_CHILD, root, who, site, str(warm)]
        subprocess.run(["strace", "-f", "-qq", "-o", str(trace), *command], check=True, stdout=subprocess.DEVNULL)
        lines = trace.read_text(errors="replace").splitlines()
        trace.unlink()
    begin = next(i for i, line in enumerate(lines) if f"{MARK}-begin" in line)
    end = next(i for i, line in enumerate(lines) if f"{MARK}-end" in line)
    counts: collections.Counter[str] = collections.Counter()
    for line in lines[begin + 1 : end]:
        match = _CALL.match(line)
        if match:
            counts[match.group(1)] += 1
    return counts


def by_category(counts: collections.Counter[str]) -> dict[str, int]:
    grouped = {name: sum(counts[call] for call in calls) for name, calls in CATEGORIES.items()}
    grouped["all calls"] = sum(counts.values())
    return grouped


def journal_bytes(text: str, line_count: int, edits: int) -> tuple[int, int]:
    """Bytes under `.editblocks/` after ``edits`` one-line edits spread over the file, and the file's size."""
    lines = text.split("\n")
    with tempfile.TemporaryDirectory(prefix="editblocks-journal-") as root:
        Path(root, "big.py").write_text(text)
        handler = ToolHandler(root)
        for k in range(edits):
            line = lines[(k + 1) * line_count // (edits + 1)]
            reply = handler.call("str_replace_based_edit_tool", {"command": "str_replace", "path": "big.py",
                                                                 "old_str": line, "new_str": line + "  # edited"})
            assert reply.ok, reply.text
        total = sum(p.stat().st_size for p in Path(root, ".editblocks").rglob("*") if p.is_file())
    return total, len(text.encode())


def measure(line_count: int, trace_lines: int, edits: int, history: list[int],
            site: Path | None) -> tuple[list[Row], list[str]]:
    if shutil.which("strace") is None:
        print("missing tool: strace is not on PATH. Install: apt-get install strace", file=sys.stderr)
        raise SystemExit(PEER_MISSING)
    traced = "".join(line + "\n" for line in code_lines(trace_lines))
    ours = {warm: by_category(syscalls_of_one_edit("editblocks", traced, "", warm)) for warm in history}
    theirs = by_category(syscalls_of_one_edit("openhands", traced, str(site), edits)) if site else None
    notes = [f"system calls of one str_replace on a {trace_lines:,}-line file (strace -f, between marks), "
             "after N earlier edits:"]
    for name in [*CATEGORIES, "all calls"]:
        figures = "  ".join(f"after {warm:2}: {counts[name]:5}" for warm, counts in ours.items())
        peer = f"{theirs[name]:5}" if theirs else "    -"
        notes.append(f"  {name:10} editblocks {figures}   OpenHands OHEditor (after {edits}) {peer}")
    text = "".join(line + "\n" for line in code_lines(line_count))
    stored, size = journal_bytes(text, line_count, edits)
    notes.append(f"journal after {edits} one-line edits of a {size / 1e6:.1f} MB file: {amount(stored)} "
                 f"({stored / size:.5f}x the file)")
    counts = ours[edits] if edits in ours else by_category(syscalls_of_one_edit("editblocks", traced, "", edits))
    per_edit = f"{counts['fsync']} fsyncs, {counts['rename']} renames, {counts['open']} opens, {counts['stat']} stats"
    peer_text = (f"{theirs['fsync']} fsyncs, {theirs['rename']} renames, {theirs['open']} opens, "
                 f"{theirs['stat']} stats (OpenHands, no journal)") if theirs else "-"
    rows = [
        Row(f"durability: system calls of a str_replace after {edits} others", per_edit, peer_text, None,
            f"<= {FSYNC_TARGET} fsyncs", counts["fsync"] <= FSYNC_TARGET, command_line()),
        Row(f"durability: journal bytes after {edits} one-line edits", amount(stored),
            f"file {size / 1e6:.1f} MB", stored / size, "<= 0.01x the file (reverse patches)",
            stored <= size / 100, command_line()),
    ]
    return rows, notes


def amount(size: int) -> str:
    """Bytes as MB, or kB when under a megabyte (a journal of reverse patches is a few kB)."""
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{size / 1e3:.1f} kB"


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--edits", type=int, default=8)
    parser.add_argument("--trace-lines", type=int, default=100_000, help="the traced file's size")
    parser.add_argument("--history", type=int, nargs="+", default=[1, 8, 20],
                        help="count the calls of an edit made after this many earlier ones")
    parser.add_argument("--openhands-site", help=f"OpenHands' site-packages (else ${OPENHANDS.env}); "
                        "without it only editblocks is counted")
    parser.add_argument("--no-peer", action="store_true", help="count editblocks only")
    args = parser.parse_args()
    site = None if args.no_peer else locate_peer(OPENHANDS, args.openhands_site)
    rows, notes = measure(args.lines, args.trace_lines, args.edits, args.history, site)
    emit(rows, args.json, notes)


if __name__ == "__main__":
    main()
