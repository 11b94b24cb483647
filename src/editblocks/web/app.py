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
import json
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from editblocks.web.guard import TokenGate
from editblocks.web.review import ReviewState

HERE = Path(__file__).resolve().parent
MAX_BODY = 16 << 20  # a pasted answer larger than this is refused (the command line's own limit is similar)
KEEP_ALIVE_SECONDS = 15.0
_TEMPLATES = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True))


def create_app(session: ReviewState, token: str, stopping: threading.Event) -> TokenGate:
    """The application for one session, behind the token gate; its event streams end once ``stopping`` is set."""

    async def page(request: Request) -> HTMLResponse:
        _, view = session.view_json()
        html = _TEMPLATES.get_template("page.html").render(root=session.root, view=Markup(_script_safe(view)))
        return HTMLResponse(html)

    async def view(request: Request) -> Response:
        return _view_response(session)

    async def events(request: Request) -> StreamingResponse:
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            since = -1
        return StreamingResponse(_event_stream(session, since, stopping), media_type="text/event-stream",
                                 headers={"x-accel-buffering": "no"})

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


class BadRequest(Exception):
    """A request the page's own script never sends: answered 4xx with the one-line reason, nothing done."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status


def _action(session: ReviewState, run: Any) -> Any:
    """A POST handler: a JSON object in (at most `MAX_BODY` bytes), the new view out."""

    async def handler(request: Request) -> Response:
        try:
            body = await _json_body(request)
            await asyncio.to_thread(run, body)
        except BadRequest as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)
        return _view_response(session)

    return handler


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object; `BadRequest` saying what is wrong with anything else."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise BadRequest("send the body as application/json", 415)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BadRequest(f"the request body is larger than {MAX_BODY} bytes", 413)
        chunks.append(chunk)
    try:
        text = b"".join(chunks).decode("utf-8") or "{}"
    except UnicodeDecodeError:
        raise BadRequest("the body is not UTF-8") from None
    try:
        body = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise BadRequest("the JSON is nested too deeply") from None
    except ValueError as error:
        raise BadRequest(f"the body is not valid JSON ({str(error).split(';')[0].splitlines()[0]})") from None
    if not isinstance(body, dict):
        raise BadRequest("expected a JSON object")
    return body


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _view_response(session: ReviewState) -> Response:
    return Response(session.view_json()[1], media_type="application/json")


def _script_safe(data: str) -> str:
    """JSON that can sit in a `<script type="application/json">` element: no `<`, `>` or `&` to end it early."""
    return data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


async def _event_stream(session: ReviewState, since: int, stopping: threading.Event) -> AsyncIterator[str]:
    """The view each time it changes (changes made while one is sent are coalesced into the next)."""
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def changed() -> None:
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the server's loop has stopped
            pass

    unsubscribe = session.subscribe(changed)
    try:
        yield ": connected\n\n"
        while not stopping.is_set():
            wake.clear()
            version, data = session.view_json()
            if version > since:
                since = version
                yield f"event: view\ndata: {data}\n\n"
            try:
                await asyncio.wait_for(wake.wait(), KEEP_ALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
    finally:
        unsubscribe()
