"""The exceptions editblocks raises: only for misuse of the API or a workspace that cannot be used.

Everything a model can get wrong comes back as a value (a status, a stable
code and a reason), never as an exception. What is left::

    EditblocksError
    ├── WorkspaceError          the root or its journal cannot be used (not a folder, a linked `.editblocks`, ...)
    │   └── WorkspaceBusy       another process holds the workspace lock for longer than the wait
    └── ArgumentError           a tool call's input misses an argument or has one of the wrong type
                                (also a ValueError; the door turns it into an error reply for the model)
"""

from __future__ import annotations


class EditblocksError(Exception):
    """Every exception editblocks raises on purpose."""


class WorkspaceError(EditblocksError):
    """The workspace cannot be used at all: the root is not a folder, or its lock cannot be created."""


class WorkspaceBusy(WorkspaceError):
    """Another process holds the workspace lock; the CLI reports this and exits."""


class ArgumentError(EditblocksError, ValueError):
    """A tool call's input is missing an argument or has one of the wrong type; the message is for the model."""
