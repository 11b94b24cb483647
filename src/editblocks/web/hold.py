"""Which blocks of a round the workbench holds for Apply: the one place that decides it.

The workbench writes nothing until Apply. Until then each accepted block of
an answer that arrived whole is either held (kept for Apply and not sent back
to the model) or waits for the model's fix. A `HoldPolicy` says which, given
the round's verdicts; `Workbench(..., hold=...)` takes another one. Holding
is asked here and nowhere else, so that when the session keeps held blocks
across rounds itself, the workbench follows it by changing this module alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from editblocks.model import EditResult, ResultCode, Status

HoldPolicy = Callable[[Sequence[EditResult]], list[bool]]
"""Given the verdicts of a whole round's accepted blocks, in order, which of them are held for Apply."""


def hold_applied(results: Sequence[EditResult]) -> list[bool]:
    """Hold every block that applies, on its own or held back only because another block for its file failed
    (policy `file`); a failed or skipped block waits for the model's fix. A held block of a file that waits for
    a fix is written with it (`Conversation.waiting_files`), never alone."""
    return [result.status is Status.APPLIED or result.code is ResultCode.HELD for result in results]
