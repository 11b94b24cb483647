"""The review page's API answers every malformed request with a 4xx and a one-line reason, never a 500 (issue 22).

Any program on the machine that has the page's address can send anything: JSON nested 100,000 deep, values of
the wrong type in every field, bodies that are not UTF-8 or not JSON, bodies too large, the wrong content type.
Each is sent over real HTTP to a served page; the answer must be a 4xx whose body is `{"error": "<one line>"}`
(or the view, for a request that is merely odd), the server must log no traceback, and the files stay as they were.
"""

from __future__ import annotations

import http.client
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from editblocks.web import ReviewServer, ReviewState
from editblocks.web.bodies import MAX_BODY

from helpers_web import ANSWER, FILES, make_project, read_tree

ACTIONS = ("decide", "apply", "undo", "answer")
FIELDS = {"decide": ("blocks", "accept"), "apply": (), "undo": ("newest",), "answer": ("text",)}
DEEP = 100_000


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ReviewState, ReviewServer]]:
    """One served page for the whole module (hypothesis sends it hundreds of requests)."""
    root = make_project(tmp_path_factory.mktemp("project"))
    session = ReviewState(root)
    session.load(ANSWER)
    with ReviewServer(session) as server:
        yield root, session, server


@pytest.fixture(autouse=True)
def no_traceback(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    caplog.set_level(logging.ERROR)
    yield
    logged = [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert not logged, [record.getMessage() for record in logged]


def send(server: ReviewServer, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.request(method, f"/{server.token}/{path}", body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def post(server: ReviewServer, action: str, body: bytes, content_type: str | None = "application/json") -> tuple[
        int, bytes]:
    return send(server, "POST", f"api/{action}", body, {"content-type": content_type} if content_type else {})


def assert_refused(status: int, body: bytes, status_wanted: int | tuple[int, ...] = 400) -> str:
    wanted = status_wanted if isinstance(status_wanted, tuple) else (status_wanted,)
    assert status in wanted, (status, body[:300])
    reason = json.loads(body)["error"]
    assert isinstance(reason, str) and reason and "\n" not in reason and "Traceback" not in reason
    return reason


def assert_answered(status: int, body: bytes) -> None:
    """A 200 with the view, or a 4xx with one line: never a 5xx."""
    assert status < 500, (status, body[:300])
    if status == 200:
        assert "blocks" in json.loads(body)
    else:
        assert_refused(status, body, (400, 409, 413, 415, 422))


def nested(depth: int, opening: str = "[", closing: str = "]") -> bytes:
    return (opening * depth + closing * depth).encode()


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("body", [
    nested(DEEP), nested(DEEP, '{"a":', "}"), b'{"blocks": ' + nested(DEEP) + b', "accept": true}',
    b'{"text": ' + nested(DEEP, '{"x":', "}") + b"}",
], ids=["array", "object", "in-a-field", "object-in-a-field"])
def test_json_nested_deeply_is_a_400_with_a_reason(page: Any, action: str, body: bytes) -> None:
    root, _, server = page
    before = read_tree(root)
    reason = assert_refused(*post(server, action, body))
    assert "nested" in reason
    assert read_tree(root) == before


@pytest.mark.parametrize("action", ACTIONS)
def test_a_body_that_is_not_json_or_not_utf8_or_not_an_object_is_a_400(page: Any, action: str) -> None:
    _, _, server = page
    assert "not valid JSON" in assert_refused(*post(server, action, b"{not json"))
    assert "UTF-8" in assert_refused(*post(server, action, b'{"text": "\xff\xfe"}'))
    assert "JSON object" in assert_refused(*post(server, action, b"[1, 2]"))
    assert "JSON object" in assert_refused(*post(server, action, b'"text"'))
    assert "not valid JSON" in assert_refused(*post(server, action, b'{"blocks": [' + b"9" * 5000 + b"]}"))
    assert "not valid JSON" in assert_refused(*post(server, action, b'{"a": NaN}'))


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                          None])
def test_the_wrong_content_type_is_a_415(page: Any, action: str, content_type: str | None) -> None:
    _, _, server = page
    assert "application/json" in assert_refused(*post(server, action, b"{}", content_type), 415)


@pytest.mark.parametrize("action", ACTIONS)
def test_a_body_over_the_limit_is_a_413(page: Any, action: str) -> None:
    _, _, server = page
    big = b'{"text": "' + b"x" * (MAX_BODY + 10) + b'"}'
    assert "larger than" in assert_refused(*post(server, action, big), 413)


@pytest.mark.parametrize(("action", "body", "words"), [
    ("decide", {"blocks": "1", "accept": True}, "`blocks`"),
    ("decide", {"blocks": {"1": 1}, "accept": True}, "`blocks`"),
    ("decide", {"blocks": [1], "accept": "yes"}, "`accept`"),
    ("decide", {"blocks": [1]}, "`accept`"),
    ("decide", {"accept": False}, "`blocks`"),
    ("answer", {"text": 12}, "`text`"),
    ("answer", {"text": ["a"]}, "`text`"),
    ("answer", {}, "`text`"),
    ("undo", {"newest": 1}, "`newest`"),
    ("undo", {"newest": None}, "`newest`"),
])
def test_a_field_of_the_wrong_type_is_a_400_naming_it(page: Any, action: str, body: dict[str, Any],
                                                     words: str) -> None:
    root, _, server = page
    before = read_tree(root)
    assert words in assert_refused(*post(server, action, json.dumps(body).encode()))
    assert read_tree(root) == before


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=4), max_leaves=20)


@given(action=st.sampled_from(ACTIONS), data=st.data())
def test_hostile_json_of_every_type_in_every_field_never_gets_a_5xx(page: Any, action: str,
                                                                    data: st.DataObject) -> None:
    root, session, server = page
    fields = FIELDS[action] + ("extra",)
    body = data.draw(st.one_of(JSON, st.fixed_dictionaries({}, optional={name: JSON for name in fields})))
    assert_answered(*post(server, action, json.dumps(body).encode()))
    if action in ("apply", "undo", "answer"):  # keep the page reviewable and the files as they were
        session.undo()
        session.load(ANSWER)
    assert read_tree(root) == FILES or session.view()["applied"]


@given(raw=st.binary(max_size=200))
def test_arbitrary_bytes_never_get_a_5xx(page: Any, raw: bytes) -> None:
    _, _, server = page
    for action in ACTIONS:
        assert_answered(*post(server, action, raw))


@pytest.mark.parametrize("query", ["since=x", "since=" + "9" * 5000, "since=-99999999999999999999", "since=1e9",
                                   "since=%ff"])
def test_odd_event_stream_and_view_requests_are_answered(page: Any, query: str) -> None:
    _, _, server = page
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", f"/{server.token}/events?{query}")
    response = connection.getresponse()
    assert response.status == 200
    assert response.readline() == b": connected\n"
    connection.close()
    status, body = send(server, "GET", "api/view?x=" + "%ff" * 10)
    assert status == 200 and "blocks" in json.loads(body)
    assert send(server, "GET", "api/decide")[0] == 405
