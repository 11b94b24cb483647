"""The assistant's prose as HTML: CommonMark through markdown-it-py, with nothing in it that can act.

A model's text is hostile: raw HTML is escaped (``html`` off), links that
could run code (`javascript:`, `vbscript:`, `data:` pages) are refused by
markdown-it's own link check, links open in a new tab without a referrer (the
page's address carries its token), and an image is shown as its text and
address, never fetched. The page places this HTML as it is, so it is made
here and nowhere else.

Around an edit block the model writes the block's path and its fence lines;
the page draws the block as a card with its path, so those lines are cut from
the prose next to it (`around_block`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from editblocks.text.diff import printable

MAX_CACHED = 4096
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^`]*$")
_PATH_DECORATION = "`*_ :"


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])

    def link_open(self: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
        tokens[index].attrSet("rel", "noopener noreferrer")
        tokens[index].attrSet("target", "_blank")
        return str(self.renderToken(tokens, index, options, env))

    def image(self: Any, tokens: Sequence[Token], index: int, options: Any, env: Any) -> str:
        token = tokens[index]
        alt = "".join(child.content for child in token.children or ())
        where = str(token.attrGet("src") or "")
        return f'<span class="image-alt">[image: {escapeHtml(alt)} · {escapeHtml(where)}]</span>'

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("image", image)
    return md


_MD = _renderer()


@lru_cache(maxsize=MAX_CACHED)
def render(text: str) -> str:
    """``text`` (Markdown) as HTML that holds no markup from the text itself; invisible characters made visible."""
    return str(_MD.render(printable(text)))


def around_block(before: str, after: str, path: str | None) -> tuple[str, str]:
    """The prose before and after a block without the lines that only frame it: the block's path line and the
    opening fence at the end of ``before``, the closing fence at the start of ``after``."""
    lines = before.split("\n")
    if lines.pop().strip():  # ``before`` does not end at a line's end: leave both whole
        return before, after
    named = _drop_path(lines, path)  # the path inside the fence (```python, then the path) ...
    fenced = bool(lines) and _FENCE.match(lines[-1]) is not None
    if fenced:
        lines.pop()
    if not named:
        _drop_path(lines, path)  # ... or before it
    first, newline, rest = after.partition("\n")
    if fenced and newline and _FENCE.match(first) and not first.strip().strip("`~"):
        after = rest
    return "\n".join([*lines, ""]), after


def _drop_path(lines: list[str], path: str | None) -> bool:
    if lines and path and lines[-1].strip().strip(_PATH_DECORATION) == path:
        lines.pop()
        return True
    return False
