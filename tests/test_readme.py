"""The README's Python examples run as they are, in order, sharing one namespace."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
_EXAMPLE = re.compile(r"^````python\n(.*?)^````$", re.DOTALL | re.MULTILINE)


def test_readme_python_examples_run():
    examples = _EXAMPLE.findall(README.read_text(encoding="utf-8"))
    assert len(examples) >= 5
    namespace: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        for example in examples:
            exec(compile(example, str(README), "exec"), namespace)


def test_readme_opens_with_the_two_setup_commands_and_ci_runs_the_second():
    text = README.read_text(encoding="utf-8")
    first_block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line for line in first_block.splitlines() if line and not line.startswith("#")]
    assert len(commands) == 2
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[1] in ci
