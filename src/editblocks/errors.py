"""The exceptions editblocks raises: for misuse, an unusable workspace, or a door's own input and endpoint.

Everything a model can get wrong comes back as a value (a status, a stable
code and a reason), never as an exception. What is left::

    EditblocksError
    ├── WorkspaceError          the root or its journal cannot be used (not a folder, a linked `.editblocks`, ...)
    │   └── WorkspaceBusy       another process holds the workspace lock for longer than the wait
    ├── ArgumentError           a tool call's input misses an argument or has one of the wrong type (a ValueError;
    │                           the tool handler turns it into an error reply for the model)
    ├── GitError                a git command failed; the message is git's own
    │   └── NoWorkTree          git is not installed, or the root is in no work tree: nothing to stage
    ├── KnownFilesError         the list of known files (`--known-files`) cannot be read
    ├── AskInputError           a file given to `ask` cannot be sent (binary, too large, outside the root)
    ├── EndpointError           the model's endpoint gave no answer (``code`` names the kind)
    ├── StreamDropped           the model's answer began, then broke off
    ├── CaseError               an evaluation case cannot be run as written (a ValueError; its verdict is `error`)
    └── ReplayError             a recorded answer and its commit cannot become an evaluation case

Exceptions a module raises and catches itself (a malformed request to the
review page, a bad MCP token, an unreadable case file) stay in that module.
"""

from __future__ import annotations


class EditblocksError(Exception):
    """Every exception editblocks raises on purpose."""


class WorkspaceError(EditblocksError):
    """The workspace cannot be used at all: the root is not a folder, or its lock cannot be created."""


class WorkspaceBusy(WorkspaceError):
    """Another process holds the workspace lock; the CLI reports this and exits."""


class ArgumentError(EditblocksError, ValueError):
    """A tool call's input is missing an argument or has one of the wrong type; the message is for the model.
    ``argument`` names the argument at fault, when there is one, so the reply can say what to send instead."""

    def __init__(self, message: str, *, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument


class GitError(EditblocksError):
    """A git command failed; the message is git's own."""


class NoWorkTree(GitError):
    """git is not installed, or the root is not inside a git work tree: there is nothing to stage."""


class KnownFilesError(EditblocksError):
    """The list of known files could not be read; the message says why, in one line."""


class AskInputError(EditblocksError):
    """A file given to `ask` cannot be sent (binary, too large, outside the root): one line, nothing sent."""


class EndpointError(EditblocksError):
    """The endpoint could not give an answer: ``code`` names the kind, the message is one line for a person."""

    def __init__(self, code: str, message: str, *, retryable: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.retryable = retryable
        self.retry_after = retry_after


class StreamDropped(EditblocksError):
    """The answer had started and then broke off (connection lost, read timeout, no end of answer)."""


class CaseError(EditblocksError, ValueError):
    """A case folder that cannot be run as written (missing response, bad case.json)."""


class ReplayError(EditblocksError):
    """The commit cannot become a case (not a commit, a submodule change, an occupied output folder...)."""
