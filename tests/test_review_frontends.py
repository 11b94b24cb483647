"""Defects an independent review found in the V4A / unified / whole / tool front-ends (issue 14), each pinned."""

from __future__ import annotations

import functools
import gc
import tracemalloc

from test_reliability import GROWTH_FACTOR, GROWTH_LIMIT, growth, slow

from editblocks import parse
from editblocks.frontends.unified import read_unified
from editblocks.model import Format

HEADERLESS = "diff --git a/x b/x\n"


def test_headerless_git_sections_get_spans_that_never_run_backwards() -> None:
    """A `diff --git` line with nothing after it is still a section: its span covers that line."""
    _, spans = read_unified(HEADERLESS * 3)
    assert spans == [(0, 19), (19, 38), (38, 57)]


def test_prose_around_headerless_sections_is_read_for_shell_commands_once() -> None:
    text = "Run:\n\n```bash\nrm -rf build\n```\n\ndiff --git a/x b/x\ndiff --git a/y b/y\n"
    assert [(s.command, s.line) for s in parse(text, Format.UDIFF).shell] == [("rm -rf build", 4)]


@slow
def test_a_flood_of_headerless_git_lines_parses_in_linear_time() -> None:
    ratio = growth(lambda n: functools.partial(parse, HEADERLESS * n), 2_000)
    assert ratio < GROWTH_LIMIT, f"{GROWTH_FACTOR * 2_000} headerless sections took {ratio:.1f}x the time of 2,000"


def test_a_flood_of_headerless_git_lines_takes_bounded_memory() -> None:
    """20,000 such lines once raised MemoryError: the prose around them was rebuilt from ever-longer prefixes.
    Each section keeps its warning (about 20 bytes per byte of answer); quadratic would be thousands."""
    text = HEADERLESS * 5_000
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = parse(text)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert not result.blocks
    assert peak < 50 * len(text), f"peak memory {peak / len(text):.1f}x the answer"
