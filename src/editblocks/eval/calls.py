"""Cases whose answer is a sequence of tool calls (`calls.json`) rather than answer text (`response.md`).

`calls.json` holds a list of `{"tool": NAME, "input": {...}}`; the calls run
in order through `ToolHandler` on the case's root, exactly as an agent's
would, and the resulting files are judged like any other case's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from editblocks.model import counted
from editblocks.service.tool_handler import ToolHandler

CALLS_FILE = "calls.json"


class CallsError(ValueError):
    """`calls.json` is not a list of tool calls; the message says what is wrong."""


@dataclass(frozen=True)
class ToolCall:
    tool: str
    input: Any


@dataclass(frozen=True)
class CallsOutcome:
    """How the calls went: how many succeeded, and a one-line summary with the first error."""

    calls: int
    succeeded: int
    detail: str


def read_calls(raw: bytes) -> list[ToolCall]:
    """The calls in the bytes of a `calls.json`; CallsError says what is wrong with them."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CallsError(f"{CALLS_FILE} cannot be read: {error}") from None
    return parse_calls(data)


def parse_calls(data: Any, where: str = CALLS_FILE) -> list[ToolCall]:
    """The calls in a decoded JSON value (``where`` names its source in errors)."""
    if not isinstance(data, list):
        raise CallsError(f"{where} must hold a JSON list of calls")
    calls = []
    for number, item in enumerate(data, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str) or set(item) - {"tool", "input"}:
            raise CallsError(f"{where}: call {number} must be an object with a string `tool` and an `input`")
        calls.append(ToolCall(item["tool"], item.get("input")))
    return calls


def run_calls(calls: Sequence[ToolCall], handler: ToolHandler) -> CallsOutcome:
    """Run the calls in order with ``handler``, as an agent's tool calls."""
    replies = [handler.call(call.tool, call.input) for call in calls]
    succeeded = sum(1 for reply in replies if reply.ok)
    detail = f"{counted(len(calls), 'call')}: {succeeded} ok"
    failed = next(((number, reply) for number, reply in enumerate(replies, start=1) if not reply.ok), None)
    if failed is not None:
        first_line = failed[1].text.strip().splitlines()[0] if failed[1].text.strip() else "failed"
        detail += f"; call {failed[0]}: {first_line}"
    return CallsOutcome(len(calls), succeeded, detail)
