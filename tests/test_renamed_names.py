"""Names renamed so that one name means one idea still work for one minor version, with a deprecation warning."""

from __future__ import annotations

import importlib
import sys

import pytest


@pytest.mark.parametrize(("module", "old", "new"), [
    ("editblocks", "Reason", "ResultCode"),
    ("editblocks.model", "Reason", "ResultCode"),
    ("editblocks.plan", "Source", "TargetFile"),
    ("editblocks.web", "ReviewSession", "ReviewState"),
    ("editblocks.web.review", "ReviewSession", "ReviewState"),
])
def test_an_old_name_warns_and_gives_the_new_one(module: str, old: str, new: str) -> None:
    loaded = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=new):
        value = getattr(loaded, old)
    assert value is getattr(loaded, new) or value is getattr(importlib.import_module("editblocks.model"), new, value)


@pytest.mark.parametrize(("module", "names"), [
    ("editblocks.ask.live", ("BlockLocated", "BlockWithdrawn", "LiveAnswer", "LiveEvent")),
    ("editblocks.ask.locator", ("LiveLocator", "Located")),
])
def test_an_old_module_warns_and_holds_the_names_that_moved(module: str, names: tuple[str, ...]) -> None:
    sys.modules.pop(module, None)
    with pytest.warns(DeprecationWarning, match="editblocks.service.live"):
        loaded = importlib.import_module(module)
    service = importlib.import_module("editblocks.service.live")
    assert all(getattr(loaded, name) is getattr(service, name) for name in names)
