"""How much comparing a fuzzy ranking may do, counted in character pairs, so huge lines cannot stall it.

Comparing two lines costs about the product of their lengths: a block of 9 KB
lines against a file of 9 KB lines is 81 million pairs per comparison, and a
diagnosis makes thousands (12 s for one not-found block). Each ranking gets
``COMPARE_BUDGET`` pairs for exact comparisons; past that, lines are compared
by their first and last ``ESTIMATE_CHARS`` characters (a cheaper estimate,
with an allowance of its own), and past that not at all. Whoever reports the
result says so when either happened (`note`).
"""

from __future__ import annotations

from dataclasses import dataclass

COMPARE_BUDGET = 10_000_000_000
"""Character pairs compared exactly: about 0.15 s of rapidfuzz, ten times what a big ordinary diagnosis needs."""

ESTIMATE_BUDGET = 10_000_000_000
"""Character pairs compared on shortened lines once the exact budget is spent."""

ESTIMATE_CHARS = 128
"""A shortened line: its first and last this many characters."""


def shortened(key: str) -> str:
    """The part of a long line an estimate compares: its head and its tail."""
    return key if len(key) <= 2 * ESTIMATE_CHARS else key[:ESTIMATE_CHARS] + key[-ESTIMATE_CHARS:]


@dataclass
class CompareBudget:
    """Character pairs left for exact comparisons and for estimates; what ran short is remembered."""

    exact: int = COMPARE_BUDGET
    estimates: int = ESTIMATE_BUDGET
    estimated: bool = False
    """Some comparison was estimated on shortened lines."""
    skipped: bool = False
    """Some comparison was not made at all (both allowances spent)."""

    def take_exact(self, pairs: int) -> bool:
        if pairs <= self.exact:
            self.exact -= pairs
            return True
        return False

    def take_estimate(self, pairs: int) -> bool:
        if pairs <= self.estimates:
            self.estimates -= pairs
            self.estimated = True
            return True
        self.skipped = True
        return False

    @property
    def note(self) -> str:
        """What a report should add when the budget changed the outcome ("" when it did not)."""
        if self.skipped:
            return ("the lines are too long to compare in full: the closest text was looked for only in part, "
                    "so a closer one may exist")
        if self.estimated:
            return (f"the lines are too long to compare in full: the closest text was looked for by the first and "
                    f"last {ESTIMATE_CHARS} characters of each line, so any similarity named is an estimate")
        return ""
