"""Run the review page: uvicorn on 127.0.0.1 in a background thread, at an address with a fresh token.

The socket is bound here (port 0: any free port), before uvicorn starts, so
the address is known, and printed, only once it can be reached. The server
runs in its own thread so the caller's thread stays free to feed a live
answer (`ask --serve`) or to wait for Ctrl-C (`serve`).
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from types import TracebackType
from typing import Self

import uvicorn

from editblocks.web.app import create_app
from editblocks.web.guard import TokenGate
from editblocks.web.review import ReviewState

HOST = "127.0.0.1"
START_TIMEOUT_SECONDS = 10.0


class LocalServer:
    """A page at `url` on 127.0.0.1, from `start` (or ``with``) until `stop`; `app` says which page."""

    def __init__(self, *, port: int = 0) -> None:
        self.token = secrets.token_urlsafe(24)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self._socket.bind((HOST, port))  # raises OSError when the port is taken
        except OSError:
            self._socket.close()
            raise
        self.port: int = self._socket.getsockname()[1]
        self._stopping = threading.Event()
        config = uvicorn.Config(self.app(), log_level="warning", access_log=False,
                                timeout_graceful_shutdown=2, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="editblocks-review", daemon=True)

    def app(self) -> TokenGate:
        raise NotImplementedError

    def wake(self) -> None:
        """Wake the page's event streams, so they see the server stopping and end."""

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/{self.token}/"

    def start(self) -> Self:
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not self._server.started and self._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        if not self._server.started:
            self.stop()
            raise RuntimeError("the review page's server did not start")
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.wake()  # the event streams see `_stopping` and end, so uvicorn need not wait for them
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(START_TIMEOUT_SECONDS)
        self._socket.close()

    def wait(self) -> None:
        """Serve until the thread ends (Ctrl-C in the caller's thread stops it through `stop`)."""
        while self._thread.is_alive():
            self._thread.join(0.5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def _serve(self) -> None:
        self._server.run(sockets=[self._socket])


class ReviewServer(LocalServer):
    """The review page for ``session``."""

    def __init__(self, session: ReviewState, *, port: int = 0) -> None:
        self.session = session
        super().__init__(port=port)

    def app(self) -> TokenGate:
        return create_app(self.session, self.token, self._stopping)

    def wake(self) -> None:
        self.session.wake()
