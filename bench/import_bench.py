"""Start-up cost: `import editblocks`, `import editblocks` + one parse, `editblocks --help`, and a dry-run apply of
the shipped example, beside a bare `python -c pass` and `git apply --check` of the same change as a patch.

Run by hand: `.venv/bin/python bench/import_bench.py [--rounds N] [--json] [--before SRC]`. Each figure is the
median over N fresh processes, interleaved round by round (warm `.pyc`: PYTHONDONTWRITEBYTECODE is unset for the
children), as CPU time (user + system from the child's own rusage) and wall time. The goals are ratios to the bare
interpreter: the dry run at most 5x, `import editblocks` at most 3x. The modules each workload imports are
listed from `python -X importtime`, so a heavy import creeping in shows by name. ``--before SRC`` (the `src`
folder of an older checkout, e.g. from `git archive COMMIT src | tar -x -C DIR`) adds its import and dry run to
the same rounds, run with PYTHONPATH=SRC, so a change is measured before and after in one run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from goalkit import (
    ROOT,
    ChildRun,
    Row,
    command_line,
    editblocks_command,
    emit,
    interleaved_children,
    options,
    ratio_row,
    run_child,
    timing_env,
)

PYTHON = sys.executable
EXAMPLE = ROOT / "examples"
HEAVY = ("rich", "click", "rapidfuzz", "subprocess", "fcntl", "difflib", "mcp", "pydantic")
BARE = "python -c pass (interpreter start)"
IMPORT = "python -c 'import editblocks'"
DRY_RUN = "editblocks apply example --dry-run"
GIT_CHECK = "git apply --check (the example as a patch)"


def workloads(patch_dir: Path) -> dict[str, list[str]]:
    return {
        BARE: [PYTHON, "-c", "pass"],
        IMPORT: [PYTHON, "-c", "import editblocks"],
        "import editblocks; parse(text)": [
            PYTHON, "-c",
            "import editblocks; editblocks.parse('a.py\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n>>>>>>> REPLACE\\n')",
        ],
        "editblocks --help": [*editblocks_command(), "--help"],
        DRY_RUN: [*editblocks_command(), "apply", str(EXAMPLE / "response.md"), "--root",
                  str(EXAMPLE / "project"), "--dry-run"],
        GIT_CHECK: ["git", "apply", "--check", str(patch_dir / "example.patch")],
    }


def example_as_patch(folder: Path) -> Path:
    """The shipped example's change as a git patch, beside a copy of its project (outside any repository)."""
    import editblocks

    project = folder / "project"
    shutil.copytree(EXAMPLE / "project", project)
    result = editblocks.apply(editblocks.parse((EXAMPLE / "response.md").read_text()), project, dry_run=True)
    (folder / "example.patch").write_bytes(editblocks.git_patch(result.diffs))
    return project


def heavy_imports(command: list[str]) -> list[str]:
    """The heavy top-level modules a Python workload imports, read from `-X importtime`."""
    if command[0] == "git":
        return []
    python = [PYTHON, "-X", "importtime", *(command[1:] if command[0] == PYTHON else ["-m", "editblocks",
                                                                                       *command[1:]])]
    traced = subprocess.run(python, capture_output=True, text=True, cwd=ROOT, check=False, env=timing_env())
    names = {line.rsplit("|", 1)[-1].strip() for line in traced.stderr.splitlines() if line.startswith("import time:")}
    return sorted(name for name in names if name.split(".")[0] in HEAVY and "." not in name)


def measure(rounds: int, before: Path | None = None) -> tuple[list[Row], list[str]]:
    env = timing_env()
    before_env = {**env, "PYTHONPATH": str(before)} if before is not None else env
    with tempfile.TemporaryDirectory(prefix="editblocks-startup-") as tmp:
        project = example_as_patch(Path(tmp))
        commands = workloads(Path(tmp))
        if before is not None:
            commands[f"{IMPORT} (before)"] = commands[IMPORT]
            commands[f"{DRY_RUN} (before)"] = commands[DRY_RUN]
        check = run_child(commands[GIT_CHECK], cwd=project)
        assert check.returncode == 0, "git apply --check refused the example's patch"

        def runner(name: str) -> ChildRun:
            return run_child(commands[name], cwd=project if name == GIT_CHECK else ROOT,
                             env=before_env if name.endswith("(before)") else env)

        medians = interleaved_children({name: (lambda name=name: runner(name)) for name in commands}, rounds,
                                       warmup=2)
    notes = [f"median of {rounds} interleaved rounds (child rusage; warm .pyc)",
             f"{'workload':45} {'CPU ms':>8} {'wall ms':>8}  heavy modules imported"]
    for name, command in commands.items():
        cpu, wall = medians[name]
        heavy = "(not listed)" if name.endswith("(before)") else ", ".join(heavy_imports(command)) or "-"
        notes.append(f"{name:45} {cpu * 1000:8.1f} {wall * 1000:8.1f}  {heavy}")
    bare, git = medians[BARE][0], medians[GIT_CHECK][0]
    dry = medians[DRY_RUN][0]
    notes.append(f"dry run / git apply --check: {dry / git:.1f}x (reference, no goal)")
    if before is not None:
        notes.append(f"before ({before}): dry run {medians[f'{DRY_RUN} (before)'][0] / bare:.2f}x, import "
                     f"{medians[f'{IMPORT} (before)'][0] / bare:.2f}x python -c pass; after: {dry / bare:.2f}x, "
                     f"{medians[IMPORT][0] / bare:.2f}x")
    rows = [
        ratio_row("start-up: apply example --dry-run (CPU)", dry, bare, "ms", "python -c pass", 5, command_line()),
        ratio_row("start-up: import editblocks (CPU)", medians[IMPORT][0], bare, "ms", "python -c pass", 3,
                  command_line()),
    ]
    return rows, notes


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, dest="rounds", help="the same as --rounds")
    parser.add_argument("--before", type=Path, help="the src folder of an older checkout, measured alongside")
    parser.set_defaults(rounds=15)
    args = parser.parse_args()
    rows, notes = measure(args.rounds, args.before)
    emit(rows, args.json, notes)


if __name__ == "__main__":
    main()
