"""Unified diffs applied as `git apply` applies them: real `git diff` output in, the other side's bytes out.

Issue 24 §2 and issue 25. Each diff here is made by git from two versions of
a file (final newline or not, CRLF, `-U0`, renames, modes, quoted names), then
applied to the first version with editblocks: the result must be the second
version byte for byte, or the diff must be refused without a byte written.
The hand-written hunks below are the shapes models write (blank lines left
out of the context, `--- /dev/null` for a file that exists, a new file under
a plain `--- path` header).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from editblocks import ResultCode, Status, parse
from editblocks.parsing.patches.unified import parse_unified
from editblocks.service.apply import apply
from editblocks.workspace import Workspace
from editblocks.workspace.commit import PlannedWrite

from helpers_apply import make_tree, tree_state

GIT = ("git", "-c", "core.autocrlf=false", "-c", "core.quotepath=true", "-c", "user.name=t", "-c",
       "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main")


def git(root: Path, *args: str) -> bytes:
    return subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True).stdout


def git_diff(tmp_path: Path, before: dict[str, bytes], after: dict[str, bytes | None], *options: str,
             modes: dict[str, int] | None = None) -> str:
    """What `git diff` (with ``options``) prints for the change from ``before`` to ``after`` (None: deleted)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", ".")
    make_tree(repo, before)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "before", "--allow-empty")
    for path in [path for path, content in after.items() if content is None]:
        (repo / path).unlink()
        if not any((repo / path).parent.iterdir()):
            (repo / path).parent.rmdir()
    make_tree(repo, {path: content for path, content in after.items() if content is not None})
    for path, mode in (modes or {}).items():
        os.chmod(repo / path, mode)
    git(repo, "add", "-A")
    return git(repo, "diff", "--cached", "-M", *options).decode("utf-8")


def applied(tmp_path: Path, before: dict[str, bytes], diff: str) -> tuple[Path, object]:
    root = tmp_path / "root"
    root.mkdir()
    make_tree(root, before)
    return root, apply(parse(diff, "udiff"), root)


def file_bytes(root: Path) -> dict[str, bytes]:
    return {path: entry[1] for path, entry in tree_state(root).items() if entry[0] == "file"}


# --- `\ No newline at end of file`, both ways, and CRLF files ------------------------------------------------------

NEWLINE_PAIRS = {
    "the diff removes the final newline": (b"a\nb\nc\n", b"a\nb\nc"),
    "the diff adds the final newline": (b"a\nb\nc", b"a\nb\nc\n"),
    "neither has one, the last line changes": (b"a\nb\nc", b"a\nb\nC"),
    "neither has one, a middle line changes": (b"a\nb\nc\nd\ne\nf", b"a\nB\nc\nd\ne\nf"),
    "the diff removes it while changing the last line": (b"a\nb\nc\n", b"a\nb\nC"),
    "the diff adds it while adding lines": (b"a\nb\nc", b"a\nb\nc\nd\n"),
    "a CRLF file loses its final line break": (b"a\r\nb\r\nc\r\n", b"a\r\nB\r\nc"),
    "a CRLF file gains its final line break": (b"a\r\nb\r\nc", b"a\r\nb\r\nC\r\n"),
    "a CRLF file keeps having none": (b"a\r\nb\r\nc", b"A\r\nb\r\nc"),
    "an empty file gets a line without a line break": (b"", b"x"),
    "a one-line file loses its line break": (b"x\n", b"x"),
}


@pytest.mark.parametrize("options", [(), ("-U0",), ("-U1",)], ids=["U3", "U0", "U1"])
@pytest.mark.parametrize("case", sorted(NEWLINE_PAIRS))
def test_applying_git_diff_a_b_to_a_gives_b_byte_for_byte(tmp_path: Path, case: str, options: tuple[str, ...]) -> None:
    before, after = NEWLINE_PAIRS[case]
    diff = git_diff(tmp_path, {"f.txt": before}, {"f.txt": after}, *options)
    root, result = applied(tmp_path, {"f.txt": before}, diff)
    assert (root / "f.txt").read_bytes() == after, (case, diff, result.results)


def test_a_hunk_that_says_it_ends_the_file_must_end_it(tmp_path: Path) -> None:
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
    root, result = applied(tmp_path, {"f.txt": b"a\nz"}, diff)
    (outcome,) = result.results
    assert outcome.status is Status.FAILED and (root / "f.txt").read_bytes() == b"a\nz"


# --- `git diff -U0`: a hunk without context goes exactly where its header says ------------------------------------


U0_INSERTIONS = {
    "at the top": (b"a\nb\nc\n", b"x\na\nb\nc\n"),
    "after line 2": (b"a\nb\nc\n", b"a\nb\nx\nc\n"),
    "at the end": (b"a\nb\nc\n", b"a\nb\nc\nx\ny\n"),
    "next to an identical line": (b"a\nx\nb\n", b"a\nx\nx\nb\n"),
    "several places": (b"a\nb\nc\nd\n", b"0\na\nb\n1\nc\nd\n2\n"),
    "around changes": (b"a\nb\nc\nd\n", b"a\nB\nx\nc\nD\ny\n"),
}


@pytest.mark.parametrize("case", sorted(U0_INSERTIONS))
def test_u0_insertions_go_where_the_header_says(tmp_path: Path, case: str) -> None:
    before, after = U0_INSERTIONS[case]
    diff = git_diff(tmp_path, {"f.txt": before}, {"f.txt": after}, "-U0")
    root, result = applied(tmp_path, {"f.txt": before}, diff)
    assert (root / "f.txt").read_bytes() == after, (diff, result.results)


def test_u0_insertion_after_a_line_the_file_does_not_have_is_refused(tmp_path: Path) -> None:
    root, result = applied(tmp_path, {"f.txt": b"a\nb\n"}, "--- a/f.txt\n+++ b/f.txt\n@@ -5,0 +6 @@\n+x\n")
    (outcome,) = result.results
    assert outcome.status is Status.FAILED and "has only 2 lines" in outcome.reason
    assert (root / "f.txt").read_bytes() == b"a\nb\n" and not result.written


def test_u0_removal_of_one_of_several_identical_lines_takes_the_one_the_header_names(tmp_path: Path) -> None:
    before, after = b"}\n}\n}\nx\n", b"}\n}\nx\n"
    diff = git_diff(tmp_path, {"f.txt": before}, {"f.txt": b"}\n}\nx\n"}, "-U0")
    assert "@@ -3 +2,0 @@" in diff
    root, result = applied(tmp_path, {"f.txt": before}, diff)
    assert (root / "f.txt").read_bytes() == after


def test_header_numbers_naming_exactly_one_of_several_candidates_break_the_tie(tmp_path: Path) -> None:
    # Three identical places two lines apart: the old tolerance (3 lines) saw two of them near the hint.
    text = "a\nb\na\nb\na\nb\n"
    diff = "--- a/f.txt\n+++ b/f.txt\n@@ -3,2 +3,2 @@\n a\n-b\n+B\n"
    root, result = applied(tmp_path, {"f.txt": text.encode()}, diff)
    assert (root / "f.txt").read_text() == "a\nb\na\nB\na\nb\n", result.results


# --- a diff cut off mid-hunk writes nothing to that file -----------------------------------------------------------


def test_a_diff_cut_off_mid_hunk_is_an_error_for_that_file(tmp_path: Path) -> None:
    before = {"f.txt": b"".join(b"line %d\n" % n for n in range(10)), "g.txt": b"one\ntwo\n"}
    after = {"f.txt": b"".join(b"LINE %d\n" % n for n in range(10)), "g.txt": b"one\n2\n"}
    diff = git_diff(tmp_path, before, after)
    cut = diff[: diff.index("+LINE 4\n")]  # inside f.txt's hunk (git sorts f.txt before g.txt)
    root, result = applied(tmp_path, before, cut)
    parsed = parse(cut, "udiff")
    assert any("cut off" in error.message for error in parsed.errors)
    assert (root / "f.txt").read_bytes() == before["f.txt"]
    assert not [r for r in result.results if r.path == "f.txt" and r.status is Status.APPLIED]


def test_a_cut_off_diff_exits_with_an_error_from_the_cli(tmp_path: Path) -> None:
    before = {"f.txt": b"a\nb\nc\nd\n"}
    diff = git_diff(tmp_path, before, {"f.txt": b"A\nB\nC\nD\n"})
    root = tmp_path / "root"
    make_tree(root, before)
    (tmp_path / "answer.diff").write_text(diff[: diff.index("+B")])
    done = subprocess.run([sys.executable, "-m", "editblocks", "apply", str(tmp_path / "answer.diff"), "--root", str(root), "--format",
                           "udiff"], capture_output=True, text=True)
    assert done.returncode != 0 and "cut off" in done.stdout + done.stderr
    assert (root / "f.txt").read_bytes() == before["f.txt"]


def test_counts_short_of_the_body_are_still_only_a_warning_when_the_answer_goes_on(tmp_path: Path) -> None:
    text = "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n\nThat is the change.\n"
    result = parse(text, "udiff")
    assert len(result.blocks) == 1 and not result.errors and result.warnings


# --- names git quotes -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["caf\u00e9.md", "back\\slash.txt", "quote\"d.txt", "\u00fcber/na\u00efve.txt"])
def test_c_quoted_paths_are_unquoted(tmp_path: Path, name: str) -> None:
    diff = git_diff(tmp_path, {name: b"one\n"}, {name: b"two\n"})
    assert '"' in diff.splitlines()[0]  # git quoted it
    root, result = applied(tmp_path, {name: b"one\n"}, diff)
    assert file_bytes(root) == {name: b"two\n"}, result.results


def test_a_quoted_name_with_a_control_character_is_refused_never_misread(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"tab\there.txt": b"one\n"}, {"tab\there.txt": b"two\n"})
    root, result = applied(tmp_path, {"tab\there.txt": b"one\n"}, diff)
    assert file_bytes(root) == {"tab\there.txt": b"one\n"} and result.results[0].refusal == "invalid-path"


def test_a_new_file_whose_quoted_name_holds_a_backslash_is_refused_not_put_in_a_folder(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"k.txt": b"k\n"}, {"new\\name.txt": b"x\n"})
    root, result = applied(tmp_path, {"k.txt": b"k\n"}, diff)
    assert file_bytes(root) == {"k.txt": b"k\n"} and "holds a backslash" in result.diagnostics[0].message


def test_a_quoted_new_file_and_a_quoted_rename(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"old.txt": b"same\n" * 5}, {"old.txt": None, "n\u00e9w.txt": b"same\n" * 5,
                                                          "cr\u00e9\u00e9.txt": b"new\n"})
    root, _ = applied(tmp_path, {"old.txt": b"same\n" * 5}, diff)
    assert file_bytes(root) == {"n\u00e9w.txt": b"same\n" * 5, "cr\u00e9\u00e9.txt": b"new\n"}


# --- modes ---------------------------------------------------------------------------------------------------------


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_mode_change_is_applied_journaled_and_undone(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"run.sh": b"echo hi\n"}, {"run.sh": b"echo hi\n"}, modes={"run.sh": 0o755})
    assert "new mode 100755" in diff
    root, result = applied(tmp_path, {"run.sh": b"echo hi\n"}, diff)
    assert result.written and result.files_modified == ("run.sh",)
    assert mode_of(root / "run.sh") & 0o111 and (root / "run.sh").read_bytes() == b"echo hi\n"
    undone = Workspace(root).undo()
    assert undone.restored == ("run.sh",) and not mode_of(root / "run.sh") & 0o111


def test_a_mode_change_with_an_edit_and_its_reverse(tmp_path: Path) -> None:
    root = tmp_path / "root"
    make_tree(root, {"run.sh": b"echo hi\n"})
    os.chmod(root / "run.sh", 0o755)
    diff = git_diff(tmp_path, {"run.sh": b"echo hi\n"}, {"run.sh": b"echo bye\n"}, modes={"run.sh": 0o755})
    diff = diff.replace("new mode 100755", "new mode 100644").replace("old mode 100644", "old mode 100755")
    result = apply(parse(diff, "udiff"), root)
    assert [r.status for r in result.results] == [Status.APPLIED, Status.APPLIED]
    assert (root / "run.sh").read_bytes() == b"echo bye\n" and not mode_of(root / "run.sh") & 0o111
    Workspace(root).undo()
    assert (root / "run.sh").read_bytes() == b"echo hi\n" and mode_of(root / "run.sh") == 0o755


def test_a_new_executable_file_and_a_mode_already_set(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"keep.txt": b"k\n"}, {"tool.sh": b"#!/bin/sh\n"}, modes={"tool.sh": 0o755})
    assert "new file mode 100755" in diff
    root, result = applied(tmp_path, {"keep.txt": b"k\n"}, diff)
    assert mode_of(root / "tool.sh") & 0o100 and result.files_created == ("tool.sh",)
    again = apply(parse("diff --git a/tool.sh b/tool.sh\nold mode 100644\nnew mode 100755\n", "udiff"), root)
    assert again.results[0].code is ResultCode.ALREADY_APPLIED and not again.written


def test_a_mode_never_sets_set_id_bits(tmp_path: Path) -> None:
    root = tmp_path / "root"
    make_tree(root, {"x.sh": b"x\n"})
    apply(parse("diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 106755\n", "udiff"), root)
    assert mode_of(root / "x.sh") & 0o111 and not mode_of(root / "x.sh") & 0o7000


def test_a_deleted_file_mode_line_deletes_the_file(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"gone.txt": b"bye\n", "k.txt": b"k\n"}, {"gone.txt": None})
    assert "deleted file mode" in diff
    root, result = applied(tmp_path, {"gone.txt": b"bye\n", "k.txt": b"k\n"}, diff)
    assert file_bytes(root) == {"k.txt": b"k\n"} and result.files_deleted == ("gone.txt",)


# --- created and deleted files keep their bytes ----------------------------------------------------------------------


def test_a_diff_creating_a_crlf_file_writes_crlf(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"k.txt": b"k\n"}, {"win.txt": b"one\r\ntwo\r\n"})
    root, _ = applied(tmp_path, {"k.txt": b"k\n"}, diff)
    assert (root / "win.txt").read_bytes() == b"one\r\ntwo\r\n"


@pytest.mark.parametrize("content", [b"one\ntwo\r\nthree\n", b"a\r\nb\r\nc", b"a\r\n\r\nb\r\n", b"x\r\n"])
def test_a_diff_creating_a_file_keeps_each_lines_break(tmp_path: Path, content: bytes) -> None:
    diff = git_diff(tmp_path, {"k.txt": b"k\n"}, {"new.txt": content})
    root, _ = applied(tmp_path, {"k.txt": b"k\n"}, diff + "\nThat creates it.\n\n  Done.\n")
    assert (root / "new.txt").read_bytes() == content


def test_a_diff_creating_a_file_without_a_final_newline(tmp_path: Path) -> None:
    diff = git_diff(tmp_path, {"k.txt": b"k\n"}, {"n.txt": b"one\ntwo"})
    root, _ = applied(tmp_path, {"k.txt": b"k\n"}, diff)
    assert (root / "n.txt").read_bytes() == b"one\ntwo"


def test_a_diff_deleting_a_file_that_starts_with_a_bom(tmp_path: Path) -> None:
    before = {"bom.txt": b"\xef\xbb\xbfhello\nworld\n", "k.txt": b"k\n"}
    diff = git_diff(tmp_path, before, {"bom.txt": None})
    root, result = applied(tmp_path, before, diff)
    assert file_bytes(root) == {"k.txt": b"k\n"}, result.results


# --- moves keep every byte they do not edit --------------------------------------------------------------------------

ENCODED = {
    "utf-8 with a BOM": b"\xef\xbb\xbfline one\nline two\nline three\nline four\n",
    "utf-16": "line one\nline two\nline three\nline four\n".encode("utf-16"),
    "crlf": b"line one\r\nline two\r\nline three\r\nline four\r\n",
}


@pytest.mark.parametrize("case", sorted(ENCODED))
def test_a_git_pure_rename_keeps_every_byte_and_the_mode(tmp_path: Path, case: str) -> None:
    content = ENCODED[case]
    root = tmp_path / "root"
    make_tree(root, {"old.txt": content})
    os.chmod(root / "old.txt", 0o750)
    diff = "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n"
    result = apply(parse(diff, "udiff"), root)
    assert result.files_renamed == (("old.txt", "new.txt"),)
    assert file_bytes(root) == {"new.txt": content} and mode_of(root / "new.txt") == 0o750


@pytest.mark.parametrize("case", sorted(ENCODED))
def test_a_rename_with_edits_keeps_the_bytes_it_does_not_edit(tmp_path: Path, case: str) -> None:
    content = ENCODED[case]
    root = tmp_path / "root"
    make_tree(root, {"old.txt": content})
    diff = ("diff --git a/old.txt b/new.txt\nsimilarity index 80%\nrename from old.txt\nrename to new.txt\n"
            "--- a/old.txt\n+++ b/new.txt\n@@ -2,2 +2,2 @@\n line two\n-line three\n+line 3\n")
    apply(parse(diff, "udiff"), root)
    expected = content.replace(b"three", b"3") if case != "utf-16" else \
        "line one\nline two\nline 3\nline four\n".encode("utf-16")
    assert file_bytes(root) == {"new.txt": expected}


@pytest.mark.parametrize("case", sorted(ENCODED))
def test_a_v4a_move_keeps_every_byte_it_does_not_edit(tmp_path: Path, case: str) -> None:
    content = ENCODED[case]
    root = tmp_path / "root"
    make_tree(root, {"old.txt": content})
    os.chmod(root / "old.txt", 0o700)
    patch = ("*** Begin Patch\n*** Update File: old.txt\n*** Move to: new.txt\n@@\n line two\n-line three\n"
             "+line 3\n*** End Patch\n")
    apply(parse(patch, "v4a"), root)
    expected = content.replace(b"three", b"3") if case != "utf-16" else \
        "line one\nline two\nline 3\nline four\n".encode("utf-16")
    assert file_bytes(root) == {"new.txt": expected} and mode_of(root / "new.txt") == 0o700


# --- a file turned into a folder (or back): whole or not at all ------------------------------------------------------


def test_a_file_to_folder_type_change_is_refused_whole(tmp_path: Path) -> None:
    before = {"thing": b"a file\n", "k.txt": b"k\n"}
    diff = git_diff(tmp_path, before, {"thing": None, "thing/inside.txt": b"now a folder\n"})
    root, result = applied(tmp_path, before, diff)
    assert file_bytes(root) == before and not result.written
    assert any("between file and folder" in d.message for d in result.diagnostics)


def test_a_folder_to_file_type_change_is_refused_whole(tmp_path: Path) -> None:
    before = {"thing/inside.txt": b"in a folder\n", "k.txt": b"k\n"}
    diff = git_diff(tmp_path, before, {"thing/inside.txt": None, "thing": b"now a file\n"})
    root, result = applied(tmp_path, before, diff)
    assert file_bytes(root) == before and not result.written


# --- shapes models write ---------------------------------------------------------------------------------------------


def test_a_new_file_as_an_all_additions_hunk_under_a_plain_header(tmp_path: Path) -> None:
    root, result = applied(tmp_path, {"k.txt": b"k\n"},
                           "--- lib/util.ts\n+++ lib/util.ts\n@@ ... @@\n+export const one = 1;\n+export const two = 2;\n")
    assert (root / "lib/util.ts").read_text() == "export const one = 1;\nexport const two = 2;\n"
    assert result.files_created == ("lib/util.ts",)


def test_dev_null_for_a_file_that_exists_applies_by_content(tmp_path: Path) -> None:
    root, result = applied(tmp_path, {"a.py": b"x = 1\ny = 2\n"},
                           "--- /dev/null\n+++ b/a.py\n@@ -0,0 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n")
    assert (root / "a.py").read_text() == "x = 1\ny = 3\n" and result.files_modified == ("a.py",)


def test_dev_null_all_additions_for_a_file_that_exists_is_still_refused(tmp_path: Path) -> None:
    root, result = applied(tmp_path, {"a.py": b"x = 1\n"}, "--- /dev/null\n+++ b/a.py\n@@ -0,0 +1 @@\n+x = 1\n")
    assert (root / "a.py").read_text() == "x = 1\n" and not result.written


BLANKS_FILE = "def a():\n    return 1\n\n\nclass B:\n    \n    def f(self):\n        return 2\n"


def test_a_hunk_whose_context_drops_a_blank_line_is_applied_keeping_the_files_blank_lines(tmp_path: Path) -> None:
    diff = "--- m.py\n+++ m.py\n@@ ... @@\n class B:\n     def f(self):\n-        return 2\n+        return 3\n"
    root, result = applied(tmp_path, {"m.py": BLANKS_FILE.encode()}, diff)
    assert (root / "m.py").read_text() == BLANKS_FILE.replace("return 2", "return 3")
    assert result.results[0].strategy == "blank-lines"


def test_a_hunk_whose_context_adds_a_blank_line_is_applied(tmp_path: Path) -> None:
    diff = "--- m.py\n+++ m.py\n@@ ... @@\n     return 1\n \n-class B:\n+class C:\n"
    root, _ = applied(tmp_path, {"m.py": BLANKS_FILE.encode()}, diff)
    assert (root / "m.py").read_text() == BLANKS_FILE.replace("class B", "class C")


def test_a_hunk_removing_a_blank_line_removes_the_one_that_equals_it(tmp_path: Path) -> None:
    text = "a = 1\n\n   \nb = 2\n"
    diff = "--- m.py\n+++ m.py\n@@ ... @@\n a = 1\n-\n b = 2\n+c = 3\n"
    root, _ = applied(tmp_path, {"m.py": text.encode()}, diff)
    assert (root / "m.py").read_text() == "a = 1\n   \nb = 2\nc = 3\n"


def test_a_blank_line_tolerant_hunk_that_could_go_two_ways_is_refused(tmp_path: Path) -> None:
    # The hunk adds a function between two lines that the file separates by a blank line the hunk does not show:
    # above that blank line or below it?
    text = "def f():\n    return 1\n\ndef g():\n    pass\n"
    diff = "--- m.py\n+++ m.py\n@@ ... @@\n     return 1\n+\n+def h():\n+    pass\n def g():\n"
    root, result = applied(tmp_path, {"m.py": text.encode()}, diff)
    (outcome,) = result.results
    assert outcome.status is Status.FAILED and "where its change goes among them is unclear" in outcome.reason
    assert (root / "m.py").read_text() == text


def test_added_lines_that_could_go_on_either_side_of_a_blank_line_are_refused(tmp_path: Path) -> None:
    # The hunk shows one blank line, the file has an empty and a whitespace-only line: `y = x + 1` could go
    # between them or below both. Real answers go both ways, so neither is guessed.
    text = "def f():\n    x = 1\n\n    \n    return 2\n"
    diff = "--- m.py\n+++ m.py\n@@ ... @@\n     x = 1\n \n+    y = x + 1\n     return 2\n"
    root, result = applied(tmp_path, {"m.py": text.encode()}, diff)
    assert (root / "m.py").read_text() == text
    assert result.results[0].status != "applied", result.results[0]


SECTIONS = "[server]\nhost = a\nport = 1\n\n[cache]\nsize = 2\n\n[log]\nlevel = info\nfile = x.log\n"


def test_a_hunk_whose_context_leaves_out_lines_is_applied_around_them(tmp_path: Path) -> None:
    # The hunk goes from `port = 1` to `[log]` as if `[cache]` were not there: the section stays.
    diff = "--- s.ini\n+++ s.ini\n@@ ... @@\n host = a\n-port = 1\n+port = 8\n \n [log]\n-level = info\n" \
           "+level = debug\n"
    root, result = applied(tmp_path, {"s.ini": SECTIONS.encode()}, diff)
    assert (root / "s.ini").read_text() == SECTIONS.replace("port = 1", "port = 8").replace("info", "debug")
    (outcome,) = result.results
    assert outcome.strategy == "omitted-lines" and "leaves out lines of the file" in outcome.reason


def test_a_hunk_leaving_out_lines_where_it_adds_some_is_refused(tmp_path: Path) -> None:
    # Above `[cache]` or below it? The file's lines between the two shown lines make the place a guess.
    diff = "--- s.ini\n+++ s.ini\n@@ ... @@\n host = a\n port = 1\n+tls = on\n [log]\n"
    root, result = applied(tmp_path, {"s.ini": SECTIONS.encode()}, diff)
    (outcome,) = result.results
    assert outcome.code is ResultCode.NOT_FOUND and "makes its change a guess" in outcome.reason
    assert (root / "s.ini").read_text() == SECTIONS


def test_the_blank_line_rung_still_demands_one_place(tmp_path: Path) -> None:
    text = "x\na\n\nb\nx\na\n\nb\n"
    root, result = applied(tmp_path, {"m.py": text.encode()}, "--- m.py\n+++ m.py\n@@ ... @@\n a\n b\n+c\n")
    assert result.results[0].code is ResultCode.AMBIGUOUS and (root / "m.py").read_text() == text


def test_the_blank_line_rung_is_only_for_diffs(tmp_path: Path) -> None:
    make_tree(tmp_path, {"m.py": BLANKS_FILE})
    answer = "m.py\n```python\n<<<<<<< SEARCH\nclass B:\n    def f(self):\n=======\nclass B:\n    def g(self):\n" \
             ">>>>>>> REPLACE\n```\n"
    result = apply(parse(answer), tmp_path)
    assert result.results[0].status is Status.FAILED


def test_marks_record_how_a_hunks_lines_interleave() -> None:
    (block,) = parse_unified("--- a\n+++ a\n@@ ... @@\n x\n-\n+y\n\n z\n").blocks
    assert block.marks == " -+  "


def test_workspace_mode_changes_are_only_the_executable_bits(tmp_path: Path) -> None:
    make_tree(tmp_path, {"f": b"x\n"})
    os.chmod(tmp_path / "f", 0o640)
    workspace = Workspace(tmp_path)
    snapshot = workspace.read("f")
    assert not isinstance(snapshot, type(None)) and hasattr(snapshot, "text")
    outcome = workspace.commit([PlannedWrite(snapshot, "x\n", executable=True)])  # type: ignore[arg-type]
    assert outcome.written and mode_of(tmp_path / "f") == 0o750


@pytest.mark.parametrize(("text", "diff", "expected"), [
    ('def f():\n    """Run it."""\n    old_call()\n', " def f():\n-    old_call()\n", 'def f():\n    """Run it."""\n'),
    ("def f():\n\n    old_call()\n", " def f():\n-    old_call()\n", "def f():\n\n"),
], ids=["omitted-lines", "blank-lines"])
def test_a_deletion_whose_new_text_only_begins_the_matched_place_is_made_not_called_already_applied(
        tmp_path: Path, text: str, diff: str, expected: str) -> None:
    # The hunk's new side (`def f():`) is the first line of the place its old side matched: that is not the file
    # already holding the new text, the removed line is still there.
    root, result = applied(tmp_path, {"m.py": text.encode()}, "--- m.py\n+++ m.py\n@@ ... @@\n" + diff)
    assert result.results[0].status == "applied", result.results[0]
    assert (root / "m.py").read_text() == expected
