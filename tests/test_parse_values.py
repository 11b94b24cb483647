"""The parser's quick result builder gives exactly the value the dataclass constructor gives, and as frozen."""

from __future__ import annotations

import dataclasses

import pytest

from editblocks.model import BlockKind, Diagnostic, EditBlock, Format, ParseResult, Severity, ShellSuggestion
from editblocks.parsing.values import parse_result

FIELDS = ("diff", (EditBlock("a.py", "", "old\n", "new\n", "", BlockKind.EDIT, Format.DIFF, 3),),
          (ShellSuggestion("ls", 2),), (Diagnostic(Severity.ERROR, 1, "bad"),))


def test_the_quick_result_is_the_dataclass_value_field_by_field():
    quick, usual = parse_result(*FIELDS), ParseResult(*FIELDS)
    assert type(quick) is ParseResult
    assert vars(quick) == vars(usual)
    assert [f.name for f in dataclasses.fields(usual)] == list(vars(quick))
    assert quick == usual and hash(quick) == hash(usual) and repr(quick) == repr(usual)


def test_the_quick_result_stays_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        parse_result(*FIELDS).blocks = ()  # type: ignore[misc]
