"""`apply --git-add` then `undo` puts git's index back too (issue 10), in a real git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main

from helpers_apply import diff_edit, make_tree

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ANSWER = (diff_edit("app.py", ("A = 1\n", "A = 2\n")) + diff_edit("lib/new.py", ("", "NEW = 1\n"))
          + diff_edit("staged.py", ("S = 1\n", "S = 3\n")))


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env=env).stdout


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", os.devnull)
    root = tmp_path / "repo"
    make_tree(root, {"app.py": "A = 1\n", "staged.py": "S = 1\n", "other.py": "O = 1\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    make_tree(root, {"staged.py": "S = 2\n"})
    git(root, "add", "staged.py")  # the user had staged S = 2 before the apply...
    make_tree(root, {"staged.py": "S = 1\n"})  # ...and went back to S = 1 in the work tree
    (tmp_path / "answer.md").write_text(ANSWER)
    return root


def index(root: Path) -> str:
    return git(root, "ls-files", "-s")


def test_undo_puts_back_exactly_the_index_entries_the_run_staged(repo: Path) -> None:
    status_before, index_before = git(repo, "status", "--porcelain"), index(repo)
    code, out = cli("apply", str(repo.parent / "answer.md"), "--root", str(repo), "--git-add")
    assert code == 0, out
    assert "lib/new.py" in index(repo) and index(repo) != index_before
    code, out = cli("undo", "--root", str(repo))
    assert code == 0, out
    assert "unstaged 3 files" in out
    assert index(repo) == index_before
    assert git(repo, "status", "--porcelain") == status_before  # no `MM`: nothing of the model's change is staged


def test_undo_leaves_an_index_entry_changed_since_and_says_so(repo: Path) -> None:
    index_before = index(repo)
    assert cli("apply", str(repo.parent / "answer.md"), "--root", str(repo), "--git-add")[0] == 0
    make_tree(repo, {"app.py": "A = 2\n# staged by the user after the apply\n"})
    git(repo, "add", "app.py")
    make_tree(repo, {"app.py": "A = 2\n"})
    code, out = cli("undo", "--root", str(repo))
    assert code == 0, out
    assert "left app.py staged" in out
    staged_app = [line for line in index(repo).splitlines() if line.endswith("\tapp.py")]
    assert staged_app != [line for line in index_before.splitlines() if line.endswith("\tapp.py")]
    others = [line for line in index(repo).splitlines() if not line.endswith("\tapp.py")]
    assert others == [line for line in index_before.splitlines() if not line.endswith("\tapp.py")]


def test_undo_without_git_add_leaves_the_index_alone(repo: Path) -> None:
    index_before = index(repo)
    assert cli("apply", str(repo.parent / "answer.md"), "--root", str(repo))[0] == 0
    git(repo, "add", "app.py")
    code, out = cli("undo", "--root", str(repo))
    assert code == 0 and "unstaged" not in out
    assert index(repo) != index_before  # the user's own `git add` is theirs to keep


def test_undo_refusal_names_the_real_option(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    make_tree(root, {"app.py": "A = 1\n", "staged.py": "S = 1\n"})
    (tmp_path / "answer.md").write_text(diff_edit("app.py", ("A = 1\n", "A = 2\n")))
    assert cli("apply", str(tmp_path / "answer.md"), "--root", str(root))[0] == 0
    (root / "app.py").write_text("edited by hand\n")
    code, out = cli("undo", "--root", str(root))
    assert code == 1
    assert "`editblocks undo --force`" in out and "undo with force" not in out


def test_undo_json_names_what_it_unstaged_and_what_it_left_staged(repo: Path) -> None:
    assert cli("apply", str(repo.parent / "answer.md"), "--root", str(repo), "--git-add")[0] == 0
    make_tree(repo, {"app.py": "A = 2\n# staged by the user after the apply\n"})
    git(repo, "add", "app.py")
    make_tree(repo, {"app.py": "A = 2\n"})
    code, out = cli("undo", "--root", str(repo), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["still_staged"] == ["app.py"]
    assert "app.py" not in data["unstaged"] and data["unstaged"]
