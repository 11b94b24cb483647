"""editblocks: turn a language model's edit blocks into safe, verified edits of real files.

The public API; everything here is documented in the README.
"""

from editblocks.apply import apply
from editblocks.report.feedback import feedback_message, reply_format
from editblocks.report.git_patch import git_patch
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
    Reading,
    Reason,
    Severity,
    ShellSuggested,
    ShellSuggestion,
    Status,
    TextEvent,
)
from editblocks.plan import Policy
from editblocks.prompts import example_messages, reminder, system_prompt
from editblocks.parsing.render import render
from editblocks.parsing.stream import StreamParser, parse
from editblocks.parsing.validate import Validation, validate

__all__ = [
    "ApplyResult",
    "BlockCompleted",
    "BlockKind",
    "BlockProgress",
    "BlockStarted",
    "Diagnostic",
    "DiagnosticEvent",
    "EditBlock",
    "EditResult",
    "Event",
    "FileDiff",
    "Format",
    "ParseResult",
    "Policy",
    "Reading",
    "Reason",
    "Severity",
    "ShellSuggested",
    "ShellSuggestion",
    "Status",
    "StreamParser",
    "TextEvent",
    "Validation",
    "apply",
    "example_messages",
    "feedback_message",
    "git_patch",
    "parse",
    "reminder",
    "render",
    "reply_format",
    "system_prompt",
    "validate",
]
