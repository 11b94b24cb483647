"""Every door gives the same verdicts, exit status and feedback for the same answer and the same options.

The doors: `editblocks apply --json` (and its `--feedback` file), `ToolHandler`, the MCP server through the official
SDK's client (launch options), the review page's HTTP API, the `ask` live view against a local endpoint, the
workbench asking the same endpoint, and `eval`. The answers include the ones on which the doors used to disagree: a
`--strict` run (the tool handler had no such option), the `abort` policy (the live view reported blocks as applied
that apply then skipped), a guillemet file skipped after a failure (the live view's reason left out the line), and a
V4A section whose move is refused (the live view planned its hunk alone and applied it) or made (it reported a
deletion and a creation where apply reports a rename). And answers whose verdicts need more than the block:
identical blocks for the places their old text occurs (the first waits, with no verdict shown, until the last
arrives), one such block alone (ambiguous when the answer ends, or, under skip-file, when another block of its file
comes), and one block at places that all give the same file. The workbench keeps the blocks that apply until Apply,
so its feedback is that of a session that holds them (it asks only for the failed blocks).
"""

from __future__ import annotations

import json
import shutil
import sys
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import pytest
from ask_server import Answer, scripted
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from editblocks.ask.client import Endpoint
from editblocks.ask.display import QuietView
from editblocks.ask.outcome import AskOptions
from editblocks.ask.rounds import ask
from editblocks.cli import main
from editblocks.eval.evaluate import PASSING, evaluate_cases, summarize
from editblocks.model import ApplyResult, EditBlock, EditResult, Format, ResultCode, Status
from editblocks.parsing.stream import parse
from editblocks.service import ApplyOptions, EditSession
from editblocks.service.live import BlockLocated, BlockWaiting, BlockWithdrawn
from editblocks.tools import ToolHandler
from editblocks.web import ReviewServer, ReviewState
from editblocks.web.chat import ModelSettings
from editblocks.web.workbench import Workbench

from helpers_web import wait_idle

SRC = str(Path(__file__).resolve().parent.parent / "src")
FILES = {
    "app.py": "def greet(name):\n    return 'hi ' + name\n\n\nPORT = 8000\n",
    "util.py": "def double(x):\n    return x * 2\n",
    "old.py": "x = 1\ny = 2\n",
    "taken.py": "z = 3\n",
    "handlers.py": "def on_save(event):\n    log(event)\n    refresh()\n\n\ndef on_load(event):\n    log(event)\n"
                   "    refresh()\n",
    "flow.py": "if ok:\n    go()\nelse:\n    stop()\nelse:\n    stop()\nrest()\n",
}


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def guillemet(path: str, old: str, new: str) -> str:
    return f"{path}\n««« EDIT\n{old}═══════ REPL\n{new}»»» EDIT END\n"


ANSWERS = {
    "markers": (Format.DIFF, "Three edits.\n\n"
                + search_replace("app.py", "    return 'hi ' + name\n", "    return 'hello ' + name\n")
                + search_replace("app.py", "PORT = 9999\n", "PORT = 8080\n")
                + search_replace("util.py", "def double(x):   \n", "def twice(x):\n")
                + search_replace("util.py", "    return x * 2\n", "    return x * 2\n")),
    "guillemet": (Format.GUILLEMET, guillemet("app.py", "PORT = 9999\n", "PORT = 1\n")
                  + guillemet("app.py", "def greet(name):\n", "def greet(who):\n")),
    "refused-move": (Format.V4A, "*** Begin Patch\n*** Update File: old.py\n*** Move to: taken.py\n@@\n-x = 1\n+x = 10\n"
                     "*** Add File: new.py\n+made = True\n*** End Patch\n"),
    "move": (Format.V4A, "*** Begin Patch\n*** Update File: old.py\n*** Move to: fresh.py\n@@\n x = 1\n-y = 2\n+y = 20\n"
             "*** End Patch\n"),
    "twins": (Format.DIFF, search_replace("handlers.py", "    refresh()\n", "    redraw()\n")
              + search_replace("app.py", "PORT = 8000\n", "PORT = 8080\n")
              + search_replace("handlers.py", "def on_load(event):\n", "def on_open(event):\n")
              + search_replace("handlers.py", "    refresh()\n", "    redraw()\n")),
    "lone-twin": (Format.DIFF, search_replace("handlers.py", "    refresh()\n", "    redraw()\n")
                  + search_replace("util.py", "    return x * 2\n", "    return x + x\n")),
    "lone-twin-skip-file": (Format.GUILLEMET, guillemet("handlers.py", "    refresh()\n", "    redraw()\n")
                            + guillemet("handlers.py", "def on_load(event):\n", "def on_open(event):\n")),
    "same-file": (Format.DIFF, search_replace("flow.py", "else:\n    stop()\n", "")),
}
OPTIONS = {
    "default": ApplyOptions(),
    "strict": ApplyOptions(strict=True),
    "abort": ApplyOptions(on_failure="abort"),
}


def flags(options: ApplyOptions) -> list[str]:
    return (["--strict"] if options.strict else []) + (["--on-failure", options.on_failure.value]
                                                       if options.on_failure else [])


def project(root: Path) -> Path:
    root.mkdir(parents=True)
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


def verdicts(result: ApplyResult) -> list[tuple[str, str, str]]:
    return [verdicts_of(r) for r in result.results]


def verdicts_of(result: EditResult) -> tuple[str, str, str]:
    return result.status.value, result.code.value, result.reason


def json_verdicts(results: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    return [(r["status"], r["code"] or "", r["reason"]) for r in results]


class Recorder(QuietView):
    """The `ask` live view, remembering each block's verdict as it was shown, in answer order; a verdict once
    shown is never replaced (only a withdrawn block loses it), and a waiting block shows none."""

    def __init__(self) -> None:
        self.verdicts: dict[EditBlock, tuple[str, str, str] | None] = {}
        self.waited: list[EditBlock] = []

    def chunk(self, text: str, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, BlockWaiting):
                assert self.verdicts.setdefault(event.block) is None
                self.waited.append(event.block)
            elif isinstance(event, BlockLocated):
                assert self.verdicts.get(event.block) is None, "a verdict shown was contradicted"
                self.verdicts[event.block] = (event.result.status.value, event.result.code.value, event.result.reason)
            elif isinstance(event, BlockWithdrawn):
                del self.verdicts[event.block]

    @property
    def shown(self) -> list[tuple[str, str, str] | None]:
        return list(self.verdicts.values())


@pytest.fixture(scope="module")
def mcp_replies(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], tuple[str, bool]]:
    """`check_edits` of every answer through one MCP server per option set, started with those launch options."""
    replies: dict[tuple[str, str], tuple[str, bool]] = {}
    for option_name, options in OPTIONS.items():
        root = project(tmp_path_factory.mktemp("mcp") / "project")
        params = StdioServerParameters(command=sys.executable, args=["-m", "editblocks", "mcp", "--root", str(root),
                                                                     *flags(options)],
                                       cwd=str(root.parent), env={"PYTHONPATH": SRC})

        async def session(params: StdioServerParameters, option_name: str) -> None:
            async with Client(params, read_timeout_seconds=60) as client:
                for answer_name, (_, answer) in ANSWERS.items():
                    reply = await client.call_tool("check_edits", {"edits": answer})
                    text = "".join(block.text for block in reply.content)
                    replies[(answer_name, option_name)] = (text, bool(reply.is_error))

        anyio.run(session, params, option_name)
    return replies


@pytest.mark.parametrize("option_name", OPTIONS)
@pytest.mark.parametrize("answer_name", ANSWERS)
def test_every_door_gives_the_same_verdicts_status_and_feedback(
        tmp_path: Path, answer_name: str, option_name: str,
        mcp_replies: dict[tuple[str, str], tuple[str, bool]]) -> None:
    fmt, answer = ANSWERS[answer_name]
    options = OPTIONS[option_name]

    # the command line: the verdicts, the exit status and the feedback file
    response = tmp_path / "response.md"
    response.write_text(answer)
    feedback_file = tmp_path / "feedback.txt"
    cli = CliRunner().invoke(main, ["apply", str(response), "--root", str(project(tmp_path / "cli")), "--dry-run",
                                    "--json", "--feedback", str(feedback_file), *flags(options)])
    assert cli.exit_code in (0, 1), cli.output
    expected = json_verdicts(json.loads(cli.stdout)["results"])
    feedback = feedback_file.read_text().removesuffix("\n") if cli.exit_code else ""

    # ToolHandler
    reply = ToolHandler(project(tmp_path / "tools"), options=options).call("check_edits", {"edits": answer})
    assert reply.result is not None and verdicts(reply.result) == expected
    assert reply.ok == (cli.exit_code == 0)
    if cli.exit_code:
        assert reply.text == feedback

    # the MCP server, through the SDK's client
    text, is_error = mcp_replies[(answer_name, option_name)]
    assert (text, is_error) == (reply.text, not reply.ok)

    # the review page's API
    review = ReviewState(project(tmp_path / "page"), options=options)
    with ReviewServer(review) as server:
        review.load(answer)
        with urllib.request.urlopen(server.url + "api/view") as page:
            view = json.load(page)
    assert [(b["status"], b["reason"]) for b in view["blocks"]] == [
        ("pending", b["reason"]) if status == "applied" else ("held" if code == "held" else status, reason)
        for (status, code, reason), b in zip(expected, view["blocks"])]
    assert view["feedback"] == feedback

    # the `ask` live view, against a local endpoint streaming the answer
    recorder = Recorder()
    ask_root = project(tmp_path / "ask")
    with scripted([Answer(answer, chunk=7), Answer("Nothing more.\n")]) as endpoint:
        outcome = ask(AskOptions("edit", ("app.py",), str(ask_root), fmt, dry_run=True, retries=1,
                                 apply=replace(options)), Endpoint("m", endpoint.base_url, "test-key"), recorder,
                      lambda preview: False)
    first = outcome.rounds[0]
    assert first.result is not None and verdicts(first.result) == expected
    if options.on_failure is None:  # with `abort`, a verdict shown live may still turn into "not applied" at the end
        # and a block shown applied before a later block for its file failed is held once the answer is whole
        assert [shown for shown, (_, code, _) in zip(recorder.shown, expected, strict=True) if code != "held"] == [
            verdict for verdict in expected if verdict[1] != "held"]
    assert bool(recorder.waited) == answer_name.startswith(("twins", "lone-twin"))
    assert (first.feedback or "") == feedback
    assert (outcome.exit_code == 0) == (cli.exit_code == 0)

    # the workbench, asking the same endpoint: a round's verdicts once its answer is whole, and the feedback round
    with scripted([Answer(answer, chunk=7), Answer("Nothing more.\n")]) as endpoint:
        bench = Workbench(project(tmp_path / "bench"), ModelSettings("m", endpoint.base_url, "test-key", retries=1),
                          options=options, format=fmt)
        bench.send("edit", ["app.py"])
        wait_idle(bench)
    assert [verdicts_of(entry.verdict) for entry in bench.conversation.entries()] == expected
    sent_back = [turn.text for turn in bench.conversation.turns if turn.kind == "feedback"]
    # the workbench keeps the blocks that apply for Apply, so its feedback is a holding session's: they are taken,
    # and a file held back by a failed block keeps its good blocks (the model resends only the failed ones)
    bench_session = EditSession.on_disk(project(tmp_path / "bench-expected"), options)
    preview = bench_session.preview(answer)
    holding = tuple(dict.fromkeys(r.path for r in preview.results if r.code is ResultCode.HELD))
    kept = bench_session.feedback(replace(preview, dry_run=False, holding=holding), answer, parse(answer))
    assert sent_back == ([kept] if feedback else [])

    # eval: the case's expected files are what the command line writes
    case = tmp_path / "case"
    shutil.copytree(tmp_path / "cli", case / "before")
    written = CliRunner().invoke(main, ["apply", str(response), "--root", str(project(case / "after-run")),
                                        *flags(options)])
    assert written.exit_code == cli.exit_code
    shutil.copytree(case / "after-run", case / "after", ignore=shutil.ignore_patterns(".editblocks"))
    shutil.rmtree(case / "after-run")
    (case / "response.md").write_text(answer)
    (case / "case.json").write_text(json.dumps({"on_failure": options.on_failure and options.on_failure.value,
                                                        "strict": options.strict}))
    report = evaluate_cases([case], jobs=1)
    parsed = parse(answer)
    outcome_of_case = report.outcomes[0]
    assert outcome_of_case.verdict in PASSING, outcome_of_case
    assert outcome_of_case.detail == summarize(parsed, replace(reply.result, dry_run=False))
    statuses = {status for status, _, _ in expected}
    assert statuses <= {s.value for s in Status}
