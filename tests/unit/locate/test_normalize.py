"""The line normalisations behind the tolerant rungs."""

from __future__ import annotations

import pytest

from editblocks.locate.normalize import (
    TYPOGRAPHIC_EQUIVALENTS,
    content_key,
    fold_typography,
    indent_columns,
    indentation_uses_tabs,
    indented_key,
    map_back_typography,
    render_indent,
    typographic_characters,
)


@pytest.mark.parametrize(
    ("typographic", "ascii_text"),
    [
        ("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-------"),
        ("\u2018\u2019\u201a\u201b", "''''"),
        ("\u201c\u201d\u201e\u201f\u00ab\u00bb", '""""""'),
        ("\u00a0\u2002\u2009\u200a\u202f\u205f\u3000", "       "),
        ("wait\u2026", "wait..."),
    ],
)
def test_typography_folds_to_ascii(typographic, ascii_text):
    assert fold_typography(typographic) == ascii_text


@pytest.mark.parametrize("text", ["&amp; &lt; &gt; &quot; &#39; &nbsp;", "caf\u00e9 \u00fcber \u4e2d\u6587", "plain"])
def test_folding_leaves_entities_and_other_characters_alone(text):
    assert fold_typography(text) == text


def test_every_folded_character_is_reported_and_mapped_back_only_when_asked():
    text = "\u201chi\u201d \u2014 it\u2019s"
    assert typographic_characters(text) == {"\u201c", "\u201d", "\u2014", "\u2019"}
    assert map_back_typography(text, {"\u201c", "\u201d"}) == '"hi" \u2014 it\u2019s'
    assert map_back_typography(text, set()) == text
    assert set(TYPOGRAPHIC_EQUIVALENTS) >= typographic_characters(text)


@pytest.mark.parametrize(
    ("indent", "tab_width", "columns"),
    [("", 4, 0), ("    ", 4, 4), ("\t", 4, 4), ("\t", 8, 8), ("  \t", 4, 4), ("\t  ", 4, 6), ("\t\t", 2, 4)],
)
def test_indent_columns_follow_tab_stops(indent, tab_width, columns):
    assert indent_columns(indent, tab_width) == columns


def test_render_indent_uses_tabs_for_whole_tab_stops_only_when_asked():
    assert render_indent(10, True, 4) == "\t\t  "
    assert render_indent(10, False, 4) == " " * 10


def test_keys_ignore_what_their_rung_ignores():
    assert content_key("\t  x = 1  \t") == "x = 1"
    assert indented_key("\tx = 1   ", 4) == "    x = 1"
    assert indented_key("   ", 4) == ""


def test_indentation_style_is_the_majority_of_indented_lines():
    assert indentation_uses_tabs(["a", "\tb", "\tc", "    d"]) is True
    assert indentation_uses_tabs(["a", "  b", "\tc", "    d"]) is False
    assert indentation_uses_tabs(["a", "", "   "]) is None
