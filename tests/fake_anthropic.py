"""A scripted Anthropic Messages endpoint on 127.0.0.1: real HTTP for the real `anthropic` SDK (and the
clients built on it), no network. Each POST /v1/messages takes the next scripted turn, a list of content
blocks; every request body is kept so a test can read the tool results the client sent back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from local_http import LocalServer, direct_to_localhost, send_json

Turn = list[dict[str, Any]]


def tool_use(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


class FakeAnthropic:
    def __init__(self, turns: list[Turn]) -> None:
        self.turns = list(turns)
        self.requests: list[dict[str, Any]] = []
        self._http = LocalServer(self._take)
        self.base_url = self._http.url
        self._http.start()

    def _take(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        self.requests.append(body)
        if not self.turns:
            send_json(handler, 500, {"type": "error", "error": {"type": "api_error", "message": "script exhausted"}})
            return
        content = self.turns.pop(0)
        send_json(handler, 200, {
            "id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant", "model": body.get("model", "m"),
            "content": content, "stop_sequence": None,
            "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1}})

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool result the client sent back, in order, each once."""
        found: dict[str, dict[str, Any]] = {}
        for body in self.requests:
            for message in body.get("messages", []):
                if message["role"] == "user" and isinstance(message["content"], list):
                    found.update((block["tool_use_id"], block) for block in message["content"]
                                 if block.get("type") == "tool_result")
        return list(found.values())

    def stop(self) -> None:
        self._http.stop()


@contextmanager
def fake_anthropic(turns: list[Turn], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    """The server, with the environment pointing `anthropic.Anthropic()` (and ChatAnthropic) at it."""
    server = FakeAnthropic(turns)
    direct_to_localhost(monkeypatch, "ANTHROPIC_API_URL", "ANTHROPIC_AUTH_TOKEN")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    try:
        yield server
    finally:
        server.stop()
