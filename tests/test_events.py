"""`--jsonl` on apply, ask and eval: one event per line, each against the shipped events schema, from real runs.

The ask runs go through the real `openai` SDK to the scripted server on
127.0.0.1 (tests/ask_server.py), as in test_ask.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner, Result
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from test_ask import ADD, ADD_WRONG, APP, GREET, STR_REPLACE, prose
from test_json_schema import EVERY_OUTCOME, PROJECT

from editblocks.cli import main
from editblocks.report.events import EVENT_TYPES, event_line
from editblocks.report.schema import EVENTS_SCHEMA_FILE, SCHEMA_FILE, events_schema
from editblocks.report.serialize import SCHEMA_VERSION

from helpers_apply import diff_edit, make_tree

REPO = Path(__file__).resolve().parent.parent
VALIDATOR = Draft202012Validator(events_schema())


def events_of(result: Result) -> list[dict[str, Any]]:
    """stdout read as JSON lines: every line one event the schema accepts, nothing else."""
    lines = result.stdout.split("\n")
    assert lines[-1] == "", "the last event ends with a newline"
    found = [json.loads(line) for line in lines[:-1]]
    for event in found:
        VALIDATOR.validate(event)
        assert list(event)[:2] == ["schema_version", "type"] and event["schema_version"] == SCHEMA_VERSION
    return found


def types(found: list[dict[str, Any]]) -> list[str]:
    return [event["type"] for event in found]


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    make_tree(root, PROJECT)
    return root


# --- the schema ---------------------------------------------------------------------------------------------------


def test_the_events_schema_names_every_event_the_code_makes() -> None:
    schema = json.loads((REPO / "src/editblocks" / EVENTS_SCHEMA_FILE).read_text())
    assert [ref["$ref"].rsplit("/", 1)[1] for ref in schema["oneOf"]] == list(EVENT_TYPES)
    for name in EVENT_TYPES:
        assert schema["$defs"][name]["properties"]["type"] == {"const": name}


def test_schema_events_prints_a_schema_that_stands_alone_and_the_shipped_pair_agrees() -> None:
    printed = json.loads(run("schema", "events").stdout)
    Draft202012Validator.check_schema(printed)
    assert printed == events_schema()
    # the two shipped files, as a reader with a validator and the package folder would use them
    files = REPO / "src/editblocks/report/schemas"
    registry = Registry().with_resources(
        (name, Resource.from_contents(json.loads((files / name).read_text()))) for name in
        (Path(SCHEMA_FILE).name, Path(EVENTS_SCHEMA_FILE).name))
    pair = Draft202012Validator(json.loads((files / "events.schema.json").read_text()), registry=registry)
    good = {"schema_version": SCHEMA_VERSION, "type": "note", "message": "hello"}
    assert pair.is_valid(good) and VALIDATOR.is_valid(good)
    for bad in ({**good, "type": "nope"}, {**good, "schema_version": "0.9"}, {**good, "extra": 1},
                {"schema_version": SCHEMA_VERSION, "type": "block_failed", "written": False,
                 "result": {"path": "a"}}):
        assert not pair.is_valid(bad) and not VALIDATOR.is_valid(bad)


def test_one_event_is_one_line_whatever_its_strings_hold() -> None:
    line = event_line({"schema_version": SCHEMA_VERSION, "type": "note",
                       "message": "a\nb\u2028c\u2029d\x85e\x1cf\u202eg"})
    assert len(line.splitlines()) == 1 and json.loads(line)["message"] == "a\nb\u2028c\u2029d\x85e\x1cf\u202eg"


# --- apply --------------------------------------------------------------------------------------------------------


def test_apply_jsonl_gives_every_step_and_agrees_with_json(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(EVERY_OUTCOME)
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    document = json.loads(run("apply", str(answer), "--root", str(copy), "--json").stdout)
    result = run("apply", str(answer), "--root", str(project), "--jsonl")
    assert result.exit_code == 1
    found = events_of(result)
    assert found[0] == {"schema_version": SCHEMA_VERSION, "type": "run_started", "command": "apply", "dry_run": False}
    assert found[-1]["type"] == "run_finished" and found[-1]["exit_code"] == 1 and found[-1]["ok"] is False
    assert found[-1]["counts"] == document["counts"] and found[-1]["written"] is True
    outcomes = [event for event in found if event["type"] in ("block_applied", "block_failed", "block_skipped")]
    assert [event["result"] for event in outcomes] == document["results"]
    assert [event["type"].removeprefix("block_") for event in outcomes] == [r["status"] for r in document["results"]]
    assert types(found).count("block_parsed") == len(document["results"])
    assert [e["shell"]["command"] for e in found if e["type"] == "shell_suggested"] == ["make test"]
    located = [event for event in found if event["type"] == "block_located"]
    assert {(e["path"], e["start_line"]) for e in located} >= {("app/config.py", 1)}
    first_outcome = types(found).index(outcomes[0]["type"])
    assert max(i for i, t in enumerate(types(found)) if t == "block_parsed") < first_outcome
    written = [event for event in found if event["type"] == "files_written"]
    assert len(written) == 1 and written[0]["files_modified"] == ["app/config.py"]
    assert written[0]["files_created"] == ["app/urls.py"] and written[0]["run_id"]
    assert all(event["written"] for event in outcomes if event["type"] == "block_applied")


def test_apply_jsonl_dry_run_writes_nothing_and_says_so(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n")))
    found = events_of(run("apply", str(answer), "--root", str(project), "--jsonl", "--dry-run"))
    assert types(found) == ["run_started", "block_parsed", "block_located", "block_applied", "run_finished"]
    assert found[0]["dry_run"] is True and found[3]["written"] is False and found[-1]["exit_code"] == 0
    assert (project / "app/config.py").read_text() == PROJECT["app/config.py"]


def test_apply_jsonl_reports_files_it_writes_besides_as_notes(project: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text(diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n")))
    found = events_of(run("apply", str(answer), "--root", str(project), "--jsonl", "--patch",
                          str(tmp_path / "change.patch")))
    assert any(e["type"] == "note" and "change.patch" in e["message"] for e in found)


def test_apply_jsonl_errors_are_one_error_event(project: Path, tmp_path: Path) -> None:
    missing = run("apply", str(tmp_path / "nope.md"), "--root", str(project), "--jsonl")
    assert missing.exit_code == 2
    found = events_of(missing)
    assert types(found) == ["error"] and found[0]["error"]["code"] == "bad-input"
    unknown = CliRunner().invoke(main, ["apply", "x.md", "--jsonl", "--no-such-option"])
    assert unknown.exit_code == 2 and types(events_of(unknown)) == ["error"]
    both = CliRunner().invoke(main, ["apply", str(tmp_path / "nope.md"), "--json", "--jsonl"])
    assert both.exit_code == 2 and "not both" in both.stderr


# --- eval ---------------------------------------------------------------------------------------------------------


def test_eval_jsonl_sends_each_case_as_it_ends_and_the_totals(tmp_path: Path) -> None:
    cases = sorted(path for path in (REPO / "tests/cases").rglob("response.md"))[:6]
    folder = tmp_path / "cases"
    for case in cases:
        shutil.copytree(case.parent, folder / case.parent.name)
    document = json.loads(run("eval", str(folder), "--json").stdout)
    result = run("eval", str(folder), "--jsonl", "-")  # the events on stdout (or into a file named instead)
    found = events_of(result)
    assert found[0] == {"schema_version": SCHEMA_VERSION, "type": "run_started", "command": "eval", "dry_run": True,
                        "cases": 6}
    finished = [event["case"] for event in found if event["type"] == "case_finished"]
    assert sorted(case["name"] for case in finished) == sorted(case["name"] for case in document["cases"])
    assert found[-1]["type"] == "run_finished" and found[-1]["totals"] == document["totals"]
    assert result.exit_code == found[-1]["exit_code"] == (0 if document["ok"] else 1)


# --- ask ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def ask_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    use_local_endpoint(monkeypatch)
    root = tmp_path / "ask-project"
    root.mkdir()
    (root / "app.py").write_text(APP)
    monkeypatch.chdir(root)
    return root


def run_ask(base_url: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["ask", "Fix it", "app.py", "--model", "test-model", "--base-url", base_url,
                                     "--api-key-env", "TEST_KEY", "--backoff", "0.01", "--jsonl", *args])


def test_ask_jsonl_follows_each_round_live_and_ends_with_the_outcome(ask_project: Path) -> None:
    with scripted([Answer(prose(GREET + "\n" + ADD_WRONG), chunk=5), Answer(prose(ADD), chunk=5)]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    found = events_of(result)
    assert types(found)[:2] == ["run_started", "round_started"] and found[1]["model"] == "test-model"
    first = [event for event in found if event.get("round") == 1]
    assert types(first)[:3] == ["round_started", "block_parsed", "block_located"]  # live: located before the end
    assert [e["type"] for e in first if e["type"].startswith("block_") and e["type"] != "block_parsed"
            and e["type"] != "block_located"] == ["block_skipped", "block_failed"]  # greet is held for app.py
    assert next(e for e in first if e["type"] == "block_skipped")["result"]["code"] == "held"
    round_one = next(e for e in found if e["type"] == "round_finished" and e["round"] == 1)
    assert round_one["counts"] == {"applied": 0, "failed": 1, "skipped": 1} and round_one["written"] is False
    assert "SEARCH" in round_one["feedback"]
    round_two = next(e for e in found if e["type"] == "round_finished" and e["round"] == 2)
    assert round_two["feedback"] is None and round_two["counts"]["applied"] == 1 and round_two["written"] is True
    assert found[-1] == {"schema_version": SCHEMA_VERSION, "type": "run_finished", "command": "ask", "exit_code": 0,
                         "ok": True, "files_written": ["app.py"], "stopped": None}
    assert types(found).count("files_written") == 1  # the held greet and the fixed add, in one write


def test_ask_jsonl_tool_calls_are_events(ask_project: Path) -> None:
    with scripted([Answer("", tool_calls=(STR_REPLACE,), chunk=4), Answer("Done.\n")]) as server:
        result = run_ask(server.base_url, "--tools", "--yes")
    assert result.exit_code == 0, result.output
    found = events_of(result)
    calls = [event for event in found if event["type"] == "tool_called"]
    assert len(calls) == 1 and calls[0]["ok"] is True and calls[0]["name"] == "str_replace_based_edit_tool"
    assert calls[0]["round"] == 1 and json.loads(calls[0]["input"])["command"] == "str_replace"
    assert [e["round"] for e in found if e["type"] == "round_finished"] == [1, 2]
    assert found[-1]["type"] == "run_finished" and found[-1]["files_written"] == ["app.py"]


def test_ask_jsonl_with_a_broken_off_answer_says_so_and_writes_nothing(ask_project: Path) -> None:
    with scripted([Answer(prose(GREET + "\n" + ADD), chunk=4, drop_after=40)]) as server:
        result = run_ask(server.base_url, "--yes")
    found = events_of(result)
    assert result.exit_code == 2 and (ask_project / "app.py").read_text() == APP
    finished = next(e for e in found if e["type"] == "round_finished")
    assert finished["counts"] is None and finished["written"] is False
    assert found[-1]["stopped"]["code"] == "stream-dropped"
