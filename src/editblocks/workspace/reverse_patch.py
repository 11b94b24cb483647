"""Reverse patches: what the journal keeps of a big file a run changed only a little.

A copy of a 45 MB file per one-line edit fills the journal fast; the old
file is the new one with a single span put back, so the journal keeps that
span and where it goes. The span is found by comparing the two files from
each end, a chunk at a time (C-speed comparisons, no per-byte loop). A patch
applies to the very bytes the run wrote and nothing else: undo checks the
base and the result against the recorded fingerprints before writing.
"""

from __future__ import annotations

from dataclasses import dataclass

PATCH_MIN_BYTES = 64 << 10  # below this a whole copy is as cheap, and survives later edits (`undo --force`)
PATCH_MAX_SHARE = 8  # a patch is kept only if it is at most 1/8 of the file
_FIRST_STEP = 1 << 20


@dataclass(frozen=True)
class ReversePatch:
    """The old bytes = the new file's first ``keep_start`` bytes + ``replaced`` + its last ``keep_end`` bytes."""

    keep_start: int
    keep_end: int
    replaced: bytes


def reverse_patch(old: bytes, new: bytes) -> ReversePatch | None:
    """The patch that turns ``new`` back into ``old``, when it is much smaller than ``old``; else None."""
    if len(old) < PATCH_MIN_BYTES:
        return None
    start = _common_start(old, new)
    end = _common_end(old, new, min(len(old), len(new)) - start)
    replaced = old[start : len(old) - end]
    if len(replaced) * PATCH_MAX_SHARE > len(old):
        return None
    return ReversePatch(start, end, replaced)


def apply_reverse(base: bytes, patch: ReversePatch) -> bytes | None:
    """The old bytes, from the new bytes ``base`` the patch was made against; None if it cannot fit them."""
    if patch.keep_start + patch.keep_end > len(base):
        return None
    return base[: patch.keep_start] + patch.replaced + base[len(base) - patch.keep_end :]


def _common_start(a: bytes, b: bytes) -> int:
    """How many leading bytes ``a`` and ``b`` share."""
    limit = min(len(a), len(b))
    done, step = 0, _FIRST_STEP
    while step:
        while done + step <= limit and a[done : done + step] == b[done : done + step]:
            done += step
        step //= 16
    return done


def _common_end(a: bytes, b: bytes, limit: int) -> int:
    """How many trailing bytes ``a`` and ``b`` share, at most ``limit`` (what the shared start left)."""
    done, step = 0, _FIRST_STEP
    end_a, end_b = len(a), len(b)
    while step:
        while done + step <= limit and a[end_a - done - step : end_a - done] == b[end_b - done - step : end_b - done]:
            done += step
        step //= 16
    return done
