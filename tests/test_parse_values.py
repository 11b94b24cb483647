"""The parser's quick builders give exactly the values the dataclass constructors give, as small and as frozen."""

from __future__ import annotations

import dataclasses
import tracemalloc

import pytest

from editblocks.model import (
    BlockKind,
    BlockProgress,
    Diagnostic,
    EditBlock,
    Format,
    ParseResult,
    Reading,
    Severity,
    ShellSuggestion,
    TextEvent,
)
from editblocks.parsing.values import block_progress, diagnostic, edit_block, parse_result, text_event

BLOCK_FIELDS = ("a.py", "", "old\n", "new\n", "", BlockKind.EDIT, Format.DIFF, 3, (Reading("o", "n", "why"),),
                ("o", "n"), 7)
RESULT_FIELDS = ("diff", (EditBlock(*BLOCK_FIELDS),), (ShellSuggestion("ls", 2),), (Diagnostic(Severity.ERROR, 1, "x"),))
BUILDERS = [
    (edit_block, EditBlock, BLOCK_FIELDS),
    (parse_result, ParseResult, RESULT_FIELDS),
    (diagnostic, Diagnostic, (Severity.WARNING, 9, "odd")),
    (text_event, TextEvent, ("hello\n", 4)),
    (block_progress, BlockProgress, (5, "old", "x\n")),
]
IDS = [cls.__name__ for _, cls, _ in BUILDERS]


@pytest.mark.parametrize(("build", "cls", "fields"), BUILDERS, ids=IDS)
def test_a_quick_value_is_the_dataclass_value_field_by_field(build, cls, fields):
    quick, usual = build(*fields), cls(*fields)
    assert type(quick) is cls
    assert vars(quick) == vars(usual)
    assert [f.name for f in dataclasses.fields(usual)] == list(vars(quick))
    assert quick == usual and hash(quick) == hash(usual) and repr(quick) == repr(usual)


@pytest.mark.parametrize(("build", "cls", "fields"), BUILDERS, ids=IDS)
def test_a_quick_value_stays_frozen(build, cls, fields):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(build(*fields), dataclasses.fields(cls)[0].name, None)


@pytest.mark.parametrize(("build", "cls", "fields"), BUILDERS, ids=IDS)
def test_a_quick_value_takes_no_more_memory(build, cls, fields):
    def footprint(make):
        tracemalloc.start()
        try:
            made = [make(*fields) for _ in range(1_000)]
            return tracemalloc.get_traced_memory()[0], made
        finally:
            tracemalloc.stop()

    quick, usual = footprint(build)[0], footprint(cls)[0]
    assert quick <= usual * 1.05, f"{quick} bytes for 1,000 quick values, {usual} for 1,000 built as usual"
