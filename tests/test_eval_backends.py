"""Evaluation in memory gives the disk's verdicts (issue 28): on every shipped case, and on the cases where a
MemoryStore alone would answer differently from a folder on disk (an empty folder, a path through a file, a
read-only file, files under .git/, tool calls that list folders).

The in-memory backend judges each case on a MemoryStore layered over the case's files; the disk backend copies
them to a temporary folder and applies with the journal and fsync. Everything but the time taken must agree.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest

from editblocks.eval.cases import Case, tree_of
from editblocks.eval.evaluate import EvalReport, evaluate_cases
from editblocks.eval.judge import Backend, CaseOutcome, Verdict, judge
from editblocks.eval.runner import BATCH_CASES, BATCHES_IN_FLIGHT_PER_WORKER, RunSettings, run_local
from editblocks.eval.summary import KEPT_FAILURES, Summary

CASES = Path(__file__).parent / "cases"
EDIT = "str_replace_based_edit_tool"


def key(outcome: CaseOutcome) -> tuple[object, ...]:
    """Everything an outcome says except how long it took."""
    return (outcome.name, outcome.verdict, outcome.detail, outcome.difference, outcome.why, outcome.model,
            outcome.format, outcome.code, dict(outcome.metadata))


def keys(report: EvalReport) -> list[tuple[object, ...]]:
    return [key(outcome) for outcome in report.outcomes]


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def test_memory_and_disk_agree_on_every_shipped_case() -> None:
    memory = evaluate_cases([CASES], backend="memory", jobs=2)
    disk = evaluate_cases([CASES], backend="disk", jobs=2)
    assert len(memory.outcomes) > 300
    assert keys(memory) == keys(disk)
    assert memory.ok


def write_case(folder: Path, before: dict[str, bytes], after: dict[str, bytes], *, response: str | None = None,
               calls: list[dict[str, object]] | None = None, empty_folders: tuple[str, ...] = (),
               modes: dict[str, int] | None = None, **spec: object) -> None:
    folder.mkdir(parents=True)
    if calls is not None:
        (folder / "calls.json").write_text(json.dumps(calls), encoding="utf-8")
    else:
        (folder / "response.md").write_text(response or "", encoding="utf-8")
    for side, files in (("before", before), ("after", after)):
        (folder / side).mkdir()
        for path, data in files.items():
            (folder / side / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / side / path).write_bytes(data)
        for empty in empty_folders:
            (folder / side / empty).mkdir(parents=True, exist_ok=True)
    for path, mode in (modes or {}).items():
        os.chmod(folder / "before" / path, mode)
    if spec:
        (folder / "case.json").write_text(json.dumps(spec), encoding="utf-8")


@pytest.fixture
def tricky(tmp_path: Path) -> Path:
    """Cases where the disk and a bare MemoryStore would part ways."""
    root = tmp_path / "tricky"
    one = {"m.py": b"x = 1\n"}
    write_case(root / "block-names-an-empty-folder", one, one, response=block("pkg", "", "x\n"),
               empty_folders=("pkg",))
    write_case(root / "block-names-a-folder-with-files", {"pkg/a.py": b"a\n"}, {"pkg/a.py": b"a\n"},
               response=block("pkg", "a\n", "b\n"))
    write_case(root / "path-runs-through-a-file", one, one, response=block("m.py/inner.py", "", "y\n"))
    write_case(root / "read-only-file", one, one, response=block("m.py", "x = 1\n", "x = 2\n"), modes={"m.py": 0o444})
    write_case(root / "file-under-git", {".git/config": b"[core]\n", "m.py": b"x = 1\n"},
               {".git/config": b"[core]\n", "m.py": b"x = 2\n"}, response=block("m.py", "x = 1\n", "x = 2\n"))
    write_case(root / "edit-inside-git", {".git/config": b"[core]\n"}, {".git/config": b"[core]\n"},
               response=block(".git/config", "[core]\n", "[evil]\n"))
    write_case(root / "binary-beside", {"logo.png": b"\x89PNG\0\x01", "m.py": b"x = 1\n"},
               {"logo.png": b"\x89PNG\0\x01", "m.py": b"x = 2\n"}, response=block("m.py", "x = 1\n", "x = 2\n"))
    write_case(root / "misspelt-path-known", {"src/app.py": b"x = 1\n", "src/apps.py": b"y\n"},
               {"src/app.py": b"x = 2\n", "src/apps.py": b"y\n"}, response=block("src/ap.py", "x = 1\n", "x = 2\n"),
               known_files=True)
    write_case(root / "wrong-result", one, {"m.py": b"x = 3\n"}, response=block("m.py", "x = 1\n", "x = 2\n"))
    write_case(root / "calls-view-folders", {"src/a.py": b"a = 1\n"}, {"src/a.py": b"a = 2\n", "src/new.py": b"n\n"},
               empty_folders=("src/empty",),
               calls=[{"tool": EDIT, "input": {"command": "view", "path": "src"}},
                      {"tool": EDIT, "input": {"command": "view", "path": "src/empty"}},
                      {"tool": EDIT, "input": {"command": "view", "path": "."}},
                      {"tool": EDIT, "input": {"command": "str_replace", "path": "src/a.py", "old_str": "a = 1",
                                               "new_str": "a = 2"}},
                      {"tool": EDIT, "input": {"command": "create", "path": "src/new.py", "file_text": "n\n"}},
                      {"tool": EDIT, "input": {"command": "create", "path": "src/empty", "file_text": "x\n"}},
                      {"tool": EDIT, "input": {"command": "view", "path": "src/a.py/x"}}])
    return root


def test_memory_and_disk_agree_where_a_bare_memory_store_would_not(tricky: Path) -> None:
    memory = evaluate_cases([tricky], backend="memory", jobs=1)
    disk = evaluate_cases([tricky], backend="disk", jobs=1)
    assert keys(memory) == keys(disk)
    verdicts = {outcome.name.split("/")[-1]: outcome.verdict for outcome in memory.outcomes}
    assert verdicts["wrong-result"] is Verdict.WRONG
    assert verdicts["block-names-an-empty-folder"] is Verdict.REFUSED_OK
    assert verdicts["read-only-file"] is Verdict.REFUSED_OK
    assert verdicts["file-under-git"] is Verdict.CORRECT
    details = {outcome.name.split("/")[-1]: outcome.detail for outcome in memory.outcomes}
    assert "is a directory, not a file" in details["block-names-an-empty-folder"]
    assert "read-only" in details["read-only-file"]
    assert "which is a file, not a folder" in details["path-runs-through-a-file"]


def test_a_case_the_memory_backend_judges_writes_nothing_to_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = Case("c", tree_of({"m.py": b"x = 1\n"}, "before"), tree_of({"m.py": b"x = 2\n"}, "after"),
                answer=block("m.py", "x = 1\n", "x = 2\n"))
    monkeypatch.chdir(tmp_path)
    outcome = judge(case, backend=Backend.MEMORY)
    assert outcome.verdict is Verdict.CORRECT and outcome.format == "diff"
    assert list(tmp_path.iterdir()) == []


class SmallCase:
    """A reference that counts how many cases were taken from the source."""

    def __init__(self, number: int) -> None:
        self.name = f"case-{number:05d}"

    def load(self, settings: RunSettings) -> Case:
        return Case(self.name, tree_of({"m.py": b"x = 1\n"}, "before"), tree_of({"m.py": b"x = 2\n"}, "after"),
                    answer=block("m.py", "x = 1\n", "x = 2\n"))


def test_workers_take_cases_from_the_source_a_window_at_a_time() -> None:
    """Outcomes stream: the source is read only a bounded window ahead of the outcomes handed out, so a run of
    millions of cases never holds them all."""
    taken = count()

    def source() -> Iterator[SmallCase]:
        for number in range(100_000):
            next(taken)
            yield SmallCase(number)

    window = 2 * BATCHES_IN_FLIGHT_PER_WORKER * BATCH_CASES
    outcomes = run_local(source(), RunSettings(), workers=2)
    for handed_out, outcome in enumerate(outcomes, start=1):
        assert outcome is not None and outcome.name == f"case-{handed_out - 1:05d}"
        assert outcome.verdict is Verdict.CORRECT
        if handed_out == 3 * window:
            break
    assert next(taken) <= 4 * window + BATCH_CASES
    outcomes.close()


def test_a_summary_keeps_counts_not_outcomes() -> None:
    summary = Summary()
    for number in range(5 * KEPT_FAILURES):
        summary.add(CaseOutcome(f"c{number}", Verdict.WRONG if number % 2 else Verdict.CORRECT, "", number / 1000,
                                model="m", format="diff", code="files-differ"))
    assert summary.cases == 5 * KEPT_FAILURES and summary.failing == 5 * KEPT_FAILURES // 2
    assert len(summary.failures) == KEPT_FAILURES
    assert len(summary.slowest) == 10 and summary.slowest_cases()[0][0] == f"c{5 * KEPT_FAILURES - 1}"
    assert summary.top_reasons() == [("wrong", "files-differ", 5 * KEPT_FAILURES // 2, "c1")]
