"""Paths as git writes them in a diff: plain, or C-quoted when they hold unusual characters.

git puts a path in double quotes and escapes it the way C does when it holds
a quote, a backslash, a control character or (by default) any byte past
ASCII: `"caf\\303\\251.md"` is `café.md`, `"back\\\\slash.txt"` is
`back\\slash.txt`. A quoted path is taken exactly as unquoted (its
backslashes are part of the name, never folder separators).
"""

from __future__ import annotations

from editblocks.parsing.patches.common import clean_path

_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def unquote(text: str, start: int = 0) -> tuple[str, int] | None:
    """The C-quoted string starting at ``text[start]`` (a `"`), unquoted, and the index after its closing quote;
    None when it is not one (no closing quote, an unknown escape, bytes that are not UTF-8)."""
    if not text.startswith('"', start):
        return None
    data = bytearray()
    position = start + 1
    while position < len(text):
        char = text[position]
        if char == '"':
            try:
                return data.decode("utf-8"), position + 1
            except UnicodeDecodeError:
                return None
        if char != "\\":
            data += char.encode("utf-8")
            position += 1
            continue
        escape = text[position + 1 : position + 2]
        if escape in _ESCAPES:
            data.append(_ESCAPES[escape])
            position += 2
            continue
        digits = text[position + 1 : position + 4]
        if len(digits) == 3 and all(d in "01234567" for d in digits) and int(digits, 8) < 256:
            data.append(int(digits, 8))
            position += 4
            continue
        return None
    return None


def git_path(raw: str) -> str:
    """A path after `rename from`, `---` and the like: unquoted when git quoted it, else as `clean_path` reads it
    (a `diff -u` timestamp after a tab is dropped either way)."""
    stripped = raw.strip()
    quoted = unquote(stripped)
    if quoted is not None:
        rest = stripped[quoted[1] :]
        if not rest.strip() or rest.startswith("\t"):
            return quoted[0]
    return clean_path(raw.split("\t", 1)[0])


def git_pair(names: str) -> tuple[str, str] | None:
    """The two paths of `diff --git a/x b/y` (the text after `diff --git `), prefixes dropped; None when they cannot
    be told apart."""
    names = names.strip()
    if names.startswith('"'):
        first = unquote(names)
        if first is None:
            return None
        old, rest = first[0], names[first[1] :].lstrip(" ")
        second = unquote(rest)
        new = second[0] if second is not None and not rest[second[1] :].strip() else rest
    else:
        quote = names.find(' "')
        if quote != -1 and names.endswith('"'):
            second = unquote(names, quote + 1)
            if second is None or second[1] != len(names):
                return None
            old, new = names[:quote], second[0]
        else:
            old, separator, new = names.partition(" b/")
            if not separator:
                return None
            new = "b/" + new
    if not old.startswith("a/") or not new.startswith("b/"):
        return None
    if names.startswith('"') or names.endswith('"'):
        return old[2:], new[2:]
    return clean_path(old[2:]), clean_path(new[2:])
