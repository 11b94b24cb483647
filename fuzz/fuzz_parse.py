"""Fuzz the parser: one-shot `parse`, the streaming parser under a fuzzer-chosen chunking, and `validate`.

Input layout: byte 0 picks the format, byte 1 the chunking mode (bit 0: one
character at a time) and whether known files are given (bit 1), bytes 2–3
the two alternating chunk sizes; the rest is the response, decoded as UTF-8
with errors replaced. Invariants: nothing raises; the streamed result equals
the one-shot result and its completed-block events are the blocks; every
block's `line` is a start-marker line (for a patch, a line of the answer); every diagnostic line is in range.

    .venv/bin/python fuzz/fuzz_parse.py -max_total_time=600 fuzz/corpus_parse
"""

from __future__ import annotations

import atheris

with atheris.instrument_imports(include=["editblocks"]):
    from editblocks import BlockCompleted, Format, StreamParser, parse, validate
    from editblocks.model import FRONT_END_FORMATS
    from editblocks.parsing.markers import STARTS, classify

from runner import run

FORMATS = tuple(Format)
KNOWN_FILES = ("src/app.py", "README.md", "a.py", "lib/util.py")
HEADER_BYTES = 4


def chunk_sizes(mode: int, first: int, second: int) -> tuple[int, ...]:
    """The chunking the header asks for: one character at a time, or two alternating sizes."""
    if mode & 1:
        return (1,)
    return (first % 17 + 1, second % 5 + 1)


def streamed(text: str, fmt: Format, known: tuple[str, ...] | None, sizes: tuple[int, ...]) -> StreamParser:
    """A closed streaming parser fed ``text`` in chunks cycling through ``sizes``; checks its block events."""
    parser = StreamParser(fmt, known_files=known)
    completed = []
    position, turn = 0, 0
    while position < len(text):
        size = sizes[turn % len(sizes)]
        completed += [e.block for e in parser.feed(text[position : position + size]) if isinstance(e, BlockCompleted)]
        position, turn = position + size, turn + 1
    completed += [e.block for e in parser.close() if isinstance(e, BlockCompleted)]
    assert tuple(completed) == parser.result().blocks, "completed-block events differ from the result's blocks"
    return parser


def check(data: bytes) -> None:
    """One fuzz input; raises AssertionError when an invariant breaks."""
    if len(data) < HEADER_BYTES:
        return
    fmt = FORMATS[data[0] % len(FORMATS)]
    known = KNOWN_FILES if data[1] & 2 else None
    text = data[HEADER_BYTES:].decode("utf-8", errors="replace")

    whole = parse(text, fmt, known_files=known)
    parser = streamed(text, fmt, known, chunk_sizes(data[1], data[2], data[3]))
    assert parser.result() == whole, "streamed result differs from the one-shot parse"

    lines = text.replace("\r\n", "\n").split("\n")
    for block in whole.blocks:
        if block.format in FRONT_END_FORMATS:  # a patch's block starts at its header or `@@` line
            assert 1 <= block.line <= len(lines), f"block line {block.line} out of range"
            continue
        marker = classify(lines[block.line - 1])
        assert marker is not None and marker.kind in STARTS, f"block line {block.line} is not a start marker"
    for diagnostic in (*whole.diagnostics, *validate(text, fmt).diagnostics):
        assert 1 <= diagnostic.line <= len(lines), f"diagnostic line {diagnostic.line} out of range"


if __name__ == "__main__":
    run("parse", check)
