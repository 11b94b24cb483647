"""Builders for the review page's tests: a small project, answers for it, and the page served on a free port."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from editblocks.service import ApplyOptions
from editblocks.web import ReviewServer, ReviewState
from editblocks.web.chat import ModelSettings
from editblocks.web.workbench import Workbench
from editblocks.web.workbench_app import WorkbenchServer

from helpers_apply import diff_edit

CHROMIUM = os.environ.get("EDITBLOCKS_CHROMIUM", "/usr/bin/chromium")
BROWSER_TIMEOUT_MS = 30_000
"""How long a browser step or assertion may wait: generous, since CI runs on a busy 2-core machine and a passing
step never waits it out."""

FILES = {
    "app.py": 'def greet(name):\n    return "hi " + name\n\nPORT = 8000\n',
    "util.py": "def double(x):\n    return x * 2\n\n\ndef half(x):\n    return x / 2\n",
}

# Blocks 1-3 apply, block 4 fails (its old text is not in app.py; the file's line 4 is the closest).
ANSWER = (
    "Three changes and a mistake.\n\n"
    + diff_edit("app.py", ('    return "hi " + name\n', '    return "hello " + name\n'))
    + diff_edit("util.py", ("    return x * 2\n", "    return x + x\n"))
    + diff_edit("util.py", ("    return x / 2\n", "    return x // 2\n"))
    + diff_edit("app.py", ("PORT = 9999\n", "PORT = 8080\n"))
    + "That is all.\n"
)


def make_project(root: Path) -> Path:
    for name, text in FILES.items():
        (root / name).write_text(text)
    return root


def read_tree(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text() for name in FILES}


@contextmanager
def served(root: Path, answer: str | None = ANSWER, options: ApplyOptions | None = None
           ) -> Iterator[tuple[ReviewState, ReviewServer]]:
    session = ReviewState(root, options=options)
    if answer is not None:
        session.load(answer)
    with ReviewServer(session) as server:
        yield session, server


@contextmanager
def served_workbench(root: Path, base_url: str | None, *, model: str | None = "test-model", retries: int = 2,
                     api_key: str | None = "test-key", options: ApplyOptions | None = None,
                     ) -> Iterator[tuple[Workbench, WorkbenchServer]]:
    """The workbench on ``root`` asking the model at ``base_url`` (the scripted server), served on a free port."""
    settings = ModelSettings(model, base_url, api_key, timeout=20.0, backoff=0.01, retries=retries)
    bench = Workbench(root, settings, options=options)
    with WorkbenchServer(bench) as server:
        yield bench, server


def wait_idle(bench: Workbench) -> None:
    """Until the rounds end (each change wakes the wait; no sleeping)."""
    changed = threading.Event()
    unsubscribe = bench.subscribe(changed.set)
    try:
        deadline = time.monotonic() + 60
        while bench.running:
            assert changed.wait(max(0.0, deadline - time.monotonic())), "the rounds did not end"
            changed.clear()
    finally:
        unsubscribe()
