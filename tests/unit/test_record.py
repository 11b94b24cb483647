"""`Record` behaves as the frozen dataclass it replaces: equality, hashing and printing by the fields, in order."""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass
from typing import Final

from editblocks.locate.types import Ambiguous, Found, Rung
from editblocks.parsing.fences import Fence
from editblocks.record import Record


class Span(Record):
    __slots__ = ("start", "end", "label")
    start: Final[int]
    end: Final[int]
    label: Final[str]

    def __init__(self, start: int, end: int, label: str = "") -> None:
        self.start = start
        self.end = end
        self.label = label


class OtherSpan(Span):
    __slots__ = ()


@dataclass(frozen=True)
class Span_:  # noqa: N801 - the dataclass it stands for, printed under the same name below
    start: int
    end: int
    label: str = ""


def test_equal_fields_are_equal_and_hash_alike() -> None:
    assert Span(1, 2, "a") == Span(1, 2, "a")
    assert hash(Span(1, 2, "a")) == hash(Span(1, 2, "a")) == hash(Span_(1, 2, "a"))
    assert Span(1, 2) != Span(1, 3)
    assert len({Span(1, 2), Span(1, 2), Span(2, 2)}) == 2


def test_another_class_is_never_equal_even_with_the_same_fields() -> None:
    assert Span(1, 2) != OtherSpan(1, 2)
    assert Span(1, 2) != (1, 2, "")
    assert Span(1, 2).__eq__(Span_(1, 2)) is NotImplemented


def test_printed_as_the_dataclass_prints() -> None:
    assert repr(Span(1, 2, "a")) == repr(Span_(1, 2, "a")).replace("Span_", "Span")
    assert repr(Found(0, 1, ("x",), (None,), Rung.EXACT)) == (
        "Found(start=0, end=1, new_lines=('x',), sources=(None,), strategy=<Rung.EXACT: 'exact'>, similarity=1.0)")


def test_copied_and_pickled_whole() -> None:
    for value in (Span(1, 2, "a"), Ambiguous((0, 4), Rung.FUZZY, False), Fence("`", 3, "bash")):
        assert copy.copy(value) == value
        assert copy.deepcopy(value) == value
        assert pickle.loads(pickle.dumps(value)) == value


def test_derived_fields_are_set_from_the_given_ones() -> None:
    fence = Fence("~", 4, "{.console} title")
    assert (fence.language, fence.is_shell, fence.is_transcript, fence.closing) == ("console", True, True, "~~~~")
    assert Fence("<", 1, "", tag="code").closing == ""
