"""The README's Python examples run as they are, in order, sharing one namespace."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from fake_anthropic import fake_anthropic, text, tool_use

README = Path(__file__).resolve().parent.parent / "README.md"
_EXAMPLE = re.compile(r"^````python\n(.*?)^````$", re.DOTALL | re.MULTILINE)


ANTHROPIC_TURNS = [
    # the deepagents example: one edit_file call, then the answer
    [tool_use("edit_file", {"file_path": "/app.py", "old_string": "    return 1", "new_string": "    return 2"}, "t1")],
    [text("f returns 2")],
    # the Anthropic tool runner example: view, edit, answer
    [tool_use("str_replace_based_edit_tool", {"command": "view", "path": "app.py"}, "t2")],
    [tool_use("edit", {"file_path": "app.py", "old_string": "return 2", "new_string": "return 4"}, "t3")],
    [text("f returns 4")],
]
"""What the scripted Anthropic endpoint answers to the README's framework examples that read ANTHROPIC_BASE_URL."""


def test_readme_python_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    examples = _EXAMPLE.findall(README.read_text(encoding="utf-8"))
    assert len(examples) >= 5
    namespace: dict[str, object] = {}
    with fake_anthropic(ANTHROPIC_TURNS, monkeypatch) as server, contextlib.redirect_stdout(io.StringIO()):
        for example in examples:
            exec(compile(example, str(README), "exec"), namespace)
    assert not server.turns, "every scripted turn was asked for"
    project = namespace["project"]
    assert isinstance(project, Path) and (project / "app.py").read_bytes() == b"def f():\r\n\treturn 4\r\n"


def test_readme_opens_with_the_two_setup_commands_and_ci_runs_the_second():
    text = README.read_text(encoding="utf-8")
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in first_block.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci
