"""CASES F10: the process is killed in the middle of writing several files.

A child Python process runs the real CLI (`editblocks apply`) with the calls that
change names and states (`os.link`, `os.replace`, `os.pwrite`) or `os.fsync`
wrapped so that the process SIGKILLs itself just before the Nth call: a
deterministic kill at every step of the real commit (the journal record, temporary
files, renames, folder syncs, the final journal mark). After each kill:

- every target file is wholly old or wholly new, byte for byte (the created
  file is absent or wholly new);
- a tree left half old, half new is never accepted: `editblocks apply` refuses
  while the interrupted run is pending (exit 1, nothing written, the reason
  says to run undo);
- `editblocks undo` restores every original byte for byte and mode for mode,
  and leaves no temporary file behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main

from helpers_apply import diff_edit, make_tree, temp_leftovers, tree_state

CHILD = textwrap.dedent(
    """
    import atexit, os, signal, sys
    names, limit = sys.argv[1].split(","), int(sys.argv[2])
    calls = 0
    def counting(real):
        def counted(*args, **kwargs):
            global calls
            calls += 1
            if calls == limit:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return counted
    for name in names:
        setattr(os, name, counting(getattr(os, name)))
    atexit.register(lambda: sys.stderr.write(f"CALLS={calls}\\n"))
    from editblocks.cli import main
    main(sys.argv[3:])
    """
)

OLD = {
    "src/a.py": b"def a():\n    return 1\n\n# end of a\n",
    "src/b.py": b"def b():\r\n    return 2\r\n",  # CRLF
    "src/pkg/c.py": b"C = 3\nD = 4\nE = 5",  # no final newline
    "docs/d.md": b"# Title\n\nSome text.\n",
    "run.sh": b"#!/bin/sh\necho five\n",
    "untouched.txt": b"nobody edits me\n",
}
MODES = {"run.sh": 0o755, "src/b.py": 0o600}
NEW = {
    "src/a.py": b"def a():\n    return 10\n\n# end of a\n",
    "src/b.py": b"def b():\r\n    return 20\r\n",
    "src/pkg/c.py": b"C = 30\nD = 4\nE = 50",
    "docs/d.md": b"# New title\n\nSome text.\n",
    "run.sh": b"#!/bin/sh\necho FIVE\n",
    "made/deep/e.py": b"E = 'created'\n",
}
RESPONSE = (
    diff_edit("src/a.py", ("    return 1\n", "    return 10\n"))
    + diff_edit("src/b.py", ("    return 2\n", "    return 20\n"))
    + diff_edit("src/pkg/c.py", ("C = 3\n", "C = 30\n"), ("E = 5\n", "E = 50\n"))
    + diff_edit("docs/d.md", ("# Title\n", "# New title\n"), lang="markdown")
    + diff_edit("run.sh", ("echo five\n", "echo FIVE\n"), lang="sh")
    + diff_edit("made/deep/e.py", ("", "E = 'created'\n"))
)
PROBE = diff_edit("untouched.txt", ("nobody edits me\n", "somebody did\n"), lang="")


def setup_root(root: Path) -> dict:
    make_tree(root, OLD)
    for rel, mode in MODES.items():
        os.chmod(root / rel, mode)
    return tree_state(root)


def run_child(root: Path, response: Path, name: str, limit: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, "-c", CHILD, name, str(limit), "apply", str(response), "--root", str(root)],
        capture_output=True, text=True, timeout=60, env=env,
    )


def calls_of(process: subprocess.CompletedProcess) -> int:
    lines = [line for line in process.stderr.splitlines() if line.startswith("CALLS=")]
    assert lines, process.stderr
    return int(lines[-1].split("=", 1)[1])


def check_after_kill(root: Path, response: Path, original: dict, label: str) -> str:
    """Everything F10 promises about one killed run; returns 'mixed', 'old', 'new' (the state found)."""
    runner = CliRunner()
    kinds = []
    for rel, new in NEW.items():
        path = root / rel
        if rel in OLD:
            data = path.read_bytes()
            assert data in (OLD[rel], new), f"{label}: {rel} is neither old nor new: {data!r}"
            kinds.append("new" if data == new else "old")
        else:
            assert not path.exists() or path.read_bytes() == new, f"{label}: created {rel} is partial"
            kinds.append("new" if path.exists() else "old")
    assert (root / "untouched.txt").read_bytes() == OLD["untouched.txt"], label
    state = kinds[0] if len(set(kinds)) == 1 else "mixed"

    probe = runner.invoke(main, ["apply", str(response.with_name("probe.md")), "--root", str(root), "--json"],
                          catch_exceptions=False)
    after_kill = tree_state(root)
    if probe.exit_code == 1 and "undo" in probe.stdout:
        data = json.loads(probe.stdout)
        assert data["written"] is False, label
        assert [r["status"] for r in data["results"]] == ["skipped"], label
        assert "undo" in data["results"][0]["reason"], label
        assert (root / "untouched.txt").read_bytes() == OLD["untouched.txt"], label
        refused = True
    else:
        assert state != "mixed", f"{label}: a half-written tree was accepted: {probe.stdout}"
        assert probe.exit_code == 0, f"{label}: {probe.output}"
        # take the probe back so that only the crashed run is left to undo
        assert runner.invoke(main, ["undo", "--root", str(root)]).exit_code == 0, label
        refused = False
    if refused:
        assert tree_state(root) == after_kill, f"{label}: the refused apply changed something"

    undone = runner.invoke(main, ["undo", "--root", str(root)], catch_exceptions=False)
    if refused or state == "new":
        assert undone.exit_code == 0, f"{label}: {undone.output}"
    assert tree_state(root) == original, f"{label}: undo did not restore the originals"
    assert temp_leftovers(root) == [], f"{label}: temporary files left behind"
    # the workspace is usable again: the same response now applies cleanly
    again = runner.invoke(main, ["apply", str(response), "--root", str(root)], catch_exceptions=False)
    assert again.exit_code == 0, f"{label}: {again.output}"
    assert all((root / rel).read_bytes() == new for rel, new in NEW.items()), label
    return state + ("/refused" if refused else "")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["link,replace,pwrite", "fsync"], ids=["renames", "fsync"])
def test_kill_at_every_step_of_the_commit_leaves_files_whole_and_undoable(tmp_path, name):
    answers = tmp_path / "answers"
    answers.mkdir()
    response = answers / "response.md"
    response.write_text(RESPONSE)
    (answers / "probe.md").write_text(PROBE)

    # a run that is not killed tells how many calls the commit makes, and what "new" is
    full = tmp_path / "full"
    original = setup_root(full)
    done = run_child(full, response, name, 0)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all((full / rel).read_bytes() == new for rel, new in NEW.items())
    assert os.stat(full / "run.sh").st_mode & 0o777 == 0o755
    total = calls_of(done)
    assert total >= (8 if name != "fsync" else 12)  # the commit really goes through these calls

    roots = {limit: tmp_path / f"kill-{limit}" for limit in range(1, total + 1)}
    for root in roots.values():
        setup_root(root)
    with ThreadPoolExecutor(max_workers=4) as pool:
        processes = dict(zip(roots, pool.map(lambda item: run_child(item[1], response, name, item[0]), roots.items())))

    states = {}
    for limit, process in processes.items():
        label = f"os.{name} call {limit} of {total}"
        assert process.returncode == -signal.SIGKILL, f"{label}: not killed ({process.returncode}) {process.stderr}"
        states[limit] = check_after_kill(roots[limit], response, original, label)

    # the kills really landed inside the commit: before it, with the run journaled but no file renamed,
    # after every rename but before the run was marked done (it landed: it counts as committed), and (renames
    # only) half-way through the renames
    seen = set(states.values())
    assert {"old", "old/refused", "new"} <= seen, states
    if name != "fsync":
        assert "mixed/refused" in seen, states
