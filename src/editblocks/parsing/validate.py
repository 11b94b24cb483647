"""Checking a response before any file is touched.

The parser already reports each malformed block where it happens; this adds
the response-wide view: do the start and end markers balance, and is there
anything to apply at all.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from editblocks.model import FRONT_END_FORMATS, Diagnostic, Format, HasDiagnostics, ParseResult, Severity
from editblocks.parsing.markers import MarkerKind
from editblocks.parsing.stream import DEFAULT_FENCE, parse, parsed_whole


@dataclass(frozen=True)
class Validation(HasDiagnostics):
    diagnostics: tuple[Diagnostic, ...]
    result: ParseResult

    @property
    def ok(self) -> bool:
        return not self.errors


_BALANCE_WORDS = {
    MarkerKind.SEARCH_START: ("SEARCH", "REPLACE"),
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
    chosen = Format(format)
    if chosen in FRONT_END_FORMATS:
        result = parse(text, chosen, fence, known_files)
        found = list(result.diagnostics)
    else:
        parser = parsed_whole(text, chosen, fence, known_files)
        result = parser.result()
        if chosen is Format.AUTO and not result.blocks:
            from editblocks.frontends.detect import auto_patch

            result = auto_patch(text, result) or result
        found = list(result.diagnostics)
        first_line = min((d.line for d in result.errors), default=1)
        for kind, (start_word, end_word) in _BALANCE_WORDS.items():
            starts, ends = parser.starts_seen[kind], parser.ends_seen[kind]
            if starts != ends:
                message = f"Mismatched {start_word}/{end_word}: {starts} {start_word} vs {ends} {end_word}"
                found.append(Diagnostic(Severity.ERROR, first_line, message))
    if not result.blocks:
        found.append(Diagnostic(Severity.ERROR, 1, "no edit blocks found"))
    found.sort(key=lambda d: d.line)
    return Validation(tuple(found), result)
