"""What a terminal user gets beside the commands: `--version`, shell completion, and colour that `NO_COLOR`
turns off in every output (and `FORCE_COLOR` turns on where the output is not a terminal).

Commands run as a user runs them: the installed `editblocks` script, in a pseudo-terminal where a terminal
is the point.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from ask_server import Answer, scripted

REPO = Path(__file__).resolve().parent.parent
EDITBLOCKS = str(Path(sys.executable).parent / "editblocks")
_SGR = re.compile(r"\x1b\[([0-9;]*)m")
MISQUOTED = (REPO / "examples" / "misquoted.md").read_text(encoding="utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    return tmp_path


def colours(output: str) -> set[str]:
    """The colour codes among the output's SGR sequences (bold, dim and resets are not colour)."""
    found = set()
    for sequence in _SGR.findall(output):
        codes = [int(code) for code in sequence.split(";") if code]
        for position, code in enumerate(codes):
            if code in (38, 48) or 30 <= code <= 37 or 40 <= code <= 47 or 90 <= code <= 97 or 100 <= code <= 107:
                if position == 0 or codes[position - 1] not in (38, 48):  # not the 5 of "38;5;N"
                    found.add(str(code))
    return found


def in_terminal(args: list[str], cwd: Path, **env: str) -> str:
    """Run ``editblocks ARGS`` with a pseudo-terminal as standard input, output and error; all it wrote."""
    controller, terminal = os.openpty()
    environment = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40", **env}
    for name in ("NO_COLOR", "FORCE_COLOR"):
        if name not in env:
            environment.pop(name, None)
    process = subprocess.Popen([EDITBLOCKS, *args], cwd=cwd, env=environment, stdin=terminal, stdout=terminal,
                               stderr=terminal, close_fds=True)
    os.close(terminal)
    output = b""
    while True:
        try:
            piece = os.read(controller, 65536)
        except OSError as error:  # EIO: the other side is closed
            assert error.errno == errno.EIO
            break
        if not piece:
            break
        output += piece
    os.close(controller)
    process.wait(timeout=120)
    return output.decode("utf-8", "replace")


TERMINAL_RUNS = {
    "apply --diff": ["apply", "examples/response.md", "--root", "examples/project", "--dry-run", "--diff"],
    "a failed block's hint": ["apply", "examples/misquoted.md", "--root", "examples/project", "--dry-run"],
    "parse": ["parse", "examples/response.md"],
    "check": ["check", "examples/response.md", "--root", "examples/project"],
    "formats": ["formats"],
}


@pytest.mark.parametrize("args", TERMINAL_RUNS.values(), ids=TERMINAL_RUNS.keys())
def test_no_color_leaves_no_colour_in_a_terminal(project: Path, args: list[str]) -> None:
    coloured = in_terminal(args, project)
    assert colours(coloured), "the command colours its output in a terminal"
    plain = in_terminal(args, project, NO_COLOR="1")
    assert not colours(plain)
    assert _SGR.sub("", plain) == _SGR.sub("", coloured)  # the same text, only uncoloured


def test_no_color_keeps_a_changed_word_set_apart_by_weight(project: Path) -> None:
    (project / "rename.md").write_text("inventory.py\n<<<<<<< SEARCH\n    item.quantity += amount\n=======\n"
                                       "    item.quantity += count\n>>>>>>> REPLACE\n")
    plain = in_terminal(["apply", "rename.md", "--root", "examples/project", "--dry-run", "--diff"], project,
                        NO_COLOR="1")
    assert "-    item.quantity += \x1b[1mam\x1b[0mount" in plain  # the changed characters, in bold
    assert "+    item.quantity += \x1b[1mc\x1b[0mount" in plain
    assert not colours(plain)


def test_no_color_reaches_undo(project: Path) -> None:
    subprocess.run([EDITBLOCKS, "apply", "examples/response.md", "--root", "examples/project"], cwd=project,
                   check=True, capture_output=True)
    plain = in_terminal(["undo", "--root", "examples/project"], project, NO_COLOR="1")
    assert "restored inventory.py" in plain and not colours(plain)


def test_no_color_reaches_the_eval_progress_bar(project: Path) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "cases").symlink_to(REPO / "tests" / "cases")
    coloured = in_terminal(["eval", "tests/cases", "--jobs", "1"], project)
    plain = in_terminal(["eval", "tests/cases", "--jobs", "1"], project, NO_COLOR="1")
    assert colours(coloured) and not colours(plain)


def test_no_color_reaches_the_live_view_of_ask(project: Path) -> None:
    answer = MISQUOTED.replace("\ninventory.py\n", "\nexamples/project/inventory.py\n")
    args = ["ask", "Skip items without a price", "examples/project/inventory.py", "--model", "m", "--dry-run"]
    with scripted([Answer(answer), Answer(answer), Answer(answer), Answer(answer)]) as model:
        endpoint = {"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "test-key", "NO_PROXY": "127.0.0.1"}
        coloured = in_terminal([*args, "--retries", "0"], project, **endpoint)
        plain = in_terminal([*args, "--retries", "0"], project, NO_COLOR="1", **endpoint)
    assert "the old text was not found" in plain
    assert colours(coloured) and not colours(plain)


def test_output_that_is_not_a_terminal_is_never_coloured_unless_forced(project: Path) -> None:
    args = [EDITBLOCKS, *TERMINAL_RUNS["apply --diff"]]
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    piped = subprocess.run(args, cwd=project, env=environment, capture_output=True, text=True)
    forced = subprocess.run(args, cwd=project, env={**environment, "FORCE_COLOR": "1"}, capture_output=True, text=True)
    both = subprocess.run(args, cwd=project, env={**environment, "FORCE_COLOR": "1", "NO_COLOR": "1"},
                          capture_output=True, text=True)
    assert "\x1b" not in piped.stdout
    assert colours(forced.stdout)
    assert not colours(both.stdout)


def test_no_color_leaves_the_html_report_as_it_is(project: Path) -> None:
    """NO_COLOR is about what is written to a terminal; the report is a page to look at in a browser."""
    for name, extra in (("plain.html", {"NO_COLOR": "1"}), ("coloured.html", {})):
        environment = {**{k: v for k, v in os.environ.items() if k != "NO_COLOR"}, **extra}
        subprocess.run([EDITBLOCKS, *TERMINAL_RUNS["apply --diff"], "--html", name], cwd=project, env=environment,
                       check=True, capture_output=True)
    assert (project / "plain.html").read_text() == (project / "coloured.html").read_text()
    assert "color: #008000" in (project / "plain.html").read_text()


def test_version() -> None:
    done = subprocess.run([EDITBLOCKS, "--version"], capture_output=True, text=True, check=True)
    assert done.stdout == f"editblocks, version {metadata.version('editblocks')}\n"


def completions(words: list[str]) -> list[str]:
    """What bash offers after ``words`` (the last one being typed), through the documented completion script."""
    script = (f'eval "$(_EDITBLOCKS_COMPLETE=bash_source {EDITBLOCKS})"\n'
              f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}\n"
              f'_editblocks_completion {EDITBLOCKS}\nprintf "%s\\n" "${{COMPREPLY[@]}}"\n')
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_bash_completes_commands_and_options() -> None:
    assert completions(["editblocks", "ap"]) == ["apply"]
    assert set(completions(["editblocks", ""])) >= {"apply", "ask", "check", "serve", "undo"}
    assert completions(["editblocks", "apply", "x.md", "--dry"]) == ["--dry-run"]
    assert "--on-failure" in completions(["editblocks", "apply", "x.md", "--on"])


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_other_shells_get_a_completion_script(shell: str) -> None:
    done = subprocess.run([EDITBLOCKS], env={**os.environ, "_EDITBLOCKS_COMPLETE": f"{shell}_source"},
                          capture_output=True, text=True)
    assert done.returncode == 0 and f"_EDITBLOCKS_COMPLETE={shell}_complete" in done.stdout
