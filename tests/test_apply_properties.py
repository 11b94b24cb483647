"""Properties of `apply` over random trees and random blocks (hypothesis).

(a) a dry run never changes a byte on disk;
(b) no input ever writes outside the root (or into `.git/`), whatever the path says;
(c) apply followed by undo restores every file exactly, modes included, and removes what it created.

Each test builds its own temporary folders (hypothesis runs many examples per
test function, so pytest's per-test tmp_path cannot be used).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from editblocks import BlockKind, EditBlock, Format, Status
from editblocks.service.apply import apply
from editblocks.workspace import Workspace

from helpers_apply import make_tree, tree_state

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Lines chosen to collide: duplicates (ambiguity), whitespace and typography variants (tolerant rungs),
# elision markers, braces.
LINE_POOL = [
    "a = 1", "    a = 1", "a = 1  ", "\ta = 1", "b = 2", "}", "", "def f():", "    return x",
    "    ...", "# ... existing code ...", "s = \"it's\"", "s = \u201cit\u2019s\u201d", "x\u00a0= 3", "caf\u00e9 \u2603",
]
FILE_NAMES = ["a.py", "b.txt", "pkg/c.py", "pkg/deep/d.md", "e"]


@st.composite
def file_contents(draw) -> bytes:
    kind = draw(st.sampled_from(["text", "text", "text", "text", "empty", "binary", "latin1", "bom"]))
    if kind == "empty":
        return b""
    if kind == "binary":
        return b"\x00\x01" + draw(st.binary(max_size=20))
    lines = draw(st.lists(st.sampled_from(LINE_POOL), min_size=1, max_size=8))
    ending = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    endings = [draw(st.sampled_from(["\n", "\r\n"])) if ending == "mixed" else ending for _ in lines]
    if draw(st.booleans()):
        endings[-1] = ""
    text = "".join(line + end for line, end in zip(lines, endings))
    if kind == "latin1":
        return text.encode("utf-8") + b"caf\xe9\n"
    return (b"\xef\xbb\xbf" if kind == "bom" else b"") + text.encode("utf-8")


@st.composite
def trees(draw) -> dict[str, tuple[bytes, int]]:
    names = draw(st.lists(st.sampled_from(FILE_NAMES), min_size=1, max_size=4, unique=True))
    modes = st.sampled_from([0o644, 0o600, 0o755, 0o640])
    return {name: (draw(file_contents()), draw(modes)) for name in names}


def _lines_of(content: bytes) -> list[str]:
    text = content.decode("utf-8", "replace").lstrip("\ufeff").replace("\r\n", "\n")
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n") if text else []


@st.composite
def search_texts(draw, content: bytes | None) -> str:
    """Often a real slice of the file (sometimes with its whitespace perturbed), else random lines."""
    lines = _lines_of(content) if content else []
    choice = draw(st.sampled_from(["slice", "slice", "random", "empty"]))
    if choice == "slice" and lines:
        start = draw(st.integers(0, len(lines) - 1))
        end = draw(st.integers(start + 1, len(lines)))
        picked = lines[start:end]
        if draw(st.booleans()):
            picked = [line.strip() + draw(st.sampled_from(["", " "])) for line in picked]
    elif choice == "empty":
        return ""
    else:
        picked = draw(st.lists(st.sampled_from(LINE_POOL), min_size=1, max_size=3))
    return "".join(line + "\n" for line in picked)


@st.composite
def blocks_for(draw, tree: dict[str, tuple[bytes, int]], extra_paths: list[str]) -> list[EditBlock]:
    paths = sorted(tree) + extra_paths
    result = []
    for number in range(draw(st.integers(1, 5))):
        path = draw(st.sampled_from(paths))
        content = tree[path][0] if path in tree else None
        search = draw(search_texts(content))
        new = "".join(line + "\n" for line in draw(st.lists(st.sampled_from(LINE_POOL), max_size=3)))
        fmt = draw(st.sampled_from([Format.DIFF, Format.SEARCH_REPLACE, Format.GUILLEMET, Format.ANCHORED]))
        leading = trailing = ""
        old = search
        if fmt in (Format.GUILLEMET, Format.ANCHORED) and search:
            split = search.splitlines(keepends=True)
            cut = draw(st.integers(0, len(split)))
            leading, old = "".join(split[:cut]), "".join(split[cut:])
            if fmt is Format.ANCHORED and old:
                tail = draw(st.integers(0, len(old.splitlines())))
                rest = old.splitlines(keepends=True)
                old, trailing = "".join(rest[:tail]), "".join(rest[tail:])
        kind = BlockKind.CREATE if not (leading + old + trailing).strip() else BlockKind.EDIT
        result.append(EditBlock(path, leading, old, new, trailing, kind, fmt, number * 10 + 1))
    return result


options = st.fixed_dictionaries({
    "policy": st.sampled_from([None, "continue", "skip-file", "abort"]),
    "fuzzy": st.booleans(),
    "first_match": st.booleans(),
    "strict": st.booleans(),
})


def build(root: Path, tree: dict[str, tuple[bytes, int]]) -> None:
    make_tree(root, {name: content for name, (content, _) in tree.items()})
    for name, (_, mode) in tree.items():
        os.chmod(root / name, mode)


# --- (a) dry run ---------------------------------------------------------------------------------


@pytest.mark.slow
@SETTINGS
@given(data=st.data(), tree=trees(), opts=options)
def test_dry_run_never_changes_a_byte(data, tree, opts):
    with tempfile.TemporaryDirectory() as base:
        root = Path(base) / "root"
        root.mkdir()
        build(root, tree)
        os.mkdir(root / "somedir")
        blocks = data.draw(blocks_for(tree, ["missing.py", "new/made.py", "somedir"]))
        before = tree_state(Path(base), skip_journal=False)
        outcome = apply(blocks, root, dry_run=True, **opts)
        event(f"applied: {outcome.count(Status.APPLIED)}")
        assert outcome.written is False
        assert len(outcome.results) == len(blocks)
        assert tree_state(Path(base), skip_journal=False) == before
        # what the dry run predicts is consistent with its own results
        changed = set(outcome.files_modified) | set(outcome.files_created)
        applied = {r.path for r in outcome.results if r.status is Status.APPLIED}
        assert changed <= applied
        assert {d.path for d in outcome.diffs} == changed


# --- (b) nothing outside the root ----------------------------------------------------------------

HOSTILE_PARTS = [
    "..", ".", "", "outside", "secret.txt", "new.txt", "lnk_dir", "lnk_file", "abs_lnk", "loop", "dangling",
    ".git", "config", ".GIT", ".git.", "\uff0egit", ".g\u200bit", "\u2024\u2024", "\uff0e\uff0e", "..\u2215",
    "%2e%2e", "...", "x" * 300, "sub", "\\..\\", "C:", "~", "$HOME", "\u202e", "a\u0000b", "..\\outside",
]


@st.composite
def hostile_paths(draw, base: str) -> str:
    parts = draw(st.lists(st.sampled_from(HOSTILE_PARTS), min_size=1, max_size=5))
    path = "/".join(parts)
    prefix = draw(st.sampled_from(["", "", "/", base + "/", base + "/root/", base + "/root/../", "//"]))
    return prefix + path


def _hostile_world(base: Path) -> tuple[Path, Path]:
    root, outside = base / "root", base / "outside"
    make_tree(root, {"sub/ok.txt": "secret = 1\n", ".git/config": "secret = 1\n"})
    make_tree(outside, {"secret.txt": "secret = 1\n", "new.txt": "secret = 1\n"})
    os.symlink("../outside", root / "lnk_dir")
    os.symlink("../outside/secret.txt", root / "lnk_file")
    os.symlink(str(outside), root / "abs_lnk")
    os.symlink("loop", root / "loop")
    os.symlink("../outside/not_there_yet.txt", root / "dangling")
    os.symlink("../../outside", root / "sub" / "up")
    return root, outside


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), opts=options, dry=st.booleans())
def test_no_input_writes_outside_the_root(data, opts, dry):
    with tempfile.TemporaryDirectory() as base_name:
        base = Path(base_name)
        root, outside = _hostile_world(base)
        paths = data.draw(st.lists(hostile_paths(base_name), min_size=1, max_size=4))
        blocks = []
        for number, path in enumerate(paths):
            create = data.draw(st.booleans())
            old = "" if create else "secret = 1\n"
            kind = BlockKind.CREATE if create else BlockKind.EDIT
            blocks.append(EditBlock(path, "", old, "pwned = 1\n", "", kind, Format.DIFF, number + 1))
        outside_before = tree_state(outside)
        git_before = tree_state(root / ".git")
        links_before = {name: os.readlink(root / name) for name in ("lnk_dir", "lnk_file", "abs_lnk", "loop", "dangling")}
        outcome = apply(blocks, root, dry_run=dry, **opts)
        event(f"applied: {outcome.count(Status.APPLIED) > 0}")
        assert tree_state(outside) == outside_before
        assert sorted(os.listdir(base)) == ["outside", "root"]
        assert tree_state(root / ".git") == git_before
        assert {name: os.readlink(root / name) for name in links_before} == links_before
        assert not (outside / "not_there_yet.txt").exists()
        # whatever was written is a regular file whose real location is inside the root, outside .git
        for rel in (*outcome.files_modified, *outcome.files_created):
            real = Path(os.path.realpath(root / rel))
            assert real.is_relative_to(root) and ".git" not in real.relative_to(root).parts
            if not dry:
                assert stat.S_ISREG(os.lstat(real).st_mode)
        for result in outcome.results:
            if result.status is Status.APPLIED and not dry:
                assert b"pwned = 1" in Path(os.path.realpath(root / result.path)).read_bytes()


# --- (c) apply then undo -------------------------------------------------------------------------


@pytest.mark.slow
@SETTINGS
@given(data=st.data(), tree=trees(), opts=options)
def test_apply_then_undo_restores_everything(data, tree, opts):
    with tempfile.TemporaryDirectory() as base:
        root = Path(base) / "root"
        root.mkdir()
        build(root, tree)
        blocks = data.draw(blocks_for(tree, ["missing.py", "new/made.py", "new/deeper/more.txt", "pkg/fresh.py"]))
        before = tree_state(root)
        outcome = apply(blocks, root, **opts)
        event(f"written files: {min(len(outcome.files_modified) + len(outcome.files_created), 2)}")
        event(f"strategies: {sorted({r.strategy for r in outcome.results if r.status is Status.APPLIED})}")
        undone = Workspace(root).undo()
        if outcome.written and (outcome.files_modified or outcome.files_created):
            assert undone.ok, undone.message
            assert set(undone.removed) == set(outcome.files_created)
            assert set(undone.restored) == set(outcome.files_modified)
        else:
            assert not undone.ok  # nothing was journaled, so there is nothing to undo
        assert tree_state(root) == before
