"""Checking a response before any file is touched.

The parser already reports each malformed block where it happens; this adds
the response-wide view: do the start and end markers balance, and is there
anything to apply at all.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from editblocks.model import Diagnostic, Format, HasDiagnostics, ParseResult, Severity
from editblocks.parsing.catalog import no_blocks_message
from editblocks.parsing.markers import MarkerKind
from editblocks.parsing.stream import DEFAULT_FENCE, parsed_whole


@dataclass(frozen=True)
class Validation(HasDiagnostics):
    diagnostics: tuple[Diagnostic, ...]
    result: ParseResult

    @property
    def ok(self) -> bool:
        return not self.errors


_BALANCE_WORDS = {
    MarkerKind.SEARCH_START: ("SEARCH", "REPLACE"),
    MarkerKind.OLD_TEXT_START: ("<old_text>", "</new_text>"),
    MarkerKind.NEW_FILE_START: ("NEW_FILE start", "NEW_FILE end"),
    MarkerKind.ANCHORED_START: ("EDIT", "end"),
    MarkerKind.GUILLEMET_START: ("EDIT", "EDIT END"),
}


def validate(
    text: str,
    format: Format | str = Format.AUTO,
    fence: tuple[str, str] = DEFAULT_FENCE,
    known_files: Collection[str] | None = None,
) -> Validation:
    """Errors and warnings, each with a response line number; never raises on any text."""
    parser = parsed_whole(text, format, fence, known_files)
    result = parser.result()
    found: list[Diagnostic] = list(result.diagnostics)
    first_line = min((d.line for d in result.errors), default=1)
    for kind, (start_word, end_word) in _BALANCE_WORDS.items():
        starts, ends = parser.starts_seen[kind], parser.ends_seen[kind]
        if starts != ends:
            message = f"Mismatched {start_word}/{end_word}: {starts} {start_word} vs {ends} {end_word}"
            found.append(Diagnostic(Severity.ERROR, first_line, message))
    if not result.blocks:
        found.append(Diagnostic(Severity.ERROR, 1, no_blocks_message(format)))
    found.sort(key=lambda d: d.line)
    return Validation(tuple(found), result)
