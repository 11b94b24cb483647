"""What a new user hit first on the command line (issue 10), each fixed and kept fixed.

- a report file (`--feedback`, `--html`) that cannot be written is refused
  before any project file changes; one that fails after the run never hides
  the results; reports are replaced atomically;
- re-running an answer that is already applied exits 0; a no-op block is
  reported once; `parse`, `check` and `apply` agree on an answer with no blocks;
- answers saved as UTF-16 or UTF-32 (with a byte-order mark) are read;
- a bad `--root` is one line; every exit-2 error under `--json` is a JSON object;
- `eval` on a large corpus lists only its failures, never wraps a case name,
  shows progress in a log, and uses every CPU;
- no help text points at a document that does not ship.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from test_json_schema import assert_conforms

from editblocks.cli import COMMANDS, main
from editblocks.cli import apply as cli
from editblocks.cli import eval as cli_eval
from editblocks.cli.reports import write_report
from editblocks.eval import evaluate
from editblocks.workspace import Workspace

from helpers_apply import diff_edit, make_tree, tree_state

PROJECT = {"a.py": "x = 1\ny = 2\n", "b.py": "z = 3\n"}
APPLIES = diff_edit("a.py", ("x = 1\n", "x = 10\n"))
HALF_FAILS = APPLIES + diff_edit("b.py", ("nowhere\n", "q\n"))
NO_OP = diff_edit("a.py", ("y = 2\n", "y = 2\n"))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    make_tree(root, PROJECT)
    return root


def answer(tmp_path: Path, text: str | bytes, name: str = "answer.md") -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


# --- report files ------------------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--feedback", "--html"])
@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_a_report_in_a_missing_folder_is_refused_before_any_file_changes(
    tmp_path: Path, project: Path, option: str, json_flag: list[str]
) -> None:
    before = tree_state(project)
    result = run("apply", answer(tmp_path, HALF_FAILS), "--root", str(project), option,
                 str(tmp_path / "missing" / "report"), *json_flag)
    assert result.exit_code == 2
    assert tree_state(project) == before, "exit 2 must mean nothing was written"
    [line] = result.stderr.splitlines()
    assert "missing" in line and "does not exist" in line
    if json_flag:
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "unwritable-report" and "does not exist" in error["message"]
    else:
        assert result.stdout == ""


@pytest.mark.parametrize("option", ["--feedback", "--html"])
def test_a_report_path_that_is_a_folder_is_refused_in_one_line(tmp_path: Path, project: Path, option: str) -> None:
    before = tree_state(project)
    result = run("apply", answer(tmp_path, HALF_FAILS), "--root", str(project), option, str(tmp_path))
    assert result.exit_code == 2 and tree_state(project) == before
    assert result.output.strip().splitlines() == [f"Error: cannot write the {'feedback' if option == '--feedback' else 'HTML report'} "
                                                  f"to {str(tmp_path)!r}: it is a folder"]


def failing_write(path: str, text: str) -> None:
    raise OSError(28, "No space left on device")


def test_a_report_failing_after_the_run_still_shows_the_results(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "write_report", failing_write)
    result = run("apply", answer(tmp_path, HALF_FAILS), "--root", str(project), "--feedback", str(tmp_path / "fb.md"))
    assert result.exit_code == 1
    assert (project / "a.py").read_text() == "x = 10\ny = 2\n"
    assert "✓ applied a.py" in result.stdout and "Summary: 1 applied, 1 failed" in result.stdout
    assert "cannot write the feedback to" in result.stdout and "No space left on device" in result.stdout


def test_a_report_failing_after_the_run_still_prints_the_json(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "write_report", failing_write)
    result = run("apply", answer(tmp_path, APPLIES), "--root", str(project), "--html", str(tmp_path / "r.html"),
                 "--json")
    assert result.exit_code == 1, "every block applied, but the report the user asked for is missing"
    data = json.loads(result.stdout)
    assert data["written"] is True and data["files_modified"] == ["a.py"]
    assert any("cannot write the HTML report" in note for note in data["notes"])
    assert "cannot write the HTML report" in result.stderr


def test_the_feedback_file_is_replaced_whole_never_rewritten_in_place(tmp_path: Path, project: Path) -> None:
    """A reader that opened the old feedback keeps reading all of it; the new one arrives by one rename."""
    feedback = tmp_path / "feedback.md"
    feedback.write_text("the old feedback\n")
    feedback.chmod(0o640)
    with feedback.open() as reader:
        result = run("apply", answer(tmp_path, HALF_FAILS), "--root", str(project), "--feedback", str(feedback))
        assert result.exit_code == 1
        assert reader.read() == "the old feedback\n"
    assert "did not apply" in feedback.read_text()
    assert oct(feedback.stat().st_mode & 0o777) == oct(0o640)
    assert sorted(os.listdir(tmp_path)) == ["answer.md", "feedback.md", "project"], "a temporary file was left"


def test_write_report_follows_a_link_and_keeps_it(tmp_path: Path) -> None:
    (tmp_path / "real.html").write_text("old")
    (tmp_path / "link.html").symlink_to("real.html")
    write_report(str(tmp_path / "link.html"), "new")
    assert (tmp_path / "link.html").is_symlink() and (tmp_path / "real.html").read_text() == "new"


# --- exit statuses -------------------------------------------------------------------------------------


def test_re_applying_an_applied_answer_exits_0(tmp_path: Path, project: Path) -> None:
    response = answer(tmp_path, APPLIES)
    assert run("apply", response, "--root", str(project)).exit_code == 0
    again = run("apply", response, "--root", str(project))
    assert again.exit_code == 0, again.output
    assert "already applied" in again.stdout and "(1 already applied)" in again.stdout
    assert run("check", response, "--root", str(project)).exit_code == 0
    data = json.loads(run("apply", response, "--root", str(project), "--json").stdout)
    assert [r["status"] for r in data["results"]] == ["skipped"] and data["written"] is False


def test_an_answer_partly_applied_before_finishes_with_exit_0(tmp_path: Path, project: Path) -> None:
    run("apply", answer(tmp_path, APPLIES), "--root", str(project))
    both = run("apply", answer(tmp_path, APPLIES + diff_edit("b.py", ("z = 3\n", "z = 30\n")), "both.md"),
               "--root", str(project))
    assert both.exit_code == 0, both.output
    assert (project / "b.py").read_text() == "z = 30\n"


def test_a_no_op_block_still_exits_1(tmp_path: Path, project: Path) -> None:
    assert run("apply", answer(tmp_path, NO_OP), "--root", str(project)).exit_code == 1


@pytest.mark.parametrize("command", ["apply", "check"])
def test_a_no_op_block_is_reported_once(tmp_path: Path, project: Path, command: str) -> None:
    result = run(command, answer(tmp_path, NO_OP), "--root", str(project))
    assert result.stdout.count("identical") == 1, result.stdout
    data = json.loads(run(command, answer(tmp_path, NO_OP), "--root", str(project), "--json").stdout)
    assert [r["status"] for r in data["results"]] == ["skipped"] and "identical" in data["results"][0]["reason"]
    assert data["diagnostics"] == []


def test_a_no_op_block_that_is_not_found_keeps_the_warning(tmp_path: Path, project: Path) -> None:
    data = json.loads(run("apply", answer(tmp_path, diff_edit("a.py", ("gone\n", "gone\n"))), "--root", str(project),
                          "--json").stdout)
    assert data["results"][0]["status"] == "failed"
    assert [d["message"] for d in data["diagnostics"]] == ["block at line 3 changes nothing (its old and new text are "
                                                           "identical)"]


@pytest.mark.parametrize("text", ["", "Just prose, no edits.\n", "```bash\ngit rm old.py\n```\n"],
                         ids=["empty", "prose", "shell-only"])
def test_parse_check_and_apply_agree_that_no_blocks_is_exit_1(tmp_path: Path, project: Path, text: str) -> None:
    response = answer(tmp_path, text)
    codes = {command: run(command, response, *(["--root", str(project)] if command != "parse" else [])).exit_code
             for command in ("parse", "check", "apply")}
    assert codes == {"parse": 1, "check": 1, "apply": 1}
    assert "no edit blocks found" in run("parse", response).stdout
    assert run("parse", response, "--json").exit_code == 1



@pytest.mark.parametrize("command", ["parse", "check", "apply"])
def test_an_answer_with_no_block_names_the_formats_looked_for(tmp_path: Path, project: Path, command: str) -> None:
    response = answer(tmp_path, "Sure! I changed the port to 8080 for you.\n")
    root = ["--root", str(project)] if command != "parse" else []
    searched = run(command, response, *root).stdout
    assert "no edit blocks found" in searched
    assert "looked for every format (diff, diff-fenced," in searched and "udiff, whole)" in searched
    assert "`editblocks formats` shows each" in searched
    one_format = run(command, response, *root, "--format", "udiff").stdout
    assert "no edit blocks found in the udiff format" in one_format
    assert "--format auto tries every format" in one_format

# --- reading answers in wide encodings ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codec", "bom"),
    [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE), ("utf-32-le", codecs.BOM_UTF32_LE),
     ("utf-32-be", codecs.BOM_UTF32_BE), ("utf-8", codecs.BOM_UTF8)],
)
def test_an_answer_with_a_byte_order_mark_is_read(tmp_path: Path, project: Path, codec: str, bom: bytes) -> None:
    """What `model.exe > answer.md` writes in Windows PowerShell: UTF-16 with a BOM, CRLF line ends."""
    response = answer(tmp_path, bom + ("Here it is:\r\n" + APPLIES.replace("\n", "\r\n")).encode(codec))
    parsed = run("parse", response, "--json")
    assert parsed.exit_code == 0, parsed.output
    assert [block["path"] for block in json.loads(parsed.stdout)["blocks"]] == ["a.py"]
    assert run("apply", response, "--root", str(project)).exit_code == 0
    assert (project / "a.py").read_text() == "x = 10\ny = 2\n"


def test_utf16_without_a_byte_order_mark_is_named(tmp_path: Path) -> None:
    result = run("parse", answer(tmp_path, APPLIES.encode("utf-16-le")))
    assert result.exit_code == 2 and "UTF-16 without a byte-order mark" in result.stderr


@pytest.mark.parametrize(("data", "words"), [
    (codecs.BOM_UTF16_LE + "a\x00b".encode("utf-16-le"), "looks binary (NUL character"),
    (codecs.BOM_UTF16_LE + b"a\x00\x00\xd8", "not valid UTF-16"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks binary (NUL byte at offset 8)"),
])
def test_binary_and_broken_wide_text_are_refused(tmp_path: Path, data: bytes, words: str) -> None:
    result = run("parse", answer(tmp_path, data))
    assert result.exit_code == 2 and words in result.stderr


# --- one-line usage errors, JSON errors -------------------------------------------------------------------


@pytest.mark.parametrize("command", ["apply", "check", "undo"])
@pytest.mark.parametrize("where", ["file", "missing"])
def test_a_bad_root_is_one_line(tmp_path: Path, command: str, where: str) -> None:
    response = answer(tmp_path, APPLIES)
    root = response if where == "file" else str(tmp_path / "missing")
    result = run(command, *([response] if command != "undo" else []), "--root", root)
    assert result.exit_code == 2
    assert result.output.splitlines() == [f"Error: --root {root!r} " + ("is not a folder" if where == "file"
                                                                       else "does not exist")]


@pytest.fixture
def lock_held(project: Path) -> Iterator[None]:
    """Another process holds the workspace lock of ``project`` until the test ends."""
    holder = textwrap.dedent("""
        import sys
        from editblocks.workspace import Workspace
        with Workspace(sys.argv[1]).lock():
            print("locked", flush=True)
            sys.stdin.read()
    """)
    with subprocess.Popen([sys.executable, "-c", holder, str(project)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as process:
        assert process.stdout is not None and process.stdout.readline() == "locked\n"
        yield
        process.kill()


def test_a_busy_workspace_under_json_is_a_json_error(
    tmp_path: Path, project: Path, lock_held: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the commands wait 0.1 s for the lock, not the 30 s a user gets
    held_lock = Workspace.lock
    monkeypatch.setattr(Workspace, "lock", lambda self, *, wait: held_lock(self, wait=min(wait, 0.1)))
    before = tree_state(project)
    result = run("apply", answer(tmp_path, APPLIES), "--root", str(project), "--json")
    assert result.exit_code == 2
    error = json.loads(result.stdout)["error"]
    assert error["code"] == "workspace-busy" and "busy" in error["message"]
    assert tree_state(project) == before
    undo = run("undo", "--root", str(project), "--json")
    assert undo.exit_code == 2 and json.loads(undo.stdout)["error"]["code"] == "workspace-busy"


@pytest.mark.parametrize(("args", "code"), [
    (["parse", "{missing}", "--json"], "bad-input"),
    (["apply", "{binary}", "--root", "{root}", "--json"], "bad-input"),
    (["apply", "{answer}", "--root", "{missing}", "--json"], "usage"),
    (["check", "{answer}", "--no-such-option", "--json"], "usage"),
    (["eval", "{root}", "--json"], "bad-input"),
])
def test_every_exit_2_under_json_prints_a_json_error(tmp_path: Path, project: Path, args: list[str], code: str) -> None:
    names = {"missing": str(tmp_path / "missing.md"), "binary": answer(tmp_path, b"\x00\x01", "bin.md"),
             "root": str(project), "answer": answer(tmp_path, APPLIES)}
    result = run(*(arg.format(**names) for arg in args))
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert set(data) == {"schema_version", "error"} and set(data["error"]) == {"code", "message"}
    assert_conforms("error", data)
    assert data["error"]["code"] == code and data["error"]["message"] in result.stderr


# --- eval on big corpora ------------------------------------------------------------------------------------


def write_cases(top: Path, names: list[str], failing: tuple[str, ...] = ()) -> None:
    for name in names:
        case = top / name
        make_tree(case / "before", {"m.py": "x = 1\n"})
        make_tree(case / "after", {"m.py": "x = 1\n" if name in failing else "x = 2\n"})
        (case / "response.md").write_text(diff_edit("m.py", ("x = 1\n", "x = 2\n")))


LONG_NAME = "a-case-whose-name-is-much-longer-than-eighty-columns-so-a-table-would-fold-it-in-the-middle-of-a-word"


def test_eval_lists_only_failures_above_the_threshold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli_eval.FAILURES_ONLY_ABOVE == 200  # the documented default; three cases stand in for 201 below
    write_cases(tmp_path, ["ok-1", "ok-2", "broken"], failing=("broken",))
    monkeypatch.setattr(cli_eval, "FAILURES_ONLY_ABOVE", 2)
    result = run("eval", str(tmp_path))
    assert result.exit_code == 1
    assert "ok-1" not in result.stdout and "wrong broken" in result.stdout
    assert "2 passing cases not listed" in result.stdout and "3 cases: 2 correct, 1 wrong" in result.stdout
    every = run("eval", str(tmp_path), "--all-cases")
    assert "ok-1" in every.stdout and "ok-2" in every.stdout
    few = run("eval", str(tmp_path / "ok-1"), "--failures-only")
    assert few.exit_code == 0 and "ok-1" not in few.stdout and "1 case: 1 correct" in few.stdout


def test_eval_never_wraps_a_case_name(tmp_path: Path) -> None:
    write_cases(tmp_path, [LONG_NAME, "x"], failing=(LONG_NAME,))
    result = CliRunner(env={"COLUMNS": "80"}).invoke(main, ["eval", str(tmp_path), "--all-cases"])
    assert sum(LONG_NAME in line for line in result.stdout.splitlines()) == 2, result.stdout


def test_eval_shows_progress_in_plain_lines_without_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_cases(tmp_path, [f"case-{n:02}" for n in range(20)], failing=("case-03",))
    monkeypatch.setattr(cli_eval, "PARALLEL_THRESHOLD", 5)
    result = run("eval", str(tmp_path), "--json")
    lines = result.stderr.splitlines()
    assert re.fullmatch(r"evaluated 2 of 20 cases, 0 not passing, [\d,]+ cases/s", lines[0])
    assert re.fullmatch(r"evaluated 18 of 20 cases, 1 not passing, [\d,]+ cases/s", lines[-1])
    assert len(lines) == 9
    assert json.loads(result.stdout)["cases_total"] == 20


def test_eval_uses_every_cpu_by_default() -> None:
    assert evaluate.default_jobs() == len(os.sched_getaffinity(0))


# --- help texts ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_names_no_document_that_does_not_ship(command: str) -> None:
    text = run(command, "--help").stdout
    for unshipped in ("SPEC", "docs/", "cli.py", "DESIGN", "CASES.md"):
        assert unshipped not in text
