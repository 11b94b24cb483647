"""`parse` does no more work than the answer needs (issue 29): an equal fence takes the default fence's shortcut,
and the result is built once."""

from __future__ import annotations

from editblocks import parse
from editblocks.parsing import stream

PROSE = "Sure, here is what I would change and why.\nNothing to edit yet.\n"


def test_an_equal_fence_passed_by_value_takes_the_no_structure_shortcut():
    by_value = tuple(["```", "```"])
    assert by_value is not stream.DEFAULT_FENCE
    assert parse(PROSE, fence=by_value) is parse(PROSE)  # the shared result of an answer with no structure


def test_an_other_fence_is_still_honoured():
    text = "a.py\n~~~\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n~~~\n"
    assert [block.new for block in parse(text, fence=("~~~", "~~~")).blocks] == ["y\n"]


def test_the_result_is_built_once(monkeypatch):
    built = []
    real = stream.parse_result

    def counting(*args, **kwargs):
        built.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(stream, "parse_result", counting)
    for text in ("```\nprint(1)\n```\n", "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"):
        built.clear()
        parser = stream.parsed_whole(text)
        assert parser.result() is parser.result()
        assert len(built) == 1, text
