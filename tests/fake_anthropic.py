"""A scripted Anthropic Messages endpoint on 127.0.0.1: real HTTP for the real `anthropic` SDK (and the
clients built on it), no network. Each POST /v1/messages takes the next scripted turn, a list of content
blocks; every request body is kept so a test can read the tool results the client sent back."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

Turn = list[dict[str, Any]]


def tool_use(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


class FakeAnthropic:
    def __init__(self, turns: list[Turn]) -> None:
        self.turns = list(turns)
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                server.requests.append(body)
                if server.turns:
                    content = server.turns.pop(0)
                    status, reply = 200, {
                        "id": f"msg_{len(server.requests)}", "type": "message", "role": "assistant",
                        "model": body.get("model", "m"), "content": content, "stop_sequence": None,
                        "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn",
                        "usage": {"input_tokens": 1, "output_tokens": 1}}
                else:
                    status, reply = 500, {"type": "error", "error": {"type": "api_error", "message": "script exhausted"}}
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

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
        self._http.shutdown()
        self._http.server_close()


@contextmanager
def fake_anthropic(turns: list[Turn], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    """The server, with the environment pointing `anthropic.Anthropic()` (and ChatAnthropic) at it."""
    server = FakeAnthropic(turns)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "ANTHROPIC_API_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    try:
        yield server
    finally:
        server.stop()
