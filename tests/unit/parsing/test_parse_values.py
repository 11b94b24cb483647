"""The parser's quick builders give exactly the values the dataclass constructors give, as small and as frozen."""

from __future__ import annotations

import copy
import dataclasses
import pickle
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
    Scope,
    Severity,
    ShellSuggestion,
    TextEvent,
)
from editblocks.parsing.values import (
    block_progress,
    diagnostic,
    edit_block,
    formatted_diagnostic,
    parse_result,
    shell_suggestion,
    text_event,
)

BLOCK_FIELDS = ("a.py", "", "old\n", "new\n", "", BlockKind.EDIT, Format.DIFF, 3, (Reading("o", "n", "why"),),
                ("o", "n"), 7)
RESULT_FIELDS = ("diff", (EditBlock(*BLOCK_FIELDS),), (ShellSuggestion("ls", 2),), (Diagnostic(Severity.ERROR, 1, "x"),))
BUILDERS = [
    (edit_block, EditBlock, BLOCK_FIELDS),
    (edit_block, EditBlock, (*BLOCK_FIELDS, Scope(("def f():",), True, True), "b.py")),  # a patch's block
    (parse_result, ParseResult, RESULT_FIELDS),
    (diagnostic, Diagnostic, (Severity.WARNING, 9, "odd")),
    (shell_suggestion, ShellSuggestion, ("git rm old.py", 6)),
    (text_event, TextEvent, ("hello\n", 4)),
    (block_progress, BlockProgress, (5, "old", "x\n")),
]
IDS = [cls.__name__ for _, cls, _ in BUILDERS]


@pytest.mark.parametrize(("build", "cls", "fields"), BUILDERS, ids=IDS)
def test_a_quick_value_is_the_dataclass_value_field_by_field(build, cls, fields):
    quick, usual = build(*fields), cls(*fields)
    assert type(quick) is cls
    assert fields_of(quick) == fields_of(usual)
    stored = vars(quick) if hasattr(quick, "__dict__") else {name: getattr(quick, name) for name in quick.__slots__}
    assert stored == fields_of(usual)  # every field set, and nothing else
    assert quick == usual and hash(quick) == hash(usual) and repr(quick) == repr(usual)


def fields_of(value: object) -> dict[str, object]:
    return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}  # type: ignore[arg-type]


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


def test_a_formatted_diagnostic_is_the_diagnostic_with_its_message_written_out():
    """Its message is made when read; to callers it is the plain diagnostic, however they look at it."""
    compact = formatted_diagnostic(Severity.ERROR, 3, "block at line {0} ends before line {1}", 12)
    plain = Diagnostic(Severity.ERROR, 3, "block at line 3 ends before line 12")
    assert compact.message == plain.message and str(compact) == str(plain) and repr(compact) == repr(plain)
    assert compact == plain and plain == compact and hash(compact) == hash(plain)
    assert compact != Diagnostic(Severity.ERROR, 3, "block at line 3 ends before line 13")
    assert dataclasses.asdict(compact) == dataclasses.asdict(plain)
    assert type(copy.deepcopy(compact)) is Diagnostic and pickle.loads(pickle.dumps(compact)) == plain
    moved = dataclasses.replace(compact, line=4)
    assert type(moved) is Diagnostic and moved == Diagnostic(Severity.ERROR, 4, plain.message)
    with pytest.raises(dataclasses.FrozenInstanceError):
        compact.line = 5  # type: ignore[misc]
