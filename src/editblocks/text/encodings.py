"""The encodings a file may be read in and written back to: each name with its byte-order mark and codec."""

from __future__ import annotations

import codecs

ENCODINGS: dict[str, tuple[bytes, str]] = {
    "utf-8": (b"", "utf-8"),
    "utf-8-sig": (codecs.BOM_UTF8, "utf-8"),
    "utf-16-le-bom": (codecs.BOM_UTF16_LE, "utf-16-le"),
    "utf-16-be-bom": (codecs.BOM_UTF16_BE, "utf-16-be"),
}
"""Encoding name (as a snapshot and a diff carry it) → (byte-order mark, Python codec), in the order a reader
tries them."""
