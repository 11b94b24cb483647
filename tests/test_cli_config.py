"""Option defaults from `[tool.editblocks]` in pyproject.toml and from `EDITBLOCKS_*` variables.

Order of precedence: the command line, then `EDITBLOCKS_<COMMAND>_<OPTION>`,
then `EDITBLOCKS_<OPTION>`, then the pyproject.toml nearest to the current
folder (a command's own table over the shared keys), then the built-in default.
What a project's file may not set, the user's own file and `editblocks config`:
test_config_trust.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main

from helpers_apply import diff_edit, make_tree

ANSWER = diff_edit("a.py", ("x = 1\n", "x = 2\n"))


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path/work`` as the current folder, holding a project and an answer; no EDITBLOCKS_* variable set."""
    work = tmp_path / "work"
    make_tree(work, {"project/a.py": "x = 1\n", "answer.md": ANSWER})
    monkeypatch.chdir(work)
    return work


def pyproject(folder: Path, table: str) -> None:
    (folder / "pyproject.toml").write_text('[project]\nname = "someone-elses"\n\n' + table)


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(main, list(args), catch_exceptions=False)


def test_pyproject_sets_a_command_option(workdir: Path) -> None:
    pyproject(workdir, "[tool.editblocks.apply]\ndry-run = true\n")
    result = run("apply", "answer.md", "--root", "project")
    assert result.exit_code == 0 and "dry run, nothing written" in result.stdout
    assert (workdir / "project" / "a.py").read_text() == "x = 1\n"


def test_shared_keys_apply_to_every_command_and_paths_are_relative_to_the_file(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`format` at the top of the table serves check and apply; run from a subfolder, `feedback` still names the
    file next to pyproject.toml."""
    pyproject(workdir, '[tool.editblocks]\nformat = "udiff"\n\n[tool.editblocks.apply]\nfeedback = "feedback.md"\n')
    (workdir / "deeper").mkdir()
    monkeypatch.chdir(workdir / "deeper")
    assert "udiff" in run("check", "../answer.md", "--json").stdout  # the answer read as a unified diff: no blocks
    applied = run("apply", "../answer.md", "--root", "../project", "--format", "diff")
    assert applied.exit_code == 0 and not (workdir / "feedback.md").exists()
    (workdir / "answer.md").write_text(diff_edit("a.py", ("nowhere\n", "y\n")))
    assert run("apply", "../answer.md", "--root", "../project", "--format", "diff").exit_code == 1
    assert "Not applied:" in (workdir / "feedback.md").read_text()


def test_the_command_line_wins_over_the_environment_which_wins_over_pyproject(workdir: Path) -> None:
    pyproject(workdir, '[tool.editblocks.apply]\non-failure = "continue"\n')
    two = diff_edit("a.py", ("nowhere\n", "y\n")) + ANSWER

    def statuses(*args: str, env: dict[str, str] | None = None) -> list[str]:
        (workdir / "two.md").write_text(two)
        data = json.loads(run("apply", "two.md", "--root", "project", "--dry-run", "--json", *args, env=env).stdout)
        return [result["status"] for result in data["results"]]

    assert statuses() == ["failed", "applied"]  # pyproject: continue
    assert statuses(env={"EDITBLOCKS_APPLY_ON_FAILURE": "abort"}) == ["failed", "skipped"]
    assert statuses(env={"EDITBLOCKS_ON_FAILURE": "abort"}) == ["failed", "skipped"]
    assert statuses("--on-failure", "continue", env={"EDITBLOCKS_APPLY_ON_FAILURE": "abort"}) == ["failed", "applied"]


def test_an_environment_variable_alone_sets_a_flag(workdir: Path) -> None:
    result = run("apply", "answer.md", "--root", "project", env={"EDITBLOCKS_APPLY_DRY_RUN": "1"})
    assert result.exit_code == 0 and "dry run" in result.stdout
    assert (workdir / "project" / "a.py").read_text() == "x = 1\n"


def test_the_nearest_pyproject_counts_even_without_a_table(workdir: Path, tmp_path: Path) -> None:
    pyproject(tmp_path, "[tool.editblocks.apply]\ndry-run = true\n")  # further up: hidden by the nearer one
    pyproject(workdir, "")
    assert run("apply", "answer.md", "--root", "project").exit_code == 0
    assert (workdir / "project" / "a.py").read_text() == "x = 2\n"


@pytest.mark.parametrize(("table", "words"), [
    ("[tool.editblocks.apply]\nfuzy = true\n", "'fuzy', which is not an option of `editblocks apply`"),
    ("[tool.editblocks.aply]\nfuzzy = true\n", "[tool.editblocks.aply] names no editblocks command"),
    ("[tool.editblocks]\ncolour = true\n", "'colour', which is not an option of any command"),
    ("[tool.editblocks\n", "cannot read"),
    ("[tool.editblocks]\nx = " + "[" * 100_000 + "]" * 100_000 + "\n", "cannot read"),
    ('[tool.editblocks.apply]\non-failure = "sometimes"\n', "[tool.editblocks.apply] sets on-failure = 'sometimes'"),
    ("[tool.editblocks]\nkeep-runs = 0\n", "[tool.editblocks] sets keep-runs = 0: 0 is not in the range x>=1"),
])
def test_a_mistake_in_pyproject_is_one_line(workdir: Path, table: str, words: str) -> None:
    pyproject(workdir, table)
    result = run("apply", "answer.md", "--root", "project")
    assert result.exit_code == 2
    [line] = result.output.splitlines()
    assert words in line
    assert (workdir / "project" / "a.py").read_text() == "x = 1\n"
    as_json = run("apply", "answer.md", "--root", "project", "--json")
    assert as_json.exit_code == 2 and json.loads(as_json.stdout)["error"]["code"] == "bad-config"


def readme_block(language: str, after: str) -> str:
    """The first ```language block after the heading ``after`` in the configuration's documentation."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "configuration.md").read_text(encoding="utf-8")
    return text.split(after, 1)[1].split(f"```{language}\n", 1)[1].split("```", 1)[0]


def test_the_readme_example_works_as_it_says(workdir: Path) -> None:
    heading = "# Defaults: config files and environment variables"
    (workdir / "pyproject.toml").write_text(readme_block("toml", heading))
    commands = [line.split("#")[0].split() for line in readme_block("bash", heading).splitlines()]
    two = diff_edit("a.py", ("nowhere\n", "y\n")) + ANSWER
    (workdir / "answer.md").write_text(two)
    outcomes = []
    for command in commands:
        env = dict(word.split("=", 1) for word in command if "=" in word)
        args = [word for word in command if "=" not in word][1:]  # without the program name
        result = run(*args, "--root", "project", "--dry-run", "--json", env=env)
        outcomes.append([r["status"] for r in json.loads(result.stdout)["results"]])
    assert outcomes == [["failed", "skipped"], ["failed", "applied"], ["failed", "skipped"]]
    assert "Not applied:" in (workdir / "feedback.md").read_text()  # feedback.md, next to pyproject.toml
