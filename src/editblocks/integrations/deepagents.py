"""deepagents: a filesystem backend whose `edit` (and `aedit`) go through editblocks.

`EditblocksBackend(root_dir)` is deepagents' own `FilesystemBackend` in
virtual mode (paths such as `/src/app.py` are inside ``root_dir``), with the
agent's `edit_file` tool made safe: the old text is matched as text and must
be unique (or `replace_all`), text not found as written goes through the
tolerant ladder, CRLF, mixed endings and a byte-order mark are kept, every
write is atomic and journaled (`backend.handler.call("undo")` takes it
back), and a failure comes back as the `EditResult` error the model reads,
with the closest real lines.
"""

from __future__ import annotations

import os

from editblocks.integrations import missing_extra
from editblocks.service.options import ApplyOptions
from editblocks.tools import ToolHandler
from editblocks.tools.definitions import EDIT

try:
    from deepagents.backends import FilesystemBackend
    from deepagents.backends.protocol import EditResult
except ImportError as error:  # pragma: no cover - the extra is installed wherever the tests run
    raise ImportError(missing_extra("deepagents", "deepagents")) from error


class EditblocksBackend(FilesystemBackend):
    """deepagents' filesystem backend rooted at ``root_dir``, editing through editblocks with ``options`` (as for
    `apply`)."""

    def __init__(self, root_dir: str | os.PathLike[str], *, options: ApplyOptions | None = None,
                 max_file_size_mb: int = 10) -> None:
        super().__init__(root_dir=os.fspath(root_dir), virtual_mode=True, max_file_size_mb=max_file_size_mb)
        self.handler = ToolHandler(self.cwd, options=options)

    def edit(self, file_path: str, old_string: str, new_string: str,
             replace_all: bool = False) -> EditResult:  # noqa: FBT001, FBT002 - deepagents' own signature
        if not isinstance(file_path, str) or not file_path.strip("/ "):
            return EditResult(error="Error: the file path is empty; name the file to edit, such as /src/app.py")
        reply = self.handler.call(EDIT, {"file_path": file_path.lstrip("/"), "old_string": old_string,
                                         "new_string": new_string, "replace_all": replace_all})
        if not reply.ok:
            return EditResult(error=reply.text)
        return EditResult(path=file_path, occurrences=reply.replacements or 1)
