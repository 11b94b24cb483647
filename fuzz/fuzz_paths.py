"""Fuzz the filename cleaner and path resolution against a scratch project with hostile symlinks.

Input layout: byte 0 bit 0 gives a list of known files to the cleaner, bit 1
prefixes the root's absolute path to the path being resolved; the rest,
decoded as UTF-8 with errors replaced, is a path line as a model writes it.

Invariants: nothing raises; a cleaned path is non-empty, free of the
characters no path may hold, and a known path maps onto a known file; a
resolved path is canonical (relative, no `.`/`..`/empty parts), leads to
itself through `realpath` (no symlink left), stays inside the root, and never
names `.git` or `.editblocks`.

    .venv/bin/python fuzz/fuzz_paths.py -max_total_time=600 fuzz/corpus_paths
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["editblocks"]):
    from editblocks.parsing.filenames import mentions_path, path_from_line, resolve_known
    from editblocks.workspace.paths import Refusal, name_key, resolve_path

from runner import run

KNOWN_FILES = ("src/app.py", "src/util.py", "README.md", "Models/Offer.cs", "lib/util.py")
FORBIDDEN_IN_PATHS = frozenset('<>|"`*?\t\r\n\x00')


def scratch_root() -> Path:
    """A project with files, a folder, and symlinks that lead out, loop, or point at the root itself."""
    top = Path(tempfile.mkdtemp(prefix="editblocks-fuzz-paths-"))
    atexit.register(shutil.rmtree, top, True)
    root, outside = top / "root", top / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    (root / "src" / "app.py").write_text("x = 1\n")
    (outside / "secret.txt").write_text("secret\n")
    (root / "link_out").symlink_to(outside)
    (root / "src" / "abs_out").symlink_to(outside / "secret.txt")
    (root / "loop").symlink_to(root / "loop")
    (root / "self").symlink_to(root)
    (root / "dangling").symlink_to(top / "missing")
    return Path(os.path.realpath(root))


ROOT = scratch_root()


def check_cleaned(line: str, known: tuple[str, ...] | None) -> None:
    found = path_from_line(line, known)
    if found is not None:
        assert found.path and FORBIDDEN_IN_PATHS.isdisjoint(found.path), f"bad cleaned path {found.path!r}"
        mapped = resolve_known(found.path, known, creating=False)
        assert known is None or mapped == found.path or mapped in known
    for word in mentions_path(line):
        assert word, "an empty path mention"


def check_resolved(path: str) -> None:
    resolved = resolve_path(ROOT, path)
    if isinstance(resolved, Refusal):
        assert resolved.reason.startswith("refused"), resolved.reason
        return
    parts = resolved.split("/")
    assert not resolved.startswith("/") and all(part not in ("", ".", "..") for part in parts), resolved
    target = ROOT.joinpath(*parts)
    assert os.path.realpath(target) == str(target), f"{path!r} resolved to {resolved!r} through a symlink"
    assert os.path.commonpath([ROOT, target]) == str(ROOT), f"{path!r} resolved outside the root"
    assert ".git" not in {name_key(part) for part in parts} and name_key(parts[0]) != ".editblocks"


def check(data: bytes) -> None:
    """One fuzz input; raises AssertionError when an invariant breaks."""
    if not data:
        return
    line = data[1:].decode("utf-8", errors="replace")
    check_cleaned(line, KNOWN_FILES if data[0] & 1 else None)
    check_resolved(f"{ROOT}/{line}" if data[0] & 2 else line)


if __name__ == "__main__":
    run("paths", check)
