"""The parser's results, blocks, diagnostics and events, built without their dataclass constructors.

A frozen dataclass's generated `__init__` sets each field through
`object.__setattr__`, looked up again for every field; for a block that is a
tenth of its parse, and most of a short answer's result. These builders make
the same calls directly: the values are the same classes, compare, hash and
print the same, take the same memory (the fields stay inline; filling the
instance dictionary instead would double it), and stay frozen to their callers.
tests/unit/parsing/test_parse_values.py checks each against its dataclass, field by field,
so a field added to one of these classes cannot be forgotten here.
"""

from __future__ import annotations

from editblocks.model import (
    BlockKind,
    BlockProgress,
    Diagnostic,
    EditBlock,
    Format,
    ParseResult,
    Reading,
    Scope,
    Severity,
    ShellSuggestion,
    TextEvent,
)

_new = object.__new__
_set = object.__setattr__


def edit_block(path: str, leading: str, old: str, new: str, trailing: str, kind: BlockKind, format: Format,
               line: int, readings: tuple[Reading, ...], literal: tuple[str, str] | None,
               line_hint: int | None, scope: Scope | None = None, move_to: str | None = None,
               mode: int | None = None, marks: str = "") -> EditBlock:
    block: EditBlock = _new(EditBlock)
    _set(block, "path", path)
    _set(block, "leading", leading)
    _set(block, "old", old)
    _set(block, "new", new)
    _set(block, "trailing", trailing)
    _set(block, "kind", kind)
    _set(block, "format", format)
    _set(block, "line", line)
    _set(block, "readings", readings)
    _set(block, "literal", literal)
    _set(block, "line_hint", line_hint)
    _set(block, "scope", scope)  # a patch hunk's place; marker blocks have none
    _set(block, "move_to", move_to)
    _set(block, "mode", mode)
    _set(block, "marks", marks)
    return block


def parse_result(format: str, blocks: tuple[EditBlock, ...], shell: tuple[ShellSuggestion, ...],
                 diagnostics: tuple[Diagnostic, ...]) -> ParseResult:
    result: ParseResult = _new(ParseResult)
    _set(result, "format", format)
    _set(result, "blocks", blocks)
    _set(result, "shell", shell)
    _set(result, "diagnostics", diagnostics)
    return result


def diagnostic(severity: Severity, line: int, message: str) -> Diagnostic:
    made: Diagnostic = _new(Diagnostic)
    _set(made, "severity", severity)
    _set(made, "line", line)
    _set(made, "message", message)
    return made


_stored_message = Diagnostic.__dict__["message"]  # the slot itself, under the subclass's `message` property


class FormattedDiagnostic(Diagnostic):
    """A diagnostic whose message is formatted from a shared template and two numbers when it is read.

    A flood of start markers yields one error per line, each with its own line numbers: stored as text, the
    messages alone took eight times the answer's size. Here the message slot holds the shared template
    (``{0}`` is the diagnostic's line, ``{1}`` the other number), so an instance is a few pointers. To its
    callers it is a `Diagnostic`: equal to, hashed and printed as the one with the formatted message.
    """

    __slots__ = ("_other",)
    _other: int

    def __new__(cls, *fields: object, **named: object) -> Diagnostic:  # type: ignore[misc]
        """Called as its dataclass is (`dataclasses.replace` does), it makes the plain `Diagnostic`."""
        return Diagnostic(*fields, **named)  # type: ignore[arg-type]

    def __reduce__(self) -> tuple[type[Diagnostic], tuple[Severity, int, str]]:
        """Copied or pickled as the plain `Diagnostic` it stands for."""
        return Diagnostic, (self.severity, self.line, self.message)

    @property  # read-only, like the frozen field it stands for
    def message(self) -> str:
        template: str = _stored_message.__get__(self)
        return template.format(self.line, self._other)


def formatted_diagnostic(severity: Severity, line: int, template: str, other: int) -> Diagnostic:
    made: FormattedDiagnostic = _new(FormattedDiagnostic)  # (its own constructor makes the plain class)
    _set(made, "severity", severity)
    _set(made, "line", line)
    _stored_message.__set__(made, template)
    _set(made, "_other", other)
    return made


class NoOpWarning(Diagnostic):
    """The warning for a block whose old and new text are identical: a report that states the block's result
    ("no change") leaves it out, recognised by its code, never by its text."""

    __slots__ = ()

    @property
    def code(self) -> str:
        return "no-op"


def no_op_warning(line: int) -> Diagnostic:
    made: NoOpWarning = _new(NoOpWarning)
    _set(made, "severity", Severity.WARNING)
    _set(made, "line", line)
    _set(made, "message", f"block at line {line} changes nothing (its old and new text are identical)")
    return made


def shell_suggestion(command: str, line: int) -> ShellSuggestion:
    made: ShellSuggestion = _new(ShellSuggestion)
    _set(made, "command", command)
    _set(made, "line", line)
    return made


def text_event(text: str, line: int) -> TextEvent:
    event: TextEvent = _new(TextEvent)
    _set(event, "text", text)
    _set(event, "line", line)
    return event


def block_progress(line: int, section: str, added: str) -> BlockProgress:
    event: BlockProgress = _new(BlockProgress)
    _set(event, "line", line)
    _set(event, "section", section)
    _set(event, "added", added)
    return event
