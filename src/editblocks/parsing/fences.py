"""Code fences in a response: markdown backtick/tilde fences and the XML-style tags some tools ask for.

Fences are not block boundaries (blocks are found by their markers, with or
without a fence), but they matter for three things: a fence line is never a
file path, a shell-language fence holds suggested commands, and whether the
path sits before or inside the fence tells `diff` from `diff-fenced`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from editblocks.record import Record

XML_FENCE_TAGS = frozenset({"source", "code", "pre", "codeblock", "sourcecode"})
SHELL_LANGUAGES = frozenset(
    {"bash", "sh", "shell", "zsh", "fish", "ksh", "powershell", "pwsh", "ps1", "cmd", "bat", "batch"}
)
# Transcripts mix commands (after a `$ ` prompt) with their output.
TRANSCRIPT_LANGUAGES = frozenset({"console", "shell-session", "shellsession", "terminal"})


class Fence(Record):
    """An open fence: backticks/tildes (`char`, `length`) or an XML tag (`tag`)."""

    __slots__ = ("char", "length", "info", "tag", "closer", "language", "is_shell", "is_transcript", "closing")
    char: Final[str]
    length: Final[int]
    info: Final[str]
    tag: Final[str]
    closer: Final[str]
    language: Final[str]
    is_shell: Final[bool]
    is_transcript: Final[bool]
    closing: Final[str]  # the usual closing line of a markdown fence, stripped ("" for the others)

    def __init__(self, char: str, length: int, info: str, tag: str = "", closer: str = "") -> None:
        self.char = char
        self.length = length
        self.info = info
        self.tag = tag
        self.closer = closer
        first = info.split(maxsplit=1)[0] if info.strip() else ""
        language = first.strip("{}.").lower()
        self.language = language
        self.is_shell = language in SHELL_LANGUAGES or language in TRANSCRIPT_LANGUAGES
        self.is_transcript = language in TRANSCRIPT_LANGUAGES
        self.closing = "" if tag or closer else char * length

    def is_closed_by(self, stripped: str) -> bool:
        if self.closer:
            return stripped == self.closer
        if self.tag:
            return stripped.lower() == f"</{self.tag}>"
        run = len(stripped) - len(stripped.lstrip(self.char))
        return run >= self.length and not stripped[run:].strip()


CACHED_LINE_CHARS = 80


def open_fence(stripped: str, custom: tuple[str, str] | None = None) -> Fence | None:
    """The fence this (already stripped) line opens, if any; `custom` is a configured non-markdown fence pair.

    Fence lines are short and repeat verbatim across a response, so short lines' answers are cached.
    """
    if len(stripped) > CACHED_LINE_CHARS:
        return _open_fence(stripped, custom)
    return _open_fence_cached(stripped, custom)


@lru_cache(maxsize=1024)
def _open_fence_cached(stripped: str, custom: tuple[str, str] | None) -> Fence | None:
    return _open_fence(stripped, custom)


open_fence_short = _open_fence_cached
"""`open_fence` for a line of at most `CACHED_LINE_CHARS` characters, without the length test (most fence lines)."""


def _open_fence(stripped: str, custom: tuple[str, str] | None) -> Fence | None:
    if stripped.startswith(("```", "~~~")):
        char = stripped[0]
        run = len(stripped) - len(stripped.lstrip(char))
        info = stripped[run:].strip()
        if char == "`" and "`" in info:
            return None
        return Fence(char, run, info)
    if custom is not None and custom[0] and stripped.startswith(custom[0]):
        return Fence(custom[0], 1, stripped[len(custom[0]) :].strip(), closer=custom[1].strip())
    if stripped.startswith("<"):
        return _open_xml_fence(stripped)
    return None


def _open_xml_fence(stripped: str) -> Fence | None:
    end = stripped.find(">")
    if end < 0:
        return None
    head = stripped[1:end].split(maxsplit=1)
    if not head or head[0].lower() not in XML_FENCE_TAGS:
        return None
    tag = head[0].lower()
    info = stripped[end + 1 :].strip()
    if f"</{tag}>" in info.lower():
        return None
    if not info and len(head) > 1:
        info = _language_attribute(head[1])
    return Fence("<", 1, info, tag=tag)


def _language_attribute(attributes: str) -> str:
    for part in attributes.split():
        name, _, value = part.partition("=")
        if name.lower() in ("lang", "language") and value:
            return value.strip("\"'")
    return ""


def shell_commands(lines: list[tuple[int, str]], transcript: bool) -> list[tuple[int, str]]:
    """The commands in a shell fence, each with its response line; `\\` continuations are joined."""
    commands: list[tuple[int, str]] = []
    start = 0
    parts: list[str] = []  # the pieces of a command continued over several lines, joined once at its end
    for number, line in lines:
        if parts:
            piece = line.strip()
        else:
            command = line.strip()
            if transcript:
                prompted = _after_prompt(command)
                if prompted is None:
                    continue
                command = prompted
            else:  # a line of a script: any line but a comment, an optional `$ ` prompt removed
                if command[:2] == "$ ":
                    command = command[2:].strip()
                if not command or command.startswith(_COMMENTS):
                    continue
            if command[-1:] != "\\":  # a command on one line, the common case
                commands.append((number, command))
                continue
            start, piece = number, command
        if piece.endswith("\\"):
            parts.append(piece[:-1].rstrip())
            continue
        parts.append(piece)
        commands.append((start, " ".join(parts)))
        parts = []
    if parts:
        commands.append((start, " ".join(parts)))
    return commands


def _after_prompt(text: str) -> str | None:
    """A transcript's command: the text after a prompt (the other lines are output)."""
    for prompt in ("$ ", "PS> ", "> "):
        if text.startswith(prompt):
            return text[len(prompt) :].strip() or None
    return None


_COMMENTS = ("#", "::", "REM ", "rem ")


INLINE_COMMAND_PREFIXES = ("git rm ", "git mv ", "mkdir -p ", "rm -rf ")


def inline_commands(line: str) -> list[str]:
    """Commands such as `git rm old.py` written in backticks inside prose."""
    found = []
    spans = line.split("`")
    for span in spans[1:-1:2]:
        command = span.strip()
        if command.startswith(INLINE_COMMAND_PREFIXES):
            found.append(command)
    return found
