"""`editblocks ask` end to end: the real `openai` SDK over real HTTP to a scripted server on 127.0.0.1.

Each test checks the files afterwards and the exit status; none reaches
beyond 127.0.0.1 (the base URL is always given and proxies are unset).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from ask_server import Answer, Failure, Stall, scripted, use_local_endpoint
from click.testing import CliRunner, Result
from jsonschema import Draft202012Validator

from editblocks.cli import main
from editblocks.report.schema import output_schema

APP = "def greet(name):\n    return 'Hello ' + name\n\n\ndef add(a, b):\n    return a + b\n"


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


GREET = block("app.py", "    return 'Hello ' + name\n", "    return f'Hello {name}!'\n")
ADD = block("app.py", "def add(a, b):\n    return a + b\n", "def add(a: int, b: int) -> int:\n    return a + b\n")
ADD_WRONG = block("app.py", "def add(a, b):\n    return a+b\n", "def add(a: int, b: int) -> int:\n    return a + b\n")
AFTER_BOTH = ("def greet(name):\n    return f'Hello {name}!'\n\n\ndef add(a: int, b: int) -> int:\n"
              "    return a + b\n")


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local_endpoint(monkeypatch)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text(APP)
    monkeypatch.chdir(root)
    return root


def run_ask(base_url: str, *args: str, key_env: str = "TEST_KEY", input: str | None = None) -> Result:
    command = ["ask", "Make greet friendlier and type add", "app.py", "--model", "test-model", "--base-url",
               base_url, "--api-key-env", key_env, "--backoff", "0.01", *args]
    return CliRunner().invoke(main, command, input=input)


def prose(text: str) -> str:
    return f"Sure, here is the change.\n\n{text}\nThat should do it.\n"


def test_a_clean_answer_is_streamed_located_and_applied(project: Path) -> None:
    with scripted([Answer(prose(GREET + "\n" + ADD), chunk=4)]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    assert (project / "app.py").read_text() == AFTER_BOTH
    assert "✓ app.py:2" in result.output and "wrote 1 file" in result.output
    sent = server.requests[0]["body"]
    assert sent["model"] == "test-model" and sent["stream"] is True
    assert sent["messages"][0]["role"] == "system" and "SEARCH" in sent["messages"][0]["content"]
    last = sent["messages"][-1]["content"]
    assert "app.py\n```\n" + APP + "```" in last and last.rstrip().endswith("Make greet friendlier and type add")
    runs = list((project / ".editblocks" / "runs").iterdir())
    assert len(runs) == 1
    saved = {path.name for path in runs[0].iterdir()}
    assert {"run.json", "round-1.messages.json", "round-1.answer.md", "round-1.results.json"} <= saved
    assert (runs[0] / "round-1.answer.md").read_text() == prose(GREET + "\n" + ADD)


def test_a_failed_block_goes_back_as_feedback_and_the_second_round_fixes_it(project: Path) -> None:
    first = prose(GREET + "\n" + ADD_WRONG)
    with scripted([Answer(first, chunk=7), Answer(prose(ADD), chunk=5)]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    assert (project / "app.py").read_text() == AFTER_BOTH  # greet applied once, add fixed in round 2
    assert len(server.requests) == 2
    second = server.requests[1]["body"]["messages"]
    assert second[-2] == {"role": "assistant", "content": first}
    feedback = second[-1]["content"]
    assert second[-1]["role"] == "user" and "not found" in feedback and "return a+b" in feedback
    assert "round 2" in result.output


def test_a_resent_block_is_never_applied_twice(project: Path) -> None:
    insert = block("app.py", "def add(a, b):\n", "# adds\ndef add(a, b):\n")
    with scripted([Answer(prose(insert + "\n" + ADD_WRONG)), Answer(prose(insert + "\n" + ADD))]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    assert (project / "app.py").read_text().count("# adds") == 1


def test_a_round_without_progress_stops_the_retries(project: Path) -> None:
    with scripted([Answer(prose(ADD_WRONG))] * 3) as server:
        result = run_ask(server.base_url, "--yes", "--retries", "5")
    assert result.exit_code == 1
    assert len(server.requests) == 2 and "applied nothing new" in result.output
    assert (project / "app.py").read_text() == APP


def test_a_dropped_connection_writes_nothing_and_says_so(project: Path) -> None:
    with scripted([Answer(prose(GREET + "\n" + ADD), chunk=4, drop_after=40)]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 2, result.output
    assert "broke off mid-answer" in result.output and "nothing of this answer was written" in result.output
    assert (project / "app.py").read_text() == APP
    assert len(server.requests) == 1  # an answer that started is never asked for again behind the user's back


def test_rate_limiting_is_retried_after_the_time_the_server_asks(project: Path) -> None:
    with scripted([Failure(429, headers={"retry-after-ms": "30"}), Answer(prose(GREET))]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    assert "rate limiting requests (429); retrying in 0.03 s (attempt 2 of 3)" in result.output
    assert "return f'Hello {name}!'" in (project / "app.py").read_text()


def test_server_errors_are_retried_a_bounded_number_of_times(project: Path) -> None:
    with scripted([Failure(500)] * 5) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 2
    assert len(server.requests) == 3
    assert "server error (500); retrying in 0.01 s" in result.output and "retrying in 0.02 s" in result.output
    assert (project / "app.py").read_text() == APP


def test_a_slow_server_hits_the_timeout(project: Path) -> None:
    with scripted([Stall(3)] * 3) as server:
        result = run_ask(server.base_url, "--yes", "--timeout", "0.2")
    assert result.exit_code == 2
    assert "did not answer within 0.2 s" in result.output
    assert (project / "app.py").read_text() == APP


def test_a_wrong_api_key_is_one_line_and_not_retried(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WRONG_KEY", "nope")
    with scripted([Answer(prose(GREET))]) as server:
        result = run_ask(server.base_url, "--yes", key_env="WRONG_KEY")
    assert result.exit_code == 2
    assert "refused the API key (401)" in result.output and len(server.requests) == 1
    assert (project / "app.py").read_text() == APP


def test_an_unknown_model_is_named(project: Path) -> None:
    with scripted([Failure(404, "model not found")]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 2 and "has no model 'test-model' (404)" in result.output


def test_a_refused_connection_is_retried_then_named(project: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = run_ask(f"http://127.0.0.1:{port}/v1", "--yes")
    assert result.exit_code == 2
    assert "cannot connect to" in result.output and "attempt 3 of 3" in result.output


def test_an_answer_without_blocks_is_reported(project: Path) -> None:
    with scripted([Answer("The code already does what you ask; nothing to change.\n")]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 1
    assert "holds no edit blocks" in result.output and len(server.requests) == 1
    assert (project / "app.py").read_text() == APP


def test_dry_run_shows_the_diff_and_writes_nothing(project: Path) -> None:
    with scripted([Answer(prose(GREET))]) as server:
        result = run_ask(server.base_url, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "+    return f'Hello {name}!'" in result.output and "dry run" in result.output
    assert (project / "app.py").read_text() == APP


def test_confirmation_shows_the_diff_on_d_and_applies_on_y(project: Path) -> None:
    with scripted([Answer(prose(GREET))]) as server:
        result = run_ask(server.base_url, input="d\ny\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("+    return f'Hello {name}!'") == 2  # the report, then the diff asked for
    assert "return f'Hello {name}!'" in (project / "app.py").read_text()


def test_declining_writes_nothing(project: Path) -> None:
    with scripted([Answer(prose(GREET))]) as server:
        result = run_ask(server.base_url, input="n\n")
    assert result.exit_code == 1 and "declined" in result.output
    assert (project / "app.py").read_text() == APP


def test_json_output_is_one_document_the_schema_accepts(project: Path) -> None:
    with scripted([Answer(prose(GREET + "\n" + ADD_WRONG)), Answer(prose(ADD))]) as server:
        result = run_ask(server.base_url, "--yes", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    Draft202012Validator(output_schema("ask")).validate(document)
    # round 1 holds greet (add failed for the same file), round 2 writes it with the fixed add
    assert [r["result"]["counts"]["applied"] for r in document["rounds"]] == [0, 1]
    assert [r["code"] for r in document["rounds"][0]["result"]["results"]] == ["held", "not-found"]
    assert [r["status"] for r in document["rounds"][1]["result"]["held_over"]] == ["applied"]
    assert document["files_written"] == ["app.py"] and document["rounds"][0]["feedback"]


def test_a_saved_run_becomes_an_eval_case_that_passes(project: Path, tmp_path: Path) -> None:
    with scripted([Answer(prose(GREET + "\n" + ADD_WRONG)), Answer(prose(ADD))]) as server:
        assert run_ask(server.base_url, "--yes").exit_code == 0
    run = next((project / ".editblocks" / "runs").iterdir())
    case = tmp_path / "case"
    made = CliRunner().invoke(main, ["eval", "--from-run", str(run), "--out", str(case)])
    assert made.exit_code == 0, made.output
    assert (case / "before" / "app.py").read_text() == APP
    assert json.loads((case / "case.json").read_text())["expect"] == "refused"  # round 1 held greet: add failed
    assert (case / "after" / "app.py").read_text() == APP
    scored = CliRunner().invoke(main, ["eval", str(case)])
    assert scored.exit_code == 0, scored.output
    second = tmp_path / "case2"
    assert CliRunner().invoke(main, ["eval", "--from-run", str(run), "--round", "2", "--out", str(second)]).exit_code == 0
    assert (second / "after" / "app.py").read_text() == AFTER_BOTH


def test_git_commit_commits_the_changed_files_with_the_instruction(project: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "app.py"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=project, check=True)
    with scripted([Answer(prose(GREET))]) as server:
        result = CliRunner(env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}).invoke(
            main, ["ask", "Make greet friendlier", "app.py", "--model", "m", "--base-url", server.base_url,
                   "--api-key-env", "TEST_KEY", "--yes", "--git-commit"])
    assert result.exit_code == 0, result.output
    log = subprocess.run(["git", "log", "-1", "--format=%s", "--name-only"], cwd=project, capture_output=True,
                         text=True, check=True).stdout
    assert "editblocks ask: Make greet friendlier" in log and "app.py" in log
    assert subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True,
                          check=True).stdout == ""


def test_binary_and_huge_files_are_refused_before_anything_is_sent(project: Path) -> None:
    (project / "blob.bin").write_bytes(b"\x00\x01\x02")
    (project / "big.py").write_text("x = 1\n" * 1000)
    with scripted([Answer(prose(GREET))]) as server:
        binary = CliRunner().invoke(main, ["ask", "x", "blob.bin", "--model", "m", "--base-url", server.base_url,
                                           "--api-key-env", "TEST_KEY"])
        huge = CliRunner().invoke(main, ["ask", "x", "big.py", "--model", "m", "--base-url", server.base_url,
                                         "--api-key-env", "TEST_KEY", "--max-file-bytes", "1000"])
    assert binary.exit_code == 2 and "cannot send blob.bin" in binary.output and "binary" in binary.output
    assert huge.exit_code == 2 and "larger than 1000 bytes" in huge.output
    assert server.requests == []


def test_a_missing_extra_names_the_install_command(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("editblocks.cli.ask.find_spec", lambda name: None)
    result = CliRunner().invoke(main, ["ask", "x", "app.py", "--model", "m"])
    checkout = Path(__file__).resolve().parent.parent  # a source checkout, not the current folder
    assert result.exit_code == 2 and f"pip install -e '{checkout}[ask]'" in result.output


def test_the_model_comes_from_the_environment_or_is_asked_for(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = CliRunner().invoke(main, ["ask", "x", "app.py"])
    assert missing.exit_code == 2 and "no model" in missing.output
    monkeypatch.setenv("EDITBLOCKS_MODEL", "from-env")
    with scripted([Answer(prose(GREET))]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        result = CliRunner().invoke(main, ["ask", "x", "app.py", "--yes"])
    assert result.exit_code == 0, result.output
    assert server.requests[0]["body"]["model"] == "from-env"


def test_defaults_come_from_the_users_config_file(project: Path) -> None:
    """The endpoint, key variable, model and `yes` may come from the user's own file (not from the project's:
    test_config_trust.py)."""
    user_file = Path(os.environ["XDG_CONFIG_HOME"]) / "editblocks" / "config.toml"
    user_file.parent.mkdir(parents=True)
    with scripted([Answer(prose(GREET))]) as server:
        user_file.write_text(f'[ask]\nmodel = "from-file"\nbase-url = "{server.base_url}"\n'
                             'api-key-env = "TEST_KEY"\nyes = true\n')
        result = CliRunner().invoke(main, ["ask", "x", "app.py"])
    assert result.exit_code == 0, result.output
    assert server.requests[0]["body"]["model"] == "from-file"
    assert "return f'Hello {name}!'" in (project / "app.py").read_text()


STR_REPLACE = {"id": "call_1", "name": "str_replace_based_edit_tool",
               "arguments": {"command": "str_replace", "path": "app.py", "old_str": "return 'Hello ' + name",
                             "new_str": "return f'Hello {name}!'"}}
MISSING = {"id": "call_0", "name": "str_replace_based_edit_tool",
           "arguments": {"command": "str_replace", "path": "app.py", "old_str": "return 'Hi ' + name",
                         "new_str": "return 'Hey'"}}


def test_tool_calls_streamed_in_pieces_are_run_and_answered_until_the_model_stops(project: Path) -> None:
    script = [Answer("Let me fix greet.\n", tool_calls=(MISSING,), chunk=5),
              Answer("", tool_calls=(STR_REPLACE,), chunk=3), Answer("Done: greet uses an f-string now.\n")]
    with scripted(script) as server:
        result = run_ask(server.base_url, "--tools", "--yes")
    assert result.exit_code == 0, result.output
    assert "return f'Hello {name}!'" in (project / "app.py").read_text()
    assert len(server.requests) == 3
    assert server.requests[0]["body"]["tools"][0]["function"]["name"] == "str_replace_based_edit_tool"
    second = server.requests[1]["body"]["messages"]
    assert second[-2]["tool_calls"][0]["function"]["arguments"] == json.dumps(MISSING["arguments"])
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "call_0"
    assert second[-1]["content"].startswith("Error:")  # the miss went back to the model, with why
    assert server.requests[2]["body"]["messages"][-1]["tool_call_id"] == "call_1"


def test_tool_calls_without_yes_run_on_a_copy_and_land_after_confirmation(project: Path) -> None:
    script = [Answer("", tool_calls=(STR_REPLACE,), chunk=4), Answer("Done.\n")]
    with scripted(script) as server:
        declined = run_ask(server.base_url, "--tools", input="n\n")
    assert declined.exit_code == 1 and (project / "app.py").read_text() == APP
    with scripted(script) as server:
        dry = run_ask(server.base_url, "--tools", "--dry-run")
    assert dry.exit_code == 0 and "+    return f'Hello {name}!'" in dry.output
    assert (project / "app.py").read_text() == APP
    with scripted(script) as server:
        accepted = run_ask(server.base_url, "--tools", "--json", input="y\n")
    assert accepted.exit_code == 0, accepted.output
    assert "return f'Hello {name}!'" in (project / "app.py").read_text()
    document = json.loads(accepted.stdout)
    Draft202012Validator(output_schema("ask")).validate(document)
    assert document["rounds"][0]["tool_calls"][0]["ok"] is True and document["files_written"] == ["app.py"]


SETTINGS = "X = 1\n"
CREATE_SETTINGS = {"id": "call_1", "name": "str_replace_based_edit_tool",
                   "arguments": {"command": "create", "path": "settings.py", "file_text": "X = 0\n"}}


def at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The confirmation is answered by a person at a terminal, who may say yes to files that were not given."""
    monkeypatch.setattr("editblocks.cli.ask._stdin_is_terminal", lambda: True)


def test_tool_calls_on_the_copy_see_project_files_that_were_not_given(project: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    at_a_terminal(monkeypatch)
    (project / "settings.py").write_text(SETTINGS)
    fix = {"id": "call_2", "name": "apply_patch", "arguments": {
        "input": "*** Begin Patch\n*** Update File: settings.py\n@@\n-X = 1\n+X = 2\n*** End Patch\n"}}
    with scripted([Answer("", tool_calls=(CREATE_SETTINGS,)), Answer("", tool_calls=(fix,)),
                   Answer("Done.\n")]) as server:
        result = run_ask(server.base_url, "--tools", input="y\n")
    assert result.exit_code == 0, result.output
    create_reply = server.requests[1]["body"]["messages"][-1]["content"]
    assert create_reply.startswith("Error") and "settings.py" in create_reply  # create never overwrites
    assert server.requests[2]["body"]["messages"][-1]["content"].startswith("The edit block was applied")
    assert (project / "settings.py").read_text() == "X = 2\n"


def test_edit_calls_on_the_copy_see_the_file_they_name_by_file_path(project: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    at_a_terminal(monkeypatch)  # settings.py was not given: its write needs a yes typed at a terminal
    (project / "settings.py").write_text(SETTINGS)
    edit = {"id": "call_1", "name": "edit", "arguments": {"file_path": "settings.py", "old_string": "X = 1",
                                                          "new_string": "X = 3"}}
    with scripted([Answer("", tool_calls=(edit,)), Answer("Done.\n")]) as server:
        result = run_ask(server.base_url, "settings.py", "--tools", input="y\n")
    assert result.exit_code == 0, result.output
    assert server.requests[1]["body"]["messages"][-1]["content"].startswith("Replaced the text at line 1")
    assert (project / "settings.py").read_text() == "X = 3\n"


def test_a_file_made_on_the_copy_that_the_project_gains_meanwhile_is_not_written(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The copy reads through to the project, so a file the project has is never made on it; one the project
    gains while the calls run is caught when the copy is written: nothing is written."""
    from editblocks.tools import ToolHandler

    at_a_terminal(monkeypatch)
    real = ToolHandler.call

    def call_then_the_project_gains_the_file(self: ToolHandler, name: str, input: object = None) -> object:
        reply = real(self, name, input)
        (project / "settings.py").write_text(SETTINGS)
        return reply

    monkeypatch.setattr(ToolHandler, "call", call_then_the_project_gains_the_file)
    with scripted([Answer("", tool_calls=(CREATE_SETTINGS,)), Answer("Done.\n")]) as server:
        result = run_ask(server.base_url, "--tools", input="y\n")
    assert result.exit_code == 1, result.output
    assert "settings.py" in result.output and "changed on disk" in result.output
    assert "nothing written" in result.output
    assert (project / "settings.py").read_text() == SETTINGS


def test_tool_calls_with_git_commit_commit_deletes_and_moves(project: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    (project / "old.py").write_text("obsolete = True\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run([*git, "add", "app.py", "old.py"], cwd=project, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=project, check=True)
    patch = "*** Begin Patch\n*** Delete File: app.py\n*** Update File: old.py\n*** Move to: new.py\n*** End Patch\n"
    call = {"id": "call_1", "name": "apply_patch", "arguments": {"input": patch}}
    with scripted([Answer("", tool_calls=(call,)), Answer("Done.\n")]) as server:
        result = CliRunner(env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}).invoke(
            main, ["ask", "Tidy up", "app.py", "--model", "m", "--base-url", server.base_url,
                   "--api-key-env", "TEST_KEY", "--tools", "--yes", "--git-commit"])
    assert result.exit_code == 0, result.output
    assert not (project / "app.py").exists() and (project / "new.py").read_text() == "obsolete = True\n"
    log = subprocess.run(["git", "log", "-1", "--format=%s", "--name-status"], cwd=project, capture_output=True,
                         text=True, check=True).stdout
    assert "editblocks ask: Tidy up" in log and "app.py" in log and "new.py" in log
    assert subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True,
                          check=True).stdout == ""


def test_a_v4a_patch_answer_is_applied_with_its_deletion(project: Path) -> None:
    (project / "old.py").write_text("obsolete = True\n")
    patch = ("*** Begin Patch\n*** Update File: app.py\n@@ def greet(name):\n-    return 'Hello ' + name\n"
             "+    return f'Hello {name}!'\n*** Delete File: old.py\n*** End Patch\n")
    with scripted([Answer("Here is the patch.\n\n" + patch)]) as server:
        result = run_ask(server.base_url, "--format", "v4a", "--yes")
    assert result.exit_code == 0, result.output
    assert "*** Begin Patch" in server.requests[0]["body"]["messages"][0]["content"]
    assert "return f'Hello {name}!'" in (project / "app.py").read_text() and not (project / "old.py").exists()


def test_a_v4a_rename_is_applied_not_a_traceback(project: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: app.py\n*** Move to: new.py\n*** End Patch\n"
    with scripted([Answer("Renaming.\n\n" + patch)]) as server:
        result = run_ask(server.base_url, "--format", "v4a", "--yes")
    assert result.exit_code == 0, result.output
    assert not (project / "app.py").exists() and (project / "new.py").read_text() == APP


def test_the_editor_variant_of_the_prompt_is_sent_when_asked(project: Path) -> None:
    from editblocks.prompts import example_messages, system_prompt

    with scripted([Answer(prose(GREET))]) as server:
        result = run_ask(server.base_url, "--editor", "--dry-run")
    assert result.exit_code == 0, result.output
    sent = server.requests[0]["body"]["messages"]
    assert sent[0]["content"] == system_prompt("diff", editor=True) != system_prompt("diff")
    assert sent[1:-1] == example_messages("diff", editor=True)


def test_a_held_block_waits_for_its_file_the_model_resends_only_the_failed_one_and_one_undo_takes_all_back(
        project: Path) -> None:
    notes = block("NOTES.md", "", "greet is friendlier\n")  # a new file: round 1 writes it
    with scripted([Answer(prose(GREET + "\n" + ADD_WRONG + "\n" + notes)), Answer(prose(ADD))]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    assert (project / "app.py").read_text() == AFTER_BOTH
    feedback = server.requests[1]["body"]["messages"][-1]["content"]
    assert "Nothing was written to `app.py` yet" in feedback
    assert "The held blocks for `app.py` are kept, so do not send them again: send only the failed blocks" in feedback
    run = next((project / ".editblocks" / "runs").iterdir())
    first = json.loads((run / "round-1.results.json").read_text())
    assert [r["code"] for r in first["results"]] == ["held", "not-found", None] and first["holding"] == ["app.py"]
    assert first["files_created"] == ["NOTES.md"] and first["files_modified"] == []  # never greet without add
    second = json.loads((run / "round-2.results.json").read_text())
    assert [r["status"] for r in second["held_over"]] == ["applied"] and second["holding"] == []
    undone = CliRunner().invoke(main, ["undo", "--root", str(project)])
    assert undone.exit_code == 0, undone.output
    assert (project / "app.py").read_text() == APP and not (project / "NOTES.md").exists()  # both rounds
