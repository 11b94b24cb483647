"""A concurrent local writer (issue 18, holes 4-6): folders swapped for links mid-run, first use by many processes.

The swap is the one a red team used: `renameat2(RENAME_EXCHANGE)` exchanges a
real folder of the project with a symlink to a sibling folder, atomically, in
a tight loop in another process, while `apply` and `undo` run. Whatever the
timing, no write may land in the sibling folder (compared byte for byte with a
snapshot) and no exception may escape `apply()` or `undo()`.
"""

from __future__ import annotations

import ctypes
import errno
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from editblocks import parse
from editblocks.model import Status
from editblocks.service.apply import apply
from editblocks.workspace import Workspace

from helpers_apply import diff_edit, make_tree, tree_state

EDITBLOCKS = str(Path(sys.executable).with_name("editblocks"))
SWAPS = 50_000_000  # bounds the swapper (minutes); it is stopped as soon as the applies are done
ROUNDS = 150
SWAPPER = textwrap.dedent(
    """
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    first, second, limit = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), int(sys.argv[3])
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    print("swapping", flush=True)
    for _ in range(limit):
        if libc.renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")
    """
)
FILES = {"sub/a.txt": "alpha\nbeta\n", "sub/deep/b.txt": "gamma\n"}
ANSWER = (diff_edit("sub/a.txt", ("beta\n", "BETA\n"), lang="")
          + diff_edit("sub/deep/b.txt", ("gamma\n", "GAMMA\n"), lang="")
          + diff_edit("sub/fresh/c.txt", ("", "created\n"), lang="")
          + diff_edit("sub/d.txt", ("", "created too\n"), lang=""))


def renameat2_available() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return hasattr(libc, "renameat2")


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """``root/sub`` (a real folder) and ``root/link`` (a symlink to ``outside``, which has the same files)."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    make_tree(root, FILES)
    make_tree(outside, {name.removeprefix("sub/"): text for name, text in FILES.items()})
    os.symlink("../outside", root / "link")
    return root, outside


def test_a_folder_swapped_for_an_outside_link_in_a_loop_never_redirects_a_write(layout: tuple[Path, Path]) -> None:
    assert renameat2_available(), "this test needs glibc's renameat2 (Linux)"
    root, outside = layout
    before = tree_state(outside)
    parsed = parse(ANSWER)
    escaped: list[str] = []
    written = undone = 0
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(root / "sub"), str(root / "link"), str(SWAPS)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert swapper.stdout is not None and swapper.stdout.readline() == "swapping\n"
        for _ in range(ROUNDS):
            try:
                result = apply(parsed, root)
                written += result.written
                undone += Workspace(root).undo().ok
            except Exception as error:  # noqa: BLE001 - the point is that nothing escapes
                escaped.append(f"{type(error).__name__}: {error}")
        assert swapper.poll() is None, "the swapper stopped before the applies were done"
    finally:
        swapper.kill()
        swapper.wait()
    assert tree_state(outside) == before
    assert escaped == []
    assert written > 0 and undone > 0  # the race really let writes through inside the root


def test_an_os_error_while_resolving_a_path_is_a_refusal(layout: tuple[Path, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """What the swap makes `realpath` do (a link gone between lstat and readlink) comes back as a value."""
    root, _ = layout
    real_realpath = os.path.realpath

    def racing_realpath(path: str, **options: bool) -> str:
        if "sub" in str(path):  # the folder being swapped; the root itself resolves
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_realpath(path, **options)

    monkeypatch.setattr(os.path, "realpath", racing_realpath)
    result = apply(parse(ANSWER), root)
    assert [r.status for r in result.results] == [Status.FAILED] * 4 and not result.written
    assert all("Invalid argument" in r.reason for r in result.results)
    assert Workspace(root).undo().message == "nothing to undo"


def test_undo_turns_an_os_error_on_a_path_into_an_outcome(layout: tuple[Path, Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = layout
    assert apply(parse(ANSWER), root).written
    real_realpath = os.path.realpath

    def racing_realpath(path: str, **options: bool) -> str:
        if "sub" in str(path):  # the folder being swapped; the root itself resolves
            raise OSError(errno.EINVAL, "Invalid argument")
        return real_realpath(path, **options)

    monkeypatch.setattr(os.path, "realpath", racing_realpath)
    outcome = Workspace(root).undo()
    assert not outcome.ok and "Invalid argument" in outcome.message


FIRST_USE = textwrap.dedent(
    """
    import os, sys, time
    from editblocks.cli import main

    # Widen the windows a first run has to share with the others: between finding a folder missing and
    # creating it, and between creating `.gitignore` and filling it. Every process starts at the same moment.
    real_mkdir, real_write = os.mkdir, os.write

    def slow_mkdir(path, *args, **kwargs):
        if os.path.basename(os.fspath(path)) in (".editblocks", "journal"):
            time.sleep(0.2)
        return real_mkdir(path, *args, **kwargs)

    def slow_write(fd, data):
        if bytes(data) == b"*\\n":
            time.sleep(0.1)
        return real_write(fd, data)

    os.mkdir, os.write = slow_mkdir, slow_write
    time.sleep(max(0.0, float(sys.argv[1]) - time.time()))
    main(sys.argv[2:], prog_name="editblocks")
    """
)


def test_twenty_first_applies_at_once_all_succeed(tmp_path: Path) -> None:
    """No `.editblocks/` yet: twenty processes create it at the same moment and every one of them applies."""
    root = tmp_path / "project"
    make_tree(root, {f"f{n}.txt": f"value {n}\n" for n in range(20)})
    answers = []
    for n in range(20):
        answer = tmp_path / f"answer{n}.md"
        answer.write_text(diff_edit(f"f{n}.txt", (f"value {n}\n", f"changed {n}\n"), lang=""))
        answers.append(answer)
    start = time.time() + 3.0
    processes = [subprocess.Popen([sys.executable, "-c", FIRST_USE, str(start), "apply", str(answer),
                                   "--root", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for answer in answers]
    outputs = [process.communicate(timeout=120) for process in processes]
    failures = [(process.returncode, err) for process, (_, err) in zip(processes, outputs, strict=True)
                if process.returncode]
    assert failures == []
    assert all((root / f"f{n}.txt").read_text() == f"changed {n}\n" for n in range(20))
    assert (root / ".editblocks" / ".gitignore").read_bytes() == b"*\n"
    assert sorted(os.listdir(root / ".editblocks")) == [".gitignore", "journal", "lock"]
