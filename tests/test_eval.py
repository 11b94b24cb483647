"""The evaluation harness (`editblocks eval`) and the corpus it scores: tests/cases/ must pass in full."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli.eval import eval_command
from editblocks.errors import ReplayError
from editblocks.eval.evaluate import (
    PARALLEL_THRESHOLD,
    CaseOutcome,
    EvalReport,
    Verdict,
    classify,
    evaluate_cases,
    find_cases,
    tree_difference,
)
from editblocks.eval.replay import import_commit

CASES = Path(__file__).parent / "cases"
THEMES = ("formats", "cases-md", "realistic", "mistakes", "v4a", "udiff", "whole")
FORMAT_FOLDERS = ("diff", "diff-fenced", "editor-diff", "editor-diff-fenced", "search-replace", "anchored",
                  "guillemet", "original-updated", "cline", "roo", "zed", "auto")
CASE_NAMES = [name for _, name in find_cases([CASES])]


def write_case(folder: Path, response: str, before: dict[str, str], after: dict[str, str] | None = None,
               **spec: object) -> Path:
    """A case folder; ``after=None`` means the answer must be refused (after/ equals before/)."""
    folder.mkdir(parents=True)
    (folder / "response.md").write_text(response, encoding="utf-8")
    for side, tree in (("before", before), ("after", before if after is None else after)):
        for path, text in tree.items():
            target = folder / side / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
    if spec:
        (folder / "case.json").write_text(json.dumps(spec), encoding="utf-8")
    return folder


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def only(report: EvalReport) -> CaseOutcome:
    [outcome] = report.outcomes
    return outcome


# --- the corpus ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_report() -> EvalReport:
    return evaluate_cases([CASES])


@pytest.mark.parametrize("name", CASE_NAMES)
def test_corpus_case_passes(corpus_report: EvalReport, name: str) -> None:
    outcome = next(o for o in corpus_report.outcomes if o.name == name)
    assert outcome.passed, "\n".join([f"{outcome.verdict.value}: {outcome.detail}", f"why: {outcome.why}",
                                      *outcome.difference])


def test_corpus_is_large_and_every_case_says_why() -> None:
    assert len(CASE_NAMES) >= 150
    for theme in THEMES:
        assert any(name.startswith(f"{theme}/") for name in CASE_NAMES), theme
    for folder in FORMAT_FOLDERS:
        assert any(name.startswith(f"formats/{folder}/") for name in CASE_NAMES), folder
    for name in CASE_NAMES:
        why = json.loads((CASES / name / "case.json").read_text(encoding="utf-8"))["why"]
        assert len(why) > 20, name


def test_corpus_keeps_crlf_bytes() -> None:
    """Git must not normalise the corpus: a CRLF case file still has CRLF endings on disk."""
    data = (CASES / "cases-md/f01-crlf-file-lf-search/before/App.cs").read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")


def test_parallel_and_serial_runs_agree(corpus_report: EvalReport) -> None:
    assert len(CASE_NAMES) > PARALLEL_THRESHOLD
    serial = evaluate_cases([CASES], jobs=1)
    parallel = evaluate_cases([CASES], jobs=2)
    assert (serial.jobs, parallel.jobs) == (1, 2)

    def key(report: EvalReport) -> list[tuple[object, ...]]:
        return [(o.name, o.verdict, o.detail, o.difference, o.why) for o in report.outcomes]

    assert key(serial) == key(parallel) == key(corpus_report)
    assert [o.name for o in serial.outcomes] == sorted(CASE_NAMES)


# --- classifying -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "actual", "parsed", "verdict"),
    [
        ({"a": b"1"}, {"a": b"2"}, {"a": b"2"}, True, Verdict.CORRECT),
        ({"a": b"1"}, {"a": b"1"}, {"a": b"1"}, True, Verdict.REFUSED_OK),
        ({"a": b"1"}, {"a": b"2"}, {"a": b"1"}, False, Verdict.MISSED),
        ({"a": b"1"}, {"a": b"2"}, {"a": b"1"}, True, Verdict.FALSE_REFUSAL),
        ({"a": b"1"}, {"a": b"2"}, {"a": b"3"}, True, Verdict.WRONG),
        ({"a": b"1"}, {"a": b"1"}, {"a": b"1", "b": b""}, True, Verdict.WRONG),
        ({}, {"new": b"x\n"}, {}, True, Verdict.FALSE_REFUSAL),
    ],
)
def test_classify(before: dict[str, bytes], after: dict[str, bytes], actual: dict[str, bytes], parsed: bool,
                  verdict: Verdict) -> None:
    assert classify(before, after, actual, blocks_parsed=parsed) is verdict


def test_correct_case(tmp_path: Path) -> None:
    write_case(tmp_path / "c", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": "x = 1\n"}, {"m.py": "x = 2\n"})
    outcome = only(evaluate_cases([tmp_path]))
    assert (outcome.name, outcome.verdict, outcome.detail) == ("c", Verdict.CORRECT, "1 block: 1 applied")
    assert outcome.difference == () and outcome.seconds > 0


def test_refused_ok_case(tmp_path: Path) -> None:
    write_case(tmp_path / "c", block("m.py", "x = 9\n", "x = 2\n"), {"m.py": "x = 1\n"}, why="not found")
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.REFUSED_OK
    assert "the old text was not found in m.py" in outcome.detail
    assert outcome.why == "not found"


def test_wrong_when_a_refusal_case_gets_written(tmp_path: Path) -> None:
    write_case(tmp_path / "c", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": "x = 1\n"})
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.WRONG
    assert outcome.difference[0] == "~ m.py: content differs"


def test_wrong_when_the_result_differs(tmp_path: Path) -> None:
    write_case(tmp_path / "c", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": "x = 1\n"}, {"m.py": "x = 3\n"})
    assert only(evaluate_cases([tmp_path])).verdict is Verdict.WRONG


def test_missed_when_nothing_parses(tmp_path: Path) -> None:
    write_case(tmp_path / "c", "Looks fine to me.\n", {"m.py": "x = 1\n"}, {"m.py": "x = 2\n"})
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.MISSED
    assert outcome.detail == "no edit blocks parsed"


def test_false_refusal_when_a_parsed_block_is_refused(tmp_path: Path) -> None:
    twice = "x = 1\ny = 0\nx = 1\n"
    write_case(tmp_path / "c", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": twice}, {"m.py": "x = 2\ny = 0\nx = 1\n"})
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.FALSE_REFUSAL
    assert "ambiguous" in outcome.detail
    assert outcome.difference[:1] == ("~ m.py: content differs",)


def test_case_options_and_overrides(tmp_path: Path) -> None:
    """case.json options apply; options given to evaluate_cases win over them."""
    twice = "x = 1\ny = 0\nx = 1\n"
    write_case(tmp_path / "c", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": twice}, {"m.py": "x = 2\ny = 0\nx = 1\n"},
               first_match=True)
    assert only(evaluate_cases([tmp_path])).verdict is Verdict.CORRECT
    assert only(evaluate_cases([tmp_path], format="anchored")).verdict is Verdict.MISSED


def test_known_files_true_means_every_file_in_before(tmp_path: Path) -> None:
    write_case(tmp_path / "c", block("helpers.py", "x = 1\n", "x = 2\n"), {"pkg/helpers.py": "x = 1\n"},
               {"pkg/helpers.py": "x = 2\n"}, known_files=True)
    assert only(evaluate_cases([tmp_path])).verdict is Verdict.CORRECT


def test_missing_before_and_after_mean_no_files(tmp_path: Path) -> None:
    create = "new.txt\n```text\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n```\n"
    write_case(tmp_path / "creates", create, {}, {"new.txt": "hello\n"})
    write_case(tmp_path / "nothing", "No changes needed.\n", {}, {})
    outcomes = evaluate_cases([tmp_path]).outcomes
    assert [(o.name, o.verdict) for o in outcomes] == [("creates", Verdict.CORRECT), ("nothing", Verdict.REFUSED_OK)]
    assert not (tmp_path / "nothing" / "before").exists()


def test_expect_contradicted_by_statuses_is_misreported(tmp_path: Path) -> None:
    write_case(tmp_path / "c", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": "x = 1\n"}, {"m.py": "x = 2\n"},
               expect="partial")
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.MISREPORTED
    assert "expects partial, the results say applied" in outcome.detail


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"first-match": True}, "unknown keys ['first-match']"),
        ({"format": "unified-diff"}, "format must be one of"),
        ({"strict": "yes"}, "strict must be true or false"),
        ({"known_files": "all"}, "known_files must be a list"),
        ({"expect": "maybe"}, "expect must be one of"),
    ],
)
def test_broken_case_json_is_an_error(tmp_path: Path, spec: dict[str, object], message: str) -> None:
    write_case(tmp_path / "c", "nothing\n", {}, {}, **spec)
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.ERROR
    assert message in outcome.detail


def test_find_cases_does_not_search_inside_a_case(tmp_path: Path) -> None:
    write_case(tmp_path / "outer", "nothing\n", {"response.md": "data, not a case\n"})
    write_case(tmp_path / "group" / "inner", "nothing\n", {})
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "response.md").write_text("skipped\n", encoding="utf-8")
    assert [name for _, name in find_cases([tmp_path])] == ["group/inner", "outer"]
    assert [name for _, name in find_cases([tmp_path / "outer"])] == ["outer"]


def test_tree_difference_makes_invisible_differences_visible() -> None:
    lines = tree_difference(
        {"crlf.txt": b"a\r\nb\r\n", "gone.txt": b"x\n", "tab.py": b"\tx = 1\n"},
        {"crlf.txt": b"a\r\nb\n", "extra.txt": b"yy", "tab.py": b"    x = 1 \n"},
    )
    assert lines[0] == "~ crlf.txt: content differs"
    assert "    -b\\r" in lines and "    +b" in lines
    assert "+ extra.txt: not expected, but written (2 bytes)" in lines
    assert "- gone.txt: expected, but missing" in lines
    assert "    -\\tx = 1" in lines and "    +    x = 1·" in lines


# --- the command line ------------------------------------------------------------------------------


@pytest.fixture()
def mixed_cases(tmp_path: Path) -> Path:
    write_case(tmp_path / "good", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": "x = 1\n"}, {"m.py": "x = 2\n"})
    write_case(tmp_path / "bad", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": "x = 1\n"}, why="must be refused")
    return tmp_path


def test_cli_table_and_exit_status(mixed_cases: Path) -> None:
    result = CliRunner().invoke(eval_command, [str(mixed_cases / "good")])
    assert result.exit_code == 0, result.output
    assert "good" in result.output and "correct" in result.output
    assert "1 case: 1 correct" in result.output

    result = CliRunner().invoke(eval_command, [str(mixed_cases)])
    assert result.exit_code == 1
    assert "wrong" in result.output and "why: must be refused" in result.output
    assert "~ m.py: content differs" in result.output
    assert "2 cases: 1 correct, 1 wrong" in result.output


def test_cli_json_shape(mixed_cases: Path) -> None:
    result = CliRunner().invoke(eval_command, ["--json", str(mixed_cases)])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert set(data) == {"schema_version", "ok", "totals", "cases_total", "seconds", "jobs", "cases"}
    assert data["ok"] is False and data["cases_total"] == 2
    assert data["totals"] == {"correct": 1, "refused-ok": 0, "missed": 0, "false-refusal": 0, "wrong": 1,
                              "misreported": 0, "error": 0}
    assert [case["name"] for case in data["cases"]] == ["bad", "good"]
    assert set(data["cases"][0]) == {"name", "verdict", "detail", "seconds", "difference", "why", "model", "format",
                                     "code", "metadata"}
    assert (data["cases"][0]["format"], data["cases"][0]["code"]) == ("diff", "files-differ")
    assert data["cases"][0]["verdict"] == "wrong" and data["cases"][0]["difference"]


def test_cli_options_override_case_json(tmp_path: Path) -> None:
    twice = "x = 1\ny = 0\nx = 1\n"
    write_case(tmp_path / "c", block("m.py", "x = 1\n", "x = 2\n"), {"m.py": twice}, {"m.py": "x = 2\ny = 0\nx = 1\n"})
    assert CliRunner().invoke(eval_command, [str(tmp_path)]).exit_code == 1
    assert CliRunner().invoke(eval_command, ["--first-match", "--jobs", "2", str(tmp_path)]).exit_code == 0


def test_cli_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(eval_command, []).exit_code == 2
    result = runner.invoke(eval_command, [str(tmp_path)])
    assert result.exit_code == 2 and "no case folders" in result.output
    result = runner.invoke(eval_command, ["--from-git", str(tmp_path), "--commit", "HEAD"])
    assert result.exit_code == 2 and "--response, --out" in result.output
    assert runner.invoke(eval_command, ["--jobs", "0", str(tmp_path)]).exit_code == 2


# --- replaying a commit ------------------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def commit_all(repo: Path, files: dict[str, bytes | None], message: str) -> str:
    for path, data in files.items():
        target = repo / path
        if data is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    commit_all(repo, {"app.py": b"x = 1\n", "win.txt": b"a\r\nb\r\n", "old.txt": b"bye\n", "same.txt": b"keep\n"},
               "first")
    return repo


def test_replay_commit_becomes_a_case(repo: Path, tmp_path: Path) -> None:
    sha = commit_all(repo, {"app.py": b"x = 2\n", "win.txt": b"a\r\nB\r\n", "old.txt": None,
                            "pkg/new.py": b"NEW = True\n"}, "second")
    answer = tmp_path / "answer.md"
    answer.write_bytes(b"the model's answer\r\n")
    case = import_commit(repo, answer, "HEAD", tmp_path / "case")
    assert case.commit == sha
    assert case.before == ("app.py", "old.txt", "win.txt")
    assert case.after == ("app.py", "pkg/new.py", "win.txt")
    folder = tmp_path / "case"
    assert (folder / "response.md").read_bytes() == b"the model's answer\r\n"
    assert (folder / "before/win.txt").read_bytes() == b"a\r\nb\r\n"
    assert (folder / "after/win.txt").read_bytes() == b"a\r\nB\r\n"
    assert (folder / "after/pkg/new.py").read_bytes() == b"NEW = True\n"
    assert not (folder / "after/old.txt").exists() and not (folder / "before/same.txt").exists()
    assert sha in json.loads((folder / "case.json").read_text(encoding="utf-8"))["why"]


def test_replayed_answer_scores_correct(repo: Path, tmp_path: Path) -> None:
    """The round trip the importer exists for: the answer that made a commit replays to exactly that commit."""
    commit_all(repo, {"app.py": b"x = 2\n", "pkg/new.py": b"NEW = True\n"}, "answer applied")
    answer = tmp_path / "answer.md"
    answer.write_text(block("app.py", "x = 1\n", "x = 2\n")
                      + "pkg/new.py\n```python\n<<<<<<< SEARCH\n=======\nNEW = True\n>>>>>>> REPLACE\n```\n",
                      encoding="utf-8")
    import_commit(repo, answer, "HEAD", tmp_path / "cases" / "replayed")
    assert only(evaluate_cases([tmp_path / "cases"])).verdict is Verdict.CORRECT


def test_replay_copies_files_the_answer_names_but_the_commit_left_alone(repo: Path, tmp_path: Path) -> None:
    """A block refused in the real run (an empty SEARCH for an existing file) must be refused in the case too."""
    commit_all(repo, {"app.py": b"x = 2\n"}, "only the first block applied")
    answer = tmp_path / "answer.md"
    answer.write_text(block("app.py", "x = 1\n", "x = 2\n") + block("./same.txt", "", "replaced\n")
                      + block("missing.txt", "nothing\n", "x\n") + block("../repo/old.txt", "bye\n", "x\n"),
                      encoding="utf-8")
    case = import_commit(repo, answer, "HEAD", tmp_path / "cases" / "replayed")
    assert case.before == ("app.py", "same.txt") and case.after == ("app.py", "same.txt")
    folder = tmp_path / "cases" / "replayed"
    assert (folder / "before/same.txt").read_bytes() == (folder / "after/same.txt").read_bytes() == b"keep\n"
    assert only(evaluate_cases([tmp_path / "cases"])).verdict is Verdict.CORRECT


def test_replay_root_commit_has_empty_before(repo: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text("x\n", encoding="utf-8")
    root = git(repo, "rev-list", "--max-parents=0", "HEAD")
    case = import_commit(repo, answer, root, tmp_path / "case")
    assert case.before == () and case.after == ("app.py", "old.txt", "same.txt", "win.txt")
    assert not (tmp_path / "case" / "before").exists()


def test_replay_refusals(repo: Path, tmp_path: Path) -> None:
    answer = tmp_path / "answer.md"
    answer.write_text("x\n", encoding="utf-8")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine\n", encoding="utf-8")
    with pytest.raises(ReplayError, match="not an empty folder"):
        import_commit(repo, answer, "HEAD", occupied)
    with pytest.raises(ReplayError, match="is not a commit"):
        import_commit(repo, answer, "no-such-branch", tmp_path / "a")
    with pytest.raises(ReplayError, match="not a commit name"):
        import_commit(repo, answer, "--all", tmp_path / "b")
    with pytest.raises(ReplayError, match="cannot read the response"):
        import_commit(repo, tmp_path / "missing.md", "HEAD", tmp_path / "c")
    assert (occupied / "keep.txt").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def test_cli_from_git(repo: Path, tmp_path: Path) -> None:
    sha = commit_all(repo, {"app.py": b"x = 3\n"}, "third")
    answer = tmp_path / "answer.md"
    answer.write_text(block("app.py", "x = 1\n", "x = 3\n"), encoding="utf-8")
    out = tmp_path / "case"
    args = ["--from-git", str(repo), "--response", str(answer), "--commit", sha[:10], "--out", str(out)]
    result = CliRunner().invoke(eval_command, args)
    assert result.exit_code == 0, result.output
    assert f"from commit {sha[:12]}: 1 file before, 1 after" in result.output
    assert CliRunner().invoke(eval_command, [str(out)]).exit_code == 0
    again = CliRunner().invoke(eval_command, args)
    assert again.exit_code == 2 and "already exists" in again.output


# --- cases of tool calls (calls.json) -----------------------------------------------------------------


def write_calls_case(folder: Path, calls: object, before: dict[str, str], after: dict[str, str] | None = None,
                     **spec: object) -> Path:
    folder.mkdir(parents=True)
    (folder / "calls.json").write_text(json.dumps(calls), encoding="utf-8")
    for side, tree in (("before", before), ("after", before if after is None else after)):
        for path, text in tree.items():
            target = folder / side / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    (folder / "case.json").write_text(json.dumps({"why": "a case of tool calls", **spec}), encoding="utf-8")
    return folder


EDIT = "str_replace_based_edit_tool"


def test_a_calls_case_runs_its_calls_in_order(tmp_path: Path) -> None:
    calls = [{"tool": EDIT, "input": {"command": "str_replace", "path": "a.py", "old_str": "1", "new_str": "2"}},
             {"tool": EDIT, "input": {"command": "str_replace", "path": "a.py", "old_str": "2", "new_str": "3"}}]
    write_calls_case(tmp_path / "c", calls, {"a.py": "x = 1\n"}, {"a.py": "x = 3\n"}, expect="applied")
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.CORRECT and outcome.detail == "2 calls: 2 ok"


def test_a_calls_case_that_writes_the_wrong_thing_is_wrong(tmp_path: Path) -> None:
    calls = [{"tool": EDIT, "input": {"command": "str_replace", "path": "a.py", "old_str": "1", "new_str": "4"}}]
    write_calls_case(tmp_path / "c", calls, {"a.py": "x = 1\n"}, {"a.py": "x = 3\n"})
    assert only(evaluate_cases([tmp_path])).verdict is Verdict.WRONG


def test_a_calls_case_whose_statuses_disagree_with_expect_is_misreported(tmp_path: Path) -> None:
    calls = [{"tool": EDIT, "input": {"command": "view", "path": "a.py"}},
             {"tool": EDIT, "input": {"command": "create", "path": "a.py", "file_text": "y\n"}}]
    write_calls_case(tmp_path / "c", calls, {"a.py": "x = 1\n"}, expect="refused")
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.MISREPORTED and "the calls say partial" in outcome.detail


@pytest.mark.parametrize(("calls", "message"), [
    ({"tool": EDIT}, "must hold a JSON list"),
    ([{"input": {}}], "call 1 must be an object with a string `tool`"),
    ([{"tool": EDIT, "input": {}, "extra": 1}], "call 1 must be an object"),
])
def test_a_broken_calls_file_is_an_error_verdict(tmp_path: Path, calls: object, message: str) -> None:
    write_calls_case(tmp_path / "c", calls, {"a.py": "x\n"})
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.ERROR and message in outcome.detail


def test_a_case_holds_a_response_or_calls_not_both(tmp_path: Path) -> None:
    folder = write_calls_case(tmp_path / "c", [], {"a.py": "x\n"})
    (folder / "response.md").write_text("nothing", encoding="utf-8")
    outcome = only(evaluate_cases([tmp_path]))
    assert outcome.verdict is Verdict.ERROR and "not both" in outcome.detail
