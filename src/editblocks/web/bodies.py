"""Reading a page's request and placing JSON in a page: the limits and escapes both pages share.

A request body is hostile: it is read up to `MAX_BODY` bytes and must be one
JSON object, or the request is refused with a one-line reason.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

MAX_BODY = 16 << 20  # a pasted answer larger than this is refused (the command line's own limit is similar)


async def read_json(request: Request) -> dict[str, Any] | str:
    """The request's JSON object, or why it is not one (one line)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        return "expected a JSON object (content-type: application/json)"
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            return f"the request is larger than {MAX_BODY} bytes"
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks) or b"{}")
    except (ValueError, RecursionError):
        return "the request is not valid JSON"
    return body if isinstance(body, dict) else "expected a JSON object"


def script_safe(data: str) -> str:
    """JSON that can sit in a `<script type="application/json">` element: no `<`, `>` or `&` to end it early."""
    return data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
