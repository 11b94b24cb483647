"""Changed lines keep the file's typography: curly quotes and no-break spaces the model typed as ASCII.

When the typography rung matched, the model quoted a line such as
`print(“Hello”)` as `print("Hello")`. Its new version of that line,
`print("Hello, world")`, copies most characters from what it quoted; each
copied character is written as the file has it, so the edit changes the words
and nothing else. Characters the model added are written as it typed them.
"""

from __future__ import annotations

from collections.abc import Sequence

from editblocks.locate.normalize import INDENT_CHARS, TYPOGRAPHIC_EQUIVALENTS, fold_typography

MIN_PAIRING_SIMILARITY = 70.0
"""How alike (0-100) a changed line and a quoted line must be for the one to be the other's new version."""


def with_file_typography(line: str, searched: Sequence[str], actual: Sequence[str]) -> str:
    """``line``, a changed line of the new text, with the file's typographic characters where it copies them.

    ``searched`` are the quoted lines it may be a new version of, ``actual`` the file's lines they matched (in
    the same order); the most similar one is its source, when one is similar enough.
    """
    if not any(not text.isascii() for text in actual):
        return line
    from rapidfuzz import fuzz  # loaded only for a file with typographic characters: it costs start-up

    body = line.lstrip(INDENT_CHARS)
    best, best_score = None, MIN_PAIRING_SIMILARITY
    for quoted, there in zip(searched, actual):
        if there.isascii():
            continue
        score = fuzz.ratio(fold_typography(quoted.lstrip(INDENT_CHARS)), body)
        if score >= best_score:
            best, best_score = there, score
    if best is None:
        return line
    return line[: len(line) - len(body)] + _copied_as_in_file(body, best.lstrip(INDENT_CHARS))


def _copied_as_in_file(body: str, actual: str) -> str:
    """``body`` with each character it shares (in an aligned run) with ``actual``, folded, written as ``actual`` has
    it. Only one-for-one substitutions count (an ellipsis stands for three characters, and is left as typed)."""
    from rapidfuzz.distance import Indel

    folded = fold_typography(actual)
    if len(folded) != len(actual):
        return body
    characters = list(body)
    for opcode in Indel.opcodes(folded, body):
        if opcode.tag != "equal":
            continue
        for offset in range(opcode.src_end - opcode.src_start):
            original = actual[opcode.src_start + offset]
            if original in TYPOGRAPHIC_EQUIVALENTS:
                characters[opcode.dest_start + offset] = original
    return "".join(characters)
