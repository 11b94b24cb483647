"""The one engine behind every door: reading, planning, committing, undoing and the feedback, for any caller.

`ApplyOptions` is the one option set; `EditSession` runs answers, tool calls
and undo on a `FileStore` (the disk's `Workspace`, or a `MemoryStore`);
`LiveAnswer` gives each block's verdict the moment it ends.
"""

from editblocks.service.live import LiveAnswer, LiveLocator
from editblocks.service.options import ApplyOptions
from editblocks.service.session import EditSession

__all__ = ["ApplyOptions", "EditSession", "LiveAnswer", "LiveLocator"]
