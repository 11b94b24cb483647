"""The line-ending-aware document: text survives a round trip, and a splice touches only its span."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from editblocks.text.document import CRLF, LF, Document

texts = st.lists(st.sampled_from(["a", "b", " ", "\t", "\r", "\n", "\r\n", "é"]), max_size=40).map("".join)


@given(texts)
def test_any_text_round_trips(text):
    assert Document.from_text(text).to_text() == text


@given(texts, st.data())
def test_splice_keeps_every_byte_outside_the_span(text, data):
    document = Document.from_text(text)
    count = len(document.lines)
    start = data.draw(st.integers(0, count))
    end = data.draw(st.integers(start, count))
    new_lines = data.draw(st.lists(st.sampled_from(["x", "y", ""]), max_size=3))
    result = document.splice(start, end, new_lines, [None] * len(new_lines))
    assert result.lines[:start] == document.lines[:start]
    assert result.lines[start + len(new_lines) :] == document.lines[end:]
    kept_before = "".join(line + ending for line, ending in zip(document.lines[:start], document.endings[:start]))
    if end < count or document.final_newline:
        assert result.to_text().startswith(kept_before)
    assert result.final_newline == document.final_newline or not result.lines


def test_mixed_endings_keep_their_own_and_new_lines_take_the_replaced_line_s():
    document = Document.from_text("a\r\nb\nc\r\n")
    assert document.preferred_ending == CRLF
    result = document.splice(1, 2, ["B", "B2"], [None, None])
    assert result.to_text() == "a\r\nB\nB2\nc\r\n"
    inserted = document.splice(2, 2, ["between"], [None])
    assert inserted.to_text() == "a\r\nb\nbetween\nc\r\n"
    kept = document.splice(1, 2, ["b"], [1])
    assert kept.to_text() == "a\r\nb\nc\r\n"


def test_no_final_newline_is_kept_when_the_last_line_changes_or_goes():
    document = Document.from_text("a\nb")
    assert document.splice(1, 2, ["B"], [None]).to_text() == "a\nB"
    assert document.splice(1, 2, [], []).to_text() == "a"
    assert Document.from_text("a\nlast\r").splice(0, 1, ["A"], [None]).to_text() == "A\nlast\r"


def test_a_new_file_gets_lf_and_a_final_newline():
    assert Document.new_file("x\ny").to_text() == "x\ny\n"
    assert Document.new_file("").to_text() == ""
    assert Document.from_text("").preferred_ending == LF
