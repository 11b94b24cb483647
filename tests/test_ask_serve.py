"""`editblocks ask --serve`: each round of a model's answer streams into the review page, whose Apply writes it.

The model is the scripted SSE server on 127.0.0.1 (real HTTP, the real
`openai` SDK). The browser test runs the command as a process, as a person
would, and drives the page in Debian's Chromium; the other tests run the
same pieces in-process and read the page's state from its session.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner
from playwright.sync_api import Browser, Locator, Page, expect

from editblocks.ask.client import Endpoint
from editblocks.ask.display import QuietView
from editblocks.ask.outcome import AskOptions, AskOutcome
from editblocks.ask.rounds import ask, rounds_session
from editblocks.cli import main
from editblocks.model import Format
from editblocks.web import ReviewState
from editblocks.web.ask_page import PageView, apply_at_once, page_confirm

from helpers_apply import diff_edit
from helpers_web import ANSWER, BROWSER_TIMEOUT_MS, FILES, make_project, read_tree

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
expect.set_options(timeout=BROWSER_TIMEOUT_MS)

INSTRUCTION = "Say hello, add instead of doubling, halve to an int, move the port"
FIX = "The port block again, with the line as it is:\n\n" + diff_edit("app.py", ("PORT = 8000\n", "PORT = 8080\n"))
ALL_FOUR = {
    "app.py": 'def greet(name):\n    return "hello " + name\n\nPORT = 8080\n',
    "util.py": "def double(x):\n    return x + x\n\n\ndef half(x):\n    return x // 2\n",
}
CHUNK = 4


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local_endpoint(monkeypatch)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path)


def badge(page: Page, number: int, status: str) -> Locator:
    return page.get_by_role("button", name=f"Block {number}: {status}", exact=True)


def held_in_first_block() -> int:
    """How many SSE events to send before holding the answer: up to the middle of block 1 (its SEARCH text in)."""
    return ANSWER.index('    return "hello ') // CHUNK + 1  # +1: the first event only names the role


def ask_args(base_url: str, *more: str) -> list[str]:
    return ["ask", INSTRUCTION, "app.py", "util.py", "--model", "test-model", "--base-url", base_url,
            "--api-key-env", "TEST_KEY", "--backoff", "0.01", *more]


def test_ask_serve_streams_each_round_into_the_page_whose_apply_writes_it(browser: Browser, project: Path) -> None:
    hold = threading.Event()
    script = [Answer(ANSWER, chunk=CHUNK, hold=hold, hold_after=held_in_first_block()), Answer(FIX, chunk=CHUNK)]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(BROWSER_TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    with scripted(script) as model:
        process = subprocess.Popen([sys.executable, "-m", "editblocks", *ask_args(model.base_url, "--serve")],
                                   cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert process.stdout is not None and process.stderr is not None
        errput: list[str] = []
        serving_on = threading.Event()  # the loop is over and the page stays up: Ctrl-C is the way out now

        def read_errput(stream: IO[str]) -> None:
            for err_line in stream:
                errput.append(err_line)
                if "stays open" in err_line:
                    serving_on.set()

        reader = threading.Thread(target=read_errput, args=(process.stderr,), daemon=True)
        reader.start()
        try:
            line = process.stdout.readline()
            match = re.fullmatch(r"review page: (http://127\.0\.0\.1:\d+/[\w-]{32}/)\n", line)
            assert match, (line, process.wait(10), errput)
            page.goto(match[1])
            in_progress = page.get_by_role("article", name="Block in progress (reply line 5)")
            expect(in_progress).to_contain_text("in progress")
            expect(in_progress).to_contain_text('return "hi " + name')
            expect(page.get_by_role("button", name="Apply", exact=True)).to_be_disabled()
            assert read_tree(project) == FILES
            hold.set()  # the rest of the answer arrives
            for number, status in ((1, "held"), (2, "pending"), (3, "pending"), (4, "failed")):
                expect(badge(page, number, status)).to_be_visible()  # block 4 failed: app.py waits for its fix
            expect(page.get_by_text("in progress")).to_have_count(0)
            assert read_tree(project) == FILES  # nothing is written before the page's Apply
            page.get_by_role("button", name="Apply", exact=True).click()
            # block 4 failed, so its feedback went to the model and the second round is the page's new answer;
            # block 1 is held, so app.py is written with the fix

            expect(page.get_by_role("status").first).to_contain_text("round 2")
            expect(page.get_by_role("article")).to_have_count(1)
            expect(badge(page, 1, "pending")).to_be_visible()
            expect(page.get_by_text("The port block again")).to_be_visible()
            page.get_by_role("button", name="Apply", exact=True).click()
            expect(badge(page, 1, "applied")).to_be_visible()
            assert read_tree(project) == ALL_FOUR
            feedback = model.requests[1]["body"]["messages"][-1]["content"]
            assert "PORT = 9999" in feedback and "not found" in feedback
            assert serving_on.wait(60), errput
        finally:
            hold.set()
            process.send_signal(signal.SIGINT)
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:  # never hang the suite: the assertions below then say what went wrong
                process.kill()
                process.wait()
            out = process.stdout.read()
            reader.join(10)
            context.close()
    assert process.returncode == 0, (out, errput)
    assert "✓ app.py" in out and "round 2" in out and "stopped\n" in errput
    assert len(model.requests) == 2
    assert not errors, f"the page's script failed: {errors}"


def run_in_session(project: Path, base_url: str, script_confirm: str) -> tuple[ReviewState, AskOutcome]:
    """`ask` in-process with its answers streamed into a session (as `--serve` does), no server needed."""
    options = AskOptions(INSTRUCTION, ("app.py", "util.py"), str(project), Format.DIFF)
    session = ReviewState(session=rounds_session(options))  # one session for the rounds and the page, as --serve
    view = PageView(QuietView(), session, Format.DIFF)
    endpoint = Endpoint("test-model", base_url, "test-key", timeout=10.0, backoff=0.01)
    if script_confirm == "yes":
        return session, ask(options, endpoint, view, apply_at_once(session), session=session.session)
    # a reviewer: reject block 3 on the first answer, then Apply each answer once it is complete
    outcome: list[AskOutcome] = []
    loop = threading.Thread(target=lambda: outcome.append(
        ask(options, endpoint, view, page_confirm(session, view, threading.Event()), session=session.session)))
    loop.start()
    for answer, reject in ((1, [3]), (2, [])):
        changed = threading.Event()
        unsubscribe = session.subscribe(changed.set)
        while not (session.answer_number == answer and session.view()["can_apply"]):
            assert changed.wait(10), session.view()
            changed.clear()
        unsubscribe()
        if reject:
            session.decide(reject, accept=False)
        session.apply()
    loop.join(10)
    return session, outcome[0]


def test_with_yes_every_round_is_applied_through_the_page_and_its_undo_undoes_the_run(project: Path) -> None:
    with scripted([Answer(ANSWER, chunk=7), Answer(FIX, chunk=5)]) as model:
        session, outcome = run_in_session(project, model.base_url, "yes")
    assert outcome.exit_code == 0 and len(outcome.rounds) == 2
    assert read_tree(project) == ALL_FOUR
    view = session.view()
    assert session.answer_text == FIX  # the page shows the last round
    assert [b["status"] for b in view["blocks"]] == ["applied"] and view["applied"]
    assert view["message"] == "applied: 1 file written"
    assert session.undo()  # the rounds of one ask are one run: the page's Undo takes back both
    assert read_tree(project) == FILES


def test_without_yes_the_loop_waits_for_the_pages_apply_and_takes_its_choices(project: Path) -> None:
    with scripted([Answer(ANSWER, chunk=7), Answer(FIX, chunk=5)]) as model:
        session, outcome = run_in_session(project, model.base_url, "page")
    assert outcome.exit_code == 0, outcome
    tree = read_tree(project)
    assert tree["app.py"] == ALL_FOUR["app.py"]
    assert tree["util.py"] == "def double(x):\n    return x + x\n\n\ndef half(x):\n    return x / 2\n"  # rejected
    assert outcome.written == ["util.py", "app.py"]  # app.py waited in round 1 for its failed block's fix
    feedback = model.requests[1]["body"]["messages"][-1]["content"]
    assert "PORT = 9999" in feedback and "x // 2" not in feedback  # a rejected block is not sent back


def test_an_answer_that_breaks_off_is_shown_but_cannot_be_applied_from_the_page(project: Path) -> None:
    with scripted([Answer(ANSWER, chunk=4, drop_after=held_in_first_block() + 30)]) as model:
        session, outcome = run_in_session(project, model.base_url, "yes")
    assert outcome.stopped is not None and outcome.stopped[0] == "stream-dropped"
    view = session.view()
    assert not view["streaming"] and not view["can_apply"] and "broke off" in view["message"]
    assert session.apply() is None
    assert read_tree(project) == FILES


@pytest.mark.parametrize(("flag", "said"), [("--dry-run", "--serve cannot go with --dry-run"),
                                            ("--tools", "--serve cannot go with --tools"),
                                            ("--json", "--serve cannot go with --json")])
def test_serve_refuses_options_that_contradict_the_page(project: Path, flag: str, said: str) -> None:
    with scripted([Answer(ANSWER)]) as model:
        result = CliRunner().invoke(main, ask_args(model.base_url, "--serve", flag))
    assert result.exit_code == 2 and said in result.output
    assert model.requests == [] and read_tree(project) == FILES


def test_serve_without_the_web_extra_says_which_package_to_install(project: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import editblocks.cli.serve as serve

    monkeypatch.chdir(project)
    monkeypatch.setattr(serve, "find_spec", lambda name: None if name == "starlette" else object())
    with scripted([Answer(ANSWER)]) as model:
        result = CliRunner().invoke(main, ask_args(model.base_url, "--serve", "--yes"))
    assert result.exit_code == 2
    checkout = Path(__file__).resolve().parent.parent  # not the current folder: the hint names it
    assert result.output.strip().splitlines()[-1] == \
        f"Error: the review page needs starlette: pip install -e '{checkout}[web]'"
    assert model.requests == [] and read_tree(project) == FILES
