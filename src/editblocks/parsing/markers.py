"""Recognising marker lines: one whole line in, one `Marker` (or None) out.

A marker is a run of one marker character (`<`, `=`, `>`, `-`, `+`, `«`, `═`,
`»`) optionally followed by a keyword. Only whole lines count: a line that
merely contains a marker string is content. Keyword markers tolerate the
slips models make (no space, lowercase, a stray `>` or `<`, 3–4 or 10+
characters) and say so in `irregular`, so the parser can warn instead of
silently ignoring the block; bare runs (`=======`, `-------`, `>>>>>>>`) need
exactly 5 to 9 characters because such lines are common in ordinary text.
The one exception is a run of 10 or more `=` (Cline writes `==========`): it
is a `LONG_SEPARATOR`, never structure by itself; the parser cuts a block at
one only when the block has no other separator.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache
from typing import Final

from editblocks.record import Record

MIN_RUN = 5
MAX_RUN = 9
MIN_KEYWORD_RUN = 3
STANDARD_RUN = 7


class MarkerKind(StrEnum):
    SEARCH_START = "search start"
    NEW_FILE_START = "new-file start"
    ANCHORED_START = "anchored start"
    GUILLEMET_START = "guillemet start"
    SEPARATOR = "separator"
    LONG_SEPARATOR = "long separator"  # 10+ `=`: a separator only where a block has no other
    DASH = "dash"
    GUILLEMET_SEPARATOR = "guillemet separator"
    REPLACE_END = "replace end"
    NEW_FILE_END = "new-file end"
    BARE_END = "bare end"
    GUILLEMET_END = "guillemet end"
    OLD_TEXT_START = "old_text start"  # Zed's edits: `<old_text>` … `</old_text>` `<new_text>` … `</new_text>`
    OLD_TEXT_END = "old_text end"
    NEW_TEXT_START = "new_text start"
    NEW_TEXT_END = "new_text end"


STARTS = frozenset(
    {MarkerKind.SEARCH_START, MarkerKind.NEW_FILE_START, MarkerKind.ANCHORED_START, MarkerKind.GUILLEMET_START,
     MarkerKind.OLD_TEXT_START}
)
GUILLEMET_KINDS = frozenset({MarkerKind.GUILLEMET_START, MarkerKind.GUILLEMET_SEPARATOR, MarkerKind.GUILLEMET_END})
TAG_KINDS = frozenset(
    {MarkerKind.OLD_TEXT_START, MarkerKind.OLD_TEXT_END, MarkerKind.NEW_TEXT_START, MarkerKind.NEW_TEXT_END}
)

# The first character of every line that could be a marker or a fence; the
# parser's hot loop tests only this before doing any real work on a line.
SPECIAL_FIRST_CHARS = frozenset("<=>-+«═»`~")
# Inside a block, lines starting with these may also be Roo Code's dialect (`\=======`, `:start_line:5`).
DIALECT_FIRST_CHARS = frozenset("\\:")
# Every marker, fence and near-miss report needs a run of three of these (`classify`, `near_marker`, fences);
# `<` alone may also start an XML fence or a reasoning tag. A line that starts with a markdown quote (`> `) or
# bullet (`- `, `+ `) is therefore plain text, and the parser reads it in bulk.
_RUN_CHARS = "".join(sorted(SPECIAL_FIRST_CHARS - {"<"}))
_MARKER_RUN_CHARS = "".join(sorted(SPECIAL_FIRST_CHARS - set("`~")))


def _run_of_three(characters: str) -> str:
    return "([" + re.escape(characters) + "])\\1\\1"


@lru_cache(maxsize=8)
def candidate_lines(loose: str = "") -> re.Pattern[str]:
    """Outside blocks, the start of a line that could be a marker, a fence or a reasoning tag: after a newline
    and any indentation that begins with a space or tab, three equal marker or fence characters, or `<`, or one
    of the ``loose`` characters (a configured fence's first characters, any line starting with them).

    The indentation is taken possessively, so no line is ever scanned twice; a look-ahead at the first character
    rejects an ordinary line in one test.
    """
    firsts = re.escape(_RUN_CHARS + loose)
    return re.compile("\n(?=[ \t<" + firsts + "])(?:[ \t][^\\S\n]*+)?(?:" + _run_of_three(_RUN_CHARS)
                      + "|[<" + re.escape(loose) + "])")


@lru_cache(maxsize=32)
def block_candidate_lines(indent_width: int) -> re.Pattern[str]:
    """Inside a block, the start of a line that could be a marker (three equal marker characters) or Roo's
    dialect (a backslash or colon), after at most the block's own indentation.

    Deeper lines are content (a markdown file's indented `=======`); shallower
    ones still count, so a block whose start marker alone was indented cannot
    swallow the rest of the response.
    """
    indent = f"[ \t]{{0,{indent_width}}}" if indent_width else ""
    dialect = "[" + re.escape("".join(sorted(DIALECT_FIRST_CHARS))) + "]"
    return re.compile("\n" + indent + "(?:" + _run_of_three(_MARKER_RUN_CHARS) + "|" + dialect + ")")

@lru_cache(maxsize=32)
def tag_candidate_lines(indent_width: int) -> re.Pattern[str]:
    """Inside a Zed edit, the start of a line that could be one of its tags, after at most the edit's own
    indentation: its text is otherwise free (marker lines included)."""
    indent = f"[ \t]{{0,{indent_width}}}" if indent_width else ""
    return re.compile("\n" + indent + "</?(?:old|new)_text\\b")


_KEYWORDS: dict[str, dict[str, MarkerKind]] = {
    "<": {
        "SEARCH": MarkerKind.SEARCH_START,
        "ORIGINAL": MarkerKind.SEARCH_START,
        "NEW_FILE": MarkerKind.NEW_FILE_START,
        "NEW FILE": MarkerKind.NEW_FILE_START,
        "EDIT": MarkerKind.ANCHORED_START,
    },
    ">": {
        "REPLACE": MarkerKind.REPLACE_END,
        "UPDATED": MarkerKind.REPLACE_END,
        "updated": MarkerKind.REPLACE_END,  # aider's first blocks: `<<<<<<< HEAD` … `>>>>>>> updated`
        "NEW_FILE": MarkerKind.NEW_FILE_END,
        "NEW FILE": MarkerKind.NEW_FILE_END,
        "EDIT": MarkerKind.BARE_END,
        "END": MarkerKind.BARE_END,
    },
    "-": {"SEARCH": MarkerKind.SEARCH_START},
    "+": {"REPLACE": MarkerKind.REPLACE_END},
    "«": {"EDIT": MarkerKind.GUILLEMET_START},
    "═": {"REPL": MarkerKind.GUILLEMET_SEPARATOR},
    "»": {"EDIT END": MarkerKind.GUILLEMET_END, "END": MarkerKind.GUILLEMET_END},
}
_BARE: dict[str, MarkerKind] = {"=": MarkerKind.SEPARATOR, "-": MarkerKind.DASH, ">": MarkerKind.BARE_END}
_GUILLEMET_CHARS = frozenset("«═»")
_NEAR_MISS_WORDS = ("SEARCH", "REPLACE", "ORIGINAL", "UPDATED", "NEW_FILE", "EDIT")


class Marker(Record):
    __slots__ = ("kind", "length", "irregular")
    kind: Final[MarkerKind]
    length: Final[int]
    irregular: Final[str]

    def __init__(self, kind: MarkerKind, length: int, irregular: str = "") -> None:
        self.kind = kind
        self.length = length
        self.irregular = irregular


CACHED_LINE_CHARS = 80


def classify(line: str, short_run: int = 0) -> Marker | None:
    """The marker this whole line is, or None if it is content.

    `short_run` is the length of a block opened with a 3- or 4-character
    marker: inside it, bare runs of that same length count as markers too.
    Marker lines are short and repeat verbatim across a response, so short
    lines' answers are cached (long ones are not, so no big line stays alive).
    """
    if len(line) > CACHED_LINE_CHARS:
        return _classify(line, short_run)
    return _classify_cached(line, short_run)


@lru_cache(maxsize=4096)
def _classify_cached(line: str, short_run: int) -> Marker | None:
    return _classify(line, short_run)


classify_short = _classify_cached
"""`classify` for a line of at most `CACHED_LINE_CHARS` characters, without the length test: the parser's hot
loop tests the length itself and saves a call per marker line."""


def _classify(line: str, short_run: int) -> Marker | None:
    text = line.strip()
    if not text:
        return None
    char = text[0]
    keywords = _KEYWORDS.get(char)
    if keywords is None and char not in _BARE:
        return None
    run = len(text) - len(text.lstrip(char))
    rest = text[run:]
    if not rest.strip():
        bare = _BARE.get(char)
        if bare is MarkerKind.SEPARATOR and run > MAX_RUN:
            return Marker(MarkerKind.LONG_SEPARATOR, run, f"{run} `=` characters instead of {MIN_RUN} to {MAX_RUN}")
        if bare is None or not (MIN_RUN <= run <= MAX_RUN or run == short_run):
            return None
        return Marker(bare, run)
    if keywords is None:
        return None
    keyword = rest.strip()
    if char == "<" and _LINE_HINT.fullmatch(keyword):  # Zed's `<<<<<<< SEARCH line=42`
        return Marker(MarkerKind.SEARCH_START, run) if MIN_RUN <= run <= MAX_RUN and rest[0] == " " else None
    stray_lt = keyword.endswith("<")
    word = (keyword[:-1] if stray_lt else keyword).rstrip(">").strip()
    kind = keywords.get(word) or keywords.get(word.upper())
    if kind is None or run < MIN_KEYWORD_RUN:
        return None
    if (rest[0] == " " and kind is keywords.get(word) and not stray_lt
            and (MIN_RUN <= run <= MAX_RUN or char in _GUILLEMET_CHARS)):
        return Marker(kind, run)
    return Marker(kind, run, _irregularity(char, run, rest, word, stray_lt))


def _irregularity(char: str, run: int, rest: str, word: str, stray_lt: bool) -> str:
    notes = []
    if not rest.startswith(" "):
        notes.append("no space after the marker characters")
    if word != word.upper():
        notes.append("keyword not in capitals")
    if char not in _GUILLEMET_CHARS and not MIN_RUN <= run <= MAX_RUN:
        notes.append(f"{run} marker characters instead of {MIN_RUN} to {MAX_RUN}")
    if stray_lt:
        notes.append("a stray `<` after the keyword")
    return "; ".join(notes)


_LINE_HINT = re.compile(r'SEARCH\s+line="?(\d{1,9})"?')
_TAG = re.compile(r'<(/?)(old_text|new_text)(?:\s+line="?(\d{1,9})"?)?\s*>')
_TAG_KINDS = {("", "old_text"): MarkerKind.OLD_TEXT_START, ("/", "old_text"): MarkerKind.OLD_TEXT_END,
              ("", "new_text"): MarkerKind.NEW_TEXT_START, ("/", "new_text"): MarkerKind.NEW_TEXT_END}
_CONFLICT_START = re.compile(r"<{5,9} HEAD")


def line_hint_of(line: str) -> int | None:
    """The line number a start marker names (`<<<<<<< SEARCH line=42`, `<old_text line=42>`), if any."""
    found = _LINE_HINT.search(line) or _TAG.search(line)
    number = found.group(found.lastindex or 0) if found is not None else None
    return int(number) if number is not None and number.isdigit() else None


def classify_tag(line: str) -> Marker | None:
    """The Zed edit tag this whole line is (`<old_text>`, `<old_text line=12>`, `</old_text>`, `<new_text>`,
    `</new_text>`), or None."""
    found = _TAG.fullmatch(line.strip())
    return Marker(_TAG_KINDS[found.group(1), found.group(2)], 1) if found is not None else None


def is_conflict_start(line: str) -> bool:
    """`<<<<<<< HEAD`, the start marker of aider's first edit blocks and of a git conflict alike."""
    return _CONFLICT_START.fullmatch(line.strip()) is not None


_START_WORDS = ("SEARCH", "ORIGINAL", "NEW_FILE", "EDIT", "HEAD")


def cut_start_marker(line: str) -> bool:
    """Whether the last, unterminated line of an answer is a start marker cut off before its end (`<<<<<<< SEA`,
    `<<<<<<<`, `<old_te`): the model stopped where a block began."""
    text = line.strip()
    if text.startswith("<o"):
        return "<old_text".startswith(text)
    char = text[:1]
    if char not in ("<", "-"):
        return False
    run = len(text) - len(text.lstrip(char))
    rest = text[run:]
    if not MIN_RUN <= run <= MAX_RUN:
        return False
    if not rest:
        return char == "<"
    return rest[0] == " " and any(word.startswith(rest[1:]) for word in _START_WORDS) and classify(text) is None


def near_marker(line: str) -> str | None:
    """Describe a line that looks like a start marker but is not one, so it is reported, not ignored."""
    text = line.strip()
    if len(text) < 4 or text[0] not in "<«-" or classify(line) is not None:
        return None
    run = len(text) - len(text.lstrip(text[0]))
    if run < MIN_KEYWORD_RUN:
        return None
    upper = text[run:].strip().upper()
    for word in _NEAR_MISS_WORDS:
        if upper.startswith(word):
            return f"`{text[:60]}` looks like a block marker but is not one (markers are whole lines)"
    return None
