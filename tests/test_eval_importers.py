"""Importing what users have (issue 28): Codex's apply-patch scenario folders, and an aider chat history with
the git repository aider committed to (`editblocks eval import-aider-history REPO`)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.eval.aider_history import read_answers
from editblocks.eval.judge import Verdict
from editblocks.eval.records import read_outcomes


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def scenario(root: Path, name: str, before: dict[str, str], patch: str, after: dict[str, str]) -> None:
    write(root / name / "input", before)
    write(root / name / "expected", after)
    (root / name / "patch.txt").write_text(patch, encoding="utf-8")


@pytest.fixture
def scenarios(tmp_path: Path) -> Path:
    """Three folders in Codex's scenario layout: input/, patch.txt, expected/."""
    root = tmp_path / "scenarios"
    scenario(root, "001_add_a_file", {"keep.txt": "kept\n"},
             "*** Begin Patch\n*** Add File: notes/new.txt\n+fresh line\n*** End Patch\n",
             {"keep.txt": "kept\n", "notes/new.txt": "fresh line\n"})
    scenario(root, "002_update_and_delete", {"a.txt": "one\ntwo\nthree\n", "old.txt": "gone soon\n"},
             "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n*** Delete File: old.txt\n"
             "*** End Patch\n", {"a.txt": "one\nTWO\nthree\n"})
    scenario(root, "003_context_not_found", {"a.txt": "alpha\n"},
             "*** Begin Patch\n*** Update File: a.txt\n@@\n-beta\n+gamma\n*** End Patch\n", {"a.txt": "alpha\n"})
    (root / "004_no_patch").mkdir()
    return root


@pytest.mark.parametrize("suffix", [".jsonl", ""])
def test_codex_scenarios_become_cases(scenarios: Path, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"codex{suffix}"
    result = CliRunner().invoke(main, ["eval", "import-codex", str(scenarios), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 3 cases" in result.output
    events = tmp_path / "events.jsonl"
    evaluated = CliRunner().invoke(main, ["eval", str(out), "--jsonl", str(events)])
    assert evaluated.exit_code == 0, evaluated.output
    verdicts = {o.name.removeprefix("codex/"): (o.verdict, o.format) for o in read_outcomes(events)}
    assert verdicts == {"001_add_a_file": (Verdict.CORRECT, "v4a"), "002_update_and_delete": (Verdict.CORRECT, "v4a"),
                        "003_context_not_found": (Verdict.REFUSED_OK, "v4a")}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env,
                          check=True).stdout.strip()


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "--short=7", "HEAD")


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```"


@pytest.fixture
def aider_repo(tmp_path: Path) -> Path:
    """A repository with aider's commits and the chat history that names them."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, {"app.py": "x = 1\n", "util.py": "def f(y):\n    return y\n"}, "start")
    first = commit(repo, {"app.py": "x = 2\n"}, "feat: make x two")
    users_own = commit(repo, {"util.py": "def f(y):\n    return y  # mine\n"}, "wip: the user's change")
    second = commit(repo, {"util.py": "def f(value):\n    return value  # mine\n"}, "refactor: rename y")
    history = "\n".join([
        "", "# aider chat started at 2025-03-01 10:00:00", "",
        "> Aider v0.80.0  ", "> Model: gpt-4o with diff edit format  ", "> Git repo: .git with 2 files  ", "",
        "#### make x two  ", "",
        "Here is the change:", "", search_replace("app.py", "x = 1\n", "x = 2\n"), "",
        "> Tokens: 1.2k sent, 40 received.  ", "> Applied edit to app.py  ", f"> Commit {first} feat: make x two  ", "",
        "#### what does f do?  ", "",
        "It returns its argument.", "> it is the identity", "",
        "#### rename y to value  ", "",
        search_replace("util.py", "def f(y):\n    return y  # mine\n", "def f(value):\n    return value  # mine\n"),
        "", "> Committing util.py before applying edits.  ", f"> Commit {users_own} wip: the user's change  ",
        "> Applied edit to util.py  ", f"> Commit {second} refactor: rename y  ", "",
        "# aider chat started at 2025-03-02 09:00:00", "",
        "> Main model: claude-3-5-sonnet with udiff edit format, infinite output  ", "",
        "#### a change from a history rewritten since  ", "",
        search_replace("app.py", "x = 2\n", "x = 3\n"), "",
        "> Applied edit to app.py  ", "> Commit deadbee feat: lost  ", "",
    ])
    (repo / ".aider.chat.history.md").write_text(history, encoding="utf-8")
    return repo


def test_answers_are_read_with_their_commits_and_models(aider_repo: Path) -> None:
    answers = list(read_answers((aider_repo / ".aider.chat.history.md").read_text(encoding="utf-8")))
    assert [(a.model, a.format, a.commit == "deadbee") for a in answers] == [
        ("gpt-4o", "diff", False), ("gpt-4o", "diff", False), ("claude-3-5-sonnet", "udiff", True)]
    assert answers[0].text.startswith("Here is the change:\n") and answers[0].text.endswith("```\n")
    assert answers[1].commit == git(aider_repo, "rev-parse", "--short=7", "HEAD")


def test_an_aider_history_becomes_an_eval_set(aider_repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "aider.jsonl"
    result = CliRunner().invoke(main, ["eval", "import-aider-history", str(aider_repo), "--out", str(out)])
    assert result.exit_code == 1  # one answer's commit is not in the repository: named, passed over
    assert "wrote 2 cases" in result.stdout and "deadbee" in result.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["model"] for row in rows] == ["gpt-4o", "gpt-4o"]
    assert rows[0]["before"] == {"app.py": "x = 1\n"} and rows[0]["after"] == {"app.py": "x = 2\n"}
    assert rows[1]["before"] == {"util.py": "def f(y):\n    return y  # mine\n"}  # after the user's own commit
    assert rows[0]["format"] == "diff" and rows[0]["metadata"]["session"] == "2025-03-01 10:00:00"
    evaluated = CliRunner().invoke(main, ["eval", str(out)])
    assert evaluated.exit_code == 0, evaluated.output
    assert "2 cases: 2 correct" in evaluated.stdout


def test_a_history_with_no_committed_answer(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".aider.chat.history.md").write_text("# aider chat started at now\n\n#### hi  \n\nHello!\n",
                                                 encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", "import-aider-history", str(repo), "--out", str(tmp_path / "o.jsonl")])
    assert result.exit_code == 2 and "no answer in the history" in result.stderr
