"""A 1,000-hunk unified diff on a 100,000-line file: the whole `editblocks apply` process against `git apply`.

    .venv/bin/python bench/udiff_process_bench.py [--hunks 1000] [--lines 100000] [--rounds 5]

Both are run as a user runs them, as fresh processes that write the file: `editblocks apply PATCH --root DIR`
(the console script: start-up, parse, plan, journal, atomic write, report) and `git apply PATCH` in a folder
that is not a repository. Each run gets a fresh copy of the original file (not timed) and must leave the
expected text. CPU time from each child's own rusage (user + system), medians of interleaved rounds. Goal:
editblocks at most `git apply` (ratio <= 1).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from goalkit import (
    PEER_MISSING,
    ChildRun,
    Row,
    changed_text,
    code_lines,
    command_line,
    editblocks_command,
    emit,
    hunk_places,
    interleaved_children,
    options,
    ratio_row,
    run_child,
    timing_env,
    unified_patch,
)


def measure(hunks: int, line_count: int, rounds: int) -> tuple[list[Row], list[str]]:
    if shutil.which("git") is None:
        print("missing peer: git is not on PATH. Install: apt-get install git", file=sys.stderr)
        raise SystemExit(PEER_MISSING)
    lines = code_lines(line_count)
    places = hunk_places(lines, hunks)
    original, expected = "".join(line + "\n" for line in lines), changed_text(lines, places)
    env = timing_env()
    with tempfile.TemporaryDirectory(prefix="editblocks-udiff-") as tmp:
        patch = Path(tmp, "change.patch")
        patch.write_text(unified_patch("big.py", lines, places))
        commands = {"editblocks": [*editblocks_command(), "apply", str(patch), "--root", "."],
                    "git apply": ["git", "apply", str(patch)]}

        def runner(name: str) -> ChildRun:
            folder = Path(tmp, name.replace(" ", "-"))
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            (folder / "big.py").write_text(original)
            outcome = run_child(commands[name], cwd=folder, env=env)
            assert outcome.returncode == 0 and (folder / "big.py").read_text() == expected, f"{name} failed"
            return outcome

        medians = interleaved_children({name: (lambda name=name: runner(name)) for name in commands}, rounds)
    ours, theirs = medians["editblocks"], medians["git apply"]
    notes = [f"wall: editblocks {ours[1] * 1000:.0f} ms, git apply {theirs[1] * 1000:.0f} ms"]
    return [ratio_row(f"unified diff {hunks:,} hunks, {line_count:,} lines: whole process (CPU)", ours[0],
                      theirs[0], "ms", "git apply", 1, command_line())], notes


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--hunks", type=int, default=1000)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.set_defaults(rounds=5)
    args = parser.parse_args()
    rows, notes = measure(args.hunks, args.lines, args.rounds)
    emit(rows, args.json, notes)


if __name__ == "__main__":
    main()
