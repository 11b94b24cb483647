"""How two file trees differ, in a few lines a person reads at a glance: the expected side and the actual side named.

Line ends, tabs, byte-order marks and trailing spaces are made visible,
since they are exactly what an edit most often gets subtly wrong.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from editblocks.model import counted

DIFFERENCE_LINES = 40
"""Tree-difference lines kept per case (the report shows the first of them)."""
_LINES_PER_FILE = 14


def tree_difference(expected: Mapping[str, bytes], actual: Mapping[str, bytes]) -> tuple[str, ...]:
    """What differs between two trees: missing and unexpected files, and a short diff of each changed one, whose
    `-` lines are what `after/` holds (expected) and `+` lines what editblocks left (actual)."""
    lines: list[str] = []
    for path in sorted(set(expected) | set(actual)):
        want, got = expected.get(path), actual.get(path)
        if want == got:
            continue
        if got is None:
            lines.append(f"- {path}: expected, but missing")
        elif want is None:
            lines.append(f"+ {path}: not expected, but written ({len(got)} bytes)")
        else:
            lines.append(f"~ {path}: content differs")
            lines += _file_diff(path, want, got)
        if len(lines) >= DIFFERENCE_LINES:
            break
    return tuple(lines[:DIFFERENCE_LINES])


def _file_diff(path: str, want: bytes, got: bytes) -> list[str]:
    expected = [_visible(line) for line in _lines(want.decode("utf-8", "replace"))]
    actual = [_visible(line) for line in _lines(got.decode("utf-8", "replace"))]
    diff = list(difflib.unified_diff(expected, actual, f"expected (after/{path})", "actual (what editblocks wrote)",
                                     n=1, lineterm=""))
    body = [line for line in diff[2:] if not line.startswith("@@")]
    if len(body) > _LINES_PER_FILE:
        body = body[:_LINES_PER_FILE] + [f"... {counted(len(body) - _LINES_PER_FILE, 'more diff line')}"]
    if not body:
        return ["    (same text; the bytes differ in encoding)"]
    return ["    " + line for line in diff[:2] + body]


def _lines(text: str) -> list[str]:
    """Lines cut at LF only, each with its ending (`str.splitlines` would also cut at form feeds and the like)."""
    pieces = text.split("\n")
    return [piece + "\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])


def _visible(line: str) -> str:
    """One line with its invisible characters shown: CR as `\\r`, tabs, BOM, trailing spaces, a missing newline."""
    newline = line.endswith("\n")
    body = line[:-1] if newline else line
    carriage_return = body.endswith("\r")
    body = body[:-1] if carriage_return else body
    stripped = body.rstrip(" ")
    body = stripped + "·" * (len(body) - len(stripped))
    body = body.replace("\t", "\\t").replace("\ufeff", "\\ufeff").replace("\r", "\\r")
    return body + ("\\r" if carriage_return else "") + ("" if newline else "  (no newline at end)")
