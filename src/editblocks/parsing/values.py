"""The parse result, built without its dataclass constructor.

A frozen dataclass's generated `__init__` sets each field through
`object.__setattr__`, a good part of the cost of parsing a short answer. This
builder fills the instance dictionary directly: the result is the same class,
compares, hashes and prints the same, and stays frozen to its callers.
tests/test_parse_values.py checks it against the dataclass, field by field.

Only the one result per parse is built this way. An instance whose dictionary is
filled directly takes about twice the memory of one built by its constructor
(which keeps the values inline), so blocks, diagnostics and events, of which an
answer may hold a million, keep their constructors.
"""

from __future__ import annotations

from editblocks.model import Diagnostic, EditBlock, ParseResult, ShellSuggestion

_new = object.__new__


def parse_result(format: str, blocks: tuple[EditBlock, ...], shell: tuple[ShellSuggestion, ...],
                 diagnostics: tuple[Diagnostic, ...]) -> ParseResult:
    result: ParseResult = _new(ParseResult)
    result.__dict__.update(format=format, blocks=blocks, shell=shell, diagnostics=diagnostics)
    return result
