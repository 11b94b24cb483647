"""Properties of the parser that must hold for any input."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editblocks import BlockKind, EditBlock, Format, StreamParser, parse, render
from editblocks.model import FRONT_END_FORMATS
from editblocks.parsing.markers import STARTS, classify, classify_tag

SPECIAL_LINES = [
    "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<<<<< NEW_FILE", ">>>>>>> NEW_FILE", "<<<<<<< EDIT",
    "-------", ">>>>>>>", "««« EDIT", "═══════ REPL", "»»» EDIT END", "```", "```python", "````", "~~~",
    "```bash", "<source>ts", "</source>", "<think>", "</think>", "src/app.py", "### File: a.py", "**b.py**",
    "Here is the change for c.py:", "`git rm x.py`", "<<<<<<<<< SEARCH", "=========", ">>>>>>>>> REPLACE",
    "<<<< SEARCH", "====", ">>>> REPLACE", "", "   <<<<<<< SEARCH", "   =======", "   >>>>>>> REPLACE",
    "<<<<<<<< SEARCH", "========", ">>>>>>>> REPLACE", "==========", ">>>>>>> REPLACE<", ":start_line:3",
    ":end_line:4", "\\=======", "\\<<<<<<< SEARCH", "### File: c.py", "```patch d.py", "5 | x = 1",
]
any_line = st.one_of(st.sampled_from(SPECIAL_LINES), st.text(max_size=12))
responses = st.builds(
    lambda lines, crlf: ("\r\n" if crlf else "\n").join(lines),
    st.lists(any_line, max_size=40),
    st.booleans(),
)


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(responses)
def test_parse_never_raises_and_block_lines_point_at_start_markers(text):
    result = parse(text)
    lines = text.replace("\r\n", "\n").split("\n")
    for block in result.blocks:
        marker = classify(lines[block.line - 1])
        assert marker is not None and marker.kind in STARTS
    for diagnostic in result.diagnostics:
        assert 1 <= diagnostic.line <= len(lines)


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(responses, st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=60))
def test_any_chunking_gives_the_one_shot_result(text, sizes):
    parser = StreamParser()
    position = 0
    streamed_blocks = []
    for size in sizes * (len(text) // max(1, sum(sizes)) + 1):
        if position >= len(text):
            break
        events = parser.feed(text[position : position + size])
        streamed_blocks += [e.block for e in events if type(e).__name__ == "BlockCompleted"]
        position += size
    events = parser.close()
    streamed_blocks += [e.block for e in events if type(e).__name__ == "BlockCompleted"]
    one_shot = parse(text)
    assert parser.result() == one_shot
    assert tuple(streamed_blocks) == one_shot.blocks


@pytest.mark.slow
@given(responses)
def test_characters_one_by_one_give_the_one_shot_result(text):
    parser = StreamParser()
    for char in text:
        parser.feed(char)
    parser.close()
    assert parser.result() == parse(text)


SAFE_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="<>=«»═-+\u2028\u2029\x85"), max_size=25)
content_line = st.one_of(SAFE_TEXT, st.sampled_from(["", "=======", "<<<<<<< SEARCH", ">>>>>>> REPLACE", "-------", ">>>>>>>", "```", "    =======", "\tindented", "x = '======='", "««« EDIT", "»»» EDIT END"]))
texts = st.lists(content_line, max_size=6).map(lambda lines: "".join(line + "\n" for line in lines))
paths = st.one_of(
    st.from_regex(r"[a-z][a-z0-9_]{0,8}(/[a-z][a-z0-9_]{0,8}){0,2}\.[a-z]{1,4}", fullmatch=True),
    st.from_regex(r"(_{1,2}[a-z]{1,6}_{0,2}/)?_{1,2}[a-z]{1,6}_{0,2}\.py", fullmatch=True),
    st.from_regex(r"([a-z]{1,5}/)?\.[a-z]{1,8}", fullmatch=True),
    st.from_regex(r"[A-Z][a-z]{0,5}( [a-z]{1,5}){0,2}/[a-z]{1,5} [a-z]{1,5}\.(md|txt|py)", fullmatch=True),
    st.sampled_from(["Makefile", "Dockerfile", "#notes.md", "src/#draft.txt", "__init__.py", ".env"]),
)


def _kind(leading: str, old: str, trailing: str) -> BlockKind:
    return BlockKind.EDIT if (leading + old + trailing).strip() else BlockKind.CREATE


@st.composite
def blocks(draw):
    fmt = draw(st.sampled_from([f for f in Format if f is not Format.AUTO and f not in FRONT_END_FORMATS]))
    path = draw(paths)
    if fmt is Format.ANCHORED:
        leading, old, new, trailing = draw(texts), draw(texts), draw(texts), draw(texts)
    elif fmt is Format.GUILLEMET:
        chevrons = st.sampled_from(["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<<<<< EDIT", "-------"])
        guillemet_text = st.lists(st.one_of(SAFE_TEXT, chevrons), max_size=5).map(lambda ls: "".join(line + "\n" for line in ls))
        leading, old, new, trailing = draw(guillemet_text), draw(guillemet_text), draw(guillemet_text), ""
        if old and new and old.split("\n", 1)[0] == new.split("\n", 1)[0]:
            new = "changed " + new
    else:
        leading, old, new, trailing = "", draw(texts), draw(texts), ""
    return EditBlock(path, leading, old, new, trailing, _kind(leading, old, trailing), fmt, 1)


@pytest.mark.slow
@settings(max_examples=500)
@given(blocks())
def test_parse_of_render_gives_the_block_back(block):
    text = render(block)
    result = parse(text, format=block.format)
    assert [replace(b, line=1) for b in result.blocks] == [block]
    assert not [d for d in result.diagnostics if d.severity.value == "error"]
    start_line = text.split("\n")[result.blocks[0].line - 1]
    marker = classify(start_line) or classify_tag(start_line)
    assert marker is not None and marker.kind in STARTS


@pytest.mark.slow
@settings(max_examples=200)
@given(blocks())
def test_auto_detection_reads_rendered_blocks(block):
    [parsed] = parse(render(block)).blocks
    assert (parsed.path, parsed.leading, parsed.old, parsed.new, parsed.trailing) == (
        block.path, block.leading, block.old, block.new, block.trailing,
    )
    expected = {Format.EDITOR_DIFF: Format.DIFF, Format.EDITOR_DIFF_FENCED: Format.DIFF_FENCED,
                Format.ORIGINAL_UPDATED: Format.DIFF}.get(block.format, block.format)
    assert parsed.format is expected


@pytest.mark.slow
@settings(max_examples=150)
@given(blocks(), st.integers(min_value=1, max_value=9))
def test_progress_events_add_up_to_the_completed_block(block, size):
    text = render(block)
    parser = StreamParser(format=block.format)
    sections: dict[str, str] = {}
    completed = []
    started = []
    chunks = [text[position : position + size] for position in range(0, len(text), size)]
    for events in [parser.feed(chunk) for chunk in chunks] + [parser.close()]:
        for event in events:
            kind = type(event).__name__
            if kind == "BlockProgress":
                sections[event.section] = sections.get(event.section, "") + event.added
            elif kind == "BlockCompleted":
                completed.append(event.block)
            elif kind == "BlockStarted":
                started.append(event)
    [done] = completed
    assert [s.path for s in started] == [block.path]
    if block.format is Format.GUILLEMET:
        assert sections.get("old", "") in ("", (block.leading + block.old)[: len(sections.get("old", ""))])
    elif block.format is Format.ANCHORED:
        for name in ("leading", "old", "new", "trailing"):
            assert (getattr(done, name)).startswith(sections.get(name, ""))
    else:
        for name in ("old", "new"):
            assert getattr(done, name).startswith(sections.get(name, ""))


def test_partial_block_shows_the_text_so_far():
    parser = StreamParser()
    parser.feed("a.py\n<<<<<<< SEARCH\nx = 1\ny = 2\n=======\nx = ")
    path, texts = parser.partial_block()
    assert path == "a.py"
    assert texts == {"old": "x = 1\ny = 2\n", "new": ""}
    parser.feed("10\n")
    assert parser.partial_block()[1] == {"old": "x = 1\ny = 2\n", "new": "x = 10\n"}
    parser.feed(">>>>>>> REPLACE\n")
    assert parser.partial_block() is None


def _merged(events: list) -> list:
    """Events with adjacent text events, and adjacent progress of one block section, joined: how a stream is
    cut into chunks only changes where those are split."""
    merged: list = []
    for event in events:
        previous = merged[-1] if merged else None
        if type(event).__name__ == "TextEvent" and type(previous).__name__ == "TextEvent":
            merged[-1] = type(event)(previous.text + event.text, previous.line)
        elif (type(event).__name__ == "BlockProgress" and type(previous).__name__ == "BlockProgress"
              and (previous.line, previous.section) == (event.line, event.section)):
            merged[-1] = type(event)(event.line, event.section, previous.added + event.added)
        else:
            merged.append(event)
    return merged


def _events_fed(text: str, sizes: list[int]) -> list:
    parser = StreamParser()
    events: list = []
    position = 0
    while position < len(text):
        size = sizes[len(events) % len(sizes)]
        events += parser.feed(text[position : position + size])
        position += size
    return _merged(events + parser.close())


@pytest.mark.slow
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(responses, st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=20))
def test_p16_any_chunking_gives_the_same_events(text, sizes):
    assert _events_fed(text, sizes) == _events_fed(text, [max(1, len(text))])


def _fed(text: str, size: int, **options) -> tuple[list, StreamParser]:
    parser = StreamParser(**options)
    events: list = []
    for position in range(0, len(text), size):
        events += parser.feed(text[position : position + size])
    return events + parser.close(), parser


@pytest.mark.slow
@settings(max_examples=200)
@given(responses, st.integers(min_value=1, max_value=30))
def test_without_text_events_every_other_event_and_the_result_stay_the_same(text, size):
    with_text, full = _fed(text, size)
    without_text, blocks_only = _fed(text, size, text_events=False)
    assert without_text == [e for e in with_text if type(e).__name__ != "TextEvent"]
    assert blocks_only.result() == full.result()
