"""Reading a page's request and placing JSON in a page: the limits and escapes both pages share.

Any program on the machine with the address can send anything, so a request
the page's own script would never send (the wrong content type, a body too
large, not UTF-8, not JSON, nested past the parser's depth, a field of the
wrong type) is refused with `BadRequest`: a 4xx and a one-line reason.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request

MAX_BODY = 16 << 20  # a pasted answer larger than this is refused (the command line's own limit is similar)


class BadRequest(Exception):
    """A request the page's own script never sends: answered 4xx with the one-line reason, nothing done."""

    def __init__(self, reason: str, status: int = 400) -> None:
        super().__init__(reason)
        self.status = status


async def read_json(request: Request) -> dict[str, Any]:
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


def script_safe(data: str) -> str:
    """JSON that can sit in a `<script type="application/json">` element: no `<`, `>` or `&` to end it early."""
    return data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
