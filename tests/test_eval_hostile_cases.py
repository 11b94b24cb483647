"""Cases are data (issue 22): a symlink or a special file in a case is refused with a reason, and nothing blocks.

A corpus or a saved run can come from someone else. A symlink in `before/` or `after/` made `eval` read a file
from elsewhere and print it in its diff and its JSON; a symlinked answer in a saved run was copied into the new
case; a named pipe made `eval` wait forever. Each such case is now an `error` verdict naming the file and why,
and the other cases still run. The tests that would hang on a blocking read run `eval` in a subprocess with a
timeout, so the suite cannot hang.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.eval.evaluate import Verdict, evaluate_cases, find_cases

SECRET = "SECRET-a41b: a private file outside the corpus\n"
EVAL_TIMEOUT_SECONDS = 20
EDITBLOCKS = [sys.executable, "-m", "editblocks"]


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def write_case(folder: Path, before: dict[str, str], after: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    (folder / "response.md").write_text(block("m.py", "x = 1\n", "x = 2\n"), encoding="utf-8")
    for side, files in (("before", before), ("after", after)):
        for path, text in files.items():
            (folder / side / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / side / path).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text(SECRET, encoding="utf-8")
    (outside / "m.py").write_text(SECRET, encoding="utf-8")
    return outside


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A corpus holding one good case, beside which each test plants a hostile one."""
    root = tmp_path / "corpus"
    write_case(root / "good", {"m.py": "x = 1\n"}, {"m.py": "x = 2\n"})
    return root


def plain_case(corpus: Path) -> Path:
    return write_case(corpus / "hostile", {"m.py": "x = 1\n", "notes.txt": "notes\n"},
                      {"m.py": "x = 2\n", "notes.txt": "notes\n"})


# Where a link is planted in the case, and what the link points to (an outside file or folder).
LINKS = {
    "before/notes.txt": "notes.txt",
    "after/notes.txt": "notes.txt",
    "response.md": "notes.txt",
    "case.json": "notes.txt",
    "before": ".",
    "after": ".",
}


@pytest.mark.parametrize("planted", sorted(LINKS))
def test_a_symlink_anywhere_in_a_case_is_an_error_that_shows_nothing_of_its_target(
        corpus: Path, secret: Path, planted: str) -> None:
    case = plain_case(corpus)
    place = case / planted
    if place.is_dir():
        for child in sorted(place.rglob("*"), reverse=True):
            child.unlink() if child.is_file() else child.rmdir()
        place.rmdir()
    else:
        place.unlink(missing_ok=True)
    place.symlink_to(secret / LINKS[planted])

    result = CliRunner().invoke(main, ["eval", "--json", str(corpus)])
    assert SECRET.strip() not in result.output
    cases = {case["name"]: case for case in json.loads(result.output)["cases"]}
    assert cases["good"]["verdict"] == "correct"  # the run went on with the other cases
    hostile = cases["hostile"]
    assert hostile["verdict"] == "error", hostile
    assert f"`{planted}` is a symlink" in hostile["detail"] and hostile["difference"] == []


def test_a_symlinked_calls_file_is_an_error(corpus: Path, secret: Path) -> None:
    case = write_case(corpus / "hostile", {"m.py": "x = 1\n"}, {"m.py": "x = 1\n"})
    (case / "response.md").unlink()
    (secret / "calls.json").write_text('[{"tool": "undo", "input": {}}]', encoding="utf-8")
    (case / "calls.json").symlink_to(secret / "calls.json")
    outcomes = {outcome.name: outcome for outcome in evaluate_cases([corpus]).outcomes}
    assert outcomes["hostile"].verdict is Verdict.ERROR
    assert "`calls.json` is a symlink" in outcomes["hostile"].detail
    assert outcomes["good"].verdict is Verdict.CORRECT


def make_fifo(place: Path) -> None:
    os.mkfifo(place)


def make_socket(place: Path) -> None:
    here = os.getcwd()
    os.chdir(place.parent)  # a socket's path is limited to about 100 bytes; its name alone is short
    try:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(place.name)
        listener.close()
    finally:
        os.chdir(here)


SPECIAL = [("before/notes.txt", make_fifo, "a named pipe (FIFO)"), ("after/notes.txt", make_fifo, "a named pipe"),
           ("response.md", make_fifo, "a named pipe"), ("case.json", make_fifo, "a named pipe"),
           ("before/notes.txt", make_socket, "a socket"), ("response.md", make_socket, "a socket")]


@pytest.mark.parametrize(("planted", "make", "what"), SPECIAL)
def test_a_special_file_in_a_case_is_an_error_and_eval_never_blocks(
        corpus: Path, planted: str, make: Callable[[Path], None], what: str) -> None:
    case = plain_case(corpus)
    (case / planted).unlink(missing_ok=True)
    make(case / planted)
    try:
        done = subprocess.run([*EDITBLOCKS, "eval", "--json", str(corpus)], capture_output=True, text=True,
                              timeout=EVAL_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"eval was still waiting on the {what} at {planted} after {EVAL_TIMEOUT_SECONDS} s")
    cases = {case["name"]: case for case in json.loads(done.stdout)["cases"]}
    assert cases["good"]["verdict"] == "correct"
    assert cases["hostile"]["verdict"] == "error"
    assert f"`{planted}` is {what}" in cases["hostile"]["detail"]


def test_a_device_is_named_as_one() -> None:
    from editblocks.eval.case_files import describe_kind

    assert describe_kind(os.stat("/dev/null").st_mode) == "a device"
    assert describe_kind(stat.S_IFIFO) == "a named pipe (FIFO)"


def test_linked_folders_in_a_corpus_are_not_followed(corpus: Path, secret: Path) -> None:
    """Two links to the corpus itself made the search for cases branch at every level (2^40 paths)."""
    (corpus / "again").symlink_to(".")
    (corpus / "once-more").symlink_to(".")
    write_case(secret / "elsewhere", {"m.py": "x = 1\n"}, {"m.py": "x = 1\n"})
    (corpus / "theirs").symlink_to(secret)
    try:
        done = subprocess.run([*EDITBLOCKS, "eval", "--json", str(corpus)], capture_output=True, text=True,
                              timeout=EVAL_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"eval was still looking for cases after {EVAL_TIMEOUT_SECONDS} s")
    assert [case["name"] for case in json.loads(done.stdout)["cases"]] == ["good"]
    assert [name for _, name in find_cases([corpus])] == ["good"]


# --- eval --from-run ------------------------------------------------------------------------------------


@pytest.fixture
def saved_run(tmp_path: Path) -> Path:
    """A run folder as `ask` saves it: one round's answer and files, and the run's own record."""
    run = tmp_path / "project" / ".editblocks" / "runs" / "20260101T120000.000001Z"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"instruction": "bump x", "format": "auto"}), encoding="utf-8")
    (run / "round-1.answer.md").write_text(block("m.py", "x = 1\n", "x = 2\n"), encoding="utf-8")
    (run / "round-1.files.json").write_text(json.dumps({"m.py": {"before": "x = 1\n", "after": "x = 2\n"}}),
                                            encoding="utf-8")
    return run


def test_a_saved_run_still_becomes_a_case(saved_run: Path, tmp_path: Path) -> None:
    made = CliRunner().invoke(main, ["eval", "--from-run", str(saved_run), "--out", str(tmp_path / "case")])
    assert made.exit_code == 0, made.output
    assert (tmp_path / "case" / "after" / "m.py").read_text() == "x = 2\n"


@pytest.mark.parametrize("planted", ["round-1.answer.md", "round-1.files.json", "run.json"])
def test_a_symlinked_run_file_is_refused_in_one_line(saved_run: Path, secret: Path, tmp_path: Path,
                                                     planted: str) -> None:
    if planted == "round-1.files.json":
        (secret / "notes.txt").write_text(json.dumps({"m.py": {"before": SECRET, "after": SECRET}}))
    (saved_run / planted).unlink()
    (saved_run / planted).symlink_to(secret / "notes.txt")
    made = CliRunner().invoke(main, ["eval", "--from-run", str(saved_run), "--out", str(tmp_path / "case")])
    assert made.exit_code == 2, made.output
    lines = made.output.strip().splitlines()
    assert len(lines) == 1 and f"`{planted}` is a symlink" in lines[0]
    assert not (tmp_path / "case").exists()


@pytest.mark.parametrize("planted", ["round-1.answer.md", "run.json"])
def test_a_special_run_file_is_refused_without_waiting(saved_run: Path, tmp_path: Path, planted: str) -> None:
    (saved_run / planted).unlink()
    os.mkfifo(saved_run / planted)
    try:
        done = subprocess.run([*EDITBLOCKS, "eval", "--from-run", str(saved_run), "--out", str(tmp_path / "case")],
                              capture_output=True, text=True, timeout=EVAL_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"eval --from-run was still waiting on the named pipe {planted} after {EVAL_TIMEOUT_SECONDS} s")
    assert done.returncode == 2 and f"`{planted}` is a named pipe" in done.stderr
    assert not (tmp_path / "case").exists()


@pytest.mark.parametrize(("planted", "content"), [("round-1.files.json", "[\"m.py\"]"), ("run.json", "[]"),
                                                  ("round-1.files.json", '{"m.py": {"before": 1}}')])
def test_a_run_file_of_the_wrong_shape_is_refused_in_one_line(saved_run: Path, tmp_path: Path, planted: str,
                                                              content: str) -> None:
    (saved_run / planted).write_text(content, encoding="utf-8")
    made = CliRunner().invoke(main, ["eval", "--from-run", str(saved_run), "--out", str(tmp_path / "case")])
    assert made.exit_code == 2, made.output
    assert len(made.output.strip().splitlines()) == 1 and "not in the shape" in made.output
