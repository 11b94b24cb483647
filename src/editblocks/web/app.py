"""The review page's web application: the page, its view as JSON, server-sent events and its actions.

Handlers that touch the disk (decide, apply, undo, load) are plain functions,
which Starlette runs in its thread pool, so the event loop keeps serving the
event streams meanwhile. Requests name blocks by number only, never a path:
which files can be read or written is decided by the workspace, inside the root.
Any program on the machine with the address can send anything, so a request
the page's own script would never send (the wrong content type, a body too
large, not UTF-8, not JSON, nested past the parser's depth, a field of the
wrong type) is answered 4xx with a one-line reason, and nothing is done.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from editblocks.web.bodies import BadRequest, read_json, script_safe
from editblocks.web.guard import TokenGate
from editblocks.web.review import ReviewState
from editblocks.web.sse import event_stream

HERE = Path(__file__).resolve().parent
_TEMPLATES = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True))


def create_app(session: ReviewState, token: str, stopping: threading.Event) -> TokenGate:
    """The application for one session, behind the token gate; its event streams end once ``stopping`` is set."""

    async def page(request: Request) -> HTMLResponse:
        _, view = session.view_json()
        html = _TEMPLATES.get_template("page.html").render(root=session.root, view=Markup(script_safe(view)))
        return HTMLResponse(html)

    async def view(request: Request) -> Response:
        return _view_response(session)

    async def events(request: Request) -> StreamingResponse:
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            since = -1
        async def latest(since: int) -> tuple[int, str] | None:
            version, data = session.view_json()
            return (version, data) if version > since else None

        return StreamingResponse(event_stream(session.subscribe, latest, since, stopping, "view"),
                                 media_type="text/event-stream", headers={"x-accel-buffering": "no"})

    def decide(body: dict[str, Any]) -> None:
        numbers = body.get("blocks")
        accept = body.get("accept")
        if not isinstance(numbers, list):
            raise BadRequest("`blocks` must be a list of block numbers")
        if not isinstance(accept, bool):
            raise BadRequest("`accept` must be true or false")
        session.decide([n for n in numbers if isinstance(n, int) and not isinstance(n, bool)], accept)

    def load(body: dict[str, Any]) -> None:
        text = body.get("text")
        if not isinstance(text, str):
            raise BadRequest("`text` must be the answer, as a string")
        session.load(text)

    def undo(body: dict[str, Any]) -> None:
        newest = body.get("newest", False)
        if not isinstance(newest, bool):
            raise BadRequest("`newest` must be true (undo the newest run, whoever made it) or false")
        session.undo(newest=newest)

    routes = [
        Route("/", page),
        Route("/api/view", view),
        Route("/events", events),
        Route("/api/decide", _action(session, decide), methods=["POST"]),
        Route("/api/apply", _action(session, lambda _: session.apply()), methods=["POST"]),
        Route("/api/undo", _action(session, undo), methods=["POST"]),
        Route("/api/answer", _action(session, load), methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return TokenGate(Starlette(routes=routes), token)


def _action(session: ReviewState, run: Any) -> Any:
    """A POST handler: a JSON object in (at most `MAX_BODY` bytes), the new view out."""

    async def handler(request: Request) -> Response:
        try:
            body = await read_json(request)
            await asyncio.to_thread(run, body)
        except BadRequest as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)
        return _view_response(session)

    return handler


def _view_response(session: ReviewState) -> Response:
    return Response(session.view_json()[1], media_type="application/json")
