"""A run that streams (issue 28): `--jsonl OUT` as cases finish, `--shard K/N`, `--resume`, `eval merge`, and the
report people look at (`--html`, the summary by model and format, the progress with its rate)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.eval.records import cut_partial_line, read_outcomes
from editblocks.eval.runner import Shard

CASES = Path(__file__).parent / "cases"
MODELS = ("model-a", "model-b", "model-c")


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def row(number: int) -> dict[str, Any]:
    """Every fifth case fails (its after/ is not what the answer makes); three models, two formats."""
    after = f"value = {number + 1}\n" if number % 5 else "value = -1\n"
    fmt = "diff" if number % 2 else "search-replace"
    answer = block("v.py", f"value = {number}\n", f"value = {number + 1}\n")
    if fmt == "search-replace":
        answer = f"v.py\n<<<<<<< SEARCH\nvalue = {number}\n=======\nvalue = {number + 1}\n>>>>>>> REPLACE\n"
    return {"id": f"case-{number:03d}", "response": answer, "before": {"v.py": f"value = {number}\n"},
            "after": {"v.py": after}, "model": MODELS[number % 3], "format": fmt}


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(row(number)) + "\n" for number in range(60)), encoding="utf-8")
    return path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, ["eval", *args], catch_exceptions=False)


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_jsonl_has_one_event_per_case_in_the_shared_envelope(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    result = invoke(str(dataset), "--jsonl", str(out), "--jobs", "2")
    assert result.exit_code == 1
    lines = events(out)
    assert [line["type"] for line in lines] == ["run_started"] + ["case_finished"] * 60 + ["run_finished"]
    assert all(set(line) >= {"schema_version", "type"} for line in lines)
    assert lines[0]["cases"] == 60 and lines[-1]["exit_code"] == 1 and lines[-1]["totals"]["wrong"] == 12
    case = lines[1]["case"]
    assert (case["name"], case["verdict"], case["model"], case["format"]) == ("case-000", "wrong", "model-a",
                                                                            "search-replace")
    assert case["code"] == "files-differ" and case["difference"][0] == "~ v.py: content differs"


def test_jsonl_to_standard_output_is_the_only_thing_printed(dataset: Path) -> None:
    result = invoke(str(dataset), "--jsonl", "-")
    types = [json.loads(line)["type"] for line in result.stdout.splitlines()]
    assert types[0] == "run_started" and types[-1] == "run_finished" and len(types) == 62


def test_shards_split_the_cases_stably_and_merge_into_the_whole(dataset: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    invoke(str(dataset), "--jsonl", str(whole))
    names: list[set[str]] = []
    for index in (1, 2, 3):
        out = tmp_path / f"shard-{index}.jsonl"
        invoke(str(dataset), "--shard", f"{index}/3", "--jsonl", str(out))
        names.append({outcome.name for outcome in read_outcomes(out)})
    assert all(names) and set.union(*names) == {f"case-{n:03d}" for n in range(60)}
    assert sum(map(len, names)) == 60
    again = tmp_path / "again.jsonl"
    invoke(str(dataset), "--shard", "2/3", "--jsonl", str(again))
    assert {outcome.name for outcome in read_outcomes(again)} == names[1]
    assert Shard(2, 3).holds("case-007") == Shard(2, 3).holds("case-007")

    merged = invoke("merge", *(str(tmp_path / f"shard-{i}.jsonl") for i in (1, 2, 3)), "--jsonl",
                    str(tmp_path / "merged.jsonl"), "--html", str(tmp_path / "merged.html"))
    assert merged.exit_code == 1
    assert "60 cases: 48 correct, 12 wrong" in merged.stdout
    assert "model-b" in merged.stdout and "search-replace" in merged.stdout
    whole_cases = sorted((o.name, o.verdict) for o in read_outcomes(whole))
    assert sorted((o.name, o.verdict) for o in read_outcomes(tmp_path / "merged.jsonl")) == whole_cases


@pytest.mark.parametrize("shard", ["0/3", "4/3", "1", "a/b", "1/0"])
def test_a_bad_shard_is_a_usage_error(dataset: Path, shard: str) -> None:
    result = CliRunner().invoke(main, ["eval", str(dataset), "--shard", shard])
    assert result.exit_code == 2 and "K/N" in result.output


def test_resume_runs_only_the_cases_not_yet_recorded(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    invoke(str(dataset), "--jsonl", str(out))
    kept = out.read_text(encoding="utf-8").splitlines(keepends=True)[:21]  # run_started and 20 cases
    cut = kept[-1][: len(kept[-1]) // 2]  # the 20th case cut short, as by a kill
    out.write_text("".join(kept[:-1]) + cut, encoding="utf-8")
    result = invoke(str(dataset), "--jsonl", str(out), "--resume", "--json")
    report = json.loads(result.stdout)
    assert report["cases_total"] == 60 and report["totals"]["wrong"] == 12
    outcomes = list(read_outcomes(out))
    assert sorted(o.name for o in outcomes) == [f"case-{n:03d}" for n in range(60)]
    started = [line for line in events(out) if line["type"] == "run_started"]
    assert len(started) == 2
    first_run = [o.name for o in outcomes[:19]]
    assert first_run == [f"case-{n:03d}" for n in range(19)]
    assert invoke(str(dataset), "--resume").exit_code == 2


def test_cutting_a_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    for text, kept in (("a\nb\nhalf", "a\nb\n"), ("a\n", "a\n"), ("half", ""), ("", "")):
        path.write_text(text, encoding="utf-8")
        cut_partial_line(path)
        assert path.read_text(encoding="utf-8") == kept


def test_the_summary_groups_by_model_and_format(dataset: Path) -> None:
    result = invoke(str(dataset))
    lines = result.stdout.splitlines()
    table = lines[lines.index("verdicts by model and format") + 1:]
    assert re.match(r"model\s+format\s+correct\s+wrong\s+passing", table[0])
    assert any(re.match(r"model-a\s+diff\s+\d+\s+\d+\s+\d+%", line) for line in table)
    assert "60 cases: 48 correct, 12 wrong" in result.stdout and "memory" in result.stdout


def test_the_html_report_stands_alone(dataset: Path, tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.jsonl"
    rows = [{**row(1), "id": "<script>alert(1)</script>", "before": {"../x": "x"}}, {**row(2), "model": "<b>m</b>"}]
    hostile.write_text("".join(json.dumps(item) + "\n" for item in rows), encoding="utf-8")
    page_path = tmp_path / "report.html"
    invoke(str(dataset), str(hostile), "--html", str(page_path))
    page = page_path.read_text(encoding="utf-8")
    assert page.count("<svg") == 3
    assert "<script" not in page and "&lt;script&gt;" in page and "&lt;b&gt;m&lt;/b&gt;" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page) and "@import" not in page
    for heading in ("Verdicts by model and format", "Failure reasons", "Slowest cases"):
        assert heading in page
    assert "files-differ" in page and "model-c · diff" in page


def test_a_wrong_case_names_its_expected_and_actual_sides(dataset: Path) -> None:
    result = invoke(str(dataset))
    assert "    --- expected (after/v.py)" in result.stdout
    assert "    +++ actual (what editblocks wrote)" in result.stdout
    assert "    -value = -1" in result.stdout and "    +value = 1" in result.stdout


def test_progress_lines_give_the_rate(dataset: Path) -> None:
    result = CliRunner().invoke(main, ["eval", str(dataset), "--jobs", "1"])
    progress = [line for line in result.stderr.splitlines() if line.startswith("evaluated ")]
    assert progress and re.fullmatch(r"evaluated \d+ of 60 cases, \d+ not passing, [\d,]+ cases/s", progress[0])


def test_subcommands_and_usage(dataset: Path, tmp_path: Path) -> None:
    assert "import-aider-history" in invoke("--help").stdout
    assert invoke("merge", str(dataset)).exit_code == 2  # a dataset holds no case_finished events
    result = CliRunner().invoke(main, ["eval", str(dataset), "--columns", "answer=text"])
    assert result.exit_code == 2 and "not a field of a case" in result.output
    assert CliRunner().invoke(main, ["eval", str(dataset), "--json", "--jsonl", "-"]).exit_code == 2
