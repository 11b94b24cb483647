"""Settings every test shares.

Hypothesis measures each example against a wall-clock deadline and flags data
generation that seems too slow; on a busy machine both fail tests whose
behaviour is fine. Speed is checked where it matters, by the growth tests in
test_reliability.py, with CPU time; here hypothesis only checks behaviour.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# A shell starts background jobs with Ctrl-C ignored, and a process started with SIGINT ignored passes that on to
# its children, in which Python then installs no KeyboardInterrupt. The tests that stop `serve`, `apply --review`
# and `ask --serve` with Ctrl-C need it delivered, however the suite was started: an ordinary handler here becomes
# the default disposition in every child at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("editblocks", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("editblocks")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium per test module (Debian's, see helpers_web.CHROMIUM). The sync API runs an event loop for as
    long as it is open and allows one at a time, so it is closed before the next module's tests (the MCP tests run
    their own asyncio loop) or the next browser module's start."""
    from playwright.sync_api import sync_playwright

    from helpers_web import CHROMIUM

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the config file of whoever runs the suite: the user's folder for it is empty."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
