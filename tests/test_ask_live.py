"""The streaming core of `ask`: verdicts arrive as blocks end, agree with the planner, and Ctrl-C writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from ask_server import Answer, scripted

from editblocks.ask.client import Endpoint
from editblocks.ask.display import QuietView
from editblocks.ask.outcome import AskOptions
from editblocks.ask.rounds import ask
from editblocks.model import Status
from editblocks.parsing.stream import parse
from editblocks.plan import TargetFile, plan_edits
from editblocks.service.live import BlockLocated, BlockWaiting, BlockWithdrawn, LiveAnswer, LiveLocator

FILES = {"a.py": "one = 1\ntwo = 2\nthree = 3\n", "b.py": "x = 1\ny = 2\n"}


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


ANSWER = ("First a.py.\n\n" + block("a.py", "two = 2\n", "two = 22\n") + "\nNow a miss.\n\n"
          + block("b.py", "z = 9\n", "z = 10\n") + "\nAnd one more.\n\n" + block("a.py", "two = 22\n", "two = 222\n")
          + "\nDone.\n")


def locator() -> LiveLocator:
    return LiveLocator(lambda path: TargetFile(path, FILES.get(path)))


def test_a_block_gets_its_verdict_as_soon_as_its_closing_fence_arrives() -> None:
    live = LiveAnswer(locator())
    fed = ""
    for start in range(0, len(ANSWER), 4):
        chunk = ANSWER[start : start + 4]
        fed += chunk
        if any(isinstance(event, BlockLocated) for event in live.feed(chunk)):
            break
    first_block_end = ANSWER.index(">>>>>>> REPLACE\n```\n") + len(">>>>>>> REPLACE\n```\n")
    assert len(fed) <= first_block_end + 4  # long before the answer (and the next block) arrives


@pytest.mark.parametrize("size", [1, 3, 4, 17, 1000])
def test_live_verdicts_equal_the_planner_on_the_whole_answer(size: int) -> None:
    live = LiveAnswer(locator())
    located = []
    for start in range(0, len(ANSWER), size):
        located += [e for e in live.feed(ANSWER[start : start + size]) if isinstance(e, BlockLocated)]
    located += [e for e in live.close() if isinstance(e, BlockLocated)]
    parsed = parse(ANSWER)
    plan = plan_edits(parsed.blocks, {p: TargetFile(p, t) for p, t in FILES.items()})
    assert [e.result.status for e in located] == [r.status for r in plan.results]
    assert [e.result.status for e in located] == [Status.APPLIED, Status.FAILED, Status.APPLIED]
    assert live.text == ANSWER and live.result() == parsed


def test_a_block_withdrawn_after_it_ended_is_reported_and_not_kept() -> None:
    cut_short = "a.py\n```\n<<<<<<< SEARCH\ntwo = 2\n=======\ntwo = 3\n>>>>>>> REPLACE\n>>>>>>> REPLACE\n```\n"
    live = LiveAnswer(locator())
    events = []
    for char in cut_short:
        events += live.feed(char)
    events += live.close()
    kinds = [type(event) for event in events if isinstance(event, BlockLocated | BlockWithdrawn)]
    assert kinds == [BlockLocated, BlockWithdrawn]
    assert live.located == []


HANDLERS = "def on_save(event):\n    log(event)\n    refresh()\n\n\ndef on_load(event):\n    log(event)\n    refresh()\n"
TWINS = (block("h.py", "    refresh()\n", "    redraw()\n") + "\nMeanwhile a.py.\n\n" + block("a.py", "one = 1\n", "one = 11\n")
         + "\nAnd the other place.\n\n" + block("h.py", "    refresh()\n", "    redraw()\n"))


def twins_locator() -> LiveLocator:
    return LiveLocator(lambda path: TargetFile(path, HANDLERS if path == "h.py" else FILES.get(path)))


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_identical_blocks_the_first_waits_without_a_verdict_until_the_last_settles_it(size: int) -> None:
    live = LiveAnswer(twins_locator())
    events = []
    for start in range(0, len(TWINS), size):
        events += live.feed(TWINS[start : start + size])
    events += live.close()
    first, other, second = parse(TWINS).blocks
    shown = [(type(e).__name__, e.block) for e in events if isinstance(e, BlockLocated | BlockWaiting)]
    assert shown == [("BlockWaiting", first), ("BlockLocated", other), ("BlockLocated", second),
                     ("BlockLocated", first)]
    plan = plan_edits((first, other, second), {"h.py": TargetFile("h.py", HANDLERS), "a.py": TargetFile("a.py", FILES["a.py"])})
    assert [located.result for located in live.located] == list(plan.results)
    assert all(r.status is Status.APPLIED for r in plan.results)
    assert live.locator.round_plan() == plan


def test_a_lone_block_that_waited_is_ambiguous_when_the_answer_ends_and_the_page_showed_no_verdict_before() -> None:
    from editblocks.web.answer import AnswerFeed

    lone = block("h.py", "    refresh()\n", "    redraw()\n") + "\nThat is all.\n"
    feed = AnswerFeed(LiveAnswer(twins_locator()))
    feed.feed(lone)
    (twin,) = feed.blocks()
    assert twin not in feed.verdicts  # waiting: the page shows it pending
    feed.close()
    assert feed.verdicts[twin].code.value == "ambiguous"


def test_the_workbench_shows_a_waiting_block_without_a_verdict_until_the_last_copy_settles_it() -> None:
    from itertools import count

    from editblocks.web.live_round import LiveRound

    shown = LiveRound(LiveAnswer(twins_locator()), count(1).__next__)
    middle = TWINS.index("Meanwhile")
    shown.feed(TWINS[:middle])
    assert shown.slots() == []  # the first copy ended, and waits: no verdict on the page
    shown.feed(TWINS[middle:])
    shown.close()
    assert [(slot.line, slot.result.status) for slot in shown.slots() if slot.result] == [
        (3, Status.APPLIED), (14, Status.APPLIED), (25, Status.APPLIED)]


def test_the_terminal_view_says_a_block_waits_for_identical_blocks() -> None:
    import io

    from rich.console import Console

    from editblocks.ask.display import PlainView

    buffer = io.StringIO()
    view = PlainView(Console(file=buffer, width=200, color_system=None))
    live = LiveAnswer(twins_locator())
    view.chunk(TWINS, live.feed(TWINS))
    view.chunk("", live.close())
    shown = buffer.getvalue()
    assert ("… h.py  block at line 3  the old text occurs at lines 3 and 8: waiting for 1 more identical block, one "
            "for each place (else it is ambiguous)") in shown
    assert shown.count("✓ h.py:") == 2


class InterruptingView(QuietView):
    """Presses Ctrl-C after a few chunks of the answer."""

    def __init__(self) -> None:
        self.chunks = 0

    def chunk(self, text: str, events: list) -> None:
        self.chunks += 1
        if self.chunks == 30:
            raise KeyboardInterrupt


def test_ctrl_c_mid_answer_writes_nothing_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    with scripted([Answer(ANSWER, chunk=2)]) as server:
        outcome = ask(AskOptions("edit", ("a.py",), str(tmp_path), yes=True),
                      Endpoint("m", server.base_url, "test-key", backoff=0.0), InterruptingView(), lambda _: True)
    assert outcome.stopped is not None and outcome.stopped[0] == "interrupted"
    assert "nothing of this answer was written" in outcome.stopped[1]
    assert outcome.exit_code == 2
    assert {name: (tmp_path / name).read_text() for name in FILES} == FILES


def test_the_terminal_view_prints_prose_and_verdicts_and_keeps_the_growing_block_below() -> None:
    import io

    from rich.console import Console

    from editblocks.ask.display import LiveView

    buffer = io.StringIO()
    view = LiveView(Console(file=buffer, force_terminal=True, width=100, color_system=None))
    live = LiveAnswer(locator())
    view.round_started(1, "asking m")
    half = ANSWER.index("two = 22\n>>>>>>> REPLACE")
    view.chunk(ANSWER[:half], live.feed(ANSWER[:half]))
    region = view._region()  # what the live region shows mid-block
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(region)
    assert "▸ a.py  block at line 5, 1 line so far" in console.file.getvalue()
    view.chunk(ANSWER[half:], live.feed(ANSWER[half:]))
    view.chunk("", live.close())
    view.stream_ended()
    shown = buffer.getvalue()
    assert "First a.py." in shown and "✓ a.py:2  block at line 5  exact" in shown
    assert "✗ b.py  block at line " in shown and "the old text was not found in b.py" in shown and "Done." in shown


def test_a_patch_answer_gets_its_verdicts_when_it_ends_deletion_included() -> None:
    patch = ("Patch:\n\n*** Begin Patch\n*** Update File: a.py\n@@\n one = 1\n-two = 2\n+two = 22\n"
             "*** Delete File: b.py\n*** End Patch\n\nDone.\n")
    live_locator = locator()
    live = LiveAnswer(live_locator)
    verdicts = [e for char in patch for e in live.feed(char) if isinstance(e, BlockLocated)]
    assert verdicts == []  # a patch is read whole, by its front-end
    verdicts = [e for e in live.close() if isinstance(e, BlockLocated)]
    assert [(e.result.status, e.result.path) for e in verdicts] == [(Status.APPLIED, "a.py"), (Status.APPLIED, "b.py")]
    result = live_locator.round_result(dry_run=True)
    assert result.files_modified == ("a.py",) and result.files_deleted == ("b.py",)
    assert live.result() == parse(patch)


@pytest.mark.parametrize("patch", [
    "*** Begin Patch\n*** Update File: a.py\n*** Move to: new.py\n*** End Patch\n",
    "diff --git a/a.py b/new.py\nsimilarity index 100%\nrename from a.py\nrename to new.py\n",
])
def test_a_move_is_located_against_its_target_and_leaves_the_text_there(patch: str) -> None:
    live_locator = locator()
    live = LiveAnswer(live_locator)
    live.feed(patch)
    verdicts = [e for e in live.close() if isinstance(e, BlockLocated)]
    assert [(e.result.status, e.result.reason) for e in verdicts] == [(Status.APPLIED, "renamed a.py → new.py")]
    assert live_locator.round_files()["new.py"][1] == FILES["a.py"]
    assert live_locator.round_files()["a.py"][1] is None


def test_a_move_onto_a_file_an_earlier_block_created_is_refused() -> None:
    live_locator = locator()
    live = LiveAnswer(live_locator)
    live.feed("*** Begin Patch\n*** Add File: new.py\n+fresh = 1\n*** Update File: a.py\n*** Move to: new.py\n"
              "*** End Patch\n")
    verdicts = [e for e in live.close() if isinstance(e, BlockLocated)]
    assert [e.result.status for e in verdicts] == [Status.APPLIED, Status.FAILED]
    assert "new.py already exists" in verdicts[1].result.reason


def test_the_planner_refuses_a_move_target_it_was_not_given_rather_than_raising() -> None:
    parsed = parse("*** Begin Patch\n*** Update File: a.py\n*** Move to: elsewhere.py\n*** End Patch\n")
    plan = plan_edits(parsed.blocks, {"a.py": TargetFile("a.py", FILES["a.py"])})
    assert [r.status for r in plan.results] == [Status.FAILED]
    assert "elsewhere.py was not read" in plan.results[0].reason and plan.files == ()
