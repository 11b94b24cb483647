"""Two `editblocks` processes on one root at the same time: the lock serialises them, nothing is lost.

The first process is slowed down inside its commit (every `os.replace`
sleeps) and says when it got there, so the second one is certain to start
while the first holds the workspace lock.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

EDITBLOCKS = str(Path(sys.executable).with_name("editblocks"))
REPLACE_DELAY = 0.15
SLOW_APPLY = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from editblocks.cli import main

    marker, delay = Path(sys.argv[1]), float(sys.argv[2])
    real_replace = os.replace

    def slow_replace(source, target, **folders):
        marker.touch()  # the first replace is the journal's: the lock is held from here to the end
        time.sleep(delay)
        return real_replace(source, target, **folders)

    os.replace = slow_replace
    main(sys.argv[3:], prog_name="editblocks")
    """
)
FILES = {f"f{n}.py": f"{name} = {n}\nextra_{name} = {n * 10}\n" for n, name in
         enumerate(["zero", "one", "two", "three", "four", "five"]) if n}


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n"


FIRST = "".join(block(f"f{n}.py", f"{name} = {n}", f"{name} = 'A'")
                for n, name in [(1, "one"), (2, "two"), (3, "three"), (4, "four")])
SECOND = (block("f2.py", "extra_two = 20", "extra_two = 'B'")  # still there after FIRST
          + block("f3.py", "three = 3", "three = 'B'")  # FIRST changed this line: must fail, not clobber
          + block("f5.py", "five = 5", "five = 'B'"))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    for name, text in FILES.items():
        (project / name).write_text(text)
    (tmp_path / "first.md").write_text(FIRST)
    (tmp_path / "second.md").write_text(SECOND)
    return project


def start_slow_apply(root: Path) -> subprocess.Popen[str]:
    """`editblocks apply first.md`, slowed inside its commit; returns once it holds the lock."""
    marker = root.parent / "committing"
    command = [sys.executable, "-c", SLOW_APPLY, str(marker), str(REPLACE_DELAY),
               "apply", str(root.parent / "first.md"), "--root", str(root)]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not marker.exists():
        assert first.poll() is None, first.communicate()
        assert time.monotonic() < deadline, "the slow apply never reached its commit"
        time.sleep(0.01)
    return first


def contents(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text() for name in FILES}


@pytest.mark.slow
def test_a_second_apply_waits_and_applies_on_top_of_the_first(root: Path) -> None:
    first = start_slow_apply(root)
    second = subprocess.run([EDITBLOCKS, "apply", str(root.parent / "second.md"), "--root", str(root), "--json"],
                            capture_output=True, text=True, timeout=60)
    # The first may still be printing after it released the lock, so its exit proves nothing; that the
    # second found f3.py already changed (below) proves it waited for the whole first commit.
    first_out, first_err = first.communicate(timeout=30)
    assert first.returncode == 0, first_out + first_err
    assert contents(root) == {
        "f1.py": "one = 'A'\nextra_one = 10\n",
        "f2.py": "two = 'A'\nextra_two = 'B'\n",
        "f3.py": "three = 'A'\nextra_three = 30\n",
        "f4.py": "four = 'A'\nextra_four = 40\n",
        "f5.py": "five = 'B'\nextra_five = 50\n",
    }
    assert second.returncode == 1, second.stderr
    assert '"status": "failed"' in second.stdout and "f3.py" in second.stdout


@pytest.mark.slow
def test_the_same_answer_twice_at_once_is_applied_once(root: Path) -> None:
    first = start_slow_apply(root)
    again = subprocess.run([EDITBLOCKS, "apply", str(root.parent / "first.md"), "--root", str(root)],
                           capture_output=True, text=True, timeout=60)
    first.communicate(timeout=30)
    assert first.returncode == 0
    assert again.returncode == 0 and "0 applied" in again.stdout and "4 already applied" in again.stdout
    assert all(text.count("'A'") == (name != "f5.py") for name, text in contents(root).items())


@pytest.mark.slow
def test_undo_waits_for_a_running_apply_then_undoes_it(root: Path) -> None:
    before = contents(root)
    first = start_slow_apply(root)
    undo = subprocess.run([EDITBLOCKS, "undo", "--root", str(root)], capture_output=True, text=True, timeout=60)
    first.communicate(timeout=30)  # undo found the whole run committed (below): it waited for the lock
    assert first.returncode == 0
    assert undo.returncode == 0 and "undid run" in undo.stdout, undo.stdout + undo.stderr
    assert contents(root) == before
