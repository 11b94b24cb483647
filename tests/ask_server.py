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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


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
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    step = server.script.pop(0) if server.script else Failure(500, "script exhausted")
                if self.headers.get("authorization") != f"Bearer {server.api_key}":
                    step = Failure(401, "Incorrect API key provided")
                server._serve(self, step, body)

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    def _serve(self, handler: BaseHTTPRequestHandler, step: Step, body: dict[str, Any]) -> None:
        if isinstance(step, Stall):
            time.sleep(step.seconds)
            handler.close_connection = True
            return
        if isinstance(step, Failure):
            data = json.dumps({"error": {"message": step.message, "type": "test", "code": None}}).encode()
            handler.send_response(step.status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            for name, value in step.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
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
        self._thread.start()
        return self

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()


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
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "OPENAI_BASE_URL", "EDITBLOCKS_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("TEST_KEY", "test-key")
