"""The journal's cost per edit and its reverse patches (issue 29, durability I/O per edit).

One edit costs one journal record synced once, the new file synced once and one sync per touched folder
(here the file's and the journal's): 4 fsyncs, however many runs the journal keeps, and the work of
checking for an interrupted run and pruning does not grow with the runs kept. A small edit of a big file
keeps a reverse patch, not a copy; undo still restores every byte and mode, and a patch that no longer fits
the file, or a damaged or cut-short record, is refused with a sentence rather than a wrong file.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from editblocks.tools import ToolHandler
from editblocks.workspace import FileSnapshot, PlannedWrite, Workspace
from editblocks.workspace.reverse_patch import PATCH_MIN_BYTES

from helpers_journal import read_record, record_path, write_record

LINES = 40_000  # about 1.3 MB: far above the size from which small edits keep a patch


def line(number: int) -> str:
    return f"value_{number:06d} = compute({number}, scale={number % 7})\n"


@pytest.fixture
def big(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "big.py").write_text("".join(line(n) for n in range(LINES)))
    (root / "big.py").chmod(0o640)
    return root


def replace_line(root: Path, number: int, handler: ToolHandler | None = None, new: str | None = None) -> str:
    """Edit one line of big.py through the text editor tool (a comment added, or ``new`` instead); returns the
    run id."""
    handler = handler or ToolHandler(root)
    old = line(number).rstrip("\n")
    reply = handler.call("str_replace_based_edit_tool", {"command": "str_replace", "path": "big.py",
                                                         "old_str": old, "new_str": new or old + "  # edited"})
    assert reply.ok, reply.text
    return sorted(name for name in os.listdir(root / ".editblocks" / "journal"))[-1]


def state_of(root: Path) -> tuple[bytes, int]:
    path = root / "big.py"
    return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)


@contextmanager
def counting(name: str) -> Iterator[list[tuple[object, ...]]]:
    """Count the calls of ``os.<name>`` (the arguments of each) while the block runs."""
    real = getattr(os, name)
    calls: list[tuple[object, ...]] = []

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, name, counted)
        yield calls


# --- the work of one edit ---------------------------------------------------------------------------------


def test_one_edit_syncs_its_record_its_file_and_their_two_folders(big: Path) -> None:
    handler = ToolHandler(big)
    for number in range(8):
        replace_line(big, 100 + number, handler)
    with counting("fsync") as syncs:
        replace_line(big, 20_000, handler)
    assert len(syncs) == 4  # the record, the journal folder, the new file, the project root


@pytest.mark.parametrize("what", ["open", "stat"])
def test_the_work_of_one_edit_does_not_grow_with_the_runs_kept(big: Path, what: str) -> None:
    handler = ToolHandler(big)

    def calls_of_one_edit(number: int) -> int:
        with counting(what) as calls:
            replace_line(big, number, handler)
        return len(calls)

    for number in range(3):
        replace_line(big, 100 + number, handler)
    after_few = calls_of_one_edit(1_000)
    for number in range(12):
        replace_line(big, 200 + number, handler)
    after_many = calls_of_one_edit(2_000)
    assert after_many == after_few, (after_few, after_many)


def test_a_new_process_reads_each_kept_run_once(big: Path) -> None:
    for number in range(10):
        replace_line(big, 100 + number)
    handler = ToolHandler(big)
    with counting("open") as first:
        replace_line(big, 1_000, handler)
    with counting("open") as second:
        replace_line(big, 2_000, handler)
    assert len(second) < len(first)  # what the first edit learned about the runs, the second did not read again


# --- reverse patches --------------------------------------------------------------------------------------


def test_small_edits_of_a_big_file_keep_reverse_patches_and_undo_restores_every_version(big: Path) -> None:
    versions = [state_of(big)]
    handler = ToolHandler(big)
    for number in (5, 20_000, LINES - 1, 20_001, 0):
        replace_line(big, number, handler)
        versions.append(state_of(big))
    size = len(versions[0][0])
    journal = big / ".editblocks" / "journal"
    kept = sum(path.stat().st_size for path in journal.iterdir())
    assert kept < size / 100, (kept, size)
    for run_id in os.listdir(journal):
        _, document, _ = read_record(journal / run_id)
        assert "keep_start" in document["files"][0]["saved"]

    ws = Workspace(big)
    for expected in reversed(versions[:-1]):
        undone = ws.undo()
        assert undone.ok, undone.message
        assert state_of(big) == expected
    assert ws.undo().message == "nothing to undo"


def test_a_small_file_and_a_big_rewrite_keep_whole_copies(big: Path) -> None:
    (big / "small.py").write_text("x = 1\n" * 10)
    ws = Workspace(big)
    new_big = "".join(line(n).upper() for n in range(LINES))
    small, whole = ws.read("small.py"), ws.read("big.py")
    assert isinstance(small, FileSnapshot) and isinstance(whole, FileSnapshot)
    outcome = ws.commit([PlannedWrite(small, "x = 2\n" * 10), PlannedWrite(whole, new_big)])
    assert outcome.run_id is not None
    _, document, _ = read_record(record_path(big, outcome.run_id))
    assert all("keep_start" not in entry["saved"] for entry in document["files"])
    assert ws.undo().ok
    assert (big / "small.py").read_text() == "x = 1\n" * 10
    assert (big / "big.py").read_text() == "".join(line(n) for n in range(LINES))
    assert len("x = 1\n" * 10) < PATCH_MIN_BYTES


def test_a_patch_whose_file_changed_since_is_refused_even_with_force(big: Path) -> None:
    before = state_of(big)
    replace_line(big, 300)
    with (big / "big.py").open("a") as handle:
        handle.write("# saved by the user afterwards\n")
    changed = state_of(big)
    ws = Workspace(big)
    refused = ws.undo()
    assert not refused.ok and "big.py" in refused.message and "was changed after run" in refused.message
    assert "--force" not in refused.message and "put them back to undo it" in refused.message  # force cannot help
    forced = ws.undo(force=True)
    assert not forced.ok
    assert "kept only a reverse patch" in forced.message and "nothing was restored" in forced.message
    assert state_of(big) == changed
    # put back the bytes the run wrote, and the patch fits again
    (big / "big.py").write_bytes(changed[0][: -len("# saved by the user afterwards\n")])
    assert ws.undo().ok
    assert state_of(big) == before


def test_a_damaged_patch_is_refused_and_the_file_left_alone(big: Path) -> None:
    run_id = replace_line(big, 300, new="value_000300 = 0")
    state, document, payload = read_record(record_path(big, run_id))
    assert b"compute(300" in payload
    write_record(record_path(big, run_id), state, document, payload.replace(b"compute", b"COMPUTE"))
    after = state_of(big)
    undone = Workspace(big).undo(force=True)
    assert not undone.ok
    assert f"the reverse patch of `big.py` in run {run_id} is missing or damaged" in undone.message
    assert state_of(big) == after


@pytest.mark.parametrize("cut", [lambda data: data[:-3], lambda data: data[:30], lambda data: data + b"tail"],
                         ids=["payload-cut-short", "head-cut-short", "bytes-appended"])
def test_a_record_cut_short_or_grown_is_named_damaged(big: Path, cut: Callable[[bytes], bytes]) -> None:
    run_id = replace_line(big, 300)
    path = record_path(big, run_id)
    path.write_bytes(cut(path.read_bytes()))
    after = state_of(big)
    undone = Workspace(big).undo()
    assert not undone.ok
    assert f"the record of run {run_id} is damaged (its record " in undone.message
    assert "cut short" in undone.message or "more than it describes" in undone.message
    assert state_of(big) == after


def test_the_rounds_of_one_run_are_undone_together_through_their_patches(big: Path) -> None:
    before = state_of(big)
    ws = Workspace(big)
    first = None
    for number in (10, 30_000, 11):
        snapshot = ws.read("big.py")
        assert isinstance(snapshot, FileSnapshot) and snapshot.text is not None
        text = snapshot.text.replace(line(number), line(number).replace("compute", "derive"))
        outcome = ws.commit([PlannedWrite(snapshot, text)], joins=first)
        first = first or outcome.run_id
    undone = ws.undo()
    assert undone.ok and len(undone.runs) == 3, undone.message
    assert state_of(big) == before


KILLED_AT_THE_MARK = textwrap.dedent(
    """
    import os, signal, sys
    from editblocks.tools import ToolHandler
    real = os.pwrite
    def pwrite(fd, data, offset):
        if data.startswith(b"committed"):
            os.kill(os.getpid(), signal.SIGKILL)  # every file is renamed and synced; the run is not marked committed
        return real(fd, data, offset)
    os.pwrite = pwrite
    old = sys.argv[2]
    ToolHandler(sys.argv[1]).call("str_replace_based_edit_tool", {"command": "str_replace", "path": "big.py",
                                  "old_str": old, "new_str": old + "  # edited"})
    """
)


def test_a_run_killed_before_its_mark_counts_as_committed_and_is_undone_through_its_patch(big: Path) -> None:
    """Every file holds what the run wrote: only the (unsynced) committed mark is missing, so the run landed and
    the next edit is not sent to `undo` first; undo then takes it back like any run."""
    before = state_of(big)
    killed = subprocess.run([sys.executable, "-c", KILLED_AT_THE_MARK, str(big), line(777).rstrip("\n")],
                            capture_output=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    edited = line(777).encode()
    assert state_of(big)[0] == before[0].replace(edited, edited[:-1] + b"  # edited\n")
    run_id = next(path.name for path in (big / ".editblocks" / "journal").iterdir() if path.name[0].isdigit())
    assert read_record(record_path(big, run_id))[0] == "pending"
    ws = Workspace(big)
    assert ws.interrupted_run() is None
    assert read_record(record_path(big, run_id))[0] == "committed"
    undone = ws.undo()
    assert undone.ok and undone.run_id == run_id, undone.message
    assert state_of(big) == before


def test_a_pending_run_with_a_file_not_as_it_wrote_still_waits_for_undo(big: Path) -> None:
    before = state_of(big)
    ws = Workspace(big)
    snapshot = ws.read("big.py")
    assert isinstance(snapshot, FileSnapshot) and snapshot.text is not None
    outcome = ws.commit([PlannedWrite(snapshot, snapshot.text.replace(line(5), line(5).replace("compute", "x")))])
    assert outcome.run_id is not None
    path = record_path(big, outcome.run_id)
    _, document, payload = read_record(path)
    write_record(path, "pending", document, payload)  # as if killed before the last rename
    (big / "big.py").write_bytes(before[0])
    fresh = Workspace(big)
    assert fresh.interrupted_run() == outcome.run_id
    recovered = fresh.undo()
    assert recovered.ok and recovered.message.startswith(f"recovered interrupted run {outcome.run_id}")
    assert state_of(big) == before


# --- a record is data a repository or another user can plant ---------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a record to another user")
def test_a_record_another_user_owns_is_left_alone_and_named(big: Path) -> None:
    before = state_of(big)
    mine = replace_line(big, 300)
    state, document, payload = read_record(record_path(big, mine))
    planted = f"{int(mine[:8]) + 1:08d}{mine[8:]}"
    document["run_id"] = planted
    write_record(record_path(big, planted), state, document, payload)
    os.chown(record_path(big, planted), 12345, 12345)
    undone = Workspace(big).undo()
    assert undone.ok, undone.message
    assert f"left run {planted} alone (its record belongs to user 12345" in undone.message
    assert undone.run_id == mine and state_of(big) == before


def test_a_record_that_is_a_symlink_is_never_read_through(big: Path, tmp_path: Path) -> None:
    mine = replace_line(big, 300)
    outside = tmp_path / "elsewhere"
    record_path(big, mine).rename(outside)
    record_path(big, mine).symlink_to(outside)
    after = state_of(big)
    undone = Workspace(big).undo()
    assert not undone.ok and "symlink" in undone.message and f"run {mine} is damaged" in undone.message
    assert state_of(big) == after


KILLED_BETWEEN_RENAMES = textwrap.dedent(
    """
    import os, signal, sys
    from editblocks.workspace import PlannedWrite, Workspace
    ws = Workspace(sys.argv[1])
    writes = []
    for path in ("big.py", "twin.py"):
        snapshot = ws.read(path)
        writes.append(PlannedWrite(snapshot, snapshot.text.replace("compute(500,", "derive(500,")))
    real, renames = os.replace, []
    def replace(*args, **kwargs):
        renames.append(args)
        if len(renames) == 2:
            os.kill(os.getpid(), signal.SIGKILL)  # the first big file is new, the second still old
        return real(*args, **kwargs)
    os.replace = replace
    ws.commit(writes)
    """
)


def test_a_run_killed_between_two_patched_files_is_recovered(big: Path) -> None:
    (big / "twin.py").write_bytes((big / "big.py").read_bytes())
    before = {name: (big / name).read_bytes() for name in ("big.py", "twin.py")}
    killed = subprocess.run([sys.executable, "-c", KILLED_BETWEEN_RENAMES, str(big)], capture_output=True, timeout=60)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    assert (big / "big.py").read_bytes() != before["big.py"] and (big / "twin.py").read_bytes() == before["twin.py"]
    ws = Workspace(big)
    run_id = ws.interrupted_run()
    assert run_id is not None
    _, document, _ = read_record(record_path(big, run_id))
    assert all("keep_start" in entry["saved"] for entry in document["files"])
    recovered = ws.undo()
    assert recovered.ok, recovered.message
    assert {name: (big / name).read_bytes() for name in ("big.py", "twin.py")} == before
    assert not list(big.glob(".*.tmp"))
