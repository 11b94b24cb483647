"""Git runs with the repository's hooks off and its fsmonitor off (issue 22): a repository's own scripts never run.

A husky-style `core.hooksPath=.husky` points git at scripts inside the work tree, the very files a model's answer
may just have edited; `core.fsmonitor` names a program git starts on most commands that read the index. Each test
sets one up to write a marker file, runs editblocks' git-using commands for real, and looks for the marker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner

from editblocks.cli import main

from helpers_apply import diff_edit, make_tree

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
EDIT = diff_edit("app.py", ("A = 1\n", "A = 2\n"))


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **IDENTITY}).stdout


def marker_script(marker: Path) -> str:
    return f"#!/bin/sh\necho \"$0 $*\" >> '{marker}'\nexit 0\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", os.devnull)
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    use_local_endpoint(monkeypatch)
    root = tmp_path / "repo"
    make_tree(root, {"app.py": "A = 1\n", "other.py": "O = 1\n"})
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def husky(repo: Path, tmp_path: Path) -> Path:
    """`core.hooksPath=.husky` with a pre-commit and a post-commit hook in the work tree; returns the marker."""
    marker = tmp_path / "hooks-ran.txt"
    for hook in ("pre-commit", "post-commit", "commit-msg", "prepare-commit-msg"):
        path = repo / ".husky" / hook
        path.parent.mkdir(exist_ok=True)
        path.write_text(marker_script(marker))
        path.chmod(0o755)
    git(repo, "config", "core.hooksPath", ".husky")
    return marker


@pytest.fixture
def fsmonitor(repo: Path, tmp_path: Path) -> Path:
    """`core.fsmonitor` set to a script that writes a marker each time git starts it; returns the marker."""
    marker = tmp_path / "fsmonitor-ran.txt"
    script = tmp_path / "fsmonitor.sh"
    script.write_text(marker_script(marker))
    script.chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(script))
    marker.unlink(missing_ok=True)  # git config itself does not start it, but be sure
    return marker


def ask_commit(repo: Path, *extra: str) -> tuple[int, str]:
    answer = diff_edit("app.py", ("A = 1\n", "A = 2\n"))
    with scripted([Answer(f"Here it is.\n\n{answer}")]) as server:
        result = CliRunner().invoke(main, ["ask", "Set A to 2", "app.py", "--model", "m", "--base-url",
                                           server.base_url, "--api-key-env", "TEST_KEY", "--yes", "--git-commit",
                                           *extra])
    return result.exit_code, result.output


def last_subject(repo: Path) -> str:
    return git(repo, "log", "-1", "--format=%s").strip()


def test_git_commit_runs_no_hook_of_the_repository(repo: Path, husky: Path) -> None:
    code, output = ask_commit(repo)
    assert code == 0, output
    assert last_subject(repo) == "editblocks ask: Set A to 2"
    assert not husky.exists(), f"a hook ran: {husky.read_text()}"


def test_git_hooks_runs_them_when_the_user_asks(repo: Path, husky: Path) -> None:
    code, output = ask_commit(repo, "--git-hooks")
    assert code == 0, output
    assert last_subject(repo) == "editblocks ask: Set A to 2"
    ran = husky.read_text()
    assert "pre-commit" in ran and "post-commit" in ran


def test_git_hooks_without_git_commit_is_a_usage_error(repo: Path) -> None:
    result = CliRunner().invoke(main, ["ask", "x", "app.py", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                                       "--api-key-env", "TEST_KEY", "--git-hooks"])
    assert result.exit_code == 2
    assert "--git-hooks only goes with --git-commit" in result.output


def test_no_git_command_editblocks_runs_starts_the_fsmonitor(repo: Path, fsmonitor: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(EDIT)
    runner = CliRunner()
    steps = [
        ("apply --git-add", ["apply", str(answer), "--root", str(repo), "--git-add"]),
        ("undo (the index put back)", ["undo", "--root", str(repo)]),
        ("check --known-files git", ["check", str(answer), "--root", str(repo), "--known-files", "git"]),
        ("apply --known-files git", ["apply", str(answer), "--root", str(repo), "--known-files", "git"]),
    ]
    for what, args in steps:
        result = runner.invoke(main, args)
        assert result.exit_code == 0, (what, result.output)
        assert not fsmonitor.exists(), f"{what} started the fsmonitor: {fsmonitor.read_text()}"
    assert "A = 2" in (repo / "app.py").read_text()
    git(repo, "-c", "core.fsmonitor=false", "checkout", "--", "app.py")
    code, output = ask_commit(repo)
    assert code == 0, output
    assert not fsmonitor.exists(), f"ask --git-commit started the fsmonitor: {fsmonitor.read_text()}"
    assert last_subject(repo) == "editblocks ask: Set A to 2"


def test_eval_from_git_does_not_start_the_fsmonitor(repo: Path, fsmonitor: Path, tmp_path: Path) -> None:
    make_tree(repo, {"app.py": "A = 2\n"})
    git(repo, "-c", "core.fsmonitor=false", "commit", "-qam", "second")
    fsmonitor.unlink(missing_ok=True)
    answer = tmp_path / "answer.md"
    answer.write_text(EDIT)
    result = CliRunner().invoke(main, ["eval", "--from-git", str(repo), "--response", str(answer), "--commit", "HEAD",
                                       "--out", str(tmp_path / "case")])
    assert result.exit_code == 0, result.output
    assert not fsmonitor.exists(), f"eval --from-git started the fsmonitor: {fsmonitor.read_text()}"
