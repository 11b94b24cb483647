"""Lines of code as segments ``[text, css class]``: Pygments token kinds, plus ``ch`` on changed characters.

The page draws each segment as a span through ``textContent``, so the text
is never parsed as HTML. Token kinds are folded into a handful of classes
(keyword, string, comment, number, name of a function or class, builtin,
operator) that the stylesheet colours for light and dark themes alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import PurePosixPath

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.lexers.special import TextLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, String, _TokenType
from pygments.util import ClassNotFound

Segment = list[str]  # [text, css class]; a list so it serialises to JSON as is

_KINDS: tuple[tuple[_TokenType, str], ...] = (
    (Comment, "tc"),
    (String, "ts"),
    (Number, "tn"),
    (Keyword, "tk"),
    (Name.Function, "tf"),
    (Name.Class, "tf"),
    (Name.Builtin, "tb"),
    (Name.Decorator, "tb"),
    (Operator, "to"),
)
MAX_HIGHLIGHT_CHARS = 2_000  # a longer line is shown plain: lexing it could take long, and nobody reads its colours


@lru_cache(maxsize=256)
def lexer_for(path: str) -> Lexer:
    """The Pygments lexer for a file name (plain text when none fits); by suffix, so it is looked up once."""
    name = PurePosixPath(path).name
    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


@lru_cache(maxsize=64)
def _kind(token: _TokenType) -> str:
    for parent, css in _KINDS:
        if parent in token.split():
            return css
    return ""


def segments(line: str, lexer: Lexer, changes: Sequence[tuple[int, int]] = ()) -> list[Segment]:
    """`line` cut where its token kind or its changed/unchanged state changes."""
    if not line:
        return []
    cuts = sorted({0, len(line), *(edge for span in changes for edge in span)})
    out: list[Segment] = []
    offset = 0
    for css, text in _tokens(lexer, line):
        end = offset + len(text)
        points = [offset, *(cut for cut in cuts if offset < cut < end), end]
        for begin, stop in zip(points, points[1:]):
            changed = any(a <= begin and stop <= b for a, b in changes)
            _add(out, line[begin:stop], f"{css} ch".strip() if changed else css)
        offset = end
    return out


@lru_cache(maxsize=65_536)
def _tokens(lexer: Lexer, line: str) -> tuple[tuple[str, str], ...]:
    """The line's tokens as (css class, text), covering the line exactly; cached, since a page shows the same
    lines in a block and in its hunk, and draws them again on every change while an answer streams."""
    if len(line) > MAX_HIGHLIGHT_CHARS:
        return (("", line),)
    tokens: list[tuple[str, str]] = []
    offset = 0
    for token, text in lexer.get_tokens(line):
        text = text[: len(line) - offset]
        if text:
            tokens.append((_kind(token), text))
            offset += len(text)
    if offset < len(line):
        tokens.append(("", line[offset:]))
    return tuple(tokens)


def _add(out: list[Segment], text: str, css: str) -> None:
    if out and out[-1][1] == css:
        out[-1][0] += text
    else:
        out.append([text, css])
