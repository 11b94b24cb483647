"""Cases as rows of a dataset (issue 28): JSON Lines and Parquet, `--columns`, `eval export`, and bad rows.

A row that cannot be a case (not JSON, an unknown column, a path that leaves the root, a response and calls
together) is an `error` verdict with its reason, and the run goes on; an exported set of case folders scores
exactly as the folders do.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.eval.dataset import Columns, read_rows
from editblocks.eval.evaluate import evaluate_cases
from editblocks.eval.judge import CaseOutcome, Verdict
from editblocks.eval.runner import RunSettings, run_local
from editblocks.eval.sources import Sources

CASES = Path(__file__).parent / "cases"


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


GOOD: dict[str, Any] = {"id": "good", "response": block("m.py", "x = 1\n", "x = 2\n"), "before": {"m.py": "x = 1\n"},
                        "after": {"m.py": "x = 2\n"}, "model": "gpt-x", "metadata": {"run": 7}}


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows),
                    encoding="utf-8")
    return path


def run(path: Path, columns: tuple[str, ...] = ()) -> list[CaseOutcome]:
    parsed = Columns.parse(columns)
    return [outcome for outcome in run_local(read_rows(str(path)), RunSettings(columns=parsed), workers=1)
            if outcome is not None]


def by_name(outcomes: list[CaseOutcome]) -> dict[str, CaseOutcome]:
    return {outcome.name: outcome for outcome in outcomes}


def test_a_jsonl_row_is_a_case_with_its_labels(tmp_path: Path) -> None:
    calls = {"id": "calls", "calls": [{"tool": "str_replace_based_edit_tool", "input": {
        "command": "str_replace", "path": "m.py", "old_str": "x = 1", "new_str": "x = 2"}}],
             "before": {"m.py": "x = 1\n"}, "after": {"m.py": "x = 2\n"}}
    crlf = {"id": "crlf", "response": block("w.txt", "a\r\n", "b\r\n"), "before": {"w.txt": "a\r\nz\r\n"},
            "after": {"w.txt": "b\r\nz\r\n"}}
    binary = {"id": "bytes", "response": block("m.py", "x = 1\n", "x = 2\n"),
              "before": {"m.py": "x = 1\n", "logo.png": {"base64": base64.b64encode(b"\x89PNG\0").decode()}},
              "after": {"m.py": "x = 2\n", "logo.png": {"base64": base64.b64encode(b"\x89PNG\0").decode()}}}
    refused = {"id": "refused", "response": block("m.py", "nope\n", "x\n"), "before": {"m.py": "x = 1\n"},
               "after": {"m.py": "x = 1\n"}, "expect": "refused", "why": "no such text"}
    outcomes = by_name(run(write_jsonl(tmp_path / "set.jsonl", [GOOD, calls, crlf, binary, refused])))
    assert {name: o.verdict for name, o in outcomes.items()} == {
        "good": Verdict.CORRECT, "calls": Verdict.CORRECT, "crlf": Verdict.CORRECT, "bytes": Verdict.CORRECT,
        "refused": Verdict.REFUSED_OK}
    assert (outcomes["good"].model, outcomes["good"].format, dict(outcomes["good"].metadata)) == \
        ("gpt-x", "diff", {"run": 7})
    assert outcomes["calls"].format == "tool-calls" and outcomes["refused"].why == "no such text"


BAD_ROWS = [
    ("not json {", "the line is not JSON"),
    ("[1, 2]", "holds a JSON list, not an object"),
    ({"id": "escape", "response": "x", "before": {"../outside.py": "x"}}, "'../outside.py' leaves the case's root"),
    ({"id": "absolute", "response": "x", "after": {"/etc/passwd": "x"}}, "must be a relative path"),
    ({"id": "backslash", "response": "x", "before": {"..\\x": "x"}}, "must be a relative path"),
    ({"id": "both", "response": "x", "calls": []}, "a response or calls, not both"),
    ({"id": "neither", "before": {}}, "neither a response nor calls"),
    ({"id": "column", "response": "x", "answer": "y"}, "unknown column 'answer'"),
    ({"id": "option", "response": "x", "fuzzy": "yes"}, "fuzzy must be true or false"),
    ({"id": "content", "response": "x", "before": {"a": 3}}, "must be text, bytes or"),
    ({"id": "clash", "response": "x", "before": {"a": "1", "a/b": "2"}}, "'a' is both a file and a folder"),
    ({"id": "calls-shape", "calls": [{"tool": 1}]}, "call 1 must be an object"),
]


def test_a_bad_row_is_an_error_verdict_and_the_run_goes_on(tmp_path: Path) -> None:
    rows = [GOOD] + [row for row, _ in BAD_ROWS] + [{**GOOD, "id": "last"}]
    outcomes = run(write_jsonl(tmp_path / "bad.jsonl", rows))
    assert len(outcomes) == len(rows)
    assert outcomes[0].verdict is Verdict.CORRECT and outcomes[-1].verdict is Verdict.CORRECT
    for outcome, (_, reason) in zip(outcomes[1:-1], BAD_ROWS):
        assert outcome.verdict is Verdict.ERROR, outcome
        assert reason in outcome.detail, (reason, outcome.detail)
        assert outcome.detail.startswith("broken row: ")


def test_a_row_without_an_id_is_named_by_its_content(tmp_path: Path) -> None:
    row = {key: value for key, value in GOOD.items() if key != "id"}
    first, second = run(write_jsonl(tmp_path / "a.jsonl", [row, {**row, "model": "other"}]))
    again, _ = run(write_jsonl(tmp_path / "b.jsonl", [row, GOOD]))
    assert first.name.startswith("row-") and first.name == again.name != second.name


def test_columns_map_another_layout(tmp_path: Path) -> None:
    theirs = {"task_id": "t1", "completion": GOOD["response"], "files_before": GOOD["before"],
              "files_after": GOOD["after"], "llm": "m1", "prompt": "change x"}
    path = write_jsonl(tmp_path / "theirs.jsonl", [theirs])
    [unmapped] = run(path)
    assert unmapped.verdict is Verdict.ERROR and "unknown column" in unmapped.detail
    [mapped] = run(path, ("id=task_id,response=completion", "before=files_before", "after=files_after",
                          "model=llm", "ignore=prompt"))
    assert (mapped.name, mapped.verdict, mapped.model) == ("t1", Verdict.CORRECT, "m1")
    with pytest.raises(ValueError, match="not a field of a case"):
        Columns.parse(["answer=completion"])


def test_parquet_rows_in_their_common_shapes(tmp_path: Path) -> None:
    """Files as a map column, as a list of {path, content} structs, or as JSON text; contents as bytes or text."""
    table = pa.table({
        "id": ["map", "structs", "json"],
        "response": [GOOD["response"]] * 3,
        "before": [None, None, json.dumps(GOOD["before"])],
        "after": [None, None, json.dumps(GOOD["after"])],
    })
    pq.write_table(table, tmp_path / "json.parquet")
    files = pa.map_(pa.string(), pa.binary())
    pq.write_table(pa.table({"id": ["map"], "response": [GOOD["response"]],
                             "before": pa.array([[("m.py", b"x = 1\n")]], files),
                             "after": pa.array([[("m.py", b"x = 2\n")]], files)}), tmp_path / "map.parquet")
    pq.write_table(pa.table({"id": ["structs"], "response": [GOOD["response"]],
                             "before": [[{"path": "m.py", "content": "x = 1\n"}]],
                             "after": [[{"path": "m.py", "content": "x = 2\n"}]]}), tmp_path / "structs.parquet")
    for name in ("json", "map", "structs"):
        outcomes = run(tmp_path / f"{name}.parquet")
        assert outcomes[-1].verdict is Verdict.CORRECT, (name, outcomes[-1])


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_exported_corpus_scores_as_its_folders(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"corpus{suffix}"
    result = CliRunner().invoke(main, ["eval", "export", str(CASES), "--out", str(out)])
    assert result.exit_code == 0, result.output
    folders = evaluate_cases([CASES], jobs=2).outcomes
    rows = [o for o in run_local(Sources((), (str(out),)).items(), RunSettings(), workers=2) if o is not None]
    strip = [(o.name, o.verdict, o.detail, o.difference, o.why, o.format, o.code) for o in folders]
    assert strip == [(o.name, o.verdict, o.detail, o.difference, o.why, o.format, o.code) for o in rows]


def test_export_to_folders_round_trips(tmp_path: Path) -> None:
    dataset = write_jsonl(tmp_path / "set.jsonl", [GOOD, {**GOOD, "id": "nested/name", "model": "m2"}, "broken"])
    result = CliRunner().invoke(main, ["eval", "export", str(dataset), "--out", str(tmp_path / "folders")])
    assert result.exit_code == 1 and "passed over row-" in result.output and "wrote 2 cases" in result.output
    assert json.loads((tmp_path / "folders/nested/name/case.json").read_text()) == {"model": "m2",
                                                                                   "metadata": {"run": 7}}
    report = evaluate_cases([tmp_path / "folders"])
    assert [(o.name, o.verdict, o.model) for o in report.outcomes] == [
        ("good", Verdict.CORRECT, "gpt-x"), ("nested/name", Verdict.CORRECT, "m2")]


def test_the_command_reads_datasets_and_folders_together(tmp_path: Path) -> None:
    dataset = write_jsonl(tmp_path / "set.jsonl", [GOOD, {"id": "bad", "response": "x", "before": {"../a": "x"}}])
    result = CliRunner().invoke(main, ["eval", str(CASES / "formats" / "diff" / "basic"), str(dataset)])
    assert result.exit_code == 1
    assert "correct" in result.output and "error bad: broken row:" in result.output
    assert "3 cases: 2 correct, 1 error" in result.output
