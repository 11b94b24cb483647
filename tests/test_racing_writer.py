"""A racing local writer (issue 22): a project folder swapped for a link to an outside folder, in a loop, while
`ask --tools` copies files to its scratch folder and while the text editor lists folders.

The swap is `renameat2(RENAME_EXCHANGE)` of the real folder `sub` with the symlink `link` → `../outside`, made
by another process (as a local attacker would; a thread would share the interpreter lock and swap only when the
tested code lets it) until the test is done; the swap count is always even at the end, so the project is as it
was. The outside folder holds a secret under the very names `sub` has, and names of its own: none of them may
reach the model's endpoint, the project, or a listing.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ask_server import Answer, scripted, use_local_endpoint
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.tools import ToolHandler
from editblocks.workspace import Refusal, Workspace
from editblocks.workspace.project_files import walk_files

from helpers_apply import make_tree

SECRET = "SECRET-5d1c: a private file outside the project"
INSIDE = {f"sub/f{n:02d}.txt": f"inside {n}\n" for n in range(60)}
OUTSIDE = {name.removeprefix("sub/"): SECRET + "\n" for name in INSIDE} | {
    f"secret-name-{n}.txt": SECRET + "\n" for n in range(5)}
ASK_RUNS = 4  # each run fetches the 60 files of `sub` into its scratch copy, while the folder is being swapped
LISTING_SECONDS = 1.0  # per kind of listing


SWAPPER = """
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
first, second = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
stopping = []
signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
print("swapping", flush=True)
swaps = 0
while not stopping or swaps % 2:
    if libc.renameat2(-100, first, -100, second, 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
    swaps += 1
print(swaps, flush=True)
"""


class Swapper:
    """Another process that exchanges two names again and again until stopped, and leaves them as they were."""

    def __init__(self, first: Path, second: Path) -> None:
        self._process = subprocess.Popen([sys.executable, "-c", SWAPPER, str(first), str(second)],
                                         stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None and self._process.stdout.readline() == "swapping\n"
        self.swaps = 0

    def stop(self) -> int:
        """Stop swapping (once); the number of swaps made."""
        if self._process.poll() is None:
            self._process.terminate()
            out, _ = self._process.communicate(timeout=30)
            self.swaps = int(out.strip() or 0)
        return self.swaps


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root, outside = tmp_path / "project", tmp_path / "outside"
    make_tree(root, {"app.py": "print('hi')\n", **INSIDE})
    make_tree(outside, OUTSIDE)
    os.symlink("../outside", root / "link")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def swapping(project: Path) -> Iterator[Swapper]:
    assert hasattr(ctypes.CDLL(None), "renameat2"), "this test needs glibc's renameat2 (Linux)"
    swapper = Swapper(project / "sub", project / "link")
    try:
        yield swapper
    finally:
        swapper.stop()
    assert (project / "sub").is_dir() and (project / "link").is_symlink()


def project_text(root: Path) -> str:
    return "".join(path.read_text() for path in sorted(root.rglob("*.txt")) if not path.is_symlink()
                   and "link" not in path.parts)


# --- ask --tools: the scratch copy ------------------------------------------------------------------


def view(number: int, path: str) -> dict[str, object]:
    return {"id": f"call_{number}", "name": "str_replace_based_edit_tool",
            "arguments": {"command": "view", "path": path}}


def test_ask_tools_never_copies_an_outside_file_into_the_scratch_copy(project: Path, swapping: Swapper,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The model views every file of `sub`: each one is fetched into the scratch copy while `sub` is being swapped.

    A fetch that read the file a second time by path copied the outside file: the model saw it in the tool reply,
    and the scratch copy then differed from the project, so the confirmed run wrote it into the project.
    """
    use_local_endpoint(monkeypatch)
    views = tuple(view(number, path) for number, path in enumerate(INSIDE))
    fetched = 0
    with scripted([Answer("", tool_calls=views, chunk=200), Answer("Done.\n")] * ASK_RUNS) as server:
        for run in range(ASK_RUNS):
            result = CliRunner().invoke(main, ["ask", "Read sub", "app.py", "--tools", "--model", "m", "--base-url",
                                               server.base_url, "--api-key-env", "TEST_KEY"], input="y\n")
            assert result.exception is None or isinstance(result.exception, SystemExit), result.output
            assert len(server.requests) == 2 * (run + 1), result.output
            replies = server.requests[-1]["body"]["messages"]
            fetched += sum(1 for message in replies if message["role"] == "tool" and "inside" in message["content"])
    sent = [json.dumps(request["body"]) for request in server.requests]
    swaps = swapping.stop()
    leaked = sum(body.count(SECRET) for body in sent)
    written = project_text(project).count(SECRET)
    print(f"\n{ASK_RUNS} runs, {len(INSIDE) * ASK_RUNS} fetches during {swaps} swaps: {fetched} inside files fetched, "
          f"{leaked} outside texts sent to the endpoint, {written} written into the project")
    assert leaked == 0, "an outside file reached the endpoint"
    assert written == 0, "an outside file was written into the project"
    assert fetched > 0  # the race let real fetches through, so the copy was really exercised


# --- listings -----------------------------------------------------------------------------------------


def listings(make: object, seconds: float) -> tuple[int, list[str]]:
    """Call ``make`` for ``seconds``; how many listings it made and those that named an outside file."""
    assert callable(make)
    count, leaked = 0, []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        shown = make()
        count += 1
        if "secret-name" in shown:
            leaked.append(shown)
    return count, leaked


def test_the_text_editor_lists_no_outside_name_while_a_folder_is_swapped(project: Path, swapping: Swapper) -> None:
    handler = ToolHandler(project)
    kinds = {
        "view of the root": lambda: handler.call("str_replace_based_edit_tool", {"command": "view", "path": ""}).text,
        "view of the folder": lambda: handler.call("str_replace_based_edit_tool",
                                                   {"command": "view", "path": "sub"}).text,
        "did you mean": lambda: handler.call("str_replace_based_edit_tool",
                                             {"command": "view", "path": "SUB/SECRET-NAME-0.TXT"}).text,
        "walk_files": lambda: "\n".join(walk_files(project)),
    }
    counts, leaks = {}, {}
    for kind, make in kinds.items():
        counts[kind], leaks[kind] = listings(make, LISTING_SECONDS)
    swaps = swapping.stop()
    print(f"listings during {swaps} swaps: {counts}; with outside names: "
          f"{ {kind: len(found) for kind, found in leaks.items()} }")
    assert all(count > 50 for count in counts.values()), counts
    assert {kind: found[:1] for kind, found in leaks.items() if found} == {}


def test_reading_project_files_never_returns_an_outside_file(project: Path, swapping: Swapper) -> None:
    """What `ask` sends and the review page shows is read by `Workspace.read`: through folders opened without
    following a link, so the swap makes a read fail, never return the outside file."""
    workspace = Workspace(project)
    reads = refused = 0
    leaked: list[str] = []
    deadline = time.monotonic() + LISTING_SECONDS
    while time.monotonic() < deadline:
        for path in INSIDE:
            read = workspace.read(path)
            reads += 1
            if isinstance(read, Refusal):
                refused += 1
            elif SECRET in (read.text or ""):
                leaked.append(path)
    swaps = swapping.stop()
    print(f"\n{reads} reads during {swaps} swaps, {refused} refused, {len(leaked)} returned an outside file")
    assert leaked == []
    assert refused < reads  # the race let real reads through
