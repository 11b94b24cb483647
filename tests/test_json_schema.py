"""Every `--json` output, produced by the real command line on real folders, against the shipped JSON Schema.

Also checks that the JSON carries what the terminal shows (codes, near-miss
hints, ambiguous candidates, diffs, dry run), that the schema is strict
enough to reject a wrong document, and that its enums follow the code's.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator, ValidationError
from test_parse_properties import responses

from editblocks import apply, parse, validate
from editblocks.cli import main
from editblocks.eval.evaluate import Verdict, find_cases
from editblocks.locate.types import Rung
from editblocks.model import BlockKind, Format, ResultCode, Severity, Status
from editblocks.plan.guards import CONTENT_REFUSALS
from editblocks.report.schema import OUTPUT_NAMES, SCHEMA_FILE, output_schema
from editblocks.report.serialize import SCHEMA_VERSION, apply_json, check_json, error_json, parse_json
from editblocks.workspace.paths import RefusalCode

from helpers_apply import diff_edit, guillemet, make_tree

REPO = Path(__file__).resolve().parent.parent
CASES = Path(__file__).parent / "cases"
PROJECT = {
    "app/config.py": "DEBUG = False\nPORT = 8000\n",
    "app/views.py": "def index():\n    return 'home'\n\ndef about():\n    return 'about'\n",
    "app/dup.py": "x = 1\ny = 2\nx = 1\n",
    "data.bin": b"\x00\x01bin\n",
}
EVERY_OUTCOME = (
    diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n"))
    + diff_edit("app/views.py", ("def index():\n    return 'hom'\n", "def index():\n    return 'x'\n"))
    + diff_edit("app/dup.py", ("x = 1\n", "x = 3\n"))
    + diff_edit("app/config.py", ("PORT = 8000\n", "PORT = 8000\n"))
    + diff_edit("app/urls.py", ("", "ROUTES = []\n"))
    + diff_edit("data.bin", ("bin\n", "x\n"))
    + diff_edit("missing.py", ("a\n", "b\n"))
    + diff_edit("../outside.py", ("a\n", "b\n"))
    + "```bash\nmake test\n```\n"
)
MALFORMED = "app/config.py\n```python\n<<<<<<< SEARCH\nDEBUG = False\n```\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    make_tree(root, PROJECT)
    return root


def answer(tmp_path: Path, text: str, name: str = "answer.md") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run_json(*args: str, exit_code: int | None = None) -> dict[str, Any]:
    """Run the command line with `--json`; the parsed output, checked against the whole schema."""
    result = CliRunner().invoke(main, [*args, "--json"], catch_exceptions=False)
    if exit_code is not None:
        assert result.exit_code == exit_code, result.output
    data = json.loads(result.stdout)
    assert next(iter(data)) == "schema_version" and data["schema_version"] == SCHEMA_VERSION
    Draft202012Validator(output_schema()).validate(data)
    return data


def conforms(name: str, data: Any) -> bool:
    return Draft202012Validator(output_schema(name)).is_valid(data)


def assert_conforms(name: str, data: Any) -> None:
    Draft202012Validator(output_schema(name)).validate(data)


# --- parse and check ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [EVERY_OUTCOME, MALFORMED, "", "No edits here.\n", guillemet("app/config.py", "DEBUG = False\n", "DEBUG = True\n")],
    ids=["blocks-and-shell", "malformed", "empty", "prose-only", "guillemet"],
)
def test_parse_output_matches_its_schema(tmp_path: Path, text: str) -> None:
    data = run_json("parse", answer(tmp_path, text))
    assert_conforms("parse", data)
    assert not conforms("apply", data) and not conforms("undo", data)


def test_parse_json_lists_blocks_shell_and_diagnostics(tmp_path: Path) -> None:
    data = run_json("parse", answer(tmp_path, EVERY_OUTCOME + MALFORMED), exit_code=1)
    assert len(data["blocks"]) == 8 and data["blocks"][4]["kind"] == "create"
    assert data["shell"] == [{"command": "make test", "line": 75}]
    assert {d["severity"] for d in data["diagnostics"]} == {"warning", "error"}


def test_check_without_root_is_the_parse_shape_with_its_verdict(tmp_path: Path) -> None:
    good = run_json("check", answer(tmp_path, diff_edit("a.py", ("x\n", "y\n"))), exit_code=0)
    bad = run_json("check", answer(tmp_path, MALFORMED, "bad.md"), exit_code=1)
    for data in (good, bad):
        assert_conforms("check", data)
        assert not conforms("parse", data)  # `ok` is not a parse key: the shapes stay distinct
    assert good["ok"] is True and bad["ok"] is False


def test_check_with_root_is_a_dry_run_in_the_apply_shape(tmp_path: Path, project: Path) -> None:
    before = {path: (project / path).read_bytes() for path in PROJECT}
    data = run_json("check", answer(tmp_path, EVERY_OUTCOME), "--root", str(project), exit_code=1)
    assert_conforms("check", data)
    assert_conforms("apply", data)
    assert data["dry_run"] is True and data["written"] is False
    assert [d["path"] for d in data["diffs"]] == ["app/config.py", "app/urls.py"]
    assert {path: (project / path).read_bytes() for path in PROJECT} == before


# --- apply --------------------------------------------------------------------------------------


def test_apply_json_carries_every_code_hint_candidate_and_refusal(tmp_path: Path, project: Path) -> None:
    data = run_json("apply", answer(tmp_path, EVERY_OUTCOME), "--root", str(project), exit_code=1)
    assert_conforms("apply", data)
    results = data["results"]
    assert [(r["status"], r["code"]) for r in results] == [
        ("applied", None), ("failed", "not-found"), ("failed", "ambiguous"), ("skipped", "no-op"),
        ("applied", None), ("failed", "refused"), ("failed", "file-not-found"), ("failed", "refused"),
    ]
    not_found = results[1]
    assert not_found["hint"] == ["  1 | def index():", "-   |     return 'hom'", "+ 2 |     return 'home'"]
    assert not_found["closest"] == {"start_line": 1, "end_line": 2} and not_found["similarity"] > 0.9
    assert results[2]["candidates"] == [1, 3]
    assert [results[5]["refusal"], results[7]["refusal"]] == ["binary", "outside-root"]
    assert all(r["refusal"] is None for r in results if r["code"] != "refused")
    assert data["counts"] == {"applied": 2, "failed": 5, "skipped": 1}
    assert data["written"] is True and data["dry_run"] is False
    assert data["diffs"] == [
        {"path": "app/config.py", "created": False, "deleted": False, "moved_from": None,
         "diff": "--- a/app/config.py\n+++ b/app/config.py\n@@ -1,2 +1,2 @@\n-DEBUG = False\n+DEBUG = True\n"
                 " PORT = 8000\n"},
        {"path": "app/urls.py", "created": True, "deleted": False, "moved_from": None,
         "diff": "--- /dev/null\n+++ b/app/urls.py\n@@ -0,0 +1 @@\n+ROUTES = []\n"},
    ]


def test_apply_json_has_what_the_terminal_shows(tmp_path: Path, project: Path) -> None:
    """Each reason and hint line the person sees is in the JSON too."""
    shown = CliRunner().invoke(main, ["apply", answer(tmp_path, EVERY_OUTCOME), "--root", str(project),
                                      "--dry-run"]).stdout
    data = run_json("apply", answer(tmp_path, EVERY_OUTCOME), "--root", str(project), "--dry-run")
    for result in data["results"]:
        assert result["reason"] in shown
        assert all(line in shown for line in result["hint"])
    assert all(line in shown for diff in data["diffs"] for line in diff["diff"].splitlines())


def test_apply_dry_run_json(tmp_path: Path, project: Path) -> None:
    dry = run_json("apply", answer(tmp_path, EVERY_OUTCOME), "--root", str(project), "--dry-run", exit_code=1)
    assert_conforms("apply", dry)
    assert dry["dry_run"] is True and dry["written"] is False
    assert not (project / "app/urls.py").exists()
    real = run_json("apply", answer(tmp_path, EVERY_OUTCOME), "--root", str(project))
    assert real["diffs"] == dry["diffs"] and real["results"] == dry["results"]


@pytest.mark.parametrize(
    ("policy", "statuses"),
    [("skip-file", [("failed", "not-found"), ("skipped", "skipped-after-failure"), ("applied", None)]),
     ("abort", [("failed", "not-found"), ("skipped", "aborted"), ("skipped", "aborted")])],
)
def test_apply_json_after_a_failure(tmp_path: Path, project: Path, policy: str, statuses: list[tuple]) -> None:
    text = (diff_edit("app/views.py", ("    return 'nowhere'\n", "    return 'x'\n"))
            + diff_edit("app/views.py", ("    return 'about'\n", "    return 'y'\n"))
            + diff_edit("app/config.py", ("PORT = 8000\n", "PORT = 8080\n")))
    data = run_json("apply", answer(tmp_path, text), "--root", str(project), "--on-failure", policy, exit_code=1)
    assert_conforms("apply", data)
    assert [(r["status"], r["code"]) for r in data["results"]] == statuses


def test_apply_json_on_a_rerun_and_an_existing_file(tmp_path: Path, project: Path) -> None:
    first = diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n"))
    run_json("apply", answer(tmp_path, first), "--root", str(project), exit_code=0)
    again = run_json("apply", answer(tmp_path, first + diff_edit("app/dup.py", ("", "new\n"))), "--root",
                     str(project))
    assert_conforms("apply", again)
    assert [(r["status"], r["code"]) for r in again["results"]] == [("skipped", "already-applied"),
                                                                     ("failed", "file-exists")]
    assert again["diffs"] == [] and again["written"] is False


def test_apply_json_with_no_blocks(tmp_path: Path, project: Path) -> None:
    data = run_json("apply", answer(tmp_path, MALFORMED), "--root", str(project), exit_code=1)
    assert_conforms("apply", data)
    assert data["results"] == [] and data["diagnostics"][0]["severity"] == "error"


# --- undo ---------------------------------------------------------------------------------------


def test_undo_outputs_match_their_schema(tmp_path: Path, project: Path) -> None:
    nothing = run_json("undo", "--root", str(project), exit_code=1)
    assert_conforms("undo", nothing)
    assert nothing["ok"] is False

    text = diff_edit("app/config.py", ("DEBUG = False\n", "DEBUG = True\n")) + diff_edit("app/urls.py", ("", "R\n"))
    run_json("apply", answer(tmp_path, text), "--root", str(project), exit_code=0)
    undone = run_json("undo", "--root", str(project), exit_code=0)
    assert_conforms("undo", undone)
    assert (undone["ok"], undone["restored"], undone["removed"]) == (True, ["app/config.py"], ["app/urls.py"])

    run_json("apply", answer(tmp_path, text), "--root", str(project), exit_code=0)
    (project / "app/config.py").write_text("edited by hand\n", encoding="utf-8")
    refused = run_json("undo", "--root", str(project))
    assert_conforms("undo", refused)
    assert refused["refused"] == ["app/config.py"]
    assert not conforms("apply", refused)


# --- eval ---------------------------------------------------------------------------------------


def write_case(folder: Path, response: str, before: dict[str, str], after: dict[str, str], why: str) -> None:
    make_tree(folder, {"response.md": response, "case.json": json.dumps({"why": why}),
                       **{f"before/{p}": t for p, t in before.items()}, **{f"after/{p}": t for p, t in after.items()}})


def test_eval_output_matches_its_schema(tmp_path: Path) -> None:
    change = diff_edit("m.py", ("x = 1\n", "x = 2\n"))
    write_case(tmp_path / "wrong", change, {"m.py": "x = 1\n"}, {"m.py": "x = 1\n"}, "must be refused")
    write_case(tmp_path / "missed", "no blocks\n", {"m.py": "x = 1\n"}, {"m.py": "x = 2\n"}, "nothing parses")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken/response.md").write_text(change, encoding="utf-8")
    (tmp_path / "broken/case.json").write_text("{not json", encoding="utf-8")
    corpus = [str(CASES / "cases-md/a01-twice-refused"), str(CASES / "cases-md/a01-twice-first-match")]
    result = CliRunner().invoke(main, ["eval", *corpus, str(tmp_path), "--json"], catch_exceptions=False)
    data = json.loads(result.stdout)
    assert_conforms("eval", data)
    Draft202012Validator(output_schema()).validate(data)
    assert data["schema_version"] == SCHEMA_VERSION and result.exit_code == 1
    verdicts = {case["verdict"] for case in data["cases"]}
    assert {"wrong", "missed", "error"} <= verdicts and verdicts & {"correct", "refused-ok"}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env,
                          check=True).stdout.strip()


def test_eval_import_output_matches_its_schema(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_tree(repo, {"app.py": "x = 1\n"})
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "first")
    (repo / "app.py").write_text("x = 2\n", encoding="utf-8")
    git(repo, "commit", "-qam", "second")
    data = run_json("eval", "--from-git", str(repo), "--response", answer(tmp_path, diff_edit("app.py", ("x = 1\n",
                    "x = 2\n"))), "--commit", "HEAD", "--out", str(tmp_path / "case"), exit_code=0)
    assert_conforms("eval-import", data)
    assert data["commit"] == git(repo, "rev-parse", "HEAD") and data["after"] == ["app.py"]


def test_error_object_matches_its_schema() -> None:
    assert_conforms("error", error_json("bad-input", "cannot read response 'x.md': No such file or directory"))
    assert not conforms("error", error_json("bad-input", ""))


# --- any input, every corpus case ------------------------------------------------------------------


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(responses)
def test_any_response_gives_parse_and_check_output_the_schema_accepts(text: str) -> None:
    validation = validate(text)
    assert_conforms("parse", parse_json(parse(text)))
    assert_conforms("check", check_json(validation.result, ok=validation.ok))


def test_every_corpus_case_gives_output_the_schema_accepts() -> None:
    """The recorded answers of tests/cases, parsed and located (a dry run) against their before/ trees."""
    validator = Draft202012Validator(output_schema())
    codes = set()
    for folder, _ in find_cases([CASES]):
        if not (Path(folder) / "response.md").is_file():
            continue  # a case of tool calls (calls.json): tests/test_tools.py checks those results
        parsed = parse((Path(folder) / "response.md").read_text(encoding="utf-8"))
        validator.validate(parse_json(parsed))
        before = Path(folder) / "before"
        if before.is_dir():
            data = apply_json(apply(parsed, before, dry_run=True))
            validator.validate(data)
            codes.update(result["code"] for result in data["results"])
    assert {None, "not-found", "ambiguous", "refused", "already-applied", "no-op"} <= codes


# --- the schema is strict ----------------------------------------------------------------------


def real_apply_output(tmp_path: Path, project: Path) -> dict[str, Any]:
    return run_json("apply", answer(tmp_path, EVERY_OUTCOME), "--root", str(project), "--dry-run")


MUTATIONS = {
    "unknown top key": lambda d: d.update(extra=1),
    "missing diffs": lambda d: d.pop("diffs"),
    "missing dry_run": lambda d: d.pop("dry_run"),
    "old schema version": lambda d: d.update(schema_version="0.9"),
    "integer schema version": lambda d: d.update(schema_version=1),
    "unknown result key": lambda d: d["results"][0].update(extra=1),
    "missing code": lambda d: d["results"][1].pop("code"),
    "unknown code": lambda d: d["results"][1].update(code="lost"),
    "unknown status": lambda d: d["results"][0].update(status="done"),
    "unknown strategy": lambda d: d["results"][0].update(strategy="guess"),
    "applied with a code": lambda d: d["results"][0].update(code="not-found"),
    "failed without a code": lambda d: d["results"][1].update(code=None),
    "failed with a skip code": lambda d: d["results"][1].update(code="no-op"),
    "refused without refusal": lambda d: d["results"][5].update(refusal=None),
    "refusal on another code": lambda d: d["results"][1].update(refusal="binary"),
    "ambiguous without candidates": lambda d: d["results"][2].update(candidates=[]),
    "hint as one string": lambda d: d["results"][1].update(hint="  1 | def index():"),
    "line zero": lambda d: d["results"][0].update(start_line=0),
    "similarity above one": lambda d: d["results"][0].update(similarity=1.5),
    "diff without created": lambda d: d["diffs"][0].pop("created"),
    "counts missing skipped": lambda d: d["counts"].pop("skipped"),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_schema_rejects_a_wrong_apply_document(tmp_path: Path, project: Path, mutation: str) -> None:
    data = real_apply_output(tmp_path, project)
    assert_conforms("apply", data)
    broken = copy.deepcopy(data)
    MUTATIONS[mutation](broken)
    with pytest.raises(ValidationError):
        assert_conforms("apply", broken)


def _enum(*path: str) -> set[Any]:
    node: Any = output_schema()["$defs"]
    for key in path:
        node = node[key]
    return set(node["enum"])


def test_schema_enums_follow_the_code() -> None:
    assert _enum("status") == {s.value for s in Status}
    assert _enum("code") == {r.value for r in ResultCode} - {""}
    assert _enum("strategy") == {r.value for r in Rung} | {"create", "whole", "delete", "move", "mode"}
    assert _enum("refusal") == {c.value for c in RefusalCode} | set(CONTENT_REFUSALS)
    assert _enum("verdict") == {v.value for v in Verdict}
    assert _enum("parse", "properties", "format") == {f.value for f in Format}
    assert _enum("block", "properties", "format") == {f.value for f in Format} - {"auto"}
    assert _enum("block", "properties", "kind") == {k.value for k in BlockKind}
    assert _enum("diagnostic", "properties", "severity") == {s.value for s in Severity}
    totals = output_schema()["$defs"]["eval"]["properties"]["totals"]
    assert set(totals["required"]) == set(totals["properties"]) == {v.value for v in Verdict}


# --- `editblocks schema` and the shipped file -------------------------------------------------------


def test_schema_command_prints_the_shipped_file() -> None:
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    shipped = json.loads((REPO / "src/editblocks" / SCHEMA_FILE).read_text(encoding="utf-8"))
    assert json.loads(result.stdout) == shipped
    Draft202012Validator.check_schema(shipped)
    assert shipped["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("name", OUTPUT_NAMES)
def test_schema_command_prints_one_output_standing_alone(name: str) -> None:
    result = CliRunner().invoke(main, ["schema", name])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    Draft202012Validator.check_schema(schema)
    assert schema["$ref"] == f"#/$defs/{name}"
    assert Draft202012Validator(schema).is_valid(error_json("usage", "x")) is (name == "error")


def test_schema_command_refuses_an_unknown_name() -> None:
    result = CliRunner().invoke(main, ["schema", "nothing"])
    assert result.exit_code == 2 and "nothing" in result.output


def test_schema_file_is_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["editblocks"]
    assert any(Path(SCHEMA_FILE).match(pattern) for pattern in patterns)
    assert "jsonschema" in " ".join(config["project"]["optional-dependencies"]["dev"])
