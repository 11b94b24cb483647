"""Reading an answer from a file or standard input: bounded in size, UTF-8 or a wide encoding with a byte-order mark."""

from __future__ import annotations

import codecs
import sys
from pathlib import Path

from editblocks.cli.shared import DEFAULT_MAX_BYTES, InputError

WIDE_BOMS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)
"""Byte-order marks of the wide encodings a response may arrive in (a PowerShell `>` writes UTF-16 with one)."""


def read_response(source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The response text from a file or `-` (stdin): UTF-8, or UTF-16/32 with a byte-order mark.

    Refuses directories, binary, other encodings and oversized input.
    """
    try:
        data = _read_bounded(source, max_bytes)
    except IsADirectoryError:
        raise InputError(f"cannot read response {source!r}: it is a directory") from None
    except OSError as error:
        raise InputError(f"cannot read response {source!r}: {error.strerror or error}") from None
    for bom, codec, name in WIDE_BOMS:
        if data.startswith(bom):
            return _decode_wide(source, data, len(bom), codec, name)
    nul = data.find(b"\x00")
    if nul >= 0 and _looks_utf16(data):
        raise InputError(f"response {source!r} looks like UTF-16 without a byte-order mark (NUL byte at offset "
                         f"{nul}); save it as UTF-8, or as UTF-16 with a byte-order mark")
    if nul >= 0:
        raise InputError(f"response {source!r} looks binary (NUL byte at offset {nul}); expected text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(
            f"response {source!r} is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        ) from None


def _decode_wide(source: str, data: bytes, bom: int, codec: str, name: str) -> str:
    """The text after a ``bom``-byte mark; wide text has NUL bytes, so only a decoded NUL character means binary."""
    try:
        text = data[bom:].decode(codec)
    except UnicodeDecodeError as error:
        raise InputError(f"response {source!r} starts with a {name} byte-order mark but is not valid {name} "
                         f"(at offset {bom + error.start})") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(f"response {source!r} looks binary (NUL character at character {nul} of its {name} text); "
                         "expected text")
    return text


def _looks_utf16(data: bytes) -> bool:
    """UTF-16 without a byte-order mark: mostly ASCII text, so every other byte (and only those) is mostly NUL."""
    sample = data[:4096]
    odd, even = sample[1::2].count(0), sample[0::2].count(0)
    return len(sample) >= 4 and min(odd, even) == 0 and max(odd, even) * 4 >= len(sample)


def _read_bounded(source: str, max_bytes: int) -> bytes:
    """Read at most `max_bytes`; anything larger is refused before it is held in memory."""
    if source == "-":
        data = sys.stdin.buffer.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise InputError(f"response from stdin is larger than the limit of {max_bytes} bytes (--max-bytes)")
        return data
    path = Path(source)
    size = path.stat().st_size
    if size > max_bytes and path.is_file():
        raise InputError(f"response {source!r} has {size} bytes, more than the limit of {max_bytes} bytes "
                         "(--max-bytes)")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(f"response {source!r} is larger than the limit of {max_bytes} bytes (--max-bytes)")
    return data
