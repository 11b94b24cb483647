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
