"""What a person sees and is asked while `editblocks ask` runs, in a terminal and without one.

The views are checked on their own (every way an answer can be cut into chunks) and end to end: the installed
`editblocks` script in a pseudo-terminal where a terminal is the point, `CliRunner` where standard input and
output are not terminals, always against the scripted OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import errno
import io
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pyte
import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner, Result
from rich.console import Console

from editblocks.ask.display import LiveView, PlainView
from editblocks.cli import main
from editblocks.plan import TargetFile
from editblocks.service.live import LiveAnswer, LiveLocator

REPO = Path(__file__).resolve().parent.parent
EDITBLOCKS = str(Path(sys.executable).parent / "editblocks")
EXAMPLE = REPO / "examples"
RESPONSE = (EXAMPLE / "response.md").read_text(encoding="utf-8")
SEEN = """\
round 1: asking m
I'll make `restock` refuse negative amounts, add a report helper in its own
module, and mention it in the README.

inventory.py
```python
✓ inventory.py:17-19  block at line 6  exact
```

```python
report.py
✓ report.py:1-9  block at line 21  create
```

README.md
```markdown
✓ README.md:3  block at line 37  exact
```

To try it: `python -c "import report"`.
"""
NO_ANSWER = "no answer on standard input: nothing written; use --yes to write without asking"

APP = "def greet(name):\n    return 'Hello ' + name\n"
GREETED = "def greet(name):\n    return f'Hello {name}!'\n"
HELPERS = "def shout(text):\n    return text.upper()\n"


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


GREET = block("app.py", "    return 'Hello ' + name\n", "    return f'Hello {name}!'\n")
SHOUT = block("helpers.py", "    return text.upper()\n", "    return text.upper() + '!'\n")
PROSE = "I will use an f-string.\n\n" + GREET + "\nThat is all.\n"


def streamed(view: PlainView, answer: str, size: int) -> None:
    """Feed ``answer`` to ``view`` in chunks of ``size`` characters, as `ask` does, verdicts from the example."""
    files = {path.name: path.read_text(encoding="utf-8") for path in (EXAMPLE / "project").iterdir()}
    live = LiveAnswer(LiveLocator(lambda path: TargetFile(path, files.get(path))))
    view.round_started(1, "asking m")
    for start in range(0, len(answer), size):
        view.chunk(answer[start : start + size], live.feed(answer[start : start + size]))
    view.chunk("", live.close())
    view.stream_ended()


@pytest.mark.parametrize("size", [1, 3, 4, 7, 16, 100, len(RESPONSE)])
def test_every_verdict_prints_at_its_block_and_the_prose_keeps_its_blank_lines(size: int) -> None:
    """However the answer arrives, each verdict comes right after its block (before the closing fence), blank
    lines after fences stay, and the prose is shown where there is no terminal too."""
    out = io.StringIO()
    streamed(PlainView(Console(file=out, width=200, color_system=None)), RESPONSE, size)
    assert out.getvalue() == SEEN


@pytest.mark.parametrize("size", [4, 100, len(RESPONSE)])
def test_the_terminal_view_leaves_the_same_on_the_screen_with_the_fence_lines_dimmed(size: int) -> None:
    out = io.StringIO()
    streamed(LiveView(Console(file=out, width=200, force_terminal=True, color_system="standard")), RESPONSE, size)
    printed = out.getvalue()
    for fence in ("```python", "```markdown", "```"):
        assert f"\x1b[2m{fence}\x1b[0m\n" in printed  # dim
    assert "\x1b[2mmodule, and mention" not in printed  # the prose is not
    assert on_screen(printed) == SEEN


def on_screen(output: str) -> str:
    """What a terminal shows once ``output`` (line ends as the program wrote them) is written to it: the live
    region redrawn and erased, styles and cursor moves gone."""
    screen = pyte.Screen(200, 500)
    pyte.Stream(screen).feed(output.replace("\r\n", "\n").replace("\n", "\r\n"))
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


# --- the command, without a terminal ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local_endpoint(monkeypatch)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text(APP)
    (root / "helpers.py").write_text(HELPERS)
    monkeypatch.chdir(root)
    return root


def run_ask(base_url: str, *args: str, files: tuple[str, ...] = ("app.py",), input: str | None = None) -> Result:
    command = ["ask", "Make greet friendlier", *files, "--model", "m", "--base-url", base_url, "--api-key-env",
               "TEST_KEY", "--backoff", "0.01", *args]
    return CliRunner().invoke(main, command, input=input)


def test_without_a_terminal_the_models_text_is_shown_plainly(project: Path) -> None:
    with scripted([Answer(PROSE)]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines.index("I will use an f-string.")
    assert lines[start : start + 7] == ["I will use an f-string.", "", "app.py", "```python",
                                        "✓ app.py:2  block at line 5  exact", "```", ""]
    assert "That is all." in lines and "\x1b" not in result.output


def test_standard_input_at_its_end_declines_in_one_line_that_says_so(project: Path) -> None:
    with scripted([Answer(PROSE)]) as server:
        result = run_ask(server.base_url, input="")
    assert result.exit_code == 1
    assert f"Apply these edits? [y]es, [n]o, [d]iff: \n{NO_ANSWER}\n" in result.output
    assert "declined" not in result.output
    assert (project / "app.py").read_text() == APP


def test_with_json_the_missing_answer_is_said_on_stderr_and_in_the_document(project: Path) -> None:
    with scripted([Answer(PROSE)]) as server:
        result = run_ask(server.base_url, "--json", input="")
    document = json.loads(result.stdout)
    assert document["stopped"] == {"code": "no-answer", "message": NO_ANSWER} and document["exit_code"] == 1
    assert NO_ANSWER in result.stderr and document["files_written"] == []


def test_a_file_argument_that_does_not_exist_is_warned_about_before_anything_is_sent(project: Path) -> None:
    with scripted([Answer("Nothing to do.\n")]) as server:
        result = run_ask(server.base_url, "--yes", files=("app.py", "nope.py"))
        quiet = run_ask(server.base_url, "--yes", "--json", files=("nope.py",))
    warning = "warning: no such file: nope.py (sent to the model as a new file to create)"
    assert result.output.splitlines()[0] == warning
    assert warning in quiet.stderr and warning not in quiet.stdout
    assert "nope.py\n(this file does not exist yet)" in server.requests[0]["body"]["messages"][-1]["content"]


def test_two_missing_files_get_one_line(project: Path) -> None:
    with scripted([Answer("Nothing to do.\n")]) as server:
        result = run_ask(server.base_url, "--yes", files=("nope.py", "gone/new.py"))
    assert result.output.splitlines()[0] == ("warning: no such files: nope.py, gone/new.py (sent to the model as new "
                                             "files to create)")


def test_given_files_raise_no_warning(project: Path) -> None:
    with scripted([Answer(PROSE)]) as server:
        result = run_ask(server.base_url, "--yes")
    assert "warning" not in result.output


OUTSIDE = "Both.\n\n" + GREET + "\n" + SHOUT + "\n" + block("made.py", "", "X = 1\n")


def test_files_that_were_not_given_are_not_written_on_a_piped_yes(project: Path) -> None:
    """The model was shown app.py only; helpers.py and made.py were never given. A "y" piped in was typed before
    anyone saw their names: nothing of the round is written."""
    with scripted([Answer(OUTSIDE)]) as server:
        result = run_ask(server.base_url, input="y\n")
    assert result.exit_code == 1, result.output
    assert ("nothing written: these edits also write 2 files you did not give: helpers.py, made.py; such files are "
            "written only after a yes typed at a terminal, or with --yes") in result.output
    assert "Apply these edits?" not in result.output
    assert (project / "app.py").read_text() == APP and (project / "helpers.py").read_text() == HELPERS
    assert not (project / "made.py").exists()


def test_with_yes_files_that_were_not_given_are_written(project: Path) -> None:
    with scripted([Answer(OUTSIDE)]) as server:
        result = run_ask(server.base_url, "--yes")
    assert result.exit_code == 0, result.output
    assert "wrote 3 files: app.py, helpers.py, made.py" in result.output
    assert (project / "made.py").read_text() == "X = 1\n"


def test_a_piped_yes_still_writes_the_given_files(project: Path) -> None:
    with scripted([Answer(PROSE)]) as server:
        result = run_ask(server.base_url, files=("./app.py",), input="y\n")
    assert result.exit_code == 0, result.output
    assert "did not give" not in result.output and (project / "app.py").read_text() == GREETED


def test_tool_calls_on_files_that_were_not_given_are_not_written_on_a_piped_yes(project: Path) -> None:
    call = {"id": "call_1", "name": "str_replace_based_edit_tool",
            "arguments": {"command": "str_replace", "path": "helpers.py", "old_str": "return text.upper()",
                          "new_str": "return text.upper() + '!'"}}
    with scripted([Answer("", tool_calls=(call,)), Answer("Done.\n")]) as server:
        result = run_ask(server.base_url, "--tools", input="y\n")
    assert result.exit_code == 1, result.output
    assert "these edits also write 1 file you did not give: helpers.py" in result.output
    assert (project / "helpers.py").read_text() == HELPERS


# --- ask --tools: the pending edits are counted -------------------------------------------------------------------

FIX = {"id": "call_1", "name": "str_replace_based_edit_tool",
       "arguments": {"command": "str_replace", "path": "app.py", "old_str": "return 'Hello ' + name",
                     "new_str": "return f'Hello {name}!'"}}
MISS = {"id": "call_0", "name": "str_replace_based_edit_tool",
        "arguments": {"command": "str_replace", "path": "app.py", "old_str": "return 'Hi ' + name",
                      "new_str": "return 'Hey'"}}
PEEK = {"id": "call_2", "name": "str_replace_based_edit_tool", "arguments": {"command": "view", "path": "app.py"}}


def test_tool_edits_waiting_for_a_yes_are_counted(project: Path) -> None:
    script = [Answer("Fixing greet.\n", tool_calls=(PEEK, MISS)), Answer("", tool_calls=(FIX,)), Answer("Done.\n")]
    with scripted(script) as server:
        shown = run_ask(server.base_url, "--tools", input="n\n")
    assert "Summary: 1 applied, 1 failed, 0 skipped · not written yet" in shown.output
    assert "Fixing greet." in shown.output and "Done." in shown.output  # the model's text, without a terminal
    assert "not applied: the edits were declined" in shown.output and shown.exit_code == 1
    with scripted(script) as server:
        dry = run_ask(server.base_url, "--tools", "--dry-run", "--json")
    counts = json.loads(dry.stdout)["rounds"][-1]["result"]["counts"]
    assert counts == {"applied": 1, "failed": 1, "skipped": 0}
    with scripted(script) as server:
        accepted = run_ask(server.base_url, "--tools", "--json", input="y\n")
    document = json.loads(accepted.stdout)
    assert document["rounds"][-1]["result"]["counts"]["applied"] == 1 and document["rounds"][-1]["result"]["written"]
    assert document["files_written"] == ["app.py"] and (project / "app.py").read_text() == GREETED


# --- the command in a terminal ------------------------------------------------------------------------------------


def in_terminal(args: list[str], cwd: Path, env: dict[str, str], keys: bytes | None = None,
                when: bytes = b"[d]iff: ") -> str:
    """Run ``editblocks ARGS`` in a pseudo-terminal (standard input, output and error); type ``keys`` once the
    output shows ``when``. All it wrote, with the terminal's line ends."""
    controller, terminal = os.openpty()
    environment = {**{k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")},
                   "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40", **env}
    process = subprocess.Popen([EDITBLOCKS, *args], cwd=cwd, env=environment, stdin=terminal, stdout=terminal,
                               stderr=terminal, close_fds=True)
    os.close(terminal)
    output = b""
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 1.0)
            if not ready:
                continue
            try:
                piece = os.read(controller, 65536)
            except OSError as error:  # EIO: the other side is closed
                assert error.errno == errno.EIO
                break
            if not piece:
                break
            output += piece
            if keys is not None and when in output:
                os.write(controller, keys)
                keys = None
    finally:
        os.close(controller)
        process.wait(timeout=60)
    return output.decode("utf-8", "replace").replace("\r\n", "\n")


def terminal_env(base_url: str) -> dict[str, str]:
    return {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "test-key", "NO_PROXY": "127.0.0.1"}


def test_in_a_terminal_the_answer_scrolls_by_with_each_verdict_at_its_block(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    answer = PROSE.replace("\nThat is all.\n", "\nThat is all.")  # the answer ends mid-line
    with scripted([Answer(answer, chunk=len(answer))]) as server:  # one chunk: the verdict comes after the fence
        output = in_terminal(["ask", "x", "app.py", "--model", "m", "--dry-run"], tmp_path,
                             terminal_env(server.base_url))
    shown = on_screen(output).splitlines()
    start = shown.index("I will use an f-string.")
    assert shown[start : start + 9] == ["I will use an f-string.", "", "app.py", "```python",
                                        "✓ app.py:2  block at line 5  exact", "```", "", "That is all.",
                                        "--- a/app.py"]
    assert "\x1b[2m```python" in output  # fence lines are dim


def test_in_a_terminal_a_person_says_yes_to_a_file_that_was_not_given(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "helpers.py").write_text(HELPERS)
    with scripted([Answer(GREET + SHOUT)]) as server:
        output = in_terminal(["ask", "x", "app.py", "--model", "m"], tmp_path, terminal_env(server.base_url),
                             keys=b"y\n")
    asked = output.index("Apply these edits?")
    assert "these edits also write 1 file you did not give: helpers.py\n" in output[:asked]
    assert "wrote 2 files: app.py, helpers.py" in output[asked:]
    assert (tmp_path / "helpers.py").read_text() == "def shout(text):\n    return text.upper() + '!'\n"


def test_in_a_terminal_the_end_of_input_at_the_question_is_said(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    with scripted([Answer(GREET)]) as server:
        output = in_terminal(["ask", "x", "app.py", "--model", "m"], tmp_path, terminal_env(server.base_url),
                             keys=b"\x04")  # Ctrl-D
    assert NO_ANSWER in output and (tmp_path / "app.py").read_text() == APP
