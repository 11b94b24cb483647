"""The review page (`editblocks serve`): an answer's blocks, their diffs, accept/reject, apply and undo.

Needs the `[web]` extra (Starlette, uvicorn, Jinja2). `ReviewState` holds
one review and is what a caller drives (`load` a whole answer, or
`new_answer` / `feed` / `close_answer` for a live one); `ReviewServer` serves
it on 127.0.0.1 at a URL carrying a random token::

    review = ReviewState("project")
    with ReviewServer(review) as server:
        print(server.url)
        review.new_answer()
        for chunk in stream:
            review.feed(chunk)
        review.close_answer()
"""

from __future__ import annotations

import warnings
from typing import Any

from editblocks.web.review import ReviewState
from editblocks.web.server import ReviewServer

__all__ = ["ReviewServer", "ReviewState"]


def __getattr__(name: str) -> Any:
    if name == "ReviewSession":  # the old name, kept for one minor version
        warnings.warn("ReviewSession is deprecated: use ReviewState", DeprecationWarning, stacklevel=2)
        return ReviewState
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
