"""The incremental planner: a verdict without taking the block, taking it, and the batch call as a loop over both."""

from __future__ import annotations

import pytest

from editblocks import parse
from editblocks.model import Policy, ResultCode, Status
from editblocks.plan import Planner, PlanOptions, TargetFile, plan_edits

FILES = {"a.py": "one = 1\ntwo = 2\nthree = 3\n", "b.py": "x = 1\n"}


def block(path: str, old: str, new: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"


def planner(options: PlanOptions | None = None) -> Planner:
    return Planner(lambda path: TargetFile(path, FILES.get(path)), options or PlanOptions())


def test_deciding_a_block_changes_nothing_until_it_is_accepted() -> None:
    first, second = parse(block("a.py", "two = 2\n", "two = 22\n") + block("a.py", "two = 22\n", "two = 222\n")).blocks
    plans = planner()
    decided = plans.decide(first)
    assert decided.result.status is Status.APPLIED and decided.changes
    assert plans.decide(first) == decided  # the same file, the same verdict: nothing was taken
    assert plans.decide(second).result.status is Status.FAILED  # the text the first block leaves is not there yet
    assert plans.plan().files == () and plans.results == ()
    plans.accept(plans.decide(first))
    then = plans.decide(second)
    assert then.result.status is Status.APPLIED
    plans.accept(then)
    assert plans.plan().files[0].text == "one = 1\ntwo = 222\nthree = 3\n"


def test_a_decision_made_before_another_block_was_taken_is_refused() -> None:
    first, second = parse(block("a.py", "one = 1\n", "one = 11\n") + block("b.py", "x = 1\n", "x = 2\n")).blocks
    plans = planner()
    stale = plans.decide(first)
    plans.accept(plans.decide(second))
    with pytest.raises(ValueError):
        plans.accept(stale)


def test_a_block_never_accepted_leaves_no_trace() -> None:
    kept, dropped = parse(block("a.py", "one = 1\n", "one = 11\n") + block("b.py", "x = 1\n", "x = 2\n")).blocks
    plans = planner()
    plans.accept(plans.decide(kept))
    plans.decide(dropped)  # a block the parser withdrew, or a reviewer rejected
    plan = plans.plan()
    assert [r.block for r in plan.results] == [kept] and [f.key for f in plan.files] == ["a.py"]


@pytest.mark.parametrize("policy", [None, Policy.SKIP_FILE, Policy.ABORT])
def test_the_batch_call_is_the_loop_over_the_incremental_one(policy: Policy | None) -> None:
    answer = (block("a.py", "nine = 9\n", "nine = 99\n") + block("a.py", "one = 1\n", "one = 11\n")
              + block("b.py", "x = 1\n", "x = 2\n"))
    blocks = parse(answer).blocks
    options = PlanOptions(policy=policy)
    plans = planner(options)
    for each in blocks:
        plans.accept(plans.decide(each))
    looped = plans.plan()
    assert looped == plan_edits(blocks, {path: TargetFile(path, text) for path, text in FILES.items()}, options)
    codes = [r.code for r in looped.results]
    assert codes[0] is ResultCode.NOT_FOUND
    if policy is Policy.SKIP_FILE:
        assert codes[1] is ResultCode.SKIPPED_AFTER_FAILURE and looped.results[2].status is Status.APPLIED
    if policy is Policy.ABORT:
        assert looped.aborted and looped.files == () and set(codes[1:]) == {ResultCode.ABORTED}


HANDLERS = "def on_save(event):\n    log(event)\n    refresh()\n\n\ndef on_load(event):\n    log(event)\n    refresh()\n"
TWIN = block("h.py", "    refresh()\n", "    redraw()\n")


def handlers_planner(options: PlanOptions | None = None) -> Planner:
    return Planner(lambda path: TargetFile(path, HANDLERS if path == "h.py" else FILES.get(path)),
                   options or PlanOptions())


def test_a_block_that_may_be_the_first_of_identical_blocks_waits_and_the_last_copy_settles_it() -> None:
    first, other, second = parse(TWIN + block("a.py", "one = 1\n", "one = 11\n") + TWIN).blocks
    plans = handlers_planner()
    waiting = plans.decide(first)
    assert waiting.awaiting == 1 and waiting.changes == () and waiting.result.code is ResultCode.AMBIGUOUS
    plans.accept(waiting)
    assert plans.waiting() == (waiting.result,)
    assert plans.plan().results[0].code is ResultCode.AMBIGUOUS  # if no copy came, it is ambiguous
    plans.accept(plans.decide(other))
    last = plans.decide(second)
    assert last.awaiting == 0 and last.result.status is Status.APPLIED
    assert [r.block for r in last.settles] == [first] and last.settles[0].status is Status.APPLIED
    assert plans.plan().results[0].code is ResultCode.AMBIGUOUS  # decided, not taken: nothing settled yet
    plans.accept(last)
    plan = plans.plan()
    assert plans.waiting() == () and [r.status for r in plan.results] == [Status.APPLIED] * 3
    assert [(r.start_line, r.block) for r in plan.results if r.block.path == "h.py"] == [(3, first), (8, second)]
    assert {f.key: f.text for f in plan.files}["h.py"] == HANDLERS.replace("refresh()", "redraw()")


def test_a_waiting_block_under_skip_file_is_settled_by_the_next_block_of_its_file() -> None:
    twin, later = parse(TWIN + block("h.py", "def on_load(event):\n", "def on_open(event):\n")).blocks
    plans = handlers_planner(PlanOptions(policy=Policy.SKIP_FILE))
    plans.accept(plans.decide(twin))
    decided = plans.decide(later)
    assert decided.result.code is ResultCode.SKIPPED_AFTER_FAILURE and "(line 2)" in decided.result.reason
    assert [(r.block, r.code) for r in decided.settles] == [(twin, ResultCode.AMBIGUOUS)]
    plans.accept(decided)
    assert plans.waiting() == () and plans.plan().files == ()


@pytest.mark.parametrize("policy", [None, Policy.ABORT])
def test_a_block_still_waiting_when_the_answer_ends_fails_as_ambiguous(policy: Policy | None) -> None:
    answer = TWIN + block("b.py", "x = 1\n", "x = 2\n")
    blocks = parse(answer).blocks
    plan = plan_edits(blocks, {"h.py": TargetFile("h.py", HANDLERS), "b.py": TargetFile("b.py", FILES["b.py"])},
                      PlanOptions(policy=policy))
    assert plan.results[0].code is ResultCode.AMBIGUOUS
    assert plan.aborted == (policy is Policy.ABORT)
    assert plan.results[1].code is (ResultCode.ABORTED if policy else ResultCode.NONE)


@pytest.mark.parametrize("policy", [None, Policy.CONTINUE])
def test_a_block_still_waiting_when_the_answer_ends_holds_its_file_under_the_default_policy(
        policy: Policy | None) -> None:
    """A lone copy is ambiguous once the answer ends: under `file` the other block for its file is held and the
    file is not written, naming the copy's line; under `continue` that block is written alone."""
    answer = TWIN + block("h.py", "def on_load(event):\n", "def on_open(event):\n")
    plan = plan_edits(parse(answer).blocks, {"h.py": TargetFile("h.py", HANDLERS)}, PlanOptions(policy=policy))
    assert plan.results[0].code is ResultCode.AMBIGUOUS
    if policy is None:
        assert plan.results[1].code is ResultCode.HELD and "the block at line 2 for h.py failed" in plan.results[1].reason
        assert plan.files == ()
    else:
        assert plan.results[1].code is ResultCode.NONE and [f.key for f in plan.files] == ["h.py"]


@pytest.mark.parametrize("policy", [None, Policy.CONTINUE])
def test_a_copy_beyond_the_places_is_decided_on_its_own_after_the_copies_before_it_edited_every_place(
        policy: Policy | None) -> None:
    """The planner cannot wait for copies that may never come: the second copy settles the pair, and a third finds
    no old text left (a failure the model is told of). Under the default policy that failure holds the pair back."""
    plan = plan_edits(parse(TWIN * 3).blocks, {"h.py": TargetFile("h.py", HANDLERS)}, PlanOptions(policy=policy))
    pair = [ResultCode.HELD] * 2 if policy is None else [ResultCode.NONE] * 2
    assert [r.code for r in plan.results] == [*pair, ResultCode.NOT_FOUND]
    assert bool(plan.files) == (policy is Policy.CONTINUE)


def test_blocks_after_the_lookups_were_dropped_are_located_as_before() -> None:
    """`plan_edits` drops each file's line index before joining the texts (one less copy of a big file's lines
    in memory then); a planner that goes on builds them again and finds the same places."""
    text = "".join(f"value_{n} = {n}\n" for n in range(50))
    edits = parse("".join(block("big.py", f"value_{n} = {n}\n", f"value_{n} = {n}\nadded_{n} = 0\n")
                          for n in range(0, 50, 5))).blocks
    plans = Planner(lambda path: TargetFile(path, text))
    for index, edit in enumerate(edits):
        if index % 3 == 2:
            plans.forget_lookups()
        plans.accept(plans.decide(edit))
    assert [r.status for r in plans.results] == [Status.APPLIED] * len(edits)
    assert plans.plan().files[0].text == plan_edits(edits, {"big.py": TargetFile("big.py", text)}).files[0].text
    assert plans.plan().files[0].text.count("added_") == 10
