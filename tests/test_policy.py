"""The per-file policies on representative answers: a file changes only when every edit to it lands (`file`, the
default), and `continue`, `skip-file` and `abort` keep their meaning.

The answers are the shapes that left real files half-edited under `continue` (issue 24 §1): a function renamed
while one of its callers' blocks is refused, and a new import whose use is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

import editblocks
from editblocks.cli import main
from editblocks.model import Policy, ResultCode, Status
from editblocks.report.feedback import feedback_message
from editblocks.report.schema import output_schema
from editblocks.report.serialize import apply_json

LEDGER = ("def total(items):\n    return sum(items)\n\n\n"
          "def report(items):\n    print(total(items))\n\n\n"
          "def audit(items):\n    print(total(items))\n")
VIEWS = "def render(rows):\n    return '\\n'.join(rows)\n"
MAIN = "def run():\n    render(['a'])\n"


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n\n"


# The function is renamed; its callers' block quotes a line found twice, so it is refused as ambiguous.
RENAME = ("Rename `total` to `sum_items`.\n\n"
          + block("ledger.py", "def total(items):\n", "def sum_items(items):\n")
          + block("ledger.py", "    print(total(items))\n", "    print(sum_items(items))\n"))
# A new import, and its use refused (the quoted line is not in the file); views.py is edited cleanly.
IMPORT = ("Log the rendering.\n\n"
          + block("main.py", "def run():\n", "import logging\n\n\ndef run():\n")
          + block("main.py", "    render(['a', 'b'])\n", "    logging.info('render')\n    render(['a', 'b'])\n")
          + block("views.py", "def render(rows):\n", "def render(rows: list[str]) -> str:\n"))


def project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "ledger.py").write_text(LEDGER)
    (root / "views.py").write_text(VIEWS)
    (root / "main.py").write_text(MAIN)
    return root


def statuses(result: editblocks.ApplyResult) -> list[tuple[str, str]]:
    return [(r.status.value, r.code.value) for r in result.results]


@pytest.mark.parametrize("policy", [None, "file"])
def test_file_policy_leaves_a_renamed_function_and_its_callers_as_they_were(tmp_path: Path,
                                                                             policy: str | None) -> None:
    root = project(tmp_path / "p")
    result = editblocks.apply(editblocks.parse(RENAME), root, policy=policy)
    assert (root / "ledger.py").read_text() == LEDGER  # never the def renamed without its callers
    assert statuses(result) == [("skipped", "held"), ("failed", "ambiguous")]
    assert "the block at line 14 for ledger.py failed" in result.results[0].reason
    assert not result.files_modified and not result.diffs


def test_file_policy_writes_the_files_whose_blocks_all_land(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    result = editblocks.apply(editblocks.parse(IMPORT), root)
    assert (root / "main.py").read_text() == MAIN  # no import without its use
    assert (root / "views.py").read_text() == "def render(rows: list[str]) -> str:\n    return '\\n'.join(rows)\n"
    assert statuses(result) == [("skipped", "held"), ("failed", "not-found"), ("applied", "")]
    assert result.files_modified == ("views.py",) and result.written


def test_continue_writes_what_applied_and_leaves_the_file_half_edited(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    result = editblocks.apply(editblocks.parse(RENAME), root, policy="continue")
    assert (root / "ledger.py").read_text() == LEDGER.replace("def total", "def sum_items")
    assert statuses(result) == [("applied", ""), ("failed", "ambiguous")]


def test_skip_file_writes_the_blocks_before_the_failure_and_does_not_try_the_later_ones(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    answer = IMPORT + block("main.py", "def run():\n", "def run() -> None:\n")
    result = editblocks.apply(editblocks.parse(answer), root, policy="skip-file")
    assert (root / "main.py").read_text().startswith("import logging")
    assert statuses(result)[-1] == ("skipped", "skipped-after-failure")


def test_abort_writes_nothing_at_all(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    result = editblocks.apply(editblocks.parse(IMPORT), root, policy=Policy.ABORT)
    assert (root / "views.py").read_text() == VIEWS and (root / "main.py").read_text() == MAIN
    assert [r.code for r in result.results] == [ResultCode.ABORTED, ResultCode.NOT_FOUND, ResultCode.ABORTED]


def test_already_applied_and_unchanged_blocks_count_as_landed(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    (root / "views.py").write_text("def render(rows: list[str]) -> str:\n    return '\\n'.join(rows)\n")
    answer = (block("views.py", "def render(rows):\n", "def render(rows: list[str]) -> str:\n")  # already there
              + block("views.py", "    return '\\n'.join(rows)\n", "    return '\\n'.join(rows)\n")  # no change
              + block("views.py", "    return '\\n'.join(rows)\n", "    return ', '.join(rows)\n"))
    result = editblocks.apply(editblocks.parse(answer), root)
    assert [r.code for r in result.results] == [ResultCode.ALREADY_APPLIED, ResultCode.NO_OP, ResultCode.NONE]
    assert (root / "views.py").read_text().endswith("return ', '.join(rows)\n")


def test_an_unchanged_block_that_is_not_in_the_file_holds_the_file_back(tmp_path: Path) -> None:
    """A no-op block whose text is not there says the model's picture of the file is wrong: not done."""
    root = project(tmp_path / "p")
    answer = (block("ledger.py", "def total(items):\n", "def sum_items(items):\n")
              + block("ledger.py", "    run_total(items)\n", "    run_total(items)\n"))
    result = editblocks.apply(editblocks.parse(answer), root)
    assert (root / "ledger.py").read_text() == LEDGER
    assert statuses(result) == [("skipped", "held"), ("failed", "not-found")]


def test_a_later_good_block_of_a_failed_file_is_held_the_moment_it_is_decided(tmp_path: Path) -> None:
    """A live view shows a block after the failure as held at once; blocks before it turn held at the end."""
    root = project(tmp_path / "p")
    session = editblocks.EditSession.on_disk(root)
    live = session.live()
    answer = IMPORT + block("main.py", "def run():\n", "def run() -> None:\n")
    shown = [event.result for event in live.feed(answer) + live.close() if hasattr(event, "result")]
    assert [(r.status, r.code) for r in shown if r.path == "main.py"] == [
        (Status.APPLIED, ResultCode.NONE), (Status.FAILED, ResultCode.NOT_FOUND), (Status.SKIPPED, ResultCode.HELD)]
    final = live.locator.round_result(dry_run=True)
    assert [r.code for r in final.results] == [ResultCode.HELD, ResultCode.NOT_FOUND, ResultCode.NONE,
                                               ResultCode.HELD]
    assert [d.path for d in final.diffs] == ["views.py"]


def test_a_v4a_patch_with_a_failed_hunk_leaves_its_file_and_writes_the_others(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    patch = ("*** Begin Patch\n*** Update File: ledger.py\n@@\n-def total(items):\n+def sum_items(items):\n@@\n"
             " def report(items):\n-    print(total(items))\n+    print(sum_items(items))\n@@ def nowhere():\n"
             "-    print(total(items))\n+    print(sum_items(items))\n*** Update File: views.py\n@@\n"
             "-def render(rows):\n+def render(rows, sep):\n*** End Patch\n")
    result = editblocks.apply(editblocks.parse(patch, "v4a"), root)
    assert (root / "ledger.py").read_text() == LEDGER  # two hunks land, the third's anchor is nowhere
    assert (root / "views.py").read_text().startswith("def render(rows, sep):")
    assert statuses(result) == [("skipped", "held"), ("skipped", "held"), ("failed", "not-found"), ("applied", "")]
    assert "`@@ def nowhere():` line was not found" in result.results[2].reason


def test_the_command_line_says_nothing_was_written_which_block_to_fix_and_to_send_them_together(
        tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    response = tmp_path / "answer.md"
    response.write_text(RENAME)
    feedback = tmp_path / "feedback.txt"
    run = CliRunner().invoke(main, ["apply", str(response), "--root", str(root), "--feedback", str(feedback)])
    assert run.exit_code == 1
    assert "= held    ledger.py:1  block at line 5" in run.output
    assert "not written (a block for it failed): ledger.py" in run.output
    message = feedback.read_text()
    assert "Nothing was written to `ledger.py`: a file is written only when every block for it applies." in message
    assert "Block at line 14 of your reply (ledger.py, starting “print(total(items))”): failed, ambiguous." in message
    assert "It matches ledger.py at lines 6 and 10" in message
    assert "Block at line 5 of your reply (ledger.py, starting “def total(items):”): held." in message
    assert "Send every block for `ledger.py` again, in one reply: the held ones unchanged and the failed ones fixed" \
        in message


def test_json_reports_held_blocks_with_their_code_under_the_new_minor_version(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    response = tmp_path / "answer.md"
    response.write_text(RENAME)
    run = CliRunner().invoke(main, ["apply", str(response), "--root", str(root), "--json"])
    data = json.loads(run.stdout)
    Draft202012Validator(output_schema("apply")).validate(data)
    assert data["schema_version"] == "1.2"
    assert [(r["status"], r["code"]) for r in data["results"]] == [("skipped", "held"), ("failed", "ambiguous")]
    assert data["held_over"] == [] and data["holding"] == []


def test_the_default_policy_is_named_with_its_reason_in_the_help() -> None:
    text = " ".join(CliRunner().invoke(main, ["apply", "--help"]).output.split())
    assert "file (the default) writes a file only when every block for it applies" in text
    assert "3 wrong where continue left 39" in text


def test_a_stateless_result_keeps_nothing_and_a_holding_one_names_what_it_keeps(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    stateless = editblocks.apply(editblocks.parse(RENAME), root)
    held = editblocks.EditSession.on_disk(root, hold=True).apply(RENAME)
    assert stateless.holding == () and held.holding == ("ledger.py",)
    message = feedback_message(held)
    assert "Nothing was written to `ledger.py` yet" in message
    assert "The held blocks for `ledger.py` are kept, so do not send them again: send only the failed blocks" \
        in message
    assert "It applies and is kept" in message and "Send every block" not in message
    assert apply_json(held)["holding"] == ["ledger.py"]
