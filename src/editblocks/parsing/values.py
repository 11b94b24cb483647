"""The parser's results and events, built without their dataclass constructor.

A frozen dataclass's generated `__init__` sets each field through
`object.__setattr__`, which makes a block cost twice what it needs to and is a
good part of a short answer's parse. These builders fill the same instance
dictionary directly: the values are the same classes, compare, hash and print
the same, and stay frozen to their callers (assigning a field still raises).
tests/test_parse_values.py checks each against its dataclass, field by field,
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
    Severity,
    ShellSuggestion,
    TextEvent,
)

_new = object.__new__


def edit_block(path: str, leading: str, old: str, new: str, trailing: str, kind: BlockKind, format: Format,
               line: int, readings: tuple[Reading, ...], literal: tuple[str, str] | None,
               line_hint: int | None) -> EditBlock:
    block: EditBlock = _new(EditBlock)
    block.__dict__.update(path=path, leading=leading, old=old, new=new, trailing=trailing, kind=kind, format=format,
                          line=line, readings=readings, literal=literal, line_hint=line_hint)
    return block


def parse_result(format: str, blocks: tuple[EditBlock, ...], shell: tuple[ShellSuggestion, ...],
                 diagnostics: tuple[Diagnostic, ...]) -> ParseResult:
    result: ParseResult = _new(ParseResult)
    result.__dict__.update(format=format, blocks=blocks, shell=shell, diagnostics=diagnostics)
    return result


def diagnostic(severity: Severity, line: int, message: str) -> Diagnostic:
    made: Diagnostic = _new(Diagnostic)
    made.__dict__.update(severity=severity, line=line, message=message)
    return made


def shell_suggestion(command: str, line: int) -> ShellSuggestion:
    suggestion: ShellSuggestion = _new(ShellSuggestion)
    suggestion.__dict__.update(command=command, line=line)
    return suggestion


def text_event(text: str, line: int) -> TextEvent:
    event: TextEvent = _new(TextEvent)
    event.__dict__.update(text=text, line=line)
    return event


def block_progress(line: int, section: str, added: str) -> BlockProgress:
    event: BlockProgress = _new(BlockProgress)
    event.__dict__.update(line=line, section=section, added=added)
    return event
