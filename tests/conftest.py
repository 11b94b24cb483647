"""Settings every test shares.

Hypothesis measures each example against a wall-clock deadline and flags data
generation that seems too slow; on a busy machine both fail tests whose
behaviour is fine. Speed is checked where it matters, by the growth tests in
test_reliability.py, with CPU time; here hypothesis only checks behaviour.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser

settings.register_profile("editblocks", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("editblocks")


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One Chromium for the whole session (Debian's, see helpers_web.CHROMIUM): the sync API allows one
    playwright per thread, so every browser test shares it."""
    from playwright.sync_api import sync_playwright

    from helpers_web import CHROMIUM

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()
