"""A quiet threaded HTTP server on 127.0.0.1 whose every POST goes to one function: the part the scripted
model endpoints of the tests share (the OpenAI-compatible one of `ask`, the Anthropic one of the adapters)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

OnPost = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


class LocalServer:
    """Serves on a free port of 127.0.0.1 (``url``) once started; ``on_post`` gets each request and its JSON body."""

    def __init__(self, on_post: OnPost) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                on_post(self, json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}"))

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._http.shutdown()
        self._http.server_close()


def send_json(handler: BaseHTTPRequestHandler, status: int, payload: object,
              headers: Mapping[str, str] | None = None) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


def direct_to_localhost(monkeypatch: pytest.MonkeyPatch, *cleared: str) -> None:
    """No proxy (and none of the ``cleared`` variables): requests to 127.0.0.1 go straight to the test's server."""
    for name in (*PROXY_VARIABLES, *cleared):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
