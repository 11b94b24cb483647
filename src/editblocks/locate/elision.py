"""The elision rung: a search that leaves code out (``...``) is matched piece by piece, the pieces in file order.

Apart from the dispatcher so that the ladder stays a short list of rungs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from editblocks.locate.adapt import found_for_match
from editblocks.locate.matching import ambiguous, candidate_limit, matches_on_rung
from editblocks.locate.normalize import is_blank
from editblocks.locate.types import LINE_RUNGS, Ambiguous, Found, LocateOptions, Rung
from editblocks.locate.view import FileView
from editblocks.model import counted

_COMMENT_STARTS = ("#", "//", "/*", "*", "<!--", "--", "{/*")
_ELLIPSES = ("...", "\u2026")
_PLACEHOLDER_STARTS = frozenset("#/*<-{.\u2026([")
"""The first character of every placeholder: an ellipsis, a comment's start or an opening bracket."""


def is_elision_line(line: str) -> bool:
    """Whether ``line`` stands for omitted code: ``...`` alone, or a comment made of an ellipsis and words."""
    text = line.strip()
    if text in _ELLIPSES:
        return True
    return text.startswith(_COMMENT_STARTS) and any(ellipsis in text for ellipsis in _ELLIPSES)


_COMMENT_MARKS = r"^(?:#+|//+|/\*+|\*+|<!--|--|\{/\*)|(?:\*+/|-->|\*/\})$"
_LAZY_WORDING = (
    r"\b(?:existing|remaining|unchanged|rest of (?:the )?(?:file|code|implementation|class|module|function"
    r"|method)s?|(?:same )?as before)\b"
)
_OMITTED_THING = r"\b(?:code|file|implementation|content|contents|methods|functions|unchanged|as before)\b"
_LAZY_MAX_WORDS = 8
"""Longer comments are explanations that happen to use these words, not a stand-in for code."""
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_PROSE = r"[A-Za-z \t.,:;\u2026]+"
"""What a bracketed placeholder holds: words and dots only (`(existing-code x)` is Lisp, not a placeholder)."""


def is_lazy_comment(line: str) -> bool:
    """Whether ``line`` is a short comment standing for code left out in words, without an ellipsis.

    A whole-file answer is taken as the complete file, so `// existing code here` or `# rest of the file
    unchanged` would delete what it names; the marker-less wording is only checked there.
    """
    text = line.strip()
    if not text.startswith(_COMMENT_STARTS):
        return False
    return _says_left_out(re.sub(_COMMENT_MARKS, "", text))


def is_placeholder(line: str) -> bool:
    """Whether ``line`` stands for code left out: an elision line, a short comment saying so, or such words in
    brackets (`(rest of methods ...)`, `[... existing code ...]`)."""
    text = line.strip()
    if not text or text[0] not in _PLACEHOLDER_STARTS:
        return False
    if is_elision_line(line) or is_lazy_comment(line):
        return True
    if len(text) < 3 or _BRACKETS.get(text[0]) != text[-1]:
        return False
    inner = text[1:-1]
    return re.fullmatch(_PROSE, inner) is not None and _says_left_out(inner.replace("\u2026", " ").replace(".", " "))


def _says_left_out(text: str) -> bool:
    """Whether a few words say that code was left out (`existing code`, `rest of the file`, `as before`)."""
    words = text.strip(" ()[]:.,;-").lower()
    if not words or len(words.split()) > _LAZY_MAX_WORDS:
        return False
    lazy = re.search(_LAZY_WORDING, words)
    if lazy is None:
        return False
    rest = words[: lazy.start()] + " " + words[lazy.end() :]
    return re.search(_OMITTED_THING, rest) is not None or lazy.group().startswith("rest of")


def _split_at_elisions(lines: Sequence[str]) -> list[tuple[str, ...]]:
    pieces: list[tuple[str, ...]] = []
    current: list[str] = []
    for line in lines:
        if is_elision_line(line):
            pieces.append(tuple(current))
            current = []
        else:
            current.append(line)
    pieces.append(tuple(current))
    return pieces


def locate_elided(
    view: FileView, search: tuple[str, ...], replace: tuple[str, ...], options: LocateOptions
) -> Found | Ambiguous | str | None:
    """Match a search that elides code piece by piece: each piece unique, the pieces in file order.

    Returns ``None`` when the search has no elision, a hint when it cannot be
    matched, and keeps the file's lines between the pieces as they are.
    """
    search_pieces = _split_at_elisions(search)
    if len(search_pieces) == 1:
        return None
    replace_pieces = _split_at_elisions(replace)
    if len(replace_pieces) != len(search_pieces):
        return (
            f"the search has {counted(len(search_pieces) - 1, 'elision line')} (`...`) "
            f"but the replacement has {len(replace_pieces) - 1}; they must correspond"
        )
    rungs = [rung for rung in LINE_RUNGS if rung in options.rungs]
    located: list[Found] = []
    for number, (search_piece, replace_piece) in enumerate(zip(search_pieces, replace_pieces), start=1):
        if all(is_blank(line) for line in search_piece):
            if not all(is_blank(line) for line in replace_piece):
                return (
                    f"part {number} of the replacement has new lines where the search elides code; "
                    "there is no place to put them"
                )
            continue
        after = located[-1].end if located else options.min_start
        piece = _locate_piece(view, rungs, search_piece, replace_piece, options, after)
        if piece is None:
            return f"part {number} of the search (between elision lines) was not found"
        if isinstance(piece, Ambiguous):
            return Ambiguous(piece.starts, Rung.ELISION, piece.truncated)
        if piece.start < after:
            return "the parts of the search around its elision lines are not in this order in the file"
        located.append(piece)
    if not located:
        return "the search has only elision lines"
    new_lines: list[str] = []
    sources: list[int | None] = []
    for previous, piece in zip([None, *located], located):
        if previous is not None:
            new_lines += view.lines[previous.end : piece.start]
            sources += range(previous.end, piece.start)
        new_lines += piece.new_lines
        sources += piece.sources
    return Found(located[0].start, located[-1].end, tuple(new_lines), tuple(sources), Rung.ELISION)


def _locate_piece(
    view: FileView,
    rungs: Sequence[Rung],
    search: tuple[str, ...],
    replace: tuple[str, ...],
    options: LocateOptions,
    after: int,
) -> Found | Ambiguous | None:
    """One elision piece, on the strictest line rung that finds it; unique in the whole file unless first-match."""
    for rung in rungs:
        min_start = after if options.first_match else options.min_start
        matches = matches_on_rung(view, rung, search, replace, candidate_limit(options), min_start)
        if len(matches) > 1 and not options.first_match:
            return ambiguous([match.start for match in matches], rung, options)
        if matches:
            return found_for_match(view, rung, matches[0])
    return None
