"""Reading: a path the model wrote, resolved inside the root, read as text that encodes back to the same bytes.

A path becomes a canonical relative path or a `Refusal` (`paths`); the file
is reached through folder descriptors without following a link (`dirfd`);
its bytes are decoded only if the text encodes back to those very bytes, and
a binary, undecodable or read-only file is refused with a sentence that says why.
"""

from __future__ import annotations

import codecs
import stat
from dataclasses import dataclass
from pathlib import Path

from editblocks.text.encodings import ENCODINGS
from editblocks.workspace.dirfd import Tree, describe
from editblocks.workspace.paths import Refusal, RefusalCode, reaches_through_link, refusal, resolve_path
from editblocks.workspace.records import fingerprint

_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
_BOM_ORDER = ("utf-16-le-bom", "utf-16-be-bom", "utf-8-sig")
_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)


@dataclass(frozen=True)
class FileSnapshot:
    """A file as read (or known to be missing): what the planner plans from and commit checks against.

    ``text`` keeps the file's line endings; the byte-order mark is removed and
    recorded in ``encoding`` so the text encodes back to identical bytes.
    """

    rel: str
    exists: bool
    text: str | None
    encoding: str
    fingerprint: str | None
    mode: int | None

    def data(self) -> bytes | None:
        """The bytes the file held when it was read (its text encodes back to exactly those), or None if missing.

        A copy made from these is a copy of what was checked; reading the path
        again could reach another file by then.
        """
        if self.text is None:
            return None
        bom, codec = codec_for(self.encoding)
        return bom + self.text.encode(codec)


@dataclass(frozen=True)
class Undecodable:
    """Why a file's bytes are not text editblocks edits."""

    code: RefusalCode
    why: str


class Reader:
    """Paths resolved inside one root, and its files read into snapshots."""

    def __init__(self, root: Path, aliases: tuple[Path, ...]) -> None:
        self.root = root
        self._aliases = aliases

    def resolve(self, path: str) -> str | Refusal:
        """The canonical relative path ``path`` names inside the root, or why it may not be used."""
        return resolve_path(self.root, path, root_aliases=self._aliases)

    def through_link(self, path: str, canonical: str) -> bool:
        """Whether ``path``, resolved to ``canonical``, reaches its file through a symlink."""
        return reaches_through_link(self.root, path, canonical, root_aliases=self._aliases)

    def read(self, path: str) -> FileSnapshot | Refusal:
        """A snapshot of the file ``path`` names (or of its absence), or why it cannot be edited."""
        rel = self.resolve(path)
        if isinstance(rel, Refusal):
            return rel
        try:
            with Tree(self.root) as tree:
                current = tree.read(rel)
        except OSError as error:
            return refusal(path, RefusalCode.UNREADABLE, f"could not be read ({describe(error)})")
        if current is None:
            return FileSnapshot(rel, exists=False, text=None, encoding="utf-8", fingerprint=None, mode=None)
        raw, status = current
        decoded = decode(raw)
        if isinstance(decoded, Undecodable):
            return refusal(path, decoded.code, decoded.why)
        text, encoding = decoded
        if not status.st_mode & _WRITE_BITS:
            return refusal(path, RefusalCode.READ_ONLY, f"is read-only (mode {stat.S_IMODE(status.st_mode):04o}); "
                                                        "make it writable to let editblocks change it")
        return FileSnapshot(rel, True, text, encoding, fingerprint(raw), stat.S_IMODE(status.st_mode))


def decode(raw: bytes) -> tuple[str, str] | Undecodable:
    """Text and encoding name of a file's bytes, chosen so that encoding the text gives ``raw`` back."""
    if raw.startswith(_UTF32_BOMS):
        return Undecodable(RefusalCode.ENCODING, "is UTF-32 text, which editblocks does not edit")
    encoding = next((name for name in _BOM_ORDER if raw.startswith(ENCODINGS[name][0])), "utf-8")
    bom, codec = ENCODINGS[encoding]
    if codec == "utf-8" and (nul := raw.find(b"\0")) != -1:
        return Undecodable(
            RefusalCode.BINARY, f"looks like a binary file (NUL byte at offset {nul}); editblocks only edits text"
        )
    try:
        text = raw[len(bom) :].decode(codec)
    except UnicodeDecodeError as error:
        offset = len(bom) + error.start
        return Undecodable(
            RefusalCode.ENCODING,
            f"is not valid {codec.upper()} (first bad byte 0x{raw[offset]:02X} at offset {offset}); "
            "it may be Latin-1 or another legacy encoding, so editblocks leaves it untouched",
        )
    if codec != "utf-8" and (nul := text.find("\0")) != -1:
        return Undecodable(
            RefusalCode.BINARY,
            f"looks like a binary file (NUL character at position {nul}); editblocks only edits text",
        )
    if "\n" not in text and "\r" in text.rstrip("\r"):
        return Undecodable(
            RefusalCode.ENCODING,
            "breaks its lines with a bare CR (classic Mac OS line endings), which editblocks does not edit; "
            "convert it to LF or CRLF first",
        )
    return text, encoding


def codec_for(encoding: str) -> tuple[bytes, str]:
    """The byte-order mark and Python codec that write text back in a snapshot's ``encoding``."""
    try:
        return ENCODINGS[encoding]
    except KeyError:
        raise ValueError(f"unknown snapshot encoding {encoding!r}; expected one of {sorted(ENCODINGS)}") from None
