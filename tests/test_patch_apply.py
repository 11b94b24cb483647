"""Applying patches and whole files: every guarantee of marker blocks holds, and deletes and moves are real.

V4A hunks are located after their `@@` anchors and after the previous hunk,
still refused when ambiguous there (with every candidate line); unified diff
hunks by their content, line numbers only breaking ties. Deleting and moving
files are journaled, undone, staged with --git-add, and refused where they
would escape the root or overwrite a file.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from editblocks import ResultCode, Status, feedback_message, parse
from editblocks.report.git_patch import git_patch
from editblocks.service.apply import apply
from editblocks.workspace import Workspace

from helpers_apply import make_tree, tree_state

TWO_CLASSES = "class A:\n    def f(self):\n        return 1\n\n\nclass B:\n    def f(self):\n        return 1\n"


def v4a(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def apply_text(root: Path, text: str, fmt: str = "auto", **options):
    return apply(parse(text, fmt), root, **options)


def files(root: Path) -> dict[str, str]:
    return {path: content[1].decode() for path, content in tree_state(root).items()
            if content[0] == "file" and not path.startswith(".git/")}


# --- V4A: where a hunk goes -----------------------------------------------------------------------------------------


def test_an_anchor_picks_the_occurrence_after_it(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWO_CLASSES})
    result = apply_text(tmp_path, v4a("*** Update File: m.py\n@@ class B:\n@@     def f(self):\n-        return 1\n"
                                      "+        return 2\n"))
    assert [r.status for r in result.results] == [Status.APPLIED]
    assert (tmp_path / "m.py").read_text() == TWO_CLASSES[: TWO_CLASSES.rindex("1")] + "2\n"
    assert result.results[0].start_line == 8


def test_a_hunk_still_ambiguous_after_its_anchors_is_refused_with_every_candidate(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWO_CLASSES})
    result = apply_text(tmp_path, v4a("*** Update File: m.py\n@@ class A:\n-        return 1\n+        return 2\n"))
    (outcome,) = result.results
    assert outcome.code is ResultCode.AMBIGUOUS and outcome.candidates == (3, 8)
    assert "matches at lines 3 and 8" in outcome.reason and "looked for after its `@@ class A:` line, line 1" in outcome.reason
    assert (tmp_path / "m.py").read_text() == TWO_CLASSES and not result.written


def test_an_anchor_not_found_names_it_and_writes_nothing_for_that_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": TWO_CLASSES, "n.py": "x = 1\n"})
    result = apply_text(tmp_path, v4a("*** Update File: m.py\n@@ class C:\n-        return 1\n+        return 2\n",
                                      "*** Update File: n.py\n-x = 1\n+x = 2\n"))
    failed, applied = result.results
    assert failed.code is ResultCode.NOT_FOUND and "the `@@ class C:` line was not found in m.py" in failed.reason
    assert applied.status is Status.APPLIED and files(tmp_path) == {"m.py": TWO_CLASSES, "n.py": "x = 2\n"}
    message = feedback_message(result)
    assert "`@@ class C:`" in message and "*** Begin Patch" in message


def test_each_hunk_is_looked_for_after_the_previous_one(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": "x = 1\ny\nx = 1\n"})
    alone = apply_text(tmp_path, v4a("*** Update File: m.py\n@@\n-x = 1\n+x = 2\n"), dry_run=True)
    assert alone.results[0].code is ResultCode.AMBIGUOUS
    result = apply_text(tmp_path, v4a("*** Update File: m.py\n@@\n-y\n+Y\n@@\n-x = 1\n+x = 2\n"))
    assert result.ok and (tmp_path / "m.py").read_text() == "x = 1\nY\nx = 2\n"


def test_hunks_out_of_file_order_are_refused_saying_so(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": "one\ntwo\nthree\nfour\n"})
    result = apply_text(tmp_path, v4a("*** Update File: m.py\n@@\n-three\n+3\n@@\n-one\n+1\n"))
    assert [r.status for r in result.results] == [Status.SKIPPED, Status.FAILED]  # m.py is left whole: held
    assert result.results[0].code is ResultCode.HELD and "occur only before it" in result.results[1].reason


def test_end_of_file_pins_the_hunk_to_the_end(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": "x\ny\nx\ny\n"})
    result = apply_text(tmp_path, v4a("*** Update File: m.py\n@@\n x\n-y\n+z\n*** End of File\n"))
    assert result.results[0].status is Status.APPLIED and (tmp_path / "m.py").read_text() == "x\ny\nx\nz\n"


def test_a_hunk_that_only_adds_goes_after_its_anchor_or_at_the_end(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": "def f():\n    pass\n", "n.py": "a\n"})
    apply_text(tmp_path, v4a("*** Update File: m.py\n@@ def f():\n+    '''Doc.'''\n",
                             "*** Update File: n.py\n@@\n+b\n"))
    assert files(tmp_path) == {"m.py": "def f():\n    '''Doc.'''\n    pass\n", "n.py": "a\nb\n"}


def test_tolerant_rungs_still_apply_to_hunks_and_line_endings_bom_and_mode_are_kept(tmp_path: Path) -> None:
    make_tree(tmp_path, {"w.py": b"\xef\xbb\xbfdef f():\r\n    return 1   \r\n"})
    os.chmod(tmp_path / "w.py", 0o755)
    result = apply_text(tmp_path, v4a("*** Update File: w.py\n@@\n def f():\n-    return 1\n+    return 2\n"))
    assert result.results[0].strategy == "trailing-whitespace"
    assert (tmp_path / "w.py").read_bytes() == b"\xef\xbb\xbfdef f():\r\n    return 2\r\n"
    assert stat.S_IMODE((tmp_path / "w.py").stat().st_mode) == 0o755


# --- V4A: files appear, disappear and move ------------------------------------------------------------------------------


def test_add_delete_and_move_are_real_and_undone(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n", "old.txt": "bye\n", "run.sh": "echo hi\n"})
    os.chmod(tmp_path / "run.sh", 0o755)
    before = tree_state(tmp_path)
    result = apply_text(tmp_path, v4a("*** Add File: pkg/new.py\n+y = 2\n", "*** Delete File: old.txt\n",
                                      "*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo hi\n+echo bye\n",
                                      "*** Update File: a.py\n*** Move to: b.py\n"))
    assert result.ok and result.written
    assert result.files_created == ("pkg/new.py",) and result.files_deleted == ("old.txt",)
    assert result.files_renamed == (("run.sh", "bin/run.sh"), ("a.py", "b.py"))
    assert files(tmp_path) == {"pkg/new.py": "y = 2\n", "bin/run.sh": "echo bye\n", "b.py": "x = 1\n"}
    assert stat.S_IMODE((tmp_path / "bin/run.sh").stat().st_mode) == 0o755
    diffs = {d.path: d for d in result.diffs}
    assert diffs["old.txt"].deleted and diffs["old.txt"].unified.startswith("--- a/old.txt\n+++ /dev/null\n")
    assert diffs["bin/run.sh"].moved_from == "run.sh" and "-echo hi\n+echo bye" in diffs["bin/run.sh"].unified
    assert diffs["b.py"].unified == "--- a/a.py\n+++ b/b.py\n"
    assert Workspace(tmp_path).undo().ok
    assert tree_state(tmp_path) == before


def test_file_operations_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x\n", "b.py": "y\n"})
    before = tree_state(tmp_path)
    result = apply_text(tmp_path, v4a("*** Add File: a.py\n+z\n", "*** Delete File: missing.py\n",
                                      "*** Update File: a.py\n*** Move to: b.py\n",
                                      "*** Update File: a.py\n*** Move to: ../out.py\n",
                                      "*** Delete File: ../b.py\n"))
    codes = [r.code for r in result.results]
    assert codes == [ResultCode.FILE_EXISTS, ResultCode.FILE_NOT_FOUND, ResultCode.FILE_EXISTS, ResultCode.REFUSED, ResultCode.REFUSED]
    assert "b.py already exists" in result.results[2].reason
    assert "change it with `*** Update File: a.py`" in result.results[0].reason
    assert tree_state(tmp_path) == before and not (tmp_path.parent / "out.py").exists()


def test_a_file_deleted_earlier_in_the_patch_can_be_added_again_and_a_moved_one_not_edited(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x\n"})
    result = apply_text(tmp_path, v4a("*** Delete File: a.py\n", "*** Add File: a.py\n+new\n"))
    assert result.ok and files(tmp_path) == {"a.py": "new\n"}
    again = apply_text(tmp_path, v4a("*** Update File: a.py\n*** Move to: b.py\n", "*** Update File: a.py\n-new\n+x\n"))
    assert [r.code for r in again.results] == [ResultCode.HELD, ResultCode.FILE_NOT_FOUND]  # the move waits too
    assert files(tmp_path) == {"a.py": "new\n"}
    assert "an earlier block of this answer removed it" in again.results[1].reason


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def test_git_add_stages_deletes_and_renames_as_git_rm_and_git_mv_and_undo_unstages(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n" * 5, "gone.txt": "bye\n", "untracked.txt": "u\n"})
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "a.py", "gone.txt")
    _git(tmp_path, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start")
    result = apply_text(tmp_path, v4a("*** Update File: a.py\n*** Move to: src/a.py\n", "*** Delete File: gone.txt\n",
                                      "*** Delete File: untracked.txt\n"), git_add=True)
    assert result.ok and result.notes == ()
    status = _git(tmp_path, "status", "--porcelain")
    assert "R  a.py -> src/a.py" in status and "D  gone.txt" in status and "untracked" not in status
    assert Workspace(tmp_path).undo().ok
    assert _git(tmp_path, "status", "--porcelain") == "?? untracked.txt\n"


def test_the_patch_file_of_a_run_with_deletes_and_renames_applies_with_git(tmp_path: Path) -> None:
    root, check = tmp_path / "root", tmp_path / "check"
    for folder in (root, check):
        make_tree(folder, {"a.py": "x = 1\n", "gone.txt": "bye\n"})
        _git(folder, "init", "-q")
    result = apply_text(root, v4a("*** Update File: a.py\n*** Move to: b.py\n-x = 1\n+x = 2\n",
                                  "*** Delete File: gone.txt\n"), dry_run=True)
    (tmp_path / "p.patch").write_bytes(git_patch(result.diffs))
    _git(check, "apply", str(tmp_path / "p.patch"))
    assert files(check) == {"b.py": "x = 2\n"}


# --- unified diffs -----------------------------------------------------------------------------------------------------


def test_a_real_git_diff_applies_to_the_tree_it_was_made_from(tmp_path: Path) -> None:
    repo, target = tmp_path / "repo", tmp_path / "target"
    start = {"app.py": "import os\n\nx = 1\nprint(x)\n", "gone.txt": "bye\n", "old_name.py": "def f():\n    pass\n",
             "keep.md": "# Title\n\ntext\n"}
    make_tree(repo, start)
    make_tree(target, start)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "start")
    (repo / "app.py").write_text("import os\n\nx = 2\nprint(x)\n")
    (repo / "gone.txt").unlink()
    (repo / "old_name.py").rename(repo / "new_name.py")
    (repo / "new.txt").write_text("hello\n")
    _git(repo, "add", "-A")
    diff = _git(repo, "diff", "--cached", "-M")
    result = apply_text(target, diff)
    assert result.ok, result.results
    assert files(target) == files(repo)


def test_wrong_line_numbers_only_break_ties(tmp_path: Path) -> None:
    text = "x = 0\nflag = True\n" + "pad\n" * 10 + "flag = True\n"
    make_tree(tmp_path, {"c.py": text})
    wrong = "--- a/c.py\n+++ b/c.py\n@@ -90,1 +90,1 @@\n x = 0\n-flag = True\n+flag = False\n"
    assert apply_text(tmp_path, wrong).ok  # unique content: the number is ignored
    make_tree(tmp_path, {"c.py": text})
    tie = "--- a/c.py\n+++ b/c.py\n@@ -13,1 +13,1 @@\n-flag = True\n+flag = False\n"
    result = apply_text(tmp_path, tie)
    assert result.ok and (tmp_path / "c.py").read_text() == text[: text.rindex("True")] + "False\n"
    make_tree(tmp_path, {"c.py": text})
    nowhere = tie.replace("-13,1 +13,1", "-60,1 +60,1")
    refused = apply_text(tmp_path, nowhere)
    assert refused.results[0].code is ResultCode.AMBIGUOUS and refused.results[0].candidates == (2, 13)


def test_a_diff_deleting_a_file_that_differs_is_refused(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.txt": "one\ntwo\n"})
    result = apply_text(tmp_path, "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n")
    assert result.results[0].code is ResultCode.NOT_FOUND and "not the whole file" in result.results[0].reason
    assert (tmp_path / "a.txt").read_text() == "one\ntwo\n"


# --- whole files ---------------------------------------------------------------------------------------------------------


def test_whole_files_replace_create_and_refuse_elisions(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": b"def f():\r\n    return 1\r\n", "b.py": "# ... keep ...\nx = 1\n", "c.py": "y\n"})
    answer = ("a.py\n```python\ndef f():\n    return 2\n```\n\nnew/d.py\n```python\nz = 3\n```\n\n"
              "b.py\n```python\n# ... keep ...\nx = 2\n```\n\nc.py\n```python\n# ... rest of the code ...\n```\n")
    result = apply_text(tmp_path, answer, "whole")
    assert [r.status for r in result.results] == [Status.APPLIED] * 3 + [Status.FAILED]
    assert "stands for code it leaves out" in result.results[3].reason
    assert files(tmp_path) == {"a.py": "def f():\r\n    return 2\r\n", "new/d.py": "z = 3\n",
                               "b.py": "# ... keep ...\nx = 2\n", "c.py": "y\n"}
    again = apply_text(tmp_path, answer, "whole")
    assert again.results[0].code is ResultCode.ALREADY_APPLIED


# --- the command line: --json, the HTML report, the feedback file ---------------------------------------------------


def test_the_command_line_reports_deletes_renames_and_refusals_of_a_patch(tmp_path: Path) -> None:
    import json

    from click.testing import CliRunner
    from jsonschema import Draft202012Validator

    from editblocks.cli import main
    from editblocks.report.schema import output_schema

    root = tmp_path / "root"
    make_tree(root, {"a.py": "x = 1\n", "old.txt": "bye\n", "m.py": TWO_CLASSES})
    answer = tmp_path / "answer.md"
    answer.write_text(v4a("*** Update File: a.py\n*** Move to: b.py\n", "*** Delete File: old.txt\n",
                          "*** Update File: m.py\n@@ class C:\n-        return 1\n+        return 2\n"))
    html, feedback = tmp_path / "r.html", tmp_path / "feedback.txt"
    runner = CliRunner()
    parsed = json.loads(runner.invoke(main, ["parse", str(answer), "--json"]).stdout)
    Draft202012Validator(output_schema()).validate(parsed)
    assert parsed["format"] == "v4a" and parsed["blocks"][0]["move_to"] == "b.py"
    result = runner.invoke(main, ["apply", str(answer), "--root", str(root), "--json", "--html", str(html),
                                  "--feedback", str(feedback)])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    Draft202012Validator(output_schema()).validate(data)
    assert data["files_deleted"] == ["old.txt"] and data["files_renamed"] == [{"from": "a.py", "to": "b.py"}]
    assert [d["path"] for d in data["diffs"]] == ["b.py", "old.txt"]
    assert data["diffs"][1]["deleted"] and data["diffs"][0]["moved_from"] == "a.py"
    page = html.read_text()
    assert "renamed a.py → b.py" in page and ">deleted<" in page
    message = feedback.read_text()
    assert "`@@ class C:` line was not found" in message and "*** Begin Patch" in message
    assert "renamed a.py → b.py" in message and "deleted old.txt" in message
    shown = runner.invoke(main, ["apply", str(answer), "--root", str(root), "--dry-run"]).output
    assert "cannot move a.py" in shown or "no such file" in shown
