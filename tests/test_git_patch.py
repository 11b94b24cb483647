"""`apply --patch FILE`: the patch, applied by real `git apply` to a copy of the original tree, gives the same bytes.

Covers modified, created and emptied files, CRLF and mixed line endings, a
missing final newline, a UTF-8 byte-order mark, UTF-16 (a git binary patch)
and awkward file names; and that the file is written atomically.
"""

from __future__ import annotations

import codecs
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import apply as cli
from editblocks.cli import main
from editblocks.cli.reports import write_report
from editblocks.model import BlockKind, EditBlock, FileDiff, Format
from editblocks.report.git_patch import git_patch
from editblocks.service.apply import apply

from helpers_apply import JOURNAL, diff_edit, make_tree

UTF16 = codecs.BOM_UTF16_LE + "naïve\r\nvalue = 1\r\n".encode("utf-16-le")
PROJECT: dict[str, bytes] = {
    "lf.py": b"def f():\n    return 1\n\n\ndef g():\n    return 2\n",
    "win.txt": b"first\r\nsecond\r\nthird\r\n",
    "mixed.txt": b"one\r\ntwo\nthree\r\n",
    "nonl.txt": b"alpha\nomega",
    "bom.txt": codecs.BOM_UTF8 + b"title\nbody\n",
    "u16.txt": UTF16,
    "gone.txt": b"only line\n",
    "café.txt": b"q\n",
}
ANSWER = (
    diff_edit("lf.py", ("    return 2\n", "    return 20\n"))
    + diff_edit("win.txt", ("second\n", "SECOND\nextra\n"))
    + diff_edit("mixed.txt", ("two\n", "TWO\n"))
    + diff_edit("nonl.txt", ("omega\n", "OMEGA\n"))
    + diff_edit("bom.txt", ("title\n", "Title\n"))
    + diff_edit("u16.txt", ("value = 1\n", "value = 2\n"))
    + diff_edit("gone.txt", ("only line\n", ""))
    + diff_edit("café.txt", ("q\n", "Q\n"))
    + diff_edit("new_dir/created.py", ("", "CREATED = True\n"))
    + diff_edit("pkg/__init__.py", ("", ""))
)


def git(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, env=env, check=check)


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root` (outside git's and editblocks' folders) and its bytes."""
    found = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".git/", JOURNAL + "/")):
            found[rel] = path.read_bytes()
    return found


@pytest.fixture
def original(tmp_path: Path) -> Path:
    root = tmp_path / "original"
    make_tree(root, PROJECT)
    return root


def copy_of(tree: Path, where: Path) -> Path:
    shutil.copytree(tree, where)
    return where


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def apply_with_patch(tmp_path: Path, original: Path, name: str, *extra: str) -> tuple[Path, Path, object]:
    project = copy_of(original, tmp_path / name)
    response = tmp_path / "answer.md"
    response.write_text(ANSWER, encoding="utf-8")
    patch = tmp_path / f"{name}.patch"
    result = run("apply", str(response), "--root", str(project), "--patch", str(patch), *extra)
    return project, patch, result


def git_apply(original: Path, patch: Path, where: Path) -> Path:
    """A git work tree holding `original`, with `patch` applied by git (after `git apply --check` agrees)."""
    tree = copy_of(original, where)
    git(tree, "init", "-q")
    check = git(tree, "apply", "--check", str(patch), check=False)
    assert check.returncode == 0, check.stderr
    done = git(tree, "apply", str(patch), check=False)
    assert done.returncode == 0, done.stderr
    return tree


def test_git_apply_reproduces_the_run_byte_for_byte(tmp_path: Path, original: Path) -> None:
    project, patch, result = apply_with_patch(tmp_path, original, "applied")
    assert result.exit_code == 0, result.output
    assert f"wrote the patch of 10 files to {patch}" in result.output
    expected = files(project)
    assert expected != files(original) and expected["gone.txt"] == b"" and expected["pkg/__init__.py"] == b""
    assert files(git_apply(original, patch, tmp_path / "by-git")) == expected


def test_patch_keeps_line_endings_and_markers(tmp_path: Path, original: Path) -> None:
    _, patch, _ = apply_with_patch(tmp_path, original, "applied")
    data = patch.read_bytes()
    assert b"-second\r\n+SECOND\r\n+extra\r\n" in data
    assert b"-TWO\n" not in data and b"-two\n+TWO\n three\r\n" in data
    assert b"-omega\n\\ No newline at end of file\n+OMEGA\n\\ No newline at end of file\n" in data
    assert b"-\xef\xbb\xbftitle\n+\xef\xbb\xbfTitle\n" in data
    assert (b"diff --git a/new_dir/created.py b/new_dir/created.py\nnew file mode 100644\n"
            b"--- /dev/null\n+++ b/new_dir/created.py\n@@ -0,0 +1 @@\n+CREATED = True\n") in data
    assert data.endswith(b"diff --git a/pkg/__init__.py b/pkg/__init__.py\nnew file mode 100644\n")  # empty: no hunk
    assert b"diff --git a/u16.txt b/u16.txt\nindex " in data and b"GIT binary patch\nliteral " in data


def test_dry_run_writes_the_same_patch_and_no_project_file(tmp_path: Path, original: Path) -> None:
    _, applied_patch, _ = apply_with_patch(tmp_path, original, "applied")
    project, patch, result = apply_with_patch(tmp_path, original, "dry", "--dry-run")
    assert result.exit_code == 0, result.output
    assert files(project) == files(original)
    assert patch.read_bytes() == applied_patch.read_bytes()
    assert files(git_apply(original, patch, tmp_path / "by-git")) == files(tmp_path / "applied")


def test_json_names_the_patch_in_its_notes(tmp_path: Path, original: Path) -> None:
    _, patch, result = apply_with_patch(tmp_path, original, "dry", "--dry-run", "--json")
    data = json.loads(result.stdout)
    assert data["notes"] == [f"wrote the patch of 10 files to {patch}"] and data["dry_run"] is True


def test_a_run_that_changes_nothing_leaves_an_empty_patch(tmp_path: Path, original: Path) -> None:
    project = copy_of(original, tmp_path / "project")
    patch = tmp_path / "change.patch"
    patch.write_bytes(b"an earlier run's patch\n")
    response = tmp_path / "answer.md"
    response.write_text(diff_edit("lf.py", ("missing\n", "x\n")), encoding="utf-8")
    result = run("apply", str(response), "--root", str(project), "--patch", str(patch))
    assert result.exit_code == 1 and "wrote the patch of 0 files" in result.output
    assert patch.read_bytes() == b""


@pytest.mark.parametrize("as_json", [False, True])
def test_a_patch_path_in_a_missing_folder_is_refused_before_anything_is_written(
        tmp_path: Path, original: Path, as_json: bool) -> None:
    """Exit 2 promises nothing was written: the patch path is checked before any project file changes."""
    project = copy_of(original, tmp_path / "project")
    response = tmp_path / "answer.md"
    response.write_text(ANSWER, encoding="utf-8")
    patch = tmp_path / "no-such-folder" / "change.patch"
    result = run("apply", str(response), "--root", str(project), "--patch", str(patch), *(["--json"] * as_json))
    assert result.exit_code == 2
    assert files(project) == files(original)
    assert "does not exist" in (result.stdout if as_json else result.output)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_patch_that_fails_after_the_run_still_reports_the_written_run(
        tmp_path: Path, original: Path, as_json: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project files are already written: the results are printed, the failure named, exit 1 (never 2)."""
    project = copy_of(original, tmp_path / "project")
    response = tmp_path / "answer.md"
    response.write_text(ANSWER, encoding="utf-8")
    patch = tmp_path / "change.patch"
    real_write = cli.write_report

    def failing_write(path: str, content: str | bytes) -> None:
        if path == str(patch):
            raise OSError(28, "No space left on device")
        real_write(path, content)

    monkeypatch.setattr(cli, "write_report", failing_write)
    result = run("apply", str(response), "--root", str(project), "--patch", str(patch), *(["--json"] * as_json))
    assert result.exit_code == 1
    assert files(project) != files(original)
    message = f"cannot write the patch to {str(patch)!r}: No space left on device"
    if as_json:
        data = json.loads(result.stdout)
        assert data["written"] is True and message in data["notes"]
    else:
        assert message in result.output and "Summary: 10 applied" in result.output


def test_write_report_replaces_the_file_atomically(tmp_path: Path) -> None:
    target = tmp_path / "change.patch"
    target.write_bytes(b"old patch\n")
    target.chmod(0o640)
    with target.open("rb") as reader:  # a reader that opened the old file keeps reading all of it
        write_report(str(target), b"new patch\n")
        assert reader.read() == b"old patch\n"
    assert target.read_bytes() == b"new patch\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["change.patch"]


def test_write_report_fails_cleanly(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_report(str(tmp_path / "missing" / "x.patch"), b"data")
    (tmp_path / "folder.patch").mkdir()
    with pytest.raises(IsADirectoryError):
        write_report(str(tmp_path / "folder.patch"), b"data")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder.patch"]


ODD_NAMES = ("with space.txt", 'quote"d.txt', "naïve.txt", " leading space.txt", "trailing space.txt ")


def test_awkward_file_names_survive_git_apply(tmp_path: Path) -> None:
    """Names the parser never yields but the library accepts: git's C quoting where git needs it."""
    original = tmp_path / "original"
    make_tree(original, {name: b"1\n" for name in ODD_NAMES})
    blocks = [EditBlock(name, "", "1\n", "2\n", "", BlockKind.EDIT, Format.DIFF, line)
              for line, name in enumerate(ODD_NAMES, start=1)]
    blocks.append(EditBlock("new folder/a b.txt", "", "", "new\n", "", BlockKind.CREATE, Format.DIFF, 99))
    project = copy_of(original, tmp_path / "project")
    result = apply(blocks, project)
    assert result.ok and result.written
    patch = tmp_path / "change.patch"
    write_report(str(patch), git_patch(result.diffs))
    assert b'diff --git "a/quote\\"d.txt" "b/quote\\"d.txt"\n' in patch.read_bytes()
    assert b'--- "a/trailing space.txt "\n' in patch.read_bytes()
    assert files(git_apply(original, patch, tmp_path / "by-git")) == files(project)


def test_a_diff_without_its_texts_is_refused() -> None:
    """A hand-made `FileDiff` lacks the original text: no patch is guessed from it."""
    with pytest.raises(ValueError, match="no original text"):
        git_patch([FileDiff("a.py", False, "--- a/a.py\n+++ b/a.py\n")])
