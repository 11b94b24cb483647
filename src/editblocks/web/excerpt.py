"""What a failed block is shown beside: the file's lines most like its old text, or every place it matched.

A block whose old text is not in the file is shown with the file's closest
lines (as the planner found them), a block whose old text is in the file
more than once with each of those places, by line number, so a reviewer
sees at once why it could not be placed. Taken when the verdict is given,
from the file as the blocks before it left it.
"""

from __future__ import annotations

from typing import Any

from editblocks.model import EditResult, ResultCode, Status
from editblocks.text.diff import printable, split_lines
from editblocks.web.highlight import lexer_for, segments

MARGIN = 2  # lines shown around the closest text
CANDIDATES_SHOWN = 8
CANDIDATE_LINES = 3  # lines shown from each place an ambiguous block matched


def excerpt(result: EditResult, text: str | None) -> dict[str, Any] | None:
    """The lines to show beside a failed block (None for a block that did not fail)."""
    if result.status is not Status.FAILED:
        return None
    lexer = lexer_for(result.path)
    search = [segments(_shown(line), lexer) for line in split_lines(result.block.search)]
    lines = split_lines(text.replace("\r\n", "\n")) if text is not None else []
    if result.code is ResultCode.AMBIGUOUS and result.candidates and lines:
        places = []
        for start in result.candidates[:CANDIDATES_SHOWN]:
            shown = range(start, min(len(lines), start + CANDIDATE_LINES - 1) + 1)
            places.append({"line": start, "lines": [[n, segments(_shown(lines[n - 1]), lexer)] for n in shown]})
        return {"kind": "candidates", "search": search, "places": places, "more": max(0, len(result.candidates)
                                                                                    - CANDIDATES_SHOWN)}
    if result.closest is not None and lines:
        first = max(1, result.closest[0] - MARGIN)
        last = min(len(lines), result.closest[1] + MARGIN)
        shown_lines = [[n, segments(_shown(lines[n - 1]), lexer), result.closest[0] <= n <= result.closest[1]]
                       for n in range(first, last + 1)]
        return {"kind": "closest", "search": search, "lines": shown_lines}
    return {"kind": "hint", "search": search, "hint": printable(result.hint or result.reason)}


def _shown(line: str) -> str:
    return printable(line.removesuffix("\n"))
