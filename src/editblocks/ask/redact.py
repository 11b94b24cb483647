"""Hiding the credentials an endpoint's address can carry, wherever the address is shown or saved.

Some gateways take their key in the URL: `https://user:key@host/v1`,
`…/v1?api-key=…`, `?key=`, `?token=`. The request needs the URL as given, but
a run record, a terminal line, an error message, the review page or `--json`
output must not repeat the key: the user info becomes `***`, and so does every
query value except a few that are known to be harmless (the API version), and
the fragment. Pure functions on strings: the one place this is decided.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

HIDDEN = "***"
PUBLIC_QUERY_NAMES = frozenset({"api-version", "api_version", "version"})
"""Query parameters shown as given: an API version is never a secret, and it tells which API was asked."""
MIN_SCRUBBED_CHARS = 3
"""A secret shorter than this is not searched for in other text: every such letter pair would be starred."""
_USER_INFO = re.compile(r"[^\s/@?#]+@")


def redact_url(url: str) -> str:
    """``url`` with its user info, query values (but the API version) and fragment replaced by `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed address (`http://[::1/`): read as text below
        parts = None
    if parts is None or not parts.netloc:  # not scheme://host: hide whatever stands before an `@`
        head, question, query = url.partition("?")
        return _USER_INFO.sub(HIDDEN + "@", head) + (question + _redact_query(query) if question else "")
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{HIDDEN}@{host}" if "@" in parts.netloc else host
    fragment = HIDDEN if parts.fragment else ""
    redacted = urlunsplit((parts.scheme, netloc, parts.path, _redact_query(parts.query), fragment))
    return redacted + ("?" if url.endswith("?") and not parts.query and not fragment else "")


def scrub(text: str, url: str | None) -> str:
    """``text`` (an error message, say) with every secret part of ``url`` hidden, the whole URL first."""
    if not url:
        return text
    text = text.replace(url, redact_url(url))
    for secret in sorted(_secrets(url), key=len, reverse=True):
        if len(secret) >= MIN_SCRUBBED_CHARS:
            text = text.replace(secret, HIDDEN)
    return text


def _redact_query(query: str) -> str:
    if not query:
        return ""
    pieces = []
    for piece in query.split("&"):
        name, equals, _ = piece.partition("=")
        if not equals:
            pieces.append(HIDDEN if piece else piece)  # a bare value may itself be the key
        elif name.lower() in PUBLIC_QUERY_NAMES:
            pieces.append(piece)
        else:
            pieces.append(f"{name}={HIDDEN}")
    return "&".join(pieces)


def _secrets(url: str) -> set[str]:
    """The parts of ``url`` that `redact_url` hides, as they are written in it."""
    try:
        parts = urlsplit(url)
        netloc, query, fragment = parts.netloc, parts.query, parts.fragment
    except ValueError:
        netloc, query, fragment = "", "", ""
    if not netloc:
        head, _, query = url.partition("?")
        infos = [found[:-1] for found in _USER_INFO.findall(head)]
    else:
        infos = [netloc.rpartition("@")[0]] if "@" in netloc else []
    found = {piece for info in infos for piece in (info, *info.split(":"))}
    for piece in filter(None, query.split("&")):
        name, equals, value = piece.partition("=")
        if not equals:
            found.add(piece)
        elif name.lower() not in PUBLIC_QUERY_NAMES:
            found.add(value)
    if fragment:
        found.add(fragment)
    return {secret for secret in found if secret}
