"""The workbench without a browser: its requests and refusals, its rounds and records, and `editblocks serve`.

The model is the scripted server on 127.0.0.1 (real HTTP, the real `openai`
SDK); the workbench's HTTP side is reached with plain requests, as a script
or a hostile page would.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ask_server import Answer, scripted, use_local_endpoint

from editblocks.eval.from_run import import_run
from editblocks.model import EditResult, ResultCode, Status
from editblocks.parsing.stream import parse
from editblocks.plan import TargetFile, plan_edits
from editblocks.service.live import BlockLocated, LiveAnswer, LiveLocator
from editblocks.service.options import ApplyOptions
from editblocks.web.chat import ModelSettings
from editblocks.web.workbench import APPLY_LOCK_WAIT_SECONDS, Refused, Workbench
from editblocks.web.workbench_view import snapshot

from helpers_apply import diff_edit
from helpers_web import ANSWER, FILES, make_project, read_tree, served_workbench, wait_idle

FIX = "The port again:\n\n" + diff_edit("app.py", ("PORT = 8000\n", "PORT = 8080\n"))
STILL_WRONG = "Again:\n\n" + diff_edit("app.py", ("PORT = 7777\n", "PORT = 8080\n"))


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local_endpoint(monkeypatch)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return make_project(root)


def request(port: int, method: str, path: str, body: str | None = None,
            content_type: str = "application/json") -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request(method, path, body=body, headers={"content-type": content_type} if body is not None else {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def settings(base_url: str, retries: int = 2) -> ModelSettings:
    return ModelSettings("test-model", base_url, "test-key", timeout=20.0, backoff=0.01, retries=retries)


def bench_state(bench: Workbench) -> dict[str, Any]:
    with bench.lock:
        return snapshot(bench, -1)["state"]


def verdicts(bench: Workbench) -> list[EditResult]:
    return [entry.verdict for entry in bench.conversation.entries()]


# --- requests -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "body", "content_type", "reason"), [
    ("api/send", "{}", "text/plain", "send the body as application/json"),
    ("api/send", "{not json", "application/json", "is not valid JSON"),
    ("api/send", "[1, 2]", "application/json", "expected a JSON object"),
    ("api/send", '{"instruction": 5}', "application/json", "`instruction` must be a string"),
    ("api/send", '{"instruction": "x", "files": "app.py"}', "application/json", "`files` must be a list of paths"),
    ("api/send", '{"instruction": "  ", "files": []}', "application/json", "the instruction is empty"),
    ("api/send", '{"instruction": "x", "files": ["../outside.py"]}', "application/json", "cannot send ../outside.py"),
    ("api/decide", '{"blocks": [1], "accept": "yes"}', "application/json", "`accept` must be true or false"),
    ("api/decide", '{"blocks": [], "accept": true}', "application/json", "`blocks` must be a list"),
    ("api/decide", '{"blocks": [true], "accept": true}', "application/json", "`blocks` must be a list"),
    ("api/decide", '{"blocks": [7], "accept": true}', "application/json", "there is no block 7"),
    ("api/change", '{"block": 0, "change": 1, "accept": true}', "application/json", "`block` must be a whole number"),
    ("api/change", '{"block": 1, "change": 1, "accept": true}', "application/json", "has no change 1"),
    ("api/apply", '{"seen": "latest"}', "application/json", "`seen` must be a whole number"),
    ("api/apply", "{}", "application/json", "nothing to apply"),
    ("api/undo", "{}", "application/json", "nothing to undo"),
    ("api/stop", "{}", "application/json", "no round is running"),
    ("api/feedback", "{}", "application/json", "no feedback to send"),
    ("api/format", '{"format": "cobol"}', "application/json", "unknown format 'cobol'"),
    ("api/open", '{"name": "../../etc"}', "application/json", "no saved conversation"),
    ("api/open", '{"name": ["x"]}', "application/json", "`name` must be a string"),
])
def test_every_malformed_or_untimely_request_is_a_4xx_with_one_line(project: Path, path: str, body: str,
                                                                      content_type: str, reason: str) -> None:
    with served_workbench(project, "http://127.0.0.1:9/v1") as (_, server):
        status, data = request(server.port, "POST", f"/{server.token}/{path}", body, content_type)
    assert 400 <= status < 500, (status, data)
    error = json.loads(data)["error"]
    assert reason in error and "\n" not in error
    assert read_tree(project) == FILES


@pytest.mark.parametrize("query", ["", "?file=app.py", "?file=app.py&id=f0&context=lots", "?file=app.py&id=<x>",
                                   "?file=nowhere.py&id=f0&context=3"])
def test_a_diff_request_that_does_not_fit_is_refused(project: Path, query: str) -> None:
    with served_workbench(project, None) as (_, server):
        status, data = request(server.port, "GET", f"/{server.token}/api/diff{query}")
    assert status in (400, 404) and "\n" not in json.loads(data)["error"]


@pytest.mark.parametrize("path", ["/", "/api/state", "/events", "/api/files", "/api/history", "/static/workbench.js"])
def test_the_workbench_answers_nothing_without_its_token(project: Path, path: str) -> None:
    with served_workbench(project, None) as (_, server):
        status, _ = request(server.port, "GET", f"/{'A' * len(server.token)}{path}")
        own, _ = request(server.port, "GET", f"/{server.token}{path}") if path != "/events" else (200, b"")
    assert status == 403 and own == 200


def test_sending_with_no_model_is_refused_with_how_to_set_one(project: Path) -> None:
    with served_workbench(project, None, model=None) as (bench, server):
        status, data = request(server.port, "POST", f"/{server.token}/api/send",
                               json.dumps({"instruction": "x", "files": ["app.py"]}))
        state = json.loads(request(server.port, "GET", f"/{server.token}/api/state")[1])["state"]
    assert status == 409 and "--model" in json.loads(data)["error"]
    assert state["problem"].startswith("no model") and not bench.running


def test_a_binary_file_is_not_sent(project: Path) -> None:
    (project / "logo.png").write_bytes(b"\x89PNG\0\0")
    bench = Workbench(project, settings("http://127.0.0.1:9/v1"))
    with pytest.raises(Refused, match="cannot send logo.png: .*binary"):
        bench.send("x", ["logo.png"])


# --- rounds and verdicts ----------------------------------------------------------------------------------------

def test_the_workbench_gives_the_verdicts_the_terminal_gives(project: Path) -> None:
    with scripted([Answer(ANSWER, chunk=3)]) as model:
        bench = Workbench(project, settings(model.base_url, retries=0))
        bench.send("x", ["app.py", "util.py"])
        wait_idle(bench)
    terminal = LiveAnswer(LiveLocator(lambda path: TargetFile(path, FILES.get(path))))
    located = [e.result for e in terminal.feed(ANSWER) + terminal.close() if isinstance(e, BlockLocated)]
    planned = plan_edits(parse(ANSWER).blocks, {path: TargetFile(path, text) for path, text in FILES.items()}).results
    # as the answer streamed, block 1 applied; once block 4 failed, the round holds it (app.py is written whole)
    assert [r.code for r in located] == [ResultCode.NONE, ResultCode.NONE, ResultCode.NONE, ResultCode.NOT_FOUND]
    assert verdicts(bench) == list(terminal.locator.round_result(dry_run=True).results)
    assert verdicts(bench)[0].code is ResultCode.HELD
    assert [r.status for r in verdicts(bench)] == [r.status for r in planned]


def test_feedback_rounds_stop_at_the_retry_limit_and_the_rest_can_be_sent_by_hand(project: Path) -> None:
    with scripted([Answer(ANSWER), Answer(STILL_WRONG), Answer(FIX)]) as model:
        bench = Workbench(project, settings(model.base_url, retries=1))
        bench.send("x", ["app.py", "util.py"])
        wait_idle(bench)
        assert len(model.requests) == 2 and [t.kind for t in bench.conversation.turns] == ["instruction", "feedback"]
        state = bench_state(bench)
        assert state["can_feedback"]
        bench.send_feedback()
        wait_idle(bench)
        assert len(model.requests) == 3
    assert [turn.kind for turn in bench.conversation.turns] == ["instruction", "feedback", "feedback"]
    assert verdicts(bench)[-1].status is Status.APPLIED
    assert "PORT = 7777" in model.requests[2]["body"]["messages"][-1]["content"]


def test_a_round_that_holds_nothing_new_ends_the_automatic_rounds(project: Path) -> None:
    with scripted([Answer(ANSWER), Answer(STILL_WRONG), Answer(FIX)]) as model:
        bench = Workbench(project, settings(model.base_url, retries=5))
        bench.send("x", ["app.py", "util.py"])
        wait_idle(bench)
    assert len(model.requests) == 2
    assert "applied nothing new" in bench.conversation.turns[-1].note


def test_held_blocks_are_the_sessions_policy(project: Path) -> None:
    with scripted([Answer(ANSWER)]) as model:
        bench = Workbench(project, settings(model.base_url, retries=0), hold=lambda results: [False] * len(results))
        bench.send("x", ["app.py", "util.py"])
        wait_idle(bench)
    assert not bench.conversation.for_apply()
    with pytest.raises(Refused, match="nothing to apply"):
        bench.apply()
    assert bench_state(bench)["summary"]["counts"]["skipped"] == 3


def test_a_good_block_the_model_sends_again_is_not_taken_twice(project: Path) -> None:
    again = "Once more, all of it:\n\n" + diff_edit("app.py", ('    return "hi " + name\n', '    return "hello " + name\n'),
                                                     ("PORT = 8000\n", "PORT = 8080\n"))
    with scripted([Answer(ANSWER), Answer(again)]) as model:
        bench = Workbench(project, settings(model.base_url, retries=1))
        bench.send("x", ["app.py", "util.py"])
        wait_idle(bench)
        bench.apply()
    assert read_tree(project)["app.py"] == 'def greet(name):\n    return "hello " + name\n\nPORT = 8080\n'


# --- records ------------------------------------------------------------------------------------------------------

def test_a_conversation_is_saved_as_ask_saves_a_run_and_eval_reads_it(project: Path, tmp_path: Path) -> None:
    with scripted([Answer(ANSWER), Answer(FIX)]) as model:
        bench = Workbench(project, settings(model.base_url))
        bench.send("move the port", ["app.py", "util.py"])
        wait_idle(bench)
        bench.decide([2], False)
        bench.apply()
    folder = project / ".editblocks" / "runs" / str(bench.conversation.name)
    names = sorted(path.name for path in folder.iterdir())
    for round_number in (1, 2):
        for kind in ("answer.md", "files.json", "messages.json", "results.json"):
            assert f"round-{round_number}.{kind}" in names
    run = json.loads((folder / "run.json").read_text())
    assert run["instruction"] == "move the port" and run["rounds"] == 2 and run["written"] == ["app.py", "util.py"]
    saved = json.loads((folder / "conversation.json").read_text())
    assert saved["decisions"] == {"2": {"accepted": False, "refused": []}} and saved["applied"] == [1, 3, 5]
    case = import_run(folder, tmp_path / "case", round_number=2)
    assert (case.folder / "response.md").read_text() == FIX


def test_a_run_ask_saved_reopens_in_the_workbench(project: Path) -> None:
    from editblocks.ask.client import Endpoint
    from editblocks.ask.display import QuietView
    from editblocks.ask.outcome import AskOptions
    from editblocks.ask.rounds import ask

    with scripted([Answer(ANSWER), Answer(FIX)]) as model:
        options = AskOptions("from the terminal", ("app.py", "util.py"), str(project), dry_run=True)
        ask(options, Endpoint("test-model", model.base_url, "test-key", backoff=0.01), QuietView(), lambda _: False)
    bench = Workbench(project, settings("http://127.0.0.1:9/v1"))
    listed = bench.history()
    assert listed[0]["title"] == "from the terminal" and listed[0]["rounds"] == 2
    bench.open_saved(listed[0]["name"])
    turns = bench.conversation.turns
    assert [t.kind for t in turns] == ["instruction", "feedback"] and "PORT = 9999" in turns[1].text
    assert [r.status for r in verdicts(bench)] == [Status.SKIPPED] + [Status.APPLIED] * 2 + [Status.FAILED,
                                                                                          Status.APPLIED]
    assert verdicts(bench)[0].code is ResultCode.HELD  # round 1 held it: block 4 failed for the same file
    assert [number for number, _ in bench.conversation.for_apply()] == [1, 2, 3, 5]  # round 2's fix frees app.py


@pytest.mark.parametrize("damage", [
    {"run.json": "not json"},
    {"run.json": '{"rounds": 99999999, "instruction": 5}'},
    {"run.json": '{"rounds": 2}', "conversation.json": '{"turns": [{"round": "x"}], "decisions": [1]}',
     "round-1.messages.json": '{"a": 1}'},
    {"run.json": '{"rounds": 1, "instruction": "ok"}', "conversation.json": '[' * 5000},
])
def test_a_damaged_record_never_breaks_the_history(project: Path, damage: dict[str, str]) -> None:
    folder = project / ".editblocks" / "runs" / "20250101T000000.000000Z"
    folder.mkdir(parents=True)
    for name, text in damage.items():
        (folder / name).write_text(text)
    bench = Workbench(project, settings("http://127.0.0.1:9/v1"))
    listed = bench.history()
    for item in listed:
        try:
            bench.open_saved(item["name"])
        except Refused as refused:
            assert "no saved conversation" in str(refused)
    assert read_tree(project) == FILES


# --- the command ------------------------------------------------------------------------------------------------

def serve(project: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `editblocks serve` in ``project`` until it prints its address; the page's state then."""
    process = subprocess.Popen([sys.executable, "-m", "editblocks", "serve", *args], cwd=project,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    assert process.stdout is not None
    try:
        line = process.stdout.readline()
        match = re.fullmatch(r"workbench: http://127\.0\.0\.1:(\d+)(/[\w-]+/)\n", line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        _, data = request(int(match[1]), "GET", match[2] + "api/state")
        state: dict[str, Any] = json.loads(data)["state"]
        return state
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise


def test_serve_without_an_answer_opens_the_workbench_with_asks_settings(project: Path) -> None:
    state = serve(project, "--root", ".", "--model", "m-1", "--base-url", "http://127.0.0.1:9/v1",
                        "--format", "udiff")
    assert (state["model"], state["where"], state["format"], state["problem"]) == (
        "m-1", "http://127.0.0.1:9/v1", "udiff", "")


def test_serve_hands_the_workbench_the_apply_options_of_the_command_line_and_config(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from editblocks.cli import main

    given: dict[str, Any] = {}
    monkeypatch.setattr("editblocks.cli.serve.workbench", lambda root, settings, **kw: given.update(kw))
    monkeypatch.chdir(project)
    (project / ".editblocks.toml").write_text('fuzzy = true\n')
    result = CliRunner().invoke(main, ["serve", "--root", str(project), "--model", "m", "--base-url",
                                       "http://127.0.0.1:9/v1", "--strict", "--on-failure", "abort",
                                       "--format", "udiff", "--keep-runs", "3"])
    assert result.exit_code == 0, result.output
    assert given["options"] == ApplyOptions(format="udiff", strict=True, on_failure="abort", keep_runs=3, fuzzy=True)


def test_the_workbench_decides_and_writes_as_its_apply_options_say(project: Path) -> None:
    spaced = diff_edit("app.py", ("PORT  =  8000\n", "PORT = 8080\n"))  # matches only with whitespace tolerance
    outcomes = {}
    for strict in (False, True):
        with scripted([Answer(spaced)]) as model:
            bench = Workbench(project, settings(model.base_url, retries=0), options=ApplyOptions(strict=strict))
            bench.send("x", ["app.py"])
            wait_idle(bench)
        outcomes[strict] = [entry.verdict.status for entry in bench.conversation.entries()]
    assert outcomes == {False: [Status.APPLIED], True: [Status.FAILED]}
    assert bench.session.options.strict and bench.session.options.lock_wait == APPLY_LOCK_WAIT_SECONDS


def test_the_workbench_takes_the_model_from_the_environment_and_the_users_file(project: Path, tmp_path: Path) -> None:
    state = serve(project, env={"EDITBLOCKS_MODEL": "from-env", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert state["model"] == "from-env" and state["where"] == "http://127.0.0.1:9/v1"
    user = tmp_path / "xdg"
    (user / "editblocks").mkdir(parents=True)
    (user / "editblocks" / "config.toml").write_text('model = "from-file"\nretries = 4\n')
    (project / ".editblocks.toml").write_text('model = "from-the-repository"\n')  # a project may not choose it
    state = serve(project, env={"XDG_CONFIG_HOME": str(user), "OPENAI_API_KEY": "k"})
    assert state["model"] == "from-file" and state["retries"] == 4 and state["problem"] == ""


def test_undo_takes_back_only_the_workbenchs_own_apply(project: Path) -> None:
    from editblocks.service.apply import apply

    with scripted([Answer(ANSWER)]) as model:
        bench = Workbench(project, settings(model.base_url, retries=0))
        bench.send("x", ["app.py", "util.py"])
        wait_idle(bench)
    bench.apply()
    after_workbench = read_tree(project)
    apply(parse(diff_edit("app.py", ("PORT = 8000\n", "PORT = 1\n"))), project)  # another command, after it
    with pytest.raises(Refused, match="was not made here"):
        bench.undo()
    assert read_tree(project)["util.py"] == after_workbench["util.py"]


def test_a_key_in_the_endpoints_address_is_never_shown_or_saved(project: Path) -> None:
    with scripted([Answer(FIX)]) as model:
        secret_url = model.base_url.replace("http://", "http://user:hunter22@") + "?api-key=hunter22"
        bench = Workbench(project, settings(secret_url, retries=0))
        bench.send("x", ["app.py"])
        wait_idle(bench)
        assert bench_state(bench)["where"].count("***") == 2
    with bench.lock:
        page = json.dumps(snapshot(bench, -1))
    saved = (project / ".editblocks" / "runs" / str(bench.conversation.name) / "run.json").read_text()
    assert "hunter22" not in page and "hunter22" not in saved



def block_statuses(bench: Workbench) -> list[str]:
    with bench.lock:
        return [block["status"] for turn in snapshot(bench, -1)["turns"] for block in turn["changed"]
                if block.get("t") == "block"]


def test_a_held_block_waits_for_its_files_fix_and_apply_never_writes_it_alone(project: Path) -> None:
    """Block 1 (app.py) applies, block 4 (app.py) fails: block 1 is held, not sent back, and not written alone by
    Apply; the feedback asks only for block 4, and once its fix lands Apply writes app.py with both."""
    with scripted([Answer(ANSWER), Answer(FIX)]) as model:
        bench = Workbench(project, settings(model.base_url, retries=0))
        bench.send("x", ["app.py", "util.py"])
        wait_idle(bench)
        assert block_statuses(bench) == ["held", "ready", "ready", "failed"]
        assert [number for number, _ in bench.conversation.for_apply()] == [2, 3]
        bench.apply()
        assert read_tree(project)["app.py"] == FILES["app.py"]  # never greet without the port
        assert read_tree(project)["util.py"] != FILES["util.py"]
        bench.send_feedback()
        wait_idle(bench)
        feedback = model.requests[1]["body"]["messages"][-1]["content"]
        assert "The held blocks for `app.py` are kept, so do not send them again: send only the failed blocks" \
            in feedback and "PORT = 9999" in feedback
        assert block_statuses(bench)[0] == "ready"
        bench.apply()
    assert read_tree(project)["app.py"] == 'def greet(name):\n    return "hello " + name\n\nPORT = 8080\n'
