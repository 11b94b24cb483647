"""Stale-read protection: the version of each file as the model last saw it, so an edit made on an old copy is
refused instead of landing on text the model never read.

A version is the start of the SHA-256 of the file's bytes. The model sees a
file when it views it and when its own edit writes it; another process (the
user's editor, a formatter, another agent) that changes the file after that
makes the next edit of it stale. A file never seen is not checked: there is
no copy to be stale.
"""

from __future__ import annotations

from collections.abc import Iterable

from editblocks.model import ApplyResult
from editblocks.text.document import Document
from editblocks.tools.targets import target_lines
from editblocks.tools.text_editor import normalized
from editblocks.workspace.reading import FileSnapshot, codec_for
from editblocks.workspace.records import fingerprint

VERSION_CHARS = 12


def short_version(full: str) -> str:
    """The version shown to the model: enough of the fingerprint to tell two versions of one file apart."""
    return full[:VERSION_CHARS]


class ReadVersions:
    """Per path, the fingerprint of the file as the model last saw it."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def saw(self, snapshot: FileSnapshot) -> str | None:
        """The model was shown ``snapshot``; its version (None for a missing file, which is forgotten)."""
        if snapshot.fingerprint is None:
            self._seen.pop(snapshot.rel, None)
            return None
        self._seen[snapshot.rel] = snapshot.fingerprint
        return short_version(snapshot.fingerprint)

    def stale(self, snapshot: FileSnapshot) -> str | None:
        """The version the model saw, when the file exists and is no longer that version; else None."""
        seen = self._seen.get(snapshot.rel)
        if seen is None or snapshot.fingerprint is None or snapshot.fingerprint == seen:
            return None
        return short_version(seen)

    def wrote(self, result: ApplyResult) -> dict[str, str]:
        """The model's own edit wrote ``result``: each written file is now seen as written; their new versions."""
        if not result.written:
            return {}
        versions: dict[str, str] = {}
        for diff in result.diffs:
            if diff.moved_from is not None:
                self._seen.pop(diff.moved_from, None)
            if diff.deleted:
                self._seen.pop(diff.path, None)
                continue
            bom, codec = codec_for(diff.encoding)
            self._seen[diff.path] = fingerprint(bom + diff.after.encode(codec, "surrogatepass"))
            versions[diff.path] = short_version(self._seen[diff.path])
        return versions

    def forget(self, paths: Iterable[str]) -> None:
        """These files changed in a way the model did not see line by line (an undo): no version to hold them to."""
        for path in paths:
            self._seen.pop(path, None)


def stale_refusal(snapshot: FileSnapshot, seen: str, now: str, *, old: str = "", line: int | None = None) -> str:
    """The reply to an edit of a file that changed since the model saw version ``seen``: nothing written, and the
    file's current lines where the edit aims (``old``: the text it replaces; ``line``: the line it inserts after)."""
    document = Document.from_text(snapshot.text or "")
    shown = target_lines(list(document.lines), document.final_newline, old=normalized(old), line=line)
    where = (f"Its lines around your edit now read:\n{shown}" if shown else
             "The text your edit replaces is nowhere in it now.\n")
    return (f"Error: {snapshot.rel} changed since you viewed it (you saw version {seen}; it is version {now} now), "
            f"so nothing was written. {where}View it again for the rest; the next edit is checked against the file "
            "as it is now.")
