"""Credentials in a `--base-url` never reach the disk or the screen (issue 22).

`user:pass@host` and `?api-key=…` / `?key=…` / `?token=…` are how some gateways take a key. The URL is used as
given for the request, but everywhere it is shown or saved (the run record, the terminal, error lines, the page,
`--json`) the secret parts read `***`. Each test runs `ask` for real against the scripted server on 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from ask_server import Answer, Failure, scripted, use_local_endpoint
from click.testing import CliRunner, Result

from editblocks.ask.client import Endpoint
from editblocks.ask.display import QuietView
from editblocks.ask.outcome import AskOptions
from editblocks.ask.redact import redact_url
from editblocks.ask.rounds import ask
from editblocks.cli import main
from editblocks.model import Format
from editblocks.web import ReviewState
from editblocks.web.ask_page import PageView, apply_at_once

SECRET = "s3cr3t-K3Y"
ANSWER = "app.py\n```python\n<<<<<<< SEARCH\nA = 1\n=======\nA = 2\n>>>>>>> REPLACE\n```\n"


@pytest.fixture(autouse=True)
def local_only(monkeypatch: pytest.MonkeyPatch) -> None:
    use_local_endpoint(monkeypatch)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("A = 1\n")
    monkeypatch.chdir(root)
    return root


def run_ask(base_url: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["ask", "Set A to 2", "app.py", "--model", "m", "--base-url", base_url,
                                     "--api-key-env", "TEST_KEY", "--backoff", "0.01", "--yes", *args])


def saved_runs(project: Path) -> str:
    """Everything saved about the runs, as one text."""
    runs = project / ".editblocks" / "runs"
    return "".join(path.read_text() for path in sorted(runs.rglob("*")) if path.is_file())


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(("given", "shown"), [
    ("http://user:s3cr3t-K3Y@example.test/v1", "http://***@example.test/v1"),
    ("http://s3cr3t-K3Y@example.test:8080/v1", "http://***@example.test:8080/v1"),
    ("https://example.test/v1?api-key=s3cr3t-K3Y", "https://example.test/v1?api-key=***"),
    ("https://example.test/v1?key=s3cr3t-K3Y&api-version=2024-06-01",
     "https://example.test/v1?key=***&api-version=2024-06-01"),
    ("https://example.test/v1?token=s3cr3t-K3Y#s3cr3t-K3Y", "https://example.test/v1?token=***#***"),
    ("https://example.test/v1?s3cr3t-K3Y", "https://example.test/v1?***"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("not a url s3cr3t-K3Y@", "not a url ***@"),
])
def test_the_redaction_keeps_the_address_and_hides_the_secret(given: str, shown: str) -> None:
    assert redact_url(given) == shown


def test_run_json_terminal_and_json_output_hide_a_key_in_the_query(project: Path) -> None:
    with scripted([Answer(ANSWER), Answer(ANSWER)]) as server:
        url = f"{server.base_url}?api-key={SECRET}"
        plain = run_ask(url)
        (project / "app.py").write_text("A = 1\n")
        as_json = run_ask(url, "--json")
    assert plain.exit_code == 0 and as_json.exit_code == 0, plain.output + as_json.output
    assert all(SECRET in request["path"] for request in server.requests)  # the request itself carries the key
    shown = f"{server.base_url}?api-key=***"
    assert shown in plain.output and SECRET not in plain.output
    assert SECRET not in as_json.output
    assert json.loads(as_json.stdout)["base_url"] == shown
    saved = saved_runs(project)
    assert SECRET not in saved and shown in saved


def test_an_error_line_hides_the_password_of_the_url(project: Path) -> None:
    with scripted([Failure(401, "Incorrect API key provided")]) as server:
        url = server.base_url.replace("http://", f"http://user:{SECRET}@")
        result = run_ask(url, "--json")
    assert result.exit_code == 2
    assert "refused the API key (401)" in result.output and "http://***@127.0.0.1" in result.output
    assert SECRET not in result.output and "user:" not in result.output
    assert SECRET not in saved_runs(project)


def test_an_unreachable_endpoint_is_named_without_its_key(project: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1?key={SECRET}"
    result = run_ask(url)
    assert result.exit_code == 2
    assert "cannot connect to" in result.output and "?key=***" in result.output
    assert SECRET not in result.output
    assert SECRET not in saved_runs(project)


def test_the_review_page_never_shows_the_key(project: Path) -> None:
    session = ReviewState(project)
    with scripted([Answer(ANSWER)]) as server:
        endpoint = Endpoint("m", f"{server.base_url}?token={SECRET}", "test-key", timeout=10.0, backoff=0.01)
        outcome = ask(AskOptions("Set A to 2", ("app.py",), str(project), Format.DIFF), endpoint,
                      PageView(QuietView(), session, Format.DIFF), apply_at_once(session))
    assert outcome.exit_code == 0, outcome
    assert SECRET not in session.view_json()[1]
    assert SECRET not in saved_runs(project)
