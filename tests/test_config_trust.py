"""A repository's own config file cannot steer editblocks (issue 22, "the repository's own config file is trusted").

Each attack is run as a user would meet it: a project folder holding a
`pyproject.toml` or `.editblocks.toml` prepared by someone else, and a plain
command typed in that folder. Beside it: the user-level file that may set
everything, the order of precedence, the ownership rule and `editblocks config`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner, Result
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters

from editblocks.cli import main
from editblocks.report.schema import output_schema

from helpers_apply import diff_edit, make_tree

SRC = str(Path(__file__).resolve().parent.parent / "src")
CLEAN = diff_edit("a.py", ("x = 1\n", "x = 2\n"))
FAILING = diff_edit("a.py", ("nowhere\n", "y\n"))
OTHER_UID = 54321


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp_path/home`` (someone's private files) beside ``tmp_path/project`` (the cloned repository, the current
    folder); an empty user config folder."""
    make_tree(tmp_path, {"home/a.py": "x = 1\n", "home/secret.txt": "private\n", "project/a.py": "x = 1\n",
                         "project/answer.md": CLEAN, "outside/report": "precious\n"})
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in [name for name in os.environ if name.startswith("EDITBLOCKS_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path / "project")
    return tmp_path


def project_file(layout: Path, text: str, name: str = "pyproject.toml") -> Path:
    path = layout / "project" / name
    path.write_text('[project]\nname = "prepared-by-someone"\n\n' + text if name == "pyproject.toml" else text)
    return path


def user_file(layout: Path, text: str) -> Path:
    path = layout / "xdg" / "editblocks" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner(env=env).invoke(main, list(args), input=input, catch_exceptions=False)


def warnings(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("warning:")]


# --- root ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "table"), [
    ("pyproject.toml", '[tool.editblocks]\nroot = "../home"\n'),
    ("pyproject.toml", '[tool.editblocks.apply]\nroot = "../home"\n'),
    (".editblocks.toml", 'root = "../home"\n'),
])
def test_a_project_file_cannot_point_apply_at_a_folder_outside(layout: Path, name: str, table: str) -> None:
    config = project_file(layout, table, name)
    result = run("apply", "answer.md")
    assert (layout / "home" / "a.py").read_text() == "x = 1\n"  # before: x = 2, an edit outside the project
    assert (layout / "project" / "a.py").read_text() == "x = 2\n" and result.exit_code == 0
    [line] = warnings(result)
    assert "root" in line and str(config) in line and "--root" in line and "config.toml" in line


def test_a_project_file_cannot_choose_the_root_of_check_or_undo(layout: Path) -> None:
    project_file(layout, '[tool.editblocks]\nroot = "../home"\n')
    (layout / "home" / "a.py").write_text("x = 2\n")
    checked = json.loads(run("check", "answer.md", "--json").stdout)
    assert checked["ok"] and "applied" not in json.dumps(checked)  # no root: validated, not located in ../home
    assert run("apply", "answer.md").exit_code == 0
    assert run("undo").exit_code == 0
    assert (layout / "project" / "a.py").read_text() == "x = 1\n"
    assert (layout / "home" / "a.py").read_text() == "x = 2\n"
    assert not (layout / "home" / ".editblocks").exists()


# --- report paths ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", [CLEAN, FAILING], ids=["all-applied", "one-failed"])
@pytest.mark.parametrize("option", ["feedback", "html", "patch"])
@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "write"])
def test_a_project_file_cannot_send_a_report_outside_its_folder(
    layout: Path, option: str, answer: str, dry_run: bool
) -> None:
    """Before: the feedback clean-up deleted ../outside/report (all applied), feedback/html/patch replaced it."""
    (layout / "project" / "answer.md").write_text(answer)
    config = project_file(layout, f'[tool.editblocks.apply]\n{option} = "../outside/report"\n')
    result = run("apply", "answer.md", *(["--dry-run"] if dry_run else []))
    assert (layout / "outside" / "report").read_text() == "precious\n"
    [line] = warnings(result)
    assert option in line and str(config) in line and f"--{option}" in line
    assert sorted(path.name for path in (layout / "project").iterdir() if path.name != ".editblocks") == [
        "a.py", "answer.md", "pyproject.toml"]


@pytest.mark.parametrize("value", [
    "link/report",                      # a folder link in the repository that leads out
    "report-link",                      # a file link that leads out
    "{project}/../outside/report",      # absolute, climbing out
    "{outside}/report",                 # absolute, elsewhere
    ".git/hooks/pre-commit",            # inside, but git would run what lands there
    ".GIT/hooks/post-checkout",
    ".editblocks/journal/x",            # editblocks' own journal
])
def test_a_report_path_that_leads_out_or_into_bookkeeping_is_refused(layout: Path, value: str) -> None:
    (layout / "project" / "link").symlink_to(layout / "outside")
    (layout / "project" / "report-link").symlink_to(layout / "outside" / "report")
    (layout / "project" / "answer.md").write_text(FAILING)
    (layout / "project" / ".git" / "hooks").mkdir(parents=True)
    value = value.format(project=layout / "project", outside=layout / "outside")
    project_file(layout, f"[tool.editblocks.apply]\nfeedback = {json.dumps(value)}\n")
    result = run("apply", "answer.md")
    assert result.exit_code == 1 and "feedback" in warnings(result)[0]
    assert (layout / "outside" / "report").read_text() == "precious\n"
    assert list((layout / "project" / ".git" / "hooks").iterdir()) == []
    assert not (layout / "project" / ".editblocks" / "journal" / "x").exists()


def test_a_report_path_inside_the_project_is_written_next_to_the_file(layout: Path, monkeypatch: pytest.MonkeyPatch
                                                                      ) -> None:
    (layout / "project" / "answer.md").write_text(FAILING)
    project_file(layout, '[tool.editblocks.apply]\nfeedback = "reports/feedback.md"\n')
    (layout / "project" / "reports").mkdir()
    (layout / "project" / "src").mkdir()
    monkeypatch.chdir(layout / "project" / "src")
    result = run("apply", "../answer.md", "--root", "..")
    assert result.exit_code == 1 and warnings(result) == []
    assert "Not applied:" in (layout / "project" / "reports" / "feedback.md").read_text()


def test_known_files_from_a_project_file_is_read_inside_it_or_from_git(layout: Path) -> None:
    (layout / "outside" / "list.txt").write_text("a.py\n")
    (layout / "project" / "list.txt").write_text("a.py\n")
    project_file(layout, '[tool.editblocks.apply]\nknown-files = "../outside/list.txt"\n')
    result = run("apply", "answer.md", "--dry-run")
    assert "known-files" in warnings(result)[0] and result.exit_code == 0
    project_file(layout, '[tool.editblocks.apply]\nknown-files = "list.txt"\n')
    assert warnings(run("apply", "answer.md", "--dry-run")) == []
    project_file(layout, '[tool.editblocks.apply]\nknown-files = "git"\n')
    subprocess.run(["git", "init", "-q"], cwd=layout / "project", check=True)
    subprocess.run(["git", "add", "a.py"], cwd=layout / "project", check=True)
    assert warnings(run("apply", "answer.md", "--dry-run")) == []


# --- ask: the endpoint, the key, the confirmation -----------------------------------------------------------------


@pytest.fixture
def asking(layout: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    use_local_endpoint(monkeypatch)
    monkeypatch.setenv("SOME_SECRET", "s3cr3t-do-not-send")
    return layout


def sent_anywhere(requests: list[dict[str, Any]], secret: str) -> bool:
    return any(secret in json.dumps(request) for request in requests)


def test_a_project_file_cannot_choose_the_endpoint_or_the_key_of_ask(asking: Path, monkeypatch: pytest.MonkeyPatch
                                                                     ) -> None:
    """Before: the project's server got the request, with the value of SOME_SECRET as the bearer token."""
    with scripted([]) as theirs, scripted([Answer(CLEAN)]) as mine:
        config = project_file(asking, f'[tool.editblocks.ask]\nbase-url = "{theirs.base_url}"\n'
                                      'api-key-env = "SOME_SECRET"\nmodel = "their-expensive-model"\n')
        monkeypatch.setenv("OPENAI_BASE_URL", mine.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        result = run("ask", "Set x to 2", "a.py", "--model", "test-model", "--yes", "--backoff", "0.01")
    assert theirs.requests == []
    assert len(mine.requests) == 1 and {key.lower(): value for key, value in mine.requests[0]["headers"].items()}["authorization"] == "Bearer test-key"
    assert mine.requests[0]["body"]["model"] == "test-model"
    assert not sent_anywhere(mine.requests, "s3cr3t-do-not-send")
    assert result.exit_code == 0 and (asking / "project" / "a.py").read_text() == "x = 2\n"
    lines = warnings(result)
    assert len(lines) == 3 and all(str(config) in line for line in lines)
    assert [key for key in ("base-url", "api-key-env", "model") if any(f" {key} " in line for line in lines)] == [
        "base-url", "api-key-env", "model"]


def test_a_project_files_model_alone_does_not_start_a_request(asking: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with scripted([Answer(CLEAN)]) as mine:
        project_file(asking, '[tool.editblocks.ask]\nmodel = "their-model"\n')
        result = run("ask", "Set x to 2", "a.py", "--base-url", mine.base_url, "--api-key-env", "TEST_KEY")
    assert result.exit_code == 2 and "no model" in result.stderr and mine.requests == []


def test_a_project_file_cannot_skip_the_confirmation_or_commit(asking: Path) -> None:
    """Before: `yes` applied the model's edits unasked and `git-commit` committed them."""
    project = asking / "project"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "a.py"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=project, check=True)
    project_file(asking, "[tool.editblocks.ask]\nyes = true\ngit-commit = true\n")
    with scripted([Answer(CLEAN)]) as mine:
        result = run("ask", "Set x to 2", "a.py", "--model", "test-model", "--base-url", mine.base_url,
                     "--api-key-env", "TEST_KEY", input="n\n")
    assert "Apply these edits?" in result.output
    assert (project / "a.py").read_text() == "x = 1\n"
    log = subprocess.run(["git", "log", "--format=%s"], cwd=project, capture_output=True, text=True, check=True)
    assert log.stdout == "start\n"
    assert sorted(line.split()[2] for line in warnings(result)) == ["git-commit", "yes"]


def test_the_user_file_may_set_the_endpoint_key_and_model(asking: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "test-key")
    with scripted([Answer(CLEAN)]) as mine:
        user_file(asking, f'[ask]\nbase-url = "{mine.base_url}"\napi-key-env = "MY_KEY"\nmodel = "mine"\nyes = true\n')
        result = run("ask", "Set x to 2", "a.py")
    assert result.exit_code == 0, result.output
    assert mine.requests[0]["body"]["model"] == "mine" and warnings(result) == []
    assert (asking / "project" / "a.py").read_text() == "x = 2\n"


# --- mcp ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", [False, True], ids=["root", "root-and-http"])
def test_a_project_file_cannot_move_the_mcp_root_or_open_http(layout: Path, transport: bool) -> None:
    """Before: the server looked at ../home (a model could `view` its private files), or served HTTP to anyone on
    the machine instead of stdio (the client here then waited in vain)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    http = f"http = true\nport = {port}\ngit-add = true\n" if transport else ""
    project_file(layout, f'[tool.editblocks.mcp]\nroot = "../home"\n{http}')
    params = StdioServerParameters(command=sys.executable, args=["-m", "editblocks", "mcp"], cwd=str(layout / "project"),
                                   env={"PYTHONPATH": SRC, "XDG_CONFIG_HOME": str(layout / "xdg")})
    seen: dict[str, Any] = {}

    async def session() -> None:
        with anyio.fail_after(90):
            async with Client(params, read_timeout_seconds=60) as client:
                for path in ("secret.txt", "a.py"):
                    seen[path] = await client.call_tool("str_replace_based_edit_tool", {"command": "view", "path": path})
                with pytest.raises(ConnectionRefusedError):
                    socket.create_connection(("127.0.0.1", port), timeout=5).close()

    anyio.run(session)
    assert seen["secret.txt"].is_error and "private" not in str(seen["secret.txt"].content)
    assert not seen["a.py"].is_error and "x = 1" in seen["a.py"].content[0].text
    done = subprocess.run([sys.executable, "-m", "editblocks", "config", "mcp"], cwd=layout / "project",
                          env={"PYTHONPATH": SRC, "XDG_CONFIG_HOME": str(layout / "xdg")}, capture_output=True,
                          text=True, timeout=120)
    ignored = done.stdout.split("\nignored\n", 1)[1]
    assert all(key in ignored for key in ("root", *(("http", "port", "git-add") if transport else ())))


# --- the user file and precedence --------------------------------------------------------------------------------


def statuses(*args: str, env: dict[str, str] | None = None) -> list[str]:
    """The block statuses of a dry run of an answer whose first block fails and second applies."""
    Path("two.md").write_text(FAILING + CLEAN)
    result = run("apply", "two.md", "--dry-run", "--json", *args, env=env)
    return [block["status"] for block in json.loads(result.stdout)["results"]]


def test_precedence_command_line_then_environment_then_user_file_then_project(layout: Path) -> None:
    project_file(layout, '[tool.editblocks.apply]\non-failure = "continue"\n')
    assert statuses() == ["failed", "applied"]  # the project file
    user_file(layout, 'on-failure = "abort"\n')
    assert statuses() == ["failed", "skipped"]  # the user file wins over it
    assert statuses(env={"EDITBLOCKS_ON_FAILURE": "continue"}) == ["failed", "applied"]
    assert statuses("--on-failure", "abort", env={"EDITBLOCKS_ON_FAILURE": "continue"}) == ["failed", "skipped"]


def test_the_user_file_may_set_root_and_paths_anywhere(layout: Path) -> None:
    user_file(layout, f'[apply]\nroot = "{layout / "home"}"\nfeedback = "~/fb.md"\n')
    (layout / "project" / "answer.md").write_text(FAILING.replace("a.py", "b.py") + CLEAN)  # b.py is nowhere
    result = run("apply", "answer.md", env={"HOME": str(layout / "outside")})
    assert result.exit_code == 1 and warnings(result) == []
    assert (layout / "home" / "a.py").read_text() == "x = 2\n"
    assert "Not applied:" in (layout / "outside" / "fb.md").read_text()


def test_the_user_file_defaults_to_dot_config(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(layout / "outside"))
    (layout / "outside" / ".config" / "editblocks").mkdir(parents=True)
    (layout / "outside" / ".config" / "editblocks" / "config.toml").write_text('on-failure = "abort"\n')
    assert statuses() == ["failed", "skipped"]


def test_a_typo_is_an_error_that_names_the_likely_key(layout: Path) -> None:
    project_file(layout, '[tool.editblocks.apply]\non-failur = "abort"\n')
    result = run("apply", "answer.md")
    assert result.exit_code == 2 and "did you mean 'on-failure'?" in result.stderr
    user_file(layout, '[aply]\nfuzzy = true\n')
    project_file(layout, "")
    result = run("apply", "answer.md")
    assert result.exit_code == 2 and "did you mean 'apply'?" in result.stderr and "config.toml" in result.stderr


# --- ownership ---------------------------------------------------------------------------------------------------


def give_away(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``path`` belong to another user: chown it when running as root (as CI does), else pretend to be
    someone else."""
    if os.geteuid() == 0:
        os.chown(path, OTHER_UID, -1)
    else:
        real = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: real + 1)


@pytest.mark.parametrize("which", ["project", "user", "parent"])
def test_a_config_file_another_user_owns_is_ignored(layout: Path, monkeypatch: pytest.MonkeyPatch, which: str
                                                    ) -> None:
    if which == "user":
        config = user_file(layout, "[apply]\ndry-run = true\n")
    elif which == "project":
        config = project_file(layout, "[tool.editblocks.apply]\ndry-run = true\n")
    else:  # a shared folder above the project, as /tmp: someone else's file there must not configure the project
        config = layout / ".editblocks.toml"
        config.write_text("[apply]\ndry-run = true\n")
    give_away(config, monkeypatch)
    result = run("apply", "answer.md")
    assert result.exit_code == 0 and (layout / "project" / "a.py").read_text() == "x = 2\n"  # not a dry run
    [line] = warnings(result)
    assert str(config) in line and "owned by" in line


def test_ownership_is_the_effective_users_or_roots(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = project_file(layout, "[tool.editblocks.apply]\ndry-run = true\n")
    owner = config.stat().st_uid
    if owner == 0:
        os.chown(config, OTHER_UID, -1)
        owner = OTHER_UID
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    assert "owned by" in warnings(run("apply", "answer.md", "--dry-run"))[0]
    monkeypatch.setattr(os, "geteuid", lambda: owner)
    assert warnings(run("apply", "answer.md")) == [] and (layout / "project" / "a.py").read_text() == "x = 1\n"


def test_a_foreign_pyproject_without_an_editblocks_table_is_passed_over_quietly(
    layout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    give_away(project_file(layout, "[tool.black]\nline-length = 100\n"), monkeypatch)
    result = run("apply", "answer.md")
    assert result.exit_code == 0 and warnings(result) == []


# --- editblocks config and --show-config -------------------------------------------------------------------------


def test_config_names_every_options_value_and_source(layout: Path) -> None:
    project = project_file(layout, '[tool.editblocks]\nformat = "diff"\nroot = "../home"\n\n'
                                   '[tool.editblocks.apply]\non-failure = "abort"\nfuzzy = true\n')
    user = user_file(layout, "[apply]\nfuzzy = false\n")
    result = run("config", env={"EDITBLOCKS_APPLY_KEEP_RUNS": "7"})
    assert result.exit_code == 0 and warnings(result) == []
    rows = {line.split()[0]: line for line in result.stdout.split("\napply\n", 1)[1].split("\n\n", 1)[0].splitlines()}
    assert "abort" in rows["on-failure"] and f"project file {project}" in rows["on-failure"]
    assert "diff" in rows["format"] and f"project file {project}" in rows["format"]
    assert "false" in rows["fuzzy"] and f"user file {user}" in rows["fuzzy"]
    assert "7" in rows["keep-runs"] and "env EDITBLOCKS_APPLY_KEEP_RUNS" in rows["keep-runs"]
    assert "default" in rows["root"] and "default" in rows["strict"]
    assert set(rows) >= {"root", "format", "dry-run", "diff", "strict", "fuzzy", "first-match", "on-failure",
                         "git-add", "feedback", "html", "patch", "keep-runs", "journal-max-mb", "known-files",
                         "max-bytes", "review", "json"}
    for command in ("ask", "check", "eval", "mcp", "parse", "prompt", "serve", "undo"):
        assert f"\n{command}\n" in result.stdout
    ignored = result.stdout.split("\nignored\n", 1)[1]
    assert "root" in ignored and str(project) in ignored and "--root" in ignored


def test_config_json_matches_its_schema(layout: Path) -> None:
    project_file(layout, '[tool.editblocks.ask]\nbase-url = "http://example.invalid/v1"\nretries = 5\n')
    result = run("config", "--json", "ask", env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    data = json.loads(result.stdout)
    Draft202012Validator(output_schema("config")).validate(data)
    options = {row["option"]: row for row in data["commands"]["ask"]}
    assert options["retries"]["value"] == 5 and options["retries"]["source"] == "project-file"
    assert options["base-url"] == {"option": "base-url", "value": "http://127.0.0.1:9/v1", "source": "env",
                                   "from": "OPENAI_BASE_URL"}
    assert list(data["commands"]) == ["ask"]
    [ignored] = data["ignored"]
    assert ignored["key"] == "base-url" and ignored["table"] == "[tool.editblocks.ask]"
    assert "--base-url" in ignored["set_instead"]


def test_show_config_on_a_command_names_the_command_line(layout: Path) -> None:
    project_file(layout, '[tool.editblocks.apply]\non-failure = "abort"\n')
    result = run("apply", "answer.md", "--fuzzy", "--show-config")
    assert result.exit_code == 0 and (layout / "project" / "a.py").read_text() == "x = 1\n"  # nothing applied
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line.startswith("  ")}
    assert "true" in rows["fuzzy"] and "command line" in rows["fuzzy"]
    assert "project file" in rows["on-failure"]
    data = json.loads(run("apply", "answer.md", "--show-config", "--json").stdout)
    Draft202012Validator(output_schema("config")).validate(data)


# --- the allowlist itself ----------------------------------------------------------------------------------------


def test_every_listed_key_is_an_option_and_no_key_is_both_allowed_and_refused() -> None:
    import click

    from editblocks.cli import COMMANDS
    from editblocks.cli import main as group
    from editblocks.cli.config_trust import PROJECT_PATHS, PROJECT_SETTINGS, REFUSED_FROM_PROJECT

    ctx = click.Context(group)
    options = {opt[2:] for name in COMMANDS for param in group.get_command(ctx, name).params  # type: ignore[union-attr]
               for opt in param.opts if opt.startswith("--")}
    assert PROJECT_SETTINGS | PROJECT_PATHS <= options
    assert not (PROJECT_SETTINGS | PROJECT_PATHS) & REFUSED_FROM_PROJECT.keys()
    for key in ("root", "base-url", "api-key-env", "model", "yes", "git-commit", "git-add", "http", "port", "serve",
                "review", "force"):
        assert key in REFUSED_FROM_PROJECT


# --- the documentation says what the code does --------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parent.parent / "docs"
SAFETY = (DOCS / "safety.md").read_text(encoding="utf-8")
CONFIGURATION = (DOCS / "configuration.md").read_text(encoding="utf-8")
TRUST_SECTION = SAFETY.split("## What a repository's config may set", 1)[1]


def readme_table_keys(after: str) -> set[str]:
    """The `key` names in the first column of the first table after ``after`` in the trust section."""
    table = TRUST_SECTION.split(after, 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    return {part.split("`")[1] for row in rows for part in row.strip().split(", ") if part.startswith("`")}


def test_the_safety_page_tables_are_the_allowlist_and_the_refusals() -> None:
    from editblocks.cli.config_trust import PROJECT_PATHS, PROJECT_SETTINGS, REFUSED_FROM_PROJECT

    assert readme_table_keys("| A project's file may set") == PROJECT_SETTINGS | PROJECT_PATHS
    assert readme_table_keys("| Refused") == REFUSED_FROM_PROJECT.keys()


def test_the_examples_of_the_trust_section_run(layout: Path) -> None:
    warning = TRUST_SECTION.split("```text\n", 1)[1].split("\n```", 1)[0]
    project_file(layout, '[tool.editblocks]\nroot = "../home"\n')
    [line] = warnings(run("apply", "answer.md", "--dry-run"))
    assert line.split("/") [0] == warning.split("/")[0] and line.split(".toml")[-1] == warning.split(".toml")[-1]
    assert line.split("[tool.editblocks]")[1].split("/")[0] == warning.split("[tool.editblocks]")[1].split("/")[0]
    user = user_file(layout, TRUST_SECTION.split("```toml\n", 1)[1].split("```", 1)[0])
    data = json.loads(run("config", "ask", "--json").stdout)
    from_user = {row["option"]: row["value"] for row in data["commands"]["ask"] if row["from"] == str(user)}
    assert from_user == {"model": "qwen2.5-coder", "base-url": "http://127.0.0.1:8080/v1", "api-key-env": "LOCAL_LLM_KEY"}


def test_the_configuration_page_commands_run_as_they_say(layout: Path) -> None:
    heading = "# Defaults: config files and environment variables"
    block = CONFIGURATION.split(heading, 1)[1].split("`editblocks config` prints", 1)[1].split("```bash\n", 1)[1]
    commands = [line.split("#")[0].split()[1:] for line in block.split("```", 1)[0].splitlines()]
    project_file(layout, '[tool.editblocks.apply]\non-failure = "abort"\n')
    listed, shown = (run(*command) for command in commands)
    assert listed.exit_code == 0 and "\napply\n" in listed.stdout and "\ncheck\n" not in listed.stdout
    assert "project file" in listed.stdout.split("on-failure", 1)[1].splitlines()[0]
    assert shown.exit_code == 0 and "command line" in shown.stdout.split("on-failure", 1)[1].splitlines()[0]
    assert (layout / "project" / "a.py").read_text() == "x = 1\n"
