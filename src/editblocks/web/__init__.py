"""The review page (`editblocks serve`): an answer's blocks, their diffs, accept/reject, apply and undo.

Needs the `[web]` extra (Starlette, uvicorn, Jinja2). `ReviewSession` holds
one review and is what a caller drives (`load` a whole answer, or
`new_answer` / `feed` / `close_answer` for a live one); `ReviewServer` serves
it on 127.0.0.1 at a URL carrying a random token::

    session = ReviewSession("project")
    with ReviewServer(session) as server:
        print(server.url)
        session.new_answer()
        for chunk in stream:
            session.feed(chunk)
        session.close_answer()
"""

from __future__ import annotations

from editblocks.web.review import ReviewSession
from editblocks.web.server import ReviewServer

__all__ = ["ReviewServer", "ReviewSession"]
