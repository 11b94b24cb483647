"""The review page's server without a browser: the token gate, the headers, the event stream, the actions, the CLI."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.web import ReviewState
from editblocks.web.guard import CONTENT_SECURITY_POLICY

from helpers_web import ANSWER, FILES, make_project, read_tree, served


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return make_project(root)


def request(port: int, method: str, path: str, body: str | None = None, *, host: str | None = None,
            content_type: str = "application/json") -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    headers = {"content-type": content_type} if body is not None else {}
    if host is not None:
        headers["host"] = host
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, data


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/"), ("GET", "/events"), ("GET", "/api/view"), ("GET", "/static/app.js"), ("POST", "/api/apply"),
    ("GET", "/{wrong}/"), ("GET", "/{wrong}/events"), ("POST", "/{wrong}/api/apply"), ("GET", "/{prefix}/events"),
])
def test_every_request_without_the_token_is_refused(project: Path, method: str, path: str) -> None:
    with served(project) as (_, server):
        wrong = "A" * len(server.token)
        path = path.format(wrong=wrong, prefix=server.token[:-1])
        status, headers, body = request(server.port, method, path, "{}" if method == "POST" else None)
        assert status == 403
        assert b"token" in body
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert read_tree(project) == FILES


def test_static_files_cannot_reach_outside_their_folder(project: Path) -> None:
    with served(project) as (_, server):
        for path in ("static/../session.py", "static/%2e%2e/session.py", "static/../../web/session.py",
                     "static/..%2fsession.py"):
            status, _, body = request(server.port, "GET", f"/{server.token}/{path}")
            assert status == 404 and b"ReviewState" not in body


def test_a_foreign_host_name_is_refused_even_with_the_token(project: Path) -> None:
    with served(project) as (_, server):
        assert request(server.port, "GET", f"/{server.token}/", host=f"attacker.example:{server.port}")[0] == 403
        assert request(server.port, "GET", f"/{server.token}/", host=f"localhost:{server.port}")[0] == 200


def test_the_page_is_served_on_loopback_with_strict_headers_and_no_inline_script(project: Path) -> None:
    answer = "Closing tags in prose: </script><script>alert(1)</script>\n\n" + ANSWER
    with served(project, answer) as (_, server):
        assert server.url == f"http://127.0.0.1:{server.port}/{server.token}/"
        assert server._socket.getsockname()[0] == "127.0.0.1"
        status, headers, body = request(server.port, "GET", f"/{server.token}/")
        assert status == 200
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY
        assert "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe" not in CONTENT_SECURITY_POLICY
        assert headers["referrer-policy"] == "no-referrer"
        assert headers["x-content-type-options"] == "nosniff"
        page = body.decode()
        scripts = re.findall(r"<script[^>]*>", page)
        assert scripts == ['<script type="module" src="static/app.js">', '<script type="application/json" id="initial-view">']
        assert page.count("</script>") == 2  # the answer's own closing tags stay inside the JSON, escaped
        assert "http" not in page.replace(server.url, "")  # nothing is loaded from elsewhere
        assert request(server.port, "GET", f"/{server.token}")[0] == 307
        status, headers, _ = request(server.port, "GET", f"/{server.token}/static/app.js")
        assert status == 200 and "javascript" in headers["content-type"]


def test_the_event_stream_needs_the_token_and_sends_each_new_view(project: Path) -> None:
    with served(project, answer=None) as (session, server):
        assert request(server.port, "GET", "/events")[0] == 403
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        connection.request("GET", f"/{server.token}/events?since={session.version}")
        response = connection.getresponse()
        assert response.status == 200
        assert response.getheader("content-type", "").startswith("text/event-stream")
        assert response.readline() == b": connected\n"
        response.readline()
        session.new_answer()
        session.feed(ANSWER)
        session.close_answer()
        views = []
        while not views or views[-1]["streaming"] or len(views[-1]["blocks"]) < 4:
            line = response.readline()
            if line.startswith(b"data: "):
                views.append(json.loads(line[6:]))
        # block 1 is held: block 4, for the same file, failed (a file is written only when all its blocks apply)
        assert [b["status"] for b in views[-1]["blocks"]] == ["held", "pending", "pending", "failed"]
        assert all(earlier["version"] < later["version"] for earlier, later in zip(views, views[1:]))
        connection.close()


def test_actions_take_block_numbers_only_and_refuse_anything_else(project: Path) -> None:
    with served(project) as (session, server):
        base = f"/{server.token}/api"
        assert request(server.port, "POST", f"{base}/decide", "not json")[0] == 400
        assert request(server.port, "POST", f"{base}/decide", "[1]")[0] == 400
        assert request(server.port, "POST", f"{base}/decide", '{"blocks": [2], "accept": false}',
                       content_type="text/plain")[0] == 415
        status, _, body = request(server.port, "POST", f"{base}/decide",
                                  '{"blocks": [2, 99, -1, "app.py", true], "accept": false}')
        assert status == 200
        assert [b["accepted"] for b in json.loads(body)["blocks"]] == [True, False, True, True]
        status, _, body = request(server.port, "POST", f"{base}/apply", "{}")
        view = json.loads(body)
        assert [b["status"] for b in view["blocks"]] == ["held", "skipped", "applied", "failed"]
        assert request(server.port, "POST", f"{base}/apply", "{}")[0] == 200
        assert session.view()["message"] == "already applied: undo first"
        assert read_tree(project)["app.py"] == FILES["app.py"] and "x // 2" in read_tree(project)["util.py"]


def test_a_session_applies_only_accepted_blocks_and_undoes_its_own_apply(project: Path) -> None:
    session = ReviewState(project)
    session.load(ANSWER)
    session.decide([1, 2, 3, 4], accept=False)
    assert session.apply() is None
    assert session.view()["message"] == "no block is accepted: nothing to apply"
    session.decide([3], accept=True)
    result = session.apply()
    assert result is not None and result.written
    assert read_tree(project)["util.py"].endswith("return x // 2\n")
    assert read_tree(project)["app.py"] == FILES["app.py"]
    assert session.undo()
    assert read_tree(project) == FILES
    assert not session.undo()
    assert session.view()["message"] == "nothing to undo on this page"


def test_the_serve_command_needs_the_web_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import editblocks.cli.serve as serve

    monkeypatch.chdir(Path(__file__).resolve().parent.parent)  # the source checkout: install from it
    monkeypatch.setattr(serve, "find_spec", lambda name: None if name == "uvicorn" else object())
    result = CliRunner().invoke(main, ["serve"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == "Error: the review page needs uvicorn: pip install -e '.[web]'"


def run_until_url(args: list[str], cwd: Path) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen([sys.executable, "-m", "editblocks", *args], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.fullmatch(r"review page: (http://127\.0\.0\.1:\d+/[\w-]{32}/)\n", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    return process, match[1]


@pytest.mark.parametrize("command", [["serve", "answer.md", "--root", "project"],
                                     ["apply", "answer.md", "--root", "project", "--review"]])
def test_serve_and_apply_review_print_the_address_and_serve_the_answer_until_ctrl_c(project: Path,
                                                                                     command: list[str]) -> None:
    (project.parent / "answer.md").write_text(ANSWER)
    process, url = run_until_url(command, project.parent)
    try:
        parts = urlsplit(url)
        assert parts.port is not None
        status, _, body = request(parts.port, "GET", f"{parts.path}api/view")
        assert status == 200
        assert [b["status"] for b in json.loads(body)["blocks"]] == ["held", "pending", "pending", "failed"]
        assert request(parts.port, "GET", "/api/view")[0] == 403
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(10)
    assert process.returncode == 0
    assert read_tree(project) == FILES


@pytest.mark.slow
def test_the_wheel_ships_the_pages_template_script_and_style(tmp_path: Path) -> None:
    repo = Path(__file__).resolve().parent.parent
    source = tmp_path / "checkout"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(repo / name, source / name)
    shutil.copytree(repo / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    build = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                            "print(build_meta.build_wheel(sys.argv[1]))", str(tmp_path / "dist")],
                           cwd=source, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    wheel = tmp_path / "dist" / build.stdout.strip().splitlines()[-1]
    names = set(zipfile.ZipFile(wheel).namelist())
    static = repo / "src" / "editblocks" / "web" / "static"
    shipped = {f"editblocks/web/static/{path.name}" for path in static.iterdir()} | {
        "editblocks/web/templates/page.html"}
    assert shipped <= names
    assert any(name.endswith(".js") for name in shipped) and any(name.endswith(".css") for name in shipped)


def test_an_apply_that_writes_nothing_leaves_undo_off_so_an_earlier_run_is_never_undone(project: Path) -> None:
    from editblocks import apply, parse

    from helpers_apply import diff_edit

    earlier = apply(parse(diff_edit("util.py", ("def half(x):\n", "def halve(x):\n"))), project)
    assert earlier.written
    session = ReviewState(project)
    session.load(ANSWER)
    session.decide([1, 2, 3], accept=False)  # only the failing block 4 is left
    result = session.apply()
    assert result is not None and not result.written
    view = session.view()
    assert not view["applied"] and view["message"].startswith("nothing written")
    assert [b["status"] for b in view["blocks"]] == ["skipped", "skipped", "skipped", "failed"]
    assert not session.undo()
    assert "def halve(x):" in read_tree(project)["util.py"]


def test_an_apply_made_elsewhere_is_shown_and_can_be_undone(project: Path) -> None:
    from editblocks import apply, parse

    session = ReviewState(project)
    session.new_answer()
    for start in range(0, len(ANSWER), 50):
        session.feed(ANSWER[start:start + 50])
    assert session.view()["streaming"]
    session.close_answer()
    session.record_apply(apply(parse(ANSWER), project))  # a program that applied by itself
    assert [b["status"] for b in session.view()["blocks"]] == ["held", "applied", "applied", "failed"]
    assert session.undo()
    assert read_tree(project) == FILES


def test_the_apply_options_of_the_session_decide_like_apply_does(project: Path) -> None:
    session = ReviewState(project, apply_options={"policy": "abort"})
    session.load(ANSWER)
    assert [b["status"] for b in session.view()["blocks"]] == ["skipped", "skipped", "skipped", "failed"]
    assert not session.view()["can_apply"]


DELETE_AND_MOVE = ("*** Begin Patch\n*** Delete File: app.py\n*** Update File: util.py\n*** Move to: halves.py\n"
                   "*** End Patch\n")


def test_a_delete_and_a_move_count_as_written_and_can_be_undone(project: Path) -> None:
    session = ReviewState(project)
    session.load(DELETE_AND_MOVE)
    result = session.apply()
    assert result is not None and result.written
    assert sorted(path.name for path in project.iterdir() if path.is_file()) == ["halves.py"]
    view = session.view()
    assert view["applied"] and view["message"] == "applied: 2 files written"
    assert session.undo()
    assert read_tree(project) == FILES


def test_a_delete_and_a_move_applied_elsewhere_can_be_undone_on_the_page(project: Path) -> None:
    from editblocks import apply, parse

    session = ReviewState(project)
    session.load(DELETE_AND_MOVE)
    session.record_apply(apply(parse(DELETE_AND_MOVE), project))
    assert session.view()["applied"]
    assert session.undo()
    assert read_tree(project) == FILES
