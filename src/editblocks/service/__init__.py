"""The one engine behind every door: reading, planning, committing, undoing and the feedback, for any caller.

`ApplyOptions` is the one option set; `EditSession` runs answers, tool calls
and undo on a `FileStore` (the disk's `Workspace`, or a `MemoryStore`);
`LiveAnswer` gives each block's verdict the moment it ends.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from editblocks.service.live import LiveAnswer, LiveLocator
    from editblocks.service.options import ApplyOptions
    from editblocks.service.session import EditSession

_HOMES = {"ApplyOptions": "options", "EditSession": "session", "LiveAnswer": "live", "LiveLocator": "live"}


def __getattr__(name: str) -> Any:
    """Load a name's module on first use: a door that only plans does not load the live locator."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'editblocks.service' has no attribute {name!r}")
    return getattr(import_module(f"editblocks.service.{home}"), name)


__all__ = ["ApplyOptions", "EditSession", "LiveAnswer", "LiveLocator"]
