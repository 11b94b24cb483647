"""`editblocks mcp --http` serves only whoever has the secret it printed (issue 22).

Any local user can connect to 127.0.0.1. The server generates a token at start (or takes the user's own from
EDITBLOCKS_MCP_TOKEN, for a client configuration that does not change), prints it once with the address, and
refuses every request that carries neither `Authorization: Bearer <token>` nor the token as the first path
segment: 401, and no tool runs. Host and Origin are checked too (DNS rebinding). Each test runs the real command
as a process and talks to it with the official SDK's client, or with plain HTTP for the refusals.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

SRC = str(Path(__file__).resolve().parent.parent / "src")
INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}})
ACCEPT = "application/json, text/event-stream"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def mcp_http(root: Path, env: dict[str, str] | None = None,
             stderr: Any = subprocess.DEVNULL) -> Iterator[tuple[int, str, list[str]]]:
    """The server as a process: (port, token, the lines it printed on start)."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "editblocks", "mcp", "--root", str(root), "--http",
                               "--port", str(port)], env={**os.environ, "PYTHONPATH": SRC, **(env or {})},
                              stdout=subprocess.PIPE, stderr=stderr, text=True)
    try:
        assert server.stdout is not None
        printed: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [printed.put(line) for line in server.stdout or ()], daemon=True).start()
        lines = [read_line(printed), read_line(printed)]
        found = re.search(r"token: (\S+)", lines[1])
        assert found, lines
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.1)
        yield port, found[1], lines
    finally:
        server.terminate()
        server.wait(timeout=30)


def read_line(printed: queue.Queue[str], seconds: float = 20) -> str:
    """The next line the server prints, or "" if none comes in time (a server that prints nothing)."""
    try:
        return printed.get(timeout=seconds)
    except queue.Empty:
        return ""


def text(result: Any) -> str:
    return "".join(block.text for block in result.content)


def call(url: str, headers: dict[str, str] | None, name: str, arguments: dict[str, Any]) -> Any:
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with create_mcp_http_client(headers=headers) as http, \
                Client(streamable_http_client(url, http_client=http), read_timeout_seconds=60) as client:
            seen["result"] = await client.call_tool(name, arguments)

    anyio.run(session)
    return seen["result"]


def post(port: int, path: str, headers: dict[str, str]) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", path, body=INITIALIZE,
                       headers={"content-type": "application/json", "accept": ACCEPT, **headers})
    response = connection.getresponse()
    body = response.read().decode("utf-8", "replace")
    connection.close()
    return response.status, body


def test_the_secret_is_printed_once_with_the_address_and_opens_the_server(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    with mcp_http(tmp_path) as (port, token, lines):
        assert lines[0].strip() == f"MCP endpoint: http://127.0.0.1:{port}/mcp"
        assert f"Authorization: Bearer {token}" in lines[1] and f"http://127.0.0.1:{port}/{token}/mcp" in lines[1]
        assert len(token) >= 32
        viewed = call(f"http://127.0.0.1:{port}/mcp", {"Authorization": f"Bearer {token}"},
                      "str_replace_based_edit_tool", {"command": "view", "path": "a.txt"})
        assert text(viewed).startswith("     1\tone\n[a.txt version ")  # stale-read protection is on
        created = call(f"http://127.0.0.1:{port}/{token}/mcp", None, "str_replace_based_edit_tool",
                       {"command": "create", "path": "b.txt", "file_text": "two\n"})
        assert not created.is_error, text(created)
    assert (tmp_path / "b.txt").read_text() == "two\n"


@pytest.mark.parametrize("given", ["none", "wrong-header", "wrong-path", "basic", "token-in-query"])
def test_without_the_secret_the_sdk_client_is_refused_and_no_tool_runs(tmp_path: Path, given: str) -> None:
    with mcp_http(tmp_path) as (port, token, _):
        wrong = "x" * len(token)
        url, headers = {
            "none": (f"http://127.0.0.1:{port}/mcp", None),
            "wrong-header": (f"http://127.0.0.1:{port}/mcp", {"Authorization": f"Bearer {wrong}"}),
            "wrong-path": (f"http://127.0.0.1:{port}/{wrong}/mcp", None),
            "basic": (f"http://127.0.0.1:{port}/mcp", {"Authorization": f"Basic {token}"}),
            "token-in-query": (f"http://127.0.0.1:{port}/mcp?token={token}", None),
        }[given]
        with pytest.raises(BaseException):  # noqa: B017 - the SDK reports a refused connection its own way
            call(url, headers, "str_replace_based_edit_tool",
                 {"command": "create", "path": "pwned.txt", "file_text": "pwned\n"})
    assert not (tmp_path / "pwned.txt").exists()


def test_every_refusal_is_a_401_in_one_line(tmp_path: Path) -> None:
    with mcp_http(tmp_path) as (port, token, _):
        for path, headers in (("/mcp", {}), ("/mcp", {"Authorization": "Bearer nope"}),
                              (f"/{token[:-1]}/mcp", {}), (f"/mcp/{token}", {}), ("/", {}),
                              ("/mcp", {"Authorization": f"bearer  {token}x"})):
            status, body = post(port, path, headers)
            assert status == 401, (path, headers, status, body)
            assert len(body.strip().splitlines()) == 1 and "token" in body
        status, _ = post(port, "/mcp", {"Authorization": f"Bearer {token}"})
        assert status == 200


def test_dns_rebinding_protection_is_on_even_with_the_secret(tmp_path: Path) -> None:
    with mcp_http(tmp_path) as (port, token, _):
        bearer = {"Authorization": f"Bearer {token}"}
        assert post(port, "/mcp", {**bearer, "host": f"attacker.example:{port}"})[0] in (403, 421)
        assert post(port, "/mcp", {**bearer, "origin": "http://attacker.example"})[0] == 403
        assert post(port, "/mcp", {**bearer, "host": f"localhost:{port}"})[0] == 200


def test_a_token_of_ones_own_comes_from_the_environment(tmp_path: Path) -> None:
    mine = "my-own-token-for-the-client-config-0123456789"
    with mcp_http(tmp_path, {"EDITBLOCKS_MCP_TOKEN": mine}) as (port, token, _):
        assert token == mine
        assert post(port, "/mcp", {"Authorization": f"Bearer {mine}"})[0] == 200
        assert post(port, "/mcp", {})[0] == 401


def test_a_token_too_short_to_be_a_secret_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "editblocks", "mcp", "--root", str(tmp_path), "--http",
                           "--port", str(free_port())],
                          env={**os.environ, "PYTHONPATH": SRC, "EDITBLOCKS_MCP_TOKEN": "hunter2"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "Error: EDITBLOCKS_MCP_TOKEN must be at least 32 characters of A-Z, a-z, 0-9, `-`, `_`, `.` or `~`"]


def test_http_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "editblocks", "mcp", "--root", str(tmp_path), "--http",
                               "--port", str(port)], env={**os.environ, "PYTHONPATH": SRC},
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"Error: cannot listen on 127.0.0.1:{port}: Address already in use"]
    assert done.stdout == ""  # no address, no token: nothing listens there


def test_http_keeps_the_sdks_routine_log_lines_off_stderr(tmp_path: Path) -> None:
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr, mcp_http(tmp_path, stderr=stderr) as (port, token, _):
        assert post(port, "/mcp", {"Authorization": f"Bearer {token}"})[0] == 200
    assert "INFO" not in log.read_text(), log.read_text()
