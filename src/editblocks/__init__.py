r"""editblocks: turn a language model's edit blocks into safe, verified edits of real files.

Parse the model's answer, apply its blocks to the files under a root folder, and undo the run:

>>> import pathlib, tempfile
>>> import editblocks
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "app.py").write_text("PORT = 8000\n")
>>> answer = "app.py\n<<<<<<< SEARCH\nPORT = 8000\n=======\nPORT = 8080\n>>>>>>> REPLACE\n"
>>> result = editblocks.apply(editblocks.parse(answer), root)
>>> [(edit.path, edit.status.value, edit.start_line) for edit in result.results]
[('app.py', 'applied', 1)]
>>> (root / "app.py").read_text()
'PORT = 8080\n'
>>> editblocks.undo(root).restored
('app.py',)

A block that cannot be applied comes back as a status with a reason written for the model, never as an
exception, and `feedback_message(result)` is the reply to send it. Only a workspace that cannot be used
raises (`WorkspaceBusy`, `WorkspaceError`). `StreamParser` parses an answer as it streams in; the
`editblocks.tools` module gives agents the same engine as tool calls. The Python API guide, with more
examples, is docs/python-api.md in the source repository.

Importing the package stays cheap: the data model and the parser load at
once (they are small and pure), everything else on first use (PEP 562), so
`import editblocks; editblocks.parse(text)` loads no terminal, fuzzy-matching,
process or locking library.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from editblocks.model import (
    ApplyResult,
    BlockCompleted,
    BlockKind,
    BlockProgress,
    BlockStarted,
    Diagnostic,
    DiagnosticEvent,
    EditBlock,
    EditResult,
    Event,
    FileDiff,
    Format,
    ParseResult,
    Policy,
    Reading,
    ResultCode,
    Severity,
    ShellSuggested,
    ShellSuggestion,
    Status,
    TextEvent,
)
from editblocks.parsing.stream import StreamParser, parse

if TYPE_CHECKING:
    from editblocks import tools
    from editblocks.parsing.render import render
    from editblocks.parsing.validate import Validation, validate
    from editblocks.prompts import example_messages, reminder, system_prompt
    from editblocks.report.feedback import feedback_message, reply_format
    from editblocks.report.git_patch import git_patch
    from editblocks.service.apply import apply
    from editblocks.service.options import ApplyOptions
    from editblocks.service.session import EditSession
    from editblocks.service.undo import undo
    from editblocks.workspace import UndoOutcome, Workspace, WorkspaceBusy, WorkspaceError
    from editblocks.workspace.memory import MemoryStore

_LAZY = {
    "ApplyOptions": "editblocks.service.options",
    "EditSession": "editblocks.service.session",
    "MemoryStore": "editblocks.workspace.memory",
    "UndoOutcome": "editblocks.workspace",
    "Validation": "editblocks.parsing.validate",
    "Workspace": "editblocks.workspace",
    "WorkspaceBusy": "editblocks.workspace",
    "WorkspaceError": "editblocks.workspace",
    "apply": "editblocks.service.apply",
    "example_messages": "editblocks.prompts",
    "feedback_message": "editblocks.report.feedback",
    "git_patch": "editblocks.report.git_patch",
    "reminder": "editblocks.prompts",
    "render": "editblocks.parsing.render",
    "reply_format": "editblocks.report.feedback",
    "system_prompt": "editblocks.prompts",
    "tools": "editblocks.tools",  # a module: tool definitions and ToolHandler
    "undo": "editblocks.service.undo",
    "validate": "editblocks.parsing.validate",
}


def __getattr__(name: str) -> Any:
    """Load a public name's module on first use, then keep the name here so later lookups are plain."""
    if name == "Reason":  # the old name of ResultCode, kept (with a warning) for one minor version
        return getattr(import_module("editblocks.model"), name)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'editblocks' has no attribute {name!r}")
    loaded = import_module(module)
    value = loaded if module == f"{__name__}.{name}" else getattr(loaded, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ApplyOptions",
    "ApplyResult",
    "BlockCompleted",
    "BlockKind",
    "BlockProgress",
    "BlockStarted",
    "Diagnostic",
    "DiagnosticEvent",
    "EditBlock",
    "EditResult",
    "EditSession",
    "Event",
    "FileDiff",
    "Format",
    "MemoryStore",
    "ParseResult",
    "Policy",
    "Reading",
    "Reason",
    "ResultCode",
    "Severity",
    "ShellSuggested",
    "ShellSuggestion",
    "Status",
    "StreamParser",
    "TextEvent",
    "UndoOutcome",
    "Validation",
    "Workspace",
    "WorkspaceBusy",
    "WorkspaceError",
    "apply",
    "example_messages",
    "feedback_message",
    "git_patch",
    "parse",
    "reminder",
    "render",
    "reply_format",
    "system_prompt",
    "tools",
    "undo",
    "validate",
]
