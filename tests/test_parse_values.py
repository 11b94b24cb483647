"""The parser's quick builders give exactly the values the dataclass constructors give, and as frozen."""

from __future__ import annotations

import dataclasses

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
from editblocks.parsing.values import (
    block_progress,
    diagnostic,
    edit_block,
    parse_result,
    shell_suggestion,
    text_event,
)

BLOCK_FIELDS = ("a.py", "", "old\n", "new\n", "", BlockKind.EDIT, Format.DIFF, 3, (Reading("o", "n", "why"),),
                ("o", "n"), 7)
PAIRS = [
    (edit_block(*BLOCK_FIELDS), EditBlock(*BLOCK_FIELDS)),
    (parse_result("diff", (EditBlock(*BLOCK_FIELDS),), (ShellSuggestion("ls", 2),),
                  (Diagnostic(Severity.ERROR, 1, "bad"),)),
     ParseResult("diff", (EditBlock(*BLOCK_FIELDS),), (ShellSuggestion("ls", 2),),
                 (Diagnostic(Severity.ERROR, 1, "bad"),))),
    (text_event("hello\n", 4), TextEvent("hello\n", 4)),
    (shell_suggestion("ls -la", 3), ShellSuggestion("ls -la", 3)),
    (diagnostic(Severity.WARNING, 9, "odd"), Diagnostic(Severity.WARNING, 9, "odd")),
    (block_progress(5, "old", "x\n"), BlockProgress(5, "old", "x\n")),
]


@pytest.mark.parametrize(("quick", "usual"), PAIRS, ids=lambda value: type(value).__name__)
def test_a_quick_value_is_the_dataclass_value_field_by_field(quick, usual):
    assert type(quick) is type(usual)
    assert vars(quick) == vars(usual)
    assert [f.name for f in dataclasses.fields(usual)] == list(vars(quick))
    assert quick == usual and hash(quick) == hash(usual) and repr(quick) == repr(usual)


@pytest.mark.parametrize(("quick", "usual"), PAIRS, ids=lambda value: type(value).__name__)
def test_a_quick_value_stays_frozen(quick, usual):
    name = dataclasses.fields(usual)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(quick, name, None)
