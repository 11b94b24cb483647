"""The disk layer imports, reads and dry-runs without `fcntl` or `subprocess` (issue 11).

They are imported only where the lock is taken or git runs, so the pure API
and a dry run work on a platform that has neither. Each check runs in a fresh
interpreter in which importing either module fails.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

WITHOUT = "import sys\nsys.modules['fcntl'] = None\nsys.modules['subprocess'] = None  # importing them now fails\n"


def run_fresh(code: str, root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT + textwrap.dedent(code), str(root)],
                          capture_output=True, text=True, timeout=60)


def test_parse_read_and_dry_run_need_neither_fcntl_nor_subprocess(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old\n")
    done = run_fresh("""
        import editblocks
        from editblocks.workspace import Workspace

        root = sys.argv[1]
        parsed = editblocks.parse("a.txt\\n<<<<<<< SEARCH\\nold\\n=======\\nnew\\n>>>>>>> REPLACE\\n")
        snapshot = Workspace(root).read("a.txt")
        outcome = editblocks.apply(parsed, root, dry_run=True)
        print(len(parsed.blocks), repr(snapshot.text), repr(outcome.diffs[0].after))
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1 'old\\n' 'new\\n'"
    assert (tmp_path / "a.txt").read_text() == "old\n"


def test_taking_the_lock_is_what_needs_fcntl(tmp_path: Path) -> None:
    """The same harness does see fcntl go missing once the lock is taken, so the test above can fail."""
    done = run_fresh("""
        from editblocks.workspace import Workspace

        with Workspace(sys.argv[1]).lock():
            pass
    """, tmp_path)
    assert done.returncode != 0
    assert "fcntl" in done.stderr
