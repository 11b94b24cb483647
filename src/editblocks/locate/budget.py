"""How much comparing a fuzzy ranking may do, so huge lines or thousands of not-found blocks cannot stall it.

Comparing two lines costs about the product of their lengths over 64
(rapidfuzz compares 64 characters at a time): a block of 9 KB lines against a
file of 9 KB lines is over a million units per comparison, and a diagnosis
makes thousands (12 s for one not-found block). A ranking draws on a
``CompareBudget``: comparisons are made in full while its exact allowance
lasts, then on lines shortened to their first and last ``ESTIMATE_CHARS``
characters (an estimate, with an allowance of its own), then not at all.
Whoever reports the result says so when either happened (`note`).
"""

from __future__ import annotations

COMPARE_BUDGET = 300_000_000
"""Work units (about a nanosecond each) of comparisons made in full: some 0.3 s, twenty big ordinary diagnoses."""

ESTIMATE_BUDGET = 300_000_000
"""Work units of comparisons on shortened lines, once the full allowance is spent."""

ESTIMATE_CHARS = 128
"""A shortened line: its first and last this many characters."""

LINE_OVERHEAD = 32
"""Work units one line costs to compare, however short."""


FILE_BASE = 50_000_000
FILE_PASSES = 20
"""A file's not-found diagnoses together may do ``FILE_BASE`` work units plus this many passes over the file (in
full, and as many on shortened lines): enough for dozens of ordinary diagnoses, and linear in the file however many
blocks are not found."""


def file_budget(chars: int, lines: int) -> CompareBudget:
    """The budget all not-found diagnoses in one file share (a file of ``chars`` characters in ``lines`` lines)."""
    allowance = FILE_BASE + FILE_PASSES * (chars + LINE_OVERHEAD * lines)
    return CompareBudget(allowance, allowance)


def compare_cost(first: int, second: int, lines: int = 1) -> int:
    """Work units of comparing a ``first``-character line with ``lines`` lines of ``second`` characters in all."""
    return (first // 64 + 1) * (second + LINE_OVERHEAD * lines)


def shortened(key: str) -> str:
    """The part of a long line an estimate compares: its head and its tail."""
    return key if len(key) <= 2 * ESTIMATE_CHARS else key[:ESTIMATE_CHARS] + key[-ESTIMATE_CHARS:]


class CompareBudget:
    """Work units left for comparisons in full and for estimates, and what ran short."""

    __slots__ = ("exact", "estimates", "estimated", "skipped", "spent")

    def __init__(self, exact: int = COMPARE_BUDGET, estimates: int = ESTIMATE_BUDGET) -> None:
        self.exact = exact
        self.estimates = estimates
        self.estimated = False
        """Some comparison was estimated on shortened lines (since the flags were last cleared)."""
        self.skipped = False
        """Some comparison was not made at all (since the flags were last cleared)."""
        self.spent = False
        """An estimate did not fit any more: nothing more is compared with this budget."""

    def take_exact(self, units: int) -> bool:
        if units <= self.exact:
            self.exact -= units
            return True
        return False

    def take_estimate(self, units: int) -> bool:
        if not self.spent and units <= self.estimates:
            self.estimates -= units
            self.estimated = True
            return True
        self.skipped = self.spent = True
        return False

    def take_scan(self, units: int) -> bool:
        """A pass over the file that only serves a courtesy check: made while the full allowance lasts."""
        if self.take_exact(units):
            return True
        self.skipped = True
        return False

    @property
    def note(self) -> str:
        """What a report should add when the budget changed the outcome ("" when it did not)."""
        if self.skipped:
            return ("the closest text was looked for only in part, or not at all: comparing more would exceed the "
                    "work allowed for finding it (very long lines, or many blocks not found in this file)")
        if self.estimated:
            return (f"the closest text was looked for by the first and last {ESTIMATE_CHARS} characters of each "
                    "line (comparing the lines in full would take too long), so any similarity named is an estimate")
        return ""
