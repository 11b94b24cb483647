"""Run ids: ``<8-digit sequence>-<UTC time>``, read strictly, and which of a journal's runs follow in sequence.

The names in ``.editblocks/journal/`` are data a cloned repository can carry,
so a name is a run id only if it is exactly one: ASCII digits, a sequence from
1 to 99,999,999, a real calendar time. Ids are handed out one after another
(each new run takes the highest number plus one; a run that failed leaves at
most a small gap), so a run whose number leaps far past the run before it was
not numbered by editblocks: it is *out of sequence*, and numbering, pruning
and undo go on from the runs before it, as if it were not there. Pure: the
journal lists the folder and asks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property, lru_cache

SEQUENCE_DIGITS = 8
MAX_SEQUENCE = 10**SEQUENCE_DIGITS - 1
MAX_GAP = 1000
"""The largest step from one run's number to the next that editblocks can leave (failed runs are few)."""
SET_ASIDE = ".damaged"
STAMP_FORMAT = "%Y%m%dT%H%M%SZ"
_NAME = re.compile(r"([0-9]{8})-([0-9]{8}T[0-9]{6}Z)(\.damaged)?", re.ASCII)


class RunNumbersUsedUp(ValueError):
    """No run number is left after the highest one in the journal; the message names the run that holds it."""


@dataclass(frozen=True, order=True)
class RunId:
    """A parsed run folder name: a run's id, or (``set_aside``) a damaged run `undo --force` moved aside."""

    sequence: int
    stamp: str
    set_aside: bool = False

    @cached_property
    def run_id(self) -> str:
        return f"{self.sequence:0{SEQUENCE_DIGITS}d}-{self.stamp}"

    @cached_property
    def name(self) -> str:
        return self.run_id + (SET_ASIDE if self.set_aside else "")


@dataclass(frozen=True)
class RunSequence:
    """A journal's names sorted out: the runs in sequence (oldest first) and why each other one is not."""

    runs: tuple[RunId, ...]
    out_of_sequence: dict[str, str]  # run id -> why it is not in sequence

    def next_id(self, stamp: str) -> RunId:
        """The id a new run takes: the number after the highest in sequence; `RunNumbersUsedUp` if there is none."""
        last = self.runs[-1] if self.runs else None
        number = (last.sequence if last else 0) + 1
        if number > MAX_SEQUENCE:
            assert last is not None
            raise RunNumbersUsedUp(f"run {last.run_id} holds the last run number there is; editblocks never gets "
                                   f"that far, so it did not make that run: remove `.editblocks/journal/{last.name}` "
                                   "to go on")
        return RunId(number, stamp)


@lru_cache(maxsize=4096)
def parse_run_id(name: str) -> RunId | None:
    """The run id ``name`` spells (a set-aside one too), or None if it is not exactly one.

    Remembered: the journal's names are read on every edit, and checking a calendar time is not cheap.
    """
    found = _NAME.fullmatch(name)
    if found is None:
        return None
    sequence = int(found[1])
    try:
        datetime.strptime(found[2], STAMP_FORMAT)
    except ValueError:
        return None
    if not 1 <= sequence <= MAX_SEQUENCE:
        return None
    return RunId(sequence, found[2], bool(found[3]))


def in_sequence(names: Iterable[str]) -> RunSequence:
    """Sort a journal's folder names: run ids in sequence, and the out-of-sequence ones with why.

    Names that are not run ids are left out altogether. A set-aside run keeps
    its place in the sequence (its number was handed out). Remembered for the
    same names (each edit asks several times); the result is not to be changed.
    """
    return _in_sequence(frozenset(names))


@lru_cache(maxsize=64)
def _in_sequence(names: frozenset[str]) -> RunSequence:
    ids = sorted((found for found in map(parse_run_id, names) if found is not None),
                 key=lambda found: (found.sequence, found.stamp, found.set_aside))  # the order of RunId, quicker
    kept: list[RunId] = []
    out: dict[str, str] = {}
    for found in ids:
        before = kept[-1] if kept else None
        if before is not None and found.sequence - before.sequence > MAX_GAP:
            out[found.run_id] = (f"out of sequence: its number jumps from {before.sequence:0{SEQUENCE_DIGITS}d} to "
                                 f"{found.sequence:0{SEQUENCE_DIGITS}d}, so editblocks did not number it")
            continue
        kept.append(found)
    return RunSequence(tuple(kept), out)
