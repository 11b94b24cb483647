"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1 for the `ask` tests: real HTTP, real SSE.

Each request takes the next step of the script: an answer streamed as
server-sent events in chunks of a given size (optionally broken off after
some chunks), an HTTP error with headers, or a stall longer than the
client's timeout. Every request is kept (headers and JSON body) so a test can
check what the client sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from local_http import LocalServer, direct_to_localhost, send_json


@dataclass(frozen=True)
class Answer:
    """Stream ``text`` in chunks of ``chunk`` characters; ``drop_after`` chunks, then cut the connection."""

    text: str
    chunk: int = 4
    drop_after: int | None = None
    finish: bool = True
    tool_calls: tuple[dict[str, Any], ...] = ()  # streamed in pieces of ``chunk`` characters of their arguments
    hold: threading.Event | None = None  # after ``hold_after`` events, wait until the test sets it (mid-answer)
    hold_after: int = 0


@dataclass(frozen=True)
class Failure:
    status: int
    message: str = "scripted failure"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Stall:
    """Answer nothing for ``seconds`` (longer than the client waits)."""

    seconds: float


Step = Answer | Failure | Stall
HOLD_LIMIT_SECONDS = 30.0  # a held answer goes on by itself after this long (a test that failed before releasing it)


class ScriptedServer:
    def __init__(self, script: list[Step], api_key: str = "test-key") -> None:
        self.script = list(script)
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._http = LocalServer(self._take)
        self.base_url = f"{self._http.url}/v1"

    def _take(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append({"path": handler.path, "headers": dict(handler.headers), "body": body})
            step = self.script.pop(0) if self.script else Failure(500, "script exhausted")
        if handler.headers.get("authorization") != f"Bearer {self.api_key}":
            step = Failure(401, "Incorrect API key provided")
        self._serve(handler, step, body)

    def _serve(self, handler: BaseHTTPRequestHandler, step: Step, body: dict[str, Any]) -> None:
        if isinstance(step, Stall):
            time.sleep(step.seconds)
            handler.close_connection = True
            return
        if isinstance(step, Failure):
            send_json(handler, step.status, {"error": {"message": step.message, "type": "test", "code": None}},
                      step.headers)
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        model = body.get("model", "m")
        events = list(_events(step, model))
        for number, event in enumerate(events):
            if step.hold is not None and number == step.hold_after:
                step.hold.wait(HOLD_LIMIT_SECONDS)
            if step.drop_after is not None and number >= step.drop_after:
                handler.wfile.flush()
                handler.close_connection = True
                handler.connection.shutdown(2)  # mid-stream: no end chunk, no [DONE]
                return
            payload = f"data: {event}\n\n".encode()
            handler.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()

    def start(self) -> ScriptedServer:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()


def _events(answer: Answer, model: str) -> Iterator[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model,
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(answer.text), answer.chunk):
        yield chunk({"content": answer.text[start : start + answer.chunk]})
    for index, call in enumerate(answer.tool_calls):
        arguments = json.dumps(call["arguments"])
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": call["name"], "arguments": ""}}]})
        for start in range(0, len(arguments), answer.chunk):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[start : start + answer.chunk]}}]})
    if answer.finish:
        yield chunk({}, "tool_calls" if answer.tool_calls else "stop")
        yield "[DONE]"


@contextmanager
def scripted(script: list[Step], api_key: str = "test-key") -> Iterator[ScriptedServer]:
    server = ScriptedServer(script, api_key).start()
    try:
        yield server
    finally:
        server.stop()


def use_local_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy, no endpoint, model or key from the environment: every request goes to the scripted server on
    127.0.0.1, with the key the tests name in `--api-key-env TEST_KEY`."""
    direct_to_localhost(monkeypatch, "OPENAI_BASE_URL", "EDITBLOCKS_MODEL", "OPENAI_API_KEY")
    monkeypatch.setenv("TEST_KEY", "test-key")
