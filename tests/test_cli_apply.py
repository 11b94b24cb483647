"""`editblocks apply`, `check --root` and `undo` through click's test runner, on real folders.

Asserts the SPEC §7 JSON shape key for key, the exit codes (0 all applied,
1 something failed or was skipped, 2 bad usage or unreadable input) and the
files on disk byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main

from helpers_apply import diff_edit, guillemet, make_tree, tree_state

RESULT_KEYS = {"path", "status", "code", "reason", "block_line", "start_line", "end_line", "strategy", "similarity",
               "candidates", "hint", "closest", "refusal"}
TOP_KEYS = {"schema_version", "results", "counts", "files_modified", "files_created", "files_deleted", "files_renamed",
            "diffs", "shell", "written", "dry_run", "diagnostics", "notes", "held_over", "holding"}
APPLIED_EXTRAS = {"code": None, "candidates": [], "hint": [], "closest": None, "refusal": None}

PROJECT = {
    "app/config.py": "DEBUG = False\nPORT = 8000\n",
    "app/views.py": "def index():\n    return 'home'\n",
    "README.md": "# Demo\n",
}
GOOD = (
    "Two changes and a new file.\n\n"
    + diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n"))
    + diff_edit("app/views.py", ("    return 'home'\n", "    return 'welcome'\n"))
    + diff_edit("app/urls.py", ("", "ROUTES = ['/']\n"))
    + "Then run:\n```bash\npytest -q\n```\n"
)
WITH_FAILURE = (
    diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n"))
    + diff_edit("app/views.py", ("    return 'nowhere'\n", "    return 'x'\n"))
)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    make_tree(root, PROJECT)
    return root


def response_file(tmp_path: Path, text: str | bytes, name: str = "answer.md") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def invoke(runner: CliRunner, *args: str, stdin: str | None = None):
    return runner.invoke(main, list(args), input=stdin, catch_exceptions=False)


def as_json(result) -> dict:
    return json.loads(result.stdout)


def assert_shape(data: dict) -> None:
    assert set(data) == TOP_KEYS
    assert isinstance(data["written"], bool)
    for item in data["results"]:
        assert set(item) == RESULT_KEYS
        assert item["status"] in {"applied", "failed", "skipped"}
        assert isinstance(item["block_line"], int) and isinstance(item["reason"], str)
    for item in data["shell"]:
        assert set(item) == {"command", "line"}
    assert all(isinstance(path, str) for path in data["files_modified"] + data["files_created"])


# --- apply --------------------------------------------------------------------------------------


def test_apply_json_exact_shape_values_and_exit_zero(runner, tmp_path, project):
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project), "--json")
    assert result.exit_code == 0, result.output
    data = as_json(result)
    assert_shape(data)
    assert data["results"] == [
        {"path": "app/config.py", "status": "applied", "reason": "", "block_line": 5, "start_line": 1,
         "end_line": 1, "strategy": "exact", "similarity": 1.0, **APPLIED_EXTRAS},
        {"path": "app/views.py", "status": "applied", "reason": "", "block_line": 14, "start_line": 2,
         "end_line": 2, "strategy": "exact", "similarity": 1.0, **APPLIED_EXTRAS},
        {"path": "app/urls.py", "status": "applied", "reason": "", "block_line": 23, "start_line": 1,
         "end_line": 1, "strategy": "create", "similarity": 1.0, **APPLIED_EXTRAS},
    ]
    assert data["files_modified"] == ["app/config.py", "app/views.py"]
    assert data["files_created"] == ["app/urls.py"]
    assert data["shell"] == [{"command": "pytest -q", "line": 31}]
    assert data["written"] is True
    assert (project / "app/config.py").read_bytes() == b"DEBUG = True\nPORT = 8000\n"
    assert (project / "app/views.py").read_bytes() == b"def index():\n    return 'welcome'\n"
    assert (project / "app/urls.py").read_bytes() == b"ROUTES = ['/']\n"


def test_apply_exit_one_when_a_block_fails_and_the_rest_still_applies(runner, tmp_path, project):
    result = invoke(runner, "apply", response_file(tmp_path, WITH_FAILURE), "--root", str(project), "--json")
    assert result.exit_code == 1
    data = as_json(result)
    assert_shape(data)
    assert [r["status"] for r in data["results"]] == ["applied", "failed"]
    failed = data["results"][1]
    assert "not found" in failed["reason"] and failed["start_line"] is None and failed["strategy"] is None
    assert data["written"] is True and data["files_modified"] == ["app/config.py"]
    assert (project / "app/config.py").read_bytes() == b"DEBUG = True\nPORT = 8000\n"
    assert (project / "app/views.py").read_bytes() == PROJECT["app/views.py"].encode()


def test_apply_exit_one_when_a_block_is_only_skipped(runner, tmp_path, project):
    noop = diff_edit("app/config.py", ("PORT = 8000\n", "PORT = 8000\n"))
    result = invoke(runner, "apply", response_file(tmp_path, noop), "--root", str(project), "--json")
    assert result.exit_code == 1
    data = as_json(result)
    assert data["results"][0]["status"] == "skipped" and data["results"][0]["reason"].startswith("no change")
    assert data["written"] is False


def test_apply_human_output_names_every_block(runner, tmp_path, project):
    result = invoke(runner, "apply", response_file(tmp_path, WITH_FAILURE), "--root", str(project))
    assert result.exit_code == 1
    assert "app/config.py" in result.output and "app/views.py" in result.output
    assert "not found" in result.output


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["apply", "RESPONSE", "--root", "MISSING"], "missing root"),
        (["apply", "NOFILE", "--root", "ROOT"], "missing response"),
        (["apply", "DIRECTORY", "--root", "ROOT"], "response is a directory"),
        (["apply", "BINARY", "--root", "ROOT"], "binary response"),
        (["apply", "LATIN1", "--root", "ROOT"], "non-UTF-8 response"),
        (["apply", "RESPONSE", "--root", "ROOT", "--on-failure", "sometimes"], "bad option value"),
        (["apply", "RESPONSE", "--root", "ROOT", "--format", "unknown"], "bad format"),
        (["apply", "RESPONSE", "--root", "ROOT", "--no-such-flag"], "unknown flag"),
        (["apply", "--root", "ROOT"], "no response argument"),
        (["apply", "RESPONSE", "--root", "AFILE"], "root is a file"),
        (["check", "NOFILE", "--root", "ROOT"], "check: missing response"),
        (["check", "RESPONSE", "--root", "MISSING"], "check: missing root"),
        (["undo", "--root", "MISSING"], "undo: missing root"),
    ],
)
def test_bad_usage_and_unreadable_input_exit_two_and_write_nothing(runner, tmp_path, project, args, why):
    names = {
        "RESPONSE": response_file(tmp_path, GOOD),
        "MISSING": str(tmp_path / "no-such-root"),
        "NOFILE": str(tmp_path / "no-such-answer.md"),
        "DIRECTORY": str(tmp_path),
        "BINARY": response_file(tmp_path, b"app/config.py\n\x00\x01", "binary.md"),
        "LATIN1": response_file(tmp_path, "app/config.py\n<<<<<<< SEARCH\ncaf\xe9\n".encode("latin-1"), "latin1.md"),
        "ROOT": str(project),
        "AFILE": str(project / "README.md"),
    }
    before = tree_state(tmp_path, skip_journal=False)
    result = invoke(runner, *[names.get(arg, arg) for arg in args])
    assert result.exit_code == 2, (why, result.output)
    assert "Traceback" not in result.output
    assert tree_state(tmp_path, skip_journal=False) == before


def test_dry_run_prints_diffs_and_writes_nothing(runner, tmp_path, project):
    before = tree_state(project, skip_journal=False)
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project), "--dry-run")
    assert result.exit_code == 0
    assert "--- a/app/config.py" in result.output and "+++ b/app/config.py" in result.output
    assert "-DEBUG = False" in result.output and "+DEBUG = True" in result.output
    assert tree_state(project, skip_journal=False) == before


def test_dry_run_json_says_not_written(runner, tmp_path, project):
    before = tree_state(project, skip_journal=False)
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project), "--dry-run", "--json")
    assert result.exit_code == 0
    data = as_json(result)
    assert_shape(data)
    assert data["written"] is False
    assert [r["status"] for r in data["results"]] == ["applied"] * 3
    assert data["files_created"] == ["app/urls.py"]
    assert tree_state(project, skip_journal=False) == before


def test_diff_flag_prints_a_unified_diff_of_what_was_written(runner, tmp_path, project):
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project), "--diff")
    assert result.exit_code == 0
    out = result.output
    assert "--- a/app/views.py" in out and "+++ b/app/views.py" in out and "@@ -1,2 +1,2 @@" in out
    assert "-    return 'home'" in out and "+    return 'welcome'" in out
    assert "+++ b/app/urls.py" in out and "+ROUTES = ['/']" in out
    assert (project / "app/views.py").read_bytes() == b"def index():\n    return 'welcome'\n"
    plain = invoke(runner, "undo", "--root", str(project))
    assert plain.exit_code == 0
    no_diff = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project))
    assert "@@ -1,2 +1,2 @@" not in no_diff.output


def test_on_failure_abort_writes_nothing(runner, tmp_path, project):
    before = tree_state(project)
    result = invoke(runner, "apply", response_file(tmp_path, WITH_FAILURE), "--root", str(project),
                    "--on-failure", "abort", "--json")
    assert result.exit_code == 1
    data = as_json(result)
    assert [r["status"] for r in data["results"]] == ["skipped", "failed"]
    assert "abort" in data["results"][0]["reason"]
    assert data["written"] is False and data["files_modified"] == [] and data["files_created"] == []
    assert tree_state(project) == before


def test_on_failure_skip_file_and_guillemet_default(runner, tmp_path, project):
    text = (guillemet("app/config.py", "NOPE = 1\n", "NOPE = 2\n")
            + guillemet("app/config.py", "PORT = 8000\n", "PORT = 9000\n")
            + guillemet("app/views.py", "def index():\n    return 'home'\n", "def index():\n    return 'hi'\n"))
    answer = response_file(tmp_path, text)
    result = invoke(runner, "apply", answer, "--root", str(project), "--json")
    assert [r["status"] for r in as_json(result)["results"]] == ["failed", "skipped", "applied"]
    assert (project / "app/config.py").read_bytes() == PROJECT["app/config.py"].encode()
    assert invoke(runner, "undo", "--root", str(project)).exit_code == 0
    result = invoke(runner, "apply", answer, "--root", str(project), "--json", "--on-failure", "continue")
    assert [r["status"] for r in as_json(result)["results"]] == ["failed", "applied", "applied"]
    assert (project / "app/config.py").read_bytes() == b"DEBUG = False\nPORT = 9000\n"


def test_first_match(runner, tmp_path):
    root = tmp_path / "root"
    make_tree(root, {"dup.py": "reset()\nmiddle()\nreset()\n"})
    answer = response_file(tmp_path, diff_edit("dup.py", ("reset()\n", "start()\n")))
    refused = invoke(runner, "apply", answer, "--root", str(root), "--json")
    assert refused.exit_code == 1
    reason = as_json(refused)["results"][0]["reason"]
    assert "ambiguous" in reason and "lines 1 and 3" in reason
    assert (root / "dup.py").read_bytes() == b"reset()\nmiddle()\nreset()\n"
    taken = invoke(runner, "apply", answer, "--root", str(root), "--json", "--first-match")
    assert taken.exit_code == 0 and as_json(taken)["results"][0]["start_line"] == 1
    assert (root / "dup.py").read_bytes() == b"start()\nmiddle()\nreset()\n"


def test_fuzzy(runner, tmp_path):
    root = tmp_path / "root"
    content = ("def load(path):\n    with open(path) as handle:\n        data = json.load(handle)\n"
               "    check(data)\n    return data\n")
    make_tree(root, {"load.py": content})
    search = "    with open(path) as handle:\n        data = json.loads(handle)\n    check(data)\n    return data\n"
    answer = response_file(tmp_path, diff_edit("load.py", (search, search.replace("return data", "return dict(data)"))))
    strict = invoke(runner, "apply", answer, "--root", str(root), "--json")
    assert strict.exit_code == 1 and as_json(strict)["results"][0]["status"] == "failed"
    assert (root / "load.py").read_bytes() == content.encode()
    fuzzy = invoke(runner, "apply", answer, "--root", str(root), "--json", "--fuzzy")
    assert fuzzy.exit_code == 0
    item = as_json(fuzzy)["results"][0]
    assert item["strategy"] == "fuzzy" and 0.9 <= item["similarity"] < 1
    assert (root / "load.py").read_bytes() == content.replace("return data", "return dict(data)").encode()


def test_strict(runner, tmp_path):
    root = tmp_path / "root"
    make_tree(root, {"w.py": "total = 1   \nshown = 2\n"})
    answer = response_file(tmp_path, diff_edit("w.py", ("total = 1\nshown = 2\n", "total = 1\nshown = 3\n")))
    refused = invoke(runner, "apply", answer, "--root", str(root), "--json", "--strict")
    assert refused.exit_code == 1 and as_json(refused)["results"][0]["status"] == "failed"
    assert (root / "w.py").read_bytes() == b"total = 1   \nshown = 2\n"
    tolerant = invoke(runner, "apply", answer, "--root", str(root), "--json")
    assert tolerant.exit_code == 0 and as_json(tolerant)["results"][0]["strategy"] == "trailing-whitespace"
    assert (root / "w.py").read_bytes() == b"total = 1   \nshown = 3\n"


def test_response_from_stdin(runner, tmp_path, project):
    result = invoke(runner, "apply", "-", "--root", str(project), "--json", stdin=GOOD)
    assert result.exit_code == 0
    assert as_json(result)["files_created"] == ["app/urls.py"]
    assert (project / "app/urls.py").read_bytes() == b"ROUTES = ['/']\n"


def test_root_defaults_to_the_current_folder(runner, tmp_path, project, monkeypatch):
    answer = response_file(tmp_path, GOOD)
    monkeypatch.chdir(project)
    result = invoke(runner, "apply", answer, "--json")
    assert result.exit_code == 0
    assert (project / "app/config.py").read_bytes() == b"DEBUG = True\nPORT = 8000\n"


def test_response_without_blocks_exits_one(runner, tmp_path, project):
    before = tree_state(project)
    result = invoke(runner, "apply", response_file(tmp_path, "Nothing to change here.\n"), "--root", str(project), "--json")
    assert result.exit_code == 1
    data = as_json(result)
    assert data["results"] == [] and data["written"] is False
    assert tree_state(project) == before


def test_malformed_block_makes_exit_one_even_if_the_rest_applies(runner, tmp_path, project):
    text = diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n")) + "README.md\n<<<<<<< SEARCH\n# Demo\n>>>>>>> REPLACE\n"
    result = invoke(runner, "apply", response_file(tmp_path, text), "--root", str(project), "--json")
    assert result.exit_code == 1
    assert [r["status"] for r in as_json(result)["results"]] == ["applied"]


def test_escaping_path_is_refused_by_the_cli(runner, tmp_path, project):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep = 1\n")
    text = diff_edit("../outside.txt", ("keep = 1\n", "keep = 0\n")) + diff_edit(str(outside), ("keep = 1\n", "keep = 0\n"))
    result = invoke(runner, "apply", response_file(tmp_path, text), "--root", str(project), "--json")
    assert result.exit_code == 1
    data = as_json(result)
    assert [r["status"] for r in data["results"]] == ["failed", "failed"]
    assert all(r["reason"].startswith("refused") for r in data["results"])
    assert outside.read_bytes() == b"keep = 1\n"


# --- git add ------------------------------------------------------------------------------------


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_add_stages_modified_and_created_files_only(runner, tmp_path, project, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", os.devnull)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "start")
    (project / "README.md").write_bytes(b"# Demo, edited by hand\n")  # unrelated, unstaged change
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project), "--git-add", "--json")
    assert result.exit_code == 0
    staged = sorted(git(project, "diff", "--cached", "--name-only").split())
    assert staged == ["app/config.py", "app/urls.py", "app/views.py"]
    status = git(project, "status", "--porcelain")
    assert ".editblocks" not in status  # the journal hides itself from git
    assert " M README.md" in status  # not staged


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_add_without_it_stages_nothing(runner, tmp_path, project):
    git(project, "init", "-q")
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project))
    assert result.exit_code == 0
    assert git(project, "diff", "--cached", "--name-only") == ""


def test_git_add_outside_a_repository_still_writes(runner, tmp_path, project):
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project), "--git-add", "--json")
    assert result.exit_code == 0 and as_json(result)["written"] is True
    assert (project / "app/urls.py").read_bytes() == b"ROUTES = ['/']\n"


# --- check ----------------------------------------------------------------------------------------


def test_check_with_root_writes_nothing_and_exits_one_when_a_block_would_fail(runner, tmp_path, project):
    before = tree_state(project, skip_journal=False)
    result = invoke(runner, "check", response_file(tmp_path, WITH_FAILURE), "--root", str(project), "--json")
    assert result.exit_code == 1
    data = as_json(result)
    assert_shape(data)
    assert [r["status"] for r in data["results"]] == ["applied", "failed"]
    assert data["written"] is False
    assert tree_state(project, skip_journal=False) == before


def test_check_with_root_exits_zero_when_every_block_would_apply(runner, tmp_path, project):
    before = tree_state(project, skip_journal=False)
    result = invoke(runner, "check", response_file(tmp_path, GOOD), "--root", str(project), "--json")
    assert result.exit_code == 0
    data = as_json(result)
    assert [r["status"] for r in data["results"]] == ["applied"] * 3 and data["written"] is False
    assert tree_state(project, skip_journal=False) == before
    human = invoke(runner, "check", response_file(tmp_path, GOOD), "--root", str(project))
    assert human.exit_code == 0
    assert tree_state(project, skip_journal=False) == before


def test_check_with_root_and_fuzzy(runner, tmp_path):
    root = tmp_path / "root"
    content = "def area(r):\n    pi = 3.14159\n    return pi * r * r\n\nunits = 'cm'\n"
    make_tree(root, {"geo.py": content})
    search = "def area(r):\n    pi = 3.1416\n    return pi * r * r\n"
    answer = response_file(tmp_path, diff_edit("geo.py", (search, search.replace("r * r", "r ** 2"))))
    assert invoke(runner, "check", answer, "--root", str(root)).exit_code == 1
    assert invoke(runner, "check", answer, "--root", str(root), "--fuzzy").exit_code == 0
    assert (root / "geo.py").read_bytes() == content.encode()


# --- undo -----------------------------------------------------------------------------------------


def test_undo_restores_the_last_apply_byte_for_byte(runner, tmp_path, project):
    os.chmod(project / "app/config.py", 0o751)
    (project / "app/views.py").write_bytes(b"def index():\r\n    return 'home'\r\n")
    before = tree_state(project)
    assert invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project)).exit_code == 0
    assert tree_state(project) != before
    undone = invoke(runner, "undo", "--root", str(project), "--json")
    assert undone.exit_code == 0
    data = json.loads(undone.stdout)
    assert data["ok"] is True and data["removed"] == ["app/urls.py"]
    assert sorted(data["restored"]) == ["app/config.py", "app/views.py"]
    assert tree_state(project) == before
    again = invoke(runner, "undo", "--root", str(project))
    assert again.exit_code == 1 and "nothing to undo" in again.output
    assert tree_state(project) == before


def test_undo_with_nothing_to_undo_exits_one(runner, tmp_path, project):
    result = invoke(runner, "undo", "--root", str(project))
    assert result.exit_code == 1
    assert "nothing to undo" in result.output
    assert not (project / ".editblocks").exists()


def test_apply_json_says_why_a_run_without_blocks_failed(runner, tmp_path, project):
    answer = response_file(tmp_path, "app/config.py\n<<<<<<< SEARCH\nDEBUG = False\n>>>>>>> REPLACE\n")
    result = invoke(runner, "apply", answer, "--root", str(project), "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["results"] == []
    assert [d["severity"] for d in data["diagnostics"]] == ["error"]
    assert "no separator" in data["diagnostics"][0]["message"] and data["diagnostics"][0]["line"] == 2


def test_apply_json_carries_the_run_s_notes(runner, tmp_path, project):
    result = invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project), "--git-add", "--json")
    data = json.loads(result.stdout)
    assert any("git add skipped" in note for note in data["notes"])


def test_check_strict_refuses_a_match_that_apply_strict_would_refuse(runner, tmp_path):
    root = tmp_path / "root"
    make_tree(root, {"t.py": "def f():\n\treturn 1\n"})
    answer = response_file(tmp_path, diff_edit("t.py", ("def f():\n    return 1\n", "def f():\n    return 2\n")))
    assert invoke(runner, "check", answer, "--root", str(root)).exit_code == 0
    assert invoke(runner, "check", answer, "--root", str(root), "--strict").exit_code == 1
    assert invoke(runner, "apply", answer, "--root", str(root), "--strict").exit_code == 1
    assert (root / "t.py").read_bytes() == b"def f():\n\treturn 1\n"


def test_undo_output_is_not_read_as_markup(runner, tmp_path):
    root = tmp_path / "root"
    make_tree(root, {"[red]x[/red].py": "a = 1\n"})
    answer = response_file(tmp_path, diff_edit("`[red]x[/red].py`", ("a = 1\n", "a = 2\n")))
    assert invoke(runner, "apply", answer, "--root", str(root)).exit_code == 0
    undone = invoke(runner, "undo", "--root", str(root))
    assert undone.exit_code == 0 and "restored [red]x[/red].py" in undone.output


def test_undo_only_undoes_the_last_run(runner, tmp_path, project):
    first = diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n"))
    second = diff_edit("app/config.py", ("PORT = 8000\n", "PORT = 9000\n"))
    assert invoke(runner, "apply", response_file(tmp_path, first, "1.md"), "--root", str(project)).exit_code == 0
    assert invoke(runner, "apply", response_file(tmp_path, second, "2.md"), "--root", str(project)).exit_code == 0
    assert invoke(runner, "undo", "--root", str(project)).exit_code == 0
    assert (project / "app/config.py").read_bytes() == b"DEBUG = True\nPORT = 8000\n"
    assert invoke(runner, "undo", "--root", str(project)).exit_code == 0
    assert (project / "app/config.py").read_bytes() == PROJECT["app/config.py"].encode()


def test_undo_refuses_when_the_file_was_edited_since(runner, tmp_path, project):
    assert invoke(runner, "apply", response_file(tmp_path, GOOD), "--root", str(project)).exit_code == 0
    (project / "app/config.py").write_bytes(b"# my own later work\n")
    result = invoke(runner, "undo", "--root", str(project))
    assert result.exit_code == 1
    assert (project / "app/config.py").read_bytes() == b"# my own later work\n"
    assert (project / "app/urls.py").exists()  # all or nothing


# --- answers cut off, answers without blocks (issues 24 and 30) -------------------------------------------------

CUT = diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n")) + "app/views.py\n```python\n"


@pytest.mark.parametrize("ending", ["<<<<<<< SEARCH\n    return 'home'\n=======\n    return 'wel",
                                    "<<<<<<< SEARCH\n    return 'ho", "<<<<<<< SEA", "<<<<<<<"])
def test_apply_on_an_answer_cut_off_mid_block_exits_1_and_applies_the_complete_blocks(runner, tmp_path, project,
                                                                                     ending):
    result = invoke(runner, "apply", response_file(tmp_path, CUT + ending), "--root", str(project))
    assert result.exit_code == 1, result.output
    assert "cut off" in result.output or "not closed" in result.output
    assert (project / "app/config.py").read_text() == "DEBUG = True\nPORT = 8000\n"
    checked = invoke(runner, "check", response_file(tmp_path, CUT + ending, "again.md"))
    assert checked.exit_code == 1


def test_an_answer_without_blocks_names_the_formats_looked_for(runner, tmp_path, project):
    garbage = response_file(tmp_path, "Sure! I updated the config for you.\n")
    before = tree_state(project)
    for command in (["apply", garbage, "--root", str(project)], ["parse", garbage], ["check", garbage]):
        result = invoke(runner, *command)
        assert result.exit_code == 1
        assert "no edit blocks found: looked for every format (" in result.output.replace("\n", " ")
        assert "cline, roo, zed," in result.output.replace("\n", " ")
        assert "editblocks formats" in result.output
    asked = invoke(runner, "apply", garbage, "--root", str(project), "--format", "zed")
    assert "no edit blocks found in the zed format" in asked.output
    assert tree_state(project) == before


def test_an_empty_search_on_an_existing_file_says_how_to_append(runner, tmp_path, project):
    answer = diff_edit("app/config.py", ("", "LOG_LEVEL = 'info'\n"))
    result = invoke(runner, "apply", response_file(tmp_path, answer), "--root", str(project), "--json")
    [item] = as_json(result)["results"]
    assert result.exit_code == 1 and item["code"] == "file-exists"
    assert "to add lines at its end, quote its last line (`PORT = 8000`)" in item["reason"]
    assert (project / "app/config.py").read_text() == PROJECT["app/config.py"]
