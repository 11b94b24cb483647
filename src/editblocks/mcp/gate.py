"""The gate in front of `editblocks mcp --http`: a request without the server's secret never reaches a tool.

127.0.0.1 is open to every user of the machine, and the tools read and write
the project as the user who started the server. So the server has a secret
(generated at start, or the user's own from ``EDITBLOCKS_MCP_TOKEN``) that a
client sends either as ``Authorization: Bearer <token>``, which MCP clients'
configurations support as a header, or as the first segment of the path
(``/<token>/mcp``) for a client that can only be given an address. Anything
else is answered 401 in one line. The token is compared in constant time.
"""

from __future__ import annotations

import re
import secrets

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "EDITBLOCKS_MCP_TOKEN"
MIN_TOKEN_CHARS = 32
TOKEN = re.compile(rf"[A-Za-z0-9._~-]{{{MIN_TOKEN_CHARS},}}")
"""A token of one's own: long enough to be a secret, and made of characters a URL path keeps as they are."""
_BEARER = re.compile(r"Bearer ([^\s]+)", re.IGNORECASE)


class BadToken(ValueError):
    """A token of one's own that is too short or holds characters a path would change."""


def new_token() -> str:
    return secrets.token_urlsafe(MIN_TOKEN_CHARS)


def checked_token(token: str) -> str:
    """``token`` if it can serve as the secret; `BadToken` saying what one must be otherwise."""
    if not TOKEN.fullmatch(token):
        raise BadToken(f"{TOKEN_ENV} must be at least {MIN_TOKEN_CHARS} characters of A-Z, a-z, 0-9, `-`, `_`, "
                       "`.` or `~`")
    return token


class SecretGate:
    """ASGI middleware: pass a request on only if it carries the token (header or path prefix, see above)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        first, slash, rest = path.lstrip("/").partition("/")
        if slash and self._matches(first):
            inner = "/" + rest
            scope = dict(scope, path=inner, raw_path=inner.encode("utf-8", "surrogateescape"))
        elif not self._matches(_bearer(scope)):
            await _refused()(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _matches(self, given: str) -> bool:
        return secrets.compare_digest(given.encode("utf-8", "surrogateescape"), self._token)


def _bearer(scope: Scope) -> str:
    found = _BEARER.fullmatch(Headers(scope=scope).get("authorization", "").strip())
    return found[1] if found else ""


def _refused() -> PlainTextResponse:
    return PlainTextResponse("unauthorized: send the token `editblocks mcp --http` printed, as "
                             "`Authorization: Bearer <token>`\n", 401, headers={"www-authenticate": "Bearer"})
