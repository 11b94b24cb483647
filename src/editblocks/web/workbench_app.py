"""The workbench's web application: the page, its updates as server-sent events, and one route per action.

The page is sent the workbench's state once, then follows it over an event
stream that carries only what changed since it last looked. Actions are
JSON POSTs; each is checked for shape before anything happens, and a request
that does not fit, or that the workbench refuses now, gets a 4xx with one
line saying why. Handlers that touch the disk or the planner run in the
thread pool, so the event streams keep flowing meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from editblocks.web.bodies import BadRequest, read_json, script_safe
from editblocks.web.guard import TokenGate
from editblocks.web.server import LocalServer
from editblocks.web.sse import event_stream
from editblocks.web.workbench import Refused, Workbench
from editblocks.web.workbench_view import file_diff, snapshot

HERE = Path(__file__).resolve().parent
MAX_CONTEXT_LINES = 10_000
_TEMPLATES = Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(default=True))
Action = Callable[[dict[str, Any]], object]


def create_workbench_app(bench: Workbench, token: str, stopping: threading.Event) -> TokenGate:
    """The workbench's application behind the token gate; its event streams end once ``stopping`` is set."""

    async def page(request: Request) -> HTMLResponse:
        _, initial = await asyncio.to_thread(_snapshot_json, bench, -1)
        html = _TEMPLATES.get_template("workbench.html").render(root=bench.root, initial=Markup(script_safe(initial)))
        return HTMLResponse(html)

    async def state(request: Request) -> Response:
        since = _int_param(request, "since", -1)
        _, data = await asyncio.to_thread(_snapshot_json, bench, since)
        return Response(data, media_type="application/json")

    async def events(request: Request) -> StreamingResponse:
        since = _int_param(request, "since", -1)
        async def latest(since: int) -> tuple[int, str] | None:
            return await asyncio.to_thread(_snapshot_json, bench, since) if bench.version > since else None

        return StreamingResponse(event_stream(bench.subscribe, latest, since, stopping, "update"),
                                 media_type="text/event-stream", headers={"x-accel-buffering": "no"})

    async def files(request: Request) -> Response:
        listing = await asyncio.to_thread(bench.listing, request.query_params.get("refresh") == "1")
        return JSONResponse({"truncated": listing.truncated, "files": [
            {"path": f.path, "binary": f.binary, "ignored": f.ignored} for f in listing.files]})

    async def history(request: Request) -> Response:
        return JSONResponse({"conversations": await asyncio.to_thread(bench.history),
                             "current": bench.conversation.name or ""})

    async def diff(request: Request) -> Response:
        key = request.query_params.get("file", "")
        file_id = request.query_params.get("id", "")
        context_text = request.query_params.get("context", "3")
        if not key or not file_id.isidentifier():
            return _error("give the file (`file`) and its id on the page (`id`)", 400)
        if context_text == "all":
            context: int | None = None
        elif context_text.isdigit() and int(context_text) <= MAX_CONTEXT_LINES:
            context = int(context_text)
        else:
            return _error(f"context must be a number of lines up to {MAX_CONTEXT_LINES}, or `all`", 400)

        def build() -> dict[str, Any] | None:
            with bench.lock:
                return file_diff(bench, key, context, file_id)

        found = await asyncio.to_thread(build)
        return JSONResponse(found) if found is not None else _error("Apply would not change that file", 404)

    routes = [
        Route("/", page),
        Route("/api/state", state),
        Route("/events", events),
        Route("/api/files", files),
        Route("/api/history", history),
        Route("/api/diff", diff),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    for name, action in _actions(bench).items():
        routes.append(Route(f"/api/{name}", _post(bench, action), methods=["POST"]))
    return TokenGate(Starlette(routes=routes), token)


def _actions(bench: Workbench) -> dict[str, Action]:
    return {
        "send": lambda body: bench.send(_text(body, "instruction"), _paths(body)),
        "stop": lambda body: bench.stop(),
        "feedback": lambda body: bench.send_feedback(),
        "decide": lambda body: bench.decide(_numbers(body), _flag(body, "accept")),
        "change": lambda body: bench.decide_change(_number(body, "block"), _number(body, "change"),
                                                   _flag(body, "accept")),
        "apply": lambda body: bench.apply(_optional_number(body, "seen")),
        "undo": lambda body: bench.undo(),
        "format": lambda body: bench.set_format(_text(body, "format")),
        "new": lambda body: bench.new_conversation(),
        "open": lambda body: bench.open_saved(_text(body, "name")),
    }


def _post(bench: Workbench, action: Action) -> Callable[[Request], Any]:
    async def handler(request: Request) -> Response:
        try:
            body = await read_json(request)
            await asyncio.to_thread(action, body)
        except BadRequest as error:
            return _error(str(error), error.status)
        except Refused as error:
            return _error(str(error), error.status)
        return JSONResponse({"ok": True, "version": bench.version})

    return handler


def _error(message: str, status: int) -> Response:
    return JSONResponse({"error": message}, status_code=status)


def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str):
        raise BadRequest(f"`{name}` must be a string")
    return value


def _paths(body: dict[str, Any]) -> list[str]:
    value = body.get("files", [])
    if not isinstance(value, list) or not all(isinstance(path, str) for path in value):
        raise BadRequest("`files` must be a list of paths")
    return list(dict.fromkeys(value))


def _flag(body: dict[str, Any], name: str) -> bool:
    value = body.get(name)
    if not isinstance(value, bool):
        raise BadRequest(f"`{name}` must be true or false")
    return value


def _number(body: dict[str, Any], name: str) -> int:
    value = body.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise BadRequest(f"`{name}` must be a whole number from 1")
    return value


def _optional_number(body: dict[str, Any], name: str) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(f"`{name}` must be a whole number")
    return value


def _numbers(body: dict[str, Any]) -> list[int]:
    value = body.get("blocks")
    if not isinstance(value, list) or not value or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in value):
        raise BadRequest("`blocks` must be a list of block numbers")
    return value


def _int_param(request: Request, name: str, default: int) -> int:
    try:
        return int(request.query_params.get(name, default))
    except ValueError:
        return default


def _snapshot_json(bench: Workbench, since: int) -> tuple[int, str]:
    """(the version it shows, what changed since ``since`` as JSON)."""
    with bench.lock:
        return bench.version, json.dumps(snapshot(bench, since), separators=(",", ":"))


class WorkbenchServer(LocalServer):
    """The workbench for ``bench`` on 127.0.0.1; it watches the files on disk while it serves."""

    def __init__(self, bench: Workbench, *, port: int = 0) -> None:
        self.bench = bench
        super().__init__(port=port)

    def app(self) -> TokenGate:
        return create_workbench_app(self.bench, self.token, self._stopping)

    def wake(self) -> None:
        self.bench.wake()

    def start(self) -> Self:
        super().start()
        self.bench.start()
        return self

    def stop(self) -> None:
        self.bench.close()
        super().stop()
