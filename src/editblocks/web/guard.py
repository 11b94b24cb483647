"""The gate in front of the review page: the token on every request, local host names only, strict headers.

The token is the first segment of every path (``/TOKEN/``, ``/TOKEN/events``,
``/TOKEN/static/app.js``), so the page's relative links and its script's
module imports carry it without any code, and a request without it, or with
a wrong one, is answered 403 before it reaches the application. Host names
other than 127.0.0.1 and localhost are refused too (a page elsewhere that
rebinds its own name to 127.0.0.1 gets nothing). Every answer forbids
scripts, styles and connections from anywhere but the page itself, inline
scripts, framing and the referrer (which would leak the token).
"""

from __future__ import annotations

import secrets

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})


class TokenGate:
    """ASGI middleware: strips nothing, checks everything (see the module's docstring)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_headers(send)
        first, slash, _ = scope["path"].lstrip("/").partition("/")
        given = first.encode("utf-8", "surrogateescape")
        if not secrets.compare_digest(given, self._token) or not _local(scope):
            await _forbidden()(scope, receive, send)
            return
        if not slash:
            await RedirectResponse(f"/{first}/", status_code=307)(scope, receive, send)
            return
        await self.app(dict(scope, root_path=scope.get("root_path", "") + "/" + first), receive, send)


def _local(scope: Scope) -> bool:
    host = Headers(scope=scope).get("host", "")
    name = host.rsplit(":", 1)[0] if not host.startswith("[") else host
    return name in LOCAL_HOSTS


def _forbidden() -> Response:
    return PlainTextResponse("forbidden: open the address `editblocks serve` printed, token included\n", 403)


def _with_headers(send: Send) -> Send:
    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            for name, value in SECURITY_HEADERS.items():
                headers[name] = value
        await send(message)

    return sending
