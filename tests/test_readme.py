"""Every example in the README and the documentation pages runs, as a reader would run it.

Python examples (in four-backtick fences) run in order, one namespace per page. Shell examples (```bash)
run line by line in a copy of `examples/`, with the venv's commands on PATH (as after `. .venv/bin/activate`)
and a scripted OpenAI-compatible server on 127.0.0.1 standing in for `ask`'s model; a command that serves the
review page is run until its page answers, then stopped with Ctrl-C.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest
from ask_server import Answer, scripted
from fake_anthropic import fake_anthropic, text, tool_use

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
_PYTHON = re.compile(r"^````python\n(.*?)^````$", re.DOTALL | re.MULTILINE)
_UNRUN_PYTHON = re.compile(r"^```python\s*$", re.MULTILINE)  # a three-backtick Python fence: shown, never run
_SHELL = re.compile(r"^```bash\n(.*?)^```$", re.DOTALL | re.MULTILINE)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_ADDRESS = re.compile(r"(?:review page|workbench): (http://127\.0\.0\.1:\d+/\S+/)")
BIN = Path(sys.executable).parent
# Shell examples another test runs, named by a line they hold.
RUN_ELSEWHERE = {
    "./scripts/test.sh": "CI runs it: test_ci_runs_the_second_setup_command_and_the_checks",
    "EDITBLOCKS_APPLY_ON_FAILURE=continue editblocks apply answer.md": "tests/test_cli_config.py",
}


def page_id(page: Path) -> str:
    return str(page.relative_to(REPO))


def shell_examples() -> list[tuple[Path, str]]:
    """Each shell example once (the site's home repeats the README's quick start), but those run elsewhere."""
    found: dict[str, Path] = {}
    for page in PAGES:
        for block in _SHELL.findall(page.read_text(encoding="utf-8")):
            if not any(line in block for line in RUN_ELSEWHERE):
                found.setdefault(block, page)
    return [(page, block) for block, page in found.items()]


# --- Python ---------------------------------------------------------------------------------------------------


ANTHROPIC_TURNS = {"integrations.md": [
    # the deepagents example: one edit_file call, then the answer
    [tool_use("edit_file", {"file_path": "/app.py", "old_string": "    return 1", "new_string": "    return 2"}, "t1")],
    [text("f returns 2")],
    # the Anthropic tool runner example: view, edit, answer
    [tool_use("str_replace_based_edit_tool", {"command": "view", "path": "app.py"}, "t2")],
    [tool_use("edit", {"file_path": "app.py", "old_string": "return 2", "new_string": "return 4"}, "t3")],
    [text("f returns 4")],
]}
"""What a scripted Anthropic endpoint (ANTHROPIC_BASE_URL) answers to the examples of a page that call a model."""


@pytest.mark.parametrize("page", [page for page in PAGES if _PYTHON.search(page.read_text(encoding="utf-8"))
                                  and page.name not in ANTHROPIC_TURNS], ids=page_id)
def test_a_pages_python_examples_run(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # examples that name `tests/cases` mean the checkout's
    namespace: dict[str, object] = {}
    run_examples(page, namespace)


def run_examples(page: Path, namespace: dict[str, object]) -> None:
    text = page.read_text(encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        for example in _PYTHON.finditer(text):
            lines_before = text.count("\n", 0, example.start(1))  # so that a traceback names the page's line
            exec(compile("\n" * lines_before + example[1], str(page), "exec"), namespace)


def test_the_framework_adapters_examples_run_against_a_scripted_model(monkeypatch: pytest.MonkeyPatch) -> None:
    page = REPO / "docs" / "integrations.md"
    namespace: dict[str, object] = {}
    with fake_anthropic(ANTHROPIC_TURNS[page.name], monkeypatch) as server:
        run_examples(page, namespace)
    assert not server.turns, "every scripted turn was asked for"
    project = namespace["project"]
    assert isinstance(project, Path) and (project / "app.py").read_bytes() == b"def f():\r\n\treturn 4\r\n"


def test_every_python_example_is_one_that_runs() -> None:
    shown_only = [page_id(page) for page in PAGES  # (a fence inside a runnable example is part of its text)
                  if _UNRUN_PYTHON.search(_PYTHON.sub("", page.read_text(encoding="utf-8")))]
    assert not shown_only, f"write these Python examples in four-backtick fences, so that they run: {shown_only}"
    assert sum(len(_PYTHON.findall(page.read_text(encoding="utf-8"))) for page in PAGES) >= 15


# --- the set-up commands and the quick start --------------------------------------------------------------------


def first_block(page: Path, after: str = "") -> str:
    text = page.read_text(encoding="utf-8")
    return text[text.index(after):].split("```bash\n", 1)[1].split("```", 1)[0]


def commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_the_readme_opens_with_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.startswith("# editblocks\n\n```bash\n")
    assert len(commands(first_block(README))) == 2
    assert first_block(REPO / "docs" / "index.md") == first_block(README)  # the site's home says the same
    assert first_block(REPO / "docs" / "index.md", "## Quick start") == first_block(README, "## Quick start")


def test_ci_runs_the_second_setup_command_and_the_checks() -> None:
    ci = [line for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line and not line.startswith("#")]
    assert commands(first_block(README))[1] in ci
    assert ".venv/bin/ruff check" in ci and ".venv/bin/mypy" in ci
    assert any(line.endswith('mkdocs build --strict --site-dir "$(mktemp -d)"') for line in ci)


def test_the_quick_start_comes_before_anything_else() -> None:
    headings = re.findall(r"^## (.+)$", README.read_text(encoding="utf-8"), re.MULTILINE)
    assert headings[:2] == ["Quick start", "Contents"]
    quick_start = commands(first_block(README, "## Quick start"))
    assert 5 <= len(quick_start) <= 10
    assert quick_start[1].startswith(". .venv/bin/activate")  # then every command is the bare `editblocks`


def test_the_quick_start_installs_extras_that_exist() -> None:
    install = commands(first_block(README, "## Quick start"))[0]
    extras = re.search(r"-e '\.\[([\w,]+)\]'", install)
    assert extras is not None
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras[1].split(",")) <= set(declared)


def test_every_example_calls_editblocks_the_same_way() -> None:
    """The venv is activated once; no example writes `.venv/bin/editblocks` (only the one-line set-up does)."""
    for page in PAGES:
        for block in _SHELL.findall(page.read_text(encoding="utf-8")):
            if block != first_block(README):
                assert ".venv/bin/editblocks" not in block, page_id(page)


# --- shell examples ---------------------------------------------------------------------------------------------


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A folder like a checkout's top, for the examples' relative paths: a copy of examples/, the case corpus."""
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "cases").symlink_to(REPO / "tests" / "cases")
    return tmp_path


def restock_answer() -> str:
    """What the scripted model answers to every request: the shipped example's first block, for inventory.py
    under the path the examples send it by."""
    text = (REPO / "examples" / "response.md").read_text(encoding="utf-8")
    return text[: text.index("```python\nreport.py")].replace("\ninventory.py\n", "\nexamples/project/inventory.py\n")


def run_line(line: str, cwd: Path, env: dict[str, str]) -> None:
    words = shlex.split(line, comments=True)
    if not words or words[0] in (".", "source", "export"):
        return  # the venv is active already, the variables are set
    if words[:3] == ["python3", "-m", "venv"]:
        assert "pip install -e" in line  # installing is what set up this test run
        return
    if "serve" in words or "--review" in words or "--serve" in words:
        serve_until_it_answers(line, cwd, env)
        return
    done = subprocess.run(["bash", "-c", line], cwd=cwd, env=env, input="y\n", capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def serve_until_it_answers(line: str, cwd: Path, env: dict[str, str]) -> None:
    process = subprocess.Popen(["bash", "-c", f"exec {line}"], cwd=cwd, env={**env, "PYTHONUNBUFFERED": "1"},
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        shown = ""
        while (match := _ADDRESS.search(shown)) is None:
            piece = process.stdout.readline()
            assert piece, f"{line}: no address\n{shown}\n{process.stderr.read() if process.stderr else ''}"
            shown += piece
        page = urllib.request.urlopen(match[1], timeout=60).read().decode()
        assert "editblocks review" in page or "editblocks workbench" in page, line
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=60)
        finally:
            process.kill()


@pytest.mark.slow
@pytest.mark.parametrize(("page", "block"), shell_examples(),
                         ids=[f"{page_id(page)}:{block.splitlines()[0][:60]}" for page, block in shell_examples()])
def test_a_shell_example_runs(page: Path, block: str, sandbox: Path) -> None:
    with scripted([Answer(restock_answer()) for _ in range(10)], api_key="sk-...") as model:
        env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "OPENAI_BASE_URL": model.base_url,
               "OPENAI_API_KEY": "sk-...", "NO_PROXY": "127.0.0.1"}
        for name in ("NO_COLOR", "EDITBLOCKS_MODEL", "HTTP_PROXY", "http_proxy"):
            env.pop(name, None)
        for line in block.splitlines():
            run_line(line.replace("http://127.0.0.1:8080/v1", model.base_url), sandbox, env)


@pytest.mark.slow
def test_the_quick_start_edits_the_example_and_puts_it_back(sandbox: Path) -> None:
    inventory = sandbox / "examples" / "project" / "inventory.py"
    before = inventory.read_bytes()
    steps = commands(first_block(README, "## Quick start"))
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    [dry_run, apply, undo] = [line for line in steps if line.startswith("editblocks ") and " apply " in line
                              or line.startswith("editblocks undo")]
    run_line(dry_run, sandbox, env)
    assert inventory.read_bytes() == before
    run_line(apply, sandbox, env)
    assert b"amount must not be negative" in inventory.read_bytes()
    assert (sandbox / "examples" / "project" / "report.py").exists()
    run_line(undo, sandbox, env)
    assert inventory.read_bytes() == before and not (sandbox / "examples" / "project" / "report.py").exists()


def test_every_shell_example_is_run() -> None:
    blocks = [block for page in PAGES for block in _SHELL.findall(page.read_text(encoding="utf-8"))]
    elsewhere = [line for line in RUN_ELSEWHERE if not any(line in block for block in blocks)]
    assert not elsewhere, f"no example holds {elsewhere} any more: drop it from RUN_ELSEWHERE"
    assert len(shell_examples()) >= 6


# --- links and images -------------------------------------------------------------------------------------------


def anchors(page: Path) -> set[str]:
    """The heading anchors GitHub (and MkDocs) make: lower case, punctuation dropped, spaces as dashes."""
    headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_the_readmes_links_reach_their_pages_and_headings() -> None:
    for target in _LINK.findall(README.read_text(encoding="utf-8")):
        if target.startswith("http"):
            continue
        path, _, anchor = target.partition("#")
        page = REPO / path if path else README
        assert page.is_file(), target
        assert not anchor or anchor in anchors(page), target


def test_every_image_the_docs_show_exists() -> None:
    shown = {page.parent / name for page in PAGES
             for name in re.findall(r"!\[[^]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8"))}
    assert shown
    for path in shown:
        assert path.is_file(), path


def test_the_readme_shows_the_workbench_from_the_screenshot_script() -> None:
    """Issue 26: the workbench's screenshots are shown in the README, not only in docs/."""
    shown = re.findall(r"!\[[^]]*\]\((docs/images/[^)]+)\)", README.read_text(encoding="utf-8"))
    assert any(Path(name).name.startswith("workbench-") for name in shown), shown
    for name in shown:
        assert (REPO / name).is_file(), name


@pytest.mark.slow
def test_the_screenshot_script_makes_every_image_the_docs_show(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "screenshots.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    made = {path.name for path in tmp_path.iterdir()}
    shown = {Path(name).name for page in PAGES
             for name in re.findall(r"!\[[^]]*\]\((images/[^)]+)\)", page.read_text(encoding="utf-8"))}
    assert made == shown
    assert all((tmp_path / name).read_bytes().startswith(b"\x89PNG") for name in made)
