"""Choosing a front-end: by the format asked for, or under `auto` by what the answer holds.

Under `auto` the marker parser reads the answer first (it is the common
case and the fastest); only when it finds no block is the answer checked
for a V4A patch, then for a unified diff. Whole-file answers look like any
code snippet, so they are read only when asked for.
"""

from __future__ import annotations

from collections.abc import Collection

from editblocks.model import Format, ParseResult


def front_end_parse(text: str, format: Format, known_files: Collection[str] | None = None) -> ParseResult:
    """The blocks of ``text`` read by the front-end of ``format`` (one of `FRONT_END_FORMATS`).

    A patch's shell suggestions come from the prose around it, read as the marker parser reads it.
    """
    if format is Format.WHOLE:
        from editblocks.frontends.whole import parse_whole

        return parse_whole(text, known_files)
    if format is Format.V4A:
        from editblocks.frontends.v4a import parse_v4a

        found = parse_v4a(text)
    else:
        from editblocks.frontends.unified import parse_unified

        found = parse_unified(text)
    from editblocks.parsing.stream import parsed_whole

    shell = parsed_whole(text, Format.AUTO, known_files=known_files).result().shell
    return ParseResult(found.format, found.blocks, shell, found.diagnostics)


def auto_patch(text: str, markers: ParseResult) -> ParseResult | None:
    """Under `auto`, when the marker parser found no block: the V4A patch or unified diff ``text`` holds, if any.

    The marker parse's shell suggestions are kept: they come from the prose around the patch.
    """
    from editblocks.frontends.unified import looks_like_unified
    from editblocks.frontends.v4a import looks_like_v4a, parse_v4a

    if looks_like_v4a(text):
        found = parse_v4a(text)
    elif looks_like_unified(text):
        from editblocks.frontends.unified import parse_unified

        found = parse_unified(text)
    else:
        return None
    return ParseResult(found.format, found.blocks, markers.shell, found.diagnostics)
