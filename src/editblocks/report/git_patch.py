"""`apply --patch`: a run's change as one patch file that `git apply` (and `patch -p1`) accept.

The patch holds each file's own bytes: line endings as they are, a UTF-8
byte-order mark on the first line, `\\ No newline at end of file` where a
file ends without one. UTF-16 files are not line-oriented bytes to git, so
their change is a `GIT binary patch` carrying the whole new content. Paths
are relative to the root, with git's `a/` and `b/` prefixes.
"""

from __future__ import annotations

import base64
import hashlib
import os
import zlib
from collections.abc import Sequence

from editblocks.model import FileDiff
from editblocks.text.diff import unified_diff
from editblocks.text.encodings import ENCODINGS

NEW_FILE_MODE = "100644"
TEXT_ENCODINGS = frozenset({"utf-8", "utf-8-sig"})  # line-oriented bytes: a text patch applies to them
BINARY_LINE_BYTES = 52  # bytes per base85 line, as git writes them
_C_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r",
              0x22: '\\"', 0x5C: "\\\\"}
_NULL_ID = "0" * 40


def git_patch(diffs: Sequence[FileDiff]) -> bytes:
    """One patch for every changed file, in order; empty when nothing changed.

    `diffs` are an `ApplyResult`'s: they carry the whole texts and each
    file's encoding, which a patch needs and a bare unified diff lacks.
    """
    return b"".join(_file_patch(diff) for diff in diffs)


def _file_patch(diff: FileDiff) -> bytes:
    if diff.before is None and not diff.created:
        raise ValueError(f"the diff of {diff.path} has no original text; make patches from apply()'s diffs")
    bom, codec = ENCODINGS.get(diff.encoding, (b"", "utf-8"))
    old = None if diff.before is None else bom + diff.before.encode(codec, "surrogatepass")
    new = bom + diff.after.encode(codec, "surrogatepass")
    if diff.deleted:
        new = b""
    source = diff.moved_from or diff.path
    old_name, new_name = _quoted("a/" + source), _quoted("b/" + diff.path)
    header = f"diff --git {old_name} {new_name}\n" + (f"new file mode {NEW_FILE_MODE}\n" if old is None else "")
    if diff.moved_from is not None and old is not None:
        header += f"rename from {_quoted(source)}\nrename to {_quoted(diff.path)}\n"
    if diff.deleted:
        header += f"deleted file mode {NEW_FILE_MODE}\n"
    if diff.encoding not in TEXT_ENCODINGS:
        return header.encode() + _binary_body(old, new)
    if not new and (old is None or diff.deleted and not old):
        return header.encode()  # an empty new (or deleted) file: git writes no hunk for it
    before = None if diff.before is None else bom.decode(codec) + diff.before
    after = "" if diff.deleted else bom.decode(codec) + diff.after
    body = unified_diff(diff.path, before, after, deleted=diff.deleted)
    if "\n@@" not in body:
        return header.encode()  # a pure rename
    hunks = body.split("\n", 2)[2]
    names = f"--- {'/dev/null' if old is None else old_name}\n+++ {'/dev/null' if diff.deleted else new_name}\n"
    return (header + names + hunks).encode("utf-8", "surrogatepass")


def _binary_body(old: bytes | None, new: bytes) -> bytes:
    """Git's binary patch: full object ids, then the new content and the old one, each deflated in base85."""
    lines = [f"index {_NULL_ID if old is None else _blob_id(old)}..{_blob_id(new)}", "GIT binary patch",
             *_literal(new), "", *_literal(old or b""), ""]
    return ("\n".join(lines) + "\n").encode("ascii")


def _literal(data: bytes) -> list[str]:
    packed = zlib.compress(data, 9)
    lines = [f"literal {len(data)}"]
    for start in range(0, len(packed), BINARY_LINE_BYTES):
        chunk = packed[start : start + BINARY_LINE_BYTES]
        size = chr(ord("A") + len(chunk) - 1) if len(chunk) <= 26 else chr(ord("a") + len(chunk) - 27)
        lines.append(size + base64.b85encode(chunk, pad=True).decode("ascii"))
    return lines


def _blob_id(data: bytes) -> str:
    """The id git gives a file holding `data`: a binary patch names both sides by it."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _quoted(name: str) -> str:
    """`name` as git writes it in a patch: in C quotes when it holds quotes, backslashes, controls or edge spaces."""
    if name.isprintable() and '"' not in name and "\\" not in name and name == name.strip():
        return name
    out = []
    for byte in os.fsencode(name):
        if byte in _C_ESCAPES:
            out.append(_C_ESCAPES[byte])
        elif byte < 0x20 or byte == 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte) if byte < 0x80 else f"\\{byte:03o}")
    return '"' + "".join(out) + '"'
