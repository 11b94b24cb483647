"""The per-file policy `file`: a file is written only when every block for it applied, so none is half-edited.

A failed block holds its file back: the file's blocks that applied are
reported as held (status skipped, code `held`) and the file stays as it is,
with any file a move joins to it. A block that was already applied, or that
changes nothing, counts as done. The held blocks still shape the in-memory
copy, so the file's later blocks are decided on the text they were written
for, and a loop that keeps them can write the file once its last block lands.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from editblocks.model import EditResult, ResultCode, Status
from editblocks.plan.state import FileState, Plan


def held_files(states: Mapping[str, FileState], waiting: Collection[str] = (),
               ambiguous: Iterable[tuple[str, int]] = ()) -> dict[str, tuple[int, ...]]:
    """The files to leave unwritten, each with the answer lines of its failed blocks: every file with a failed
    block, every file in ``waiting`` (it waits for a block of an earlier answer), every file of an ``ambiguous``
    (file, line) block (one left waiting for identical blocks that never came), and every file a move joins to
    one of those."""
    held = {key: tuple(state.failed_lines) for key, state in states.items() if state.failed_lines or key in waiting}
    for key, line in ambiguous:
        held[key] = (*held.get(key, ()), line)
    joined = [(key, other) for key, state in states.items() for other in (state.moved_to, state.moved_from)
              if other is not None]
    grown = True
    while grown:
        grown = False
        for key, other in joined:
            for one, two in ((key, other), (other, key)):
                if one in held and two not in held:
                    held[two] = held[one]
                    grown = True
    return held


def hold_back(plan: Plan, held: Mapping[str, Sequence[int]]) -> Plan:
    """``plan`` without the held files: their applied blocks are reported as held, and none of them is written."""
    if not held:
        return plan
    results = tuple(held_result(r, held[r.path]) if r.status is Status.APPLIED and r.path in held else r
                    for r in plan.results)
    files = tuple(f for f in plan.files if f.key not in held and f.moved_from not in held)
    return Plan(results, files, plan.aborted)


def held_result(result: EditResult, failed_lines: Sequence[int]) -> EditResult:
    """An applied block's result, held back because its file has a failed block (at ``failed_lines``)."""
    return replace(result, status=Status.SKIPPED, code=ResultCode.HELD,
                   reason=f"held back: it applies, but {failure_words(result.path, failed_lines)}, and a file is "
                          "written only when every block for it applies")


def failure_words(key: str, failed_lines: Sequence[int], *, answer: str = "") -> str:
    """`the block at line 12 for app.py failed` (or the blocks; ``answer`` names the answer they are in)."""
    lines = sorted(set(failed_lines))
    if not lines:
        return f"{key} still waits for a failed block of an earlier answer"
    of = f" of {answer}" if answer else ""
    if len(lines) == 1:
        return f"the block at line {lines[0]}{of} for {key} failed"
    listed = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
    return f"the blocks at lines {listed}{of} for {key} failed"
