"""`EditSession`: the same answer gives the same result on the disk and in memory; preview, apply, undo, feedback."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from editblocks import ApplyOptions, EditSession, MemoryStore
from editblocks.model import ResultCode, Status

FILES = {"app.py": "def main():\n    print('hi')\n", "util.py": "x = 1\n"}
ANSWER = ("app.py\n<<<<<<< SEARCH\n    print('hi')\n=======\n    print('bye')\n>>>>>>> REPLACE\n"
          "util.py\n<<<<<<< SEARCH\ny = 2\n=======\ny = 3\n>>>>>>> REPLACE\n")


def on_disk(root: Path) -> EditSession:
    for name, text in FILES.items():
        (root / name).write_text(text)
    return EditSession.on_disk(root)


def test_preview_apply_undo_and_feedback_agree_on_the_disk_and_in_memory(tmp_path: Path) -> None:
    memory = EditSession(MemoryStore(FILES))
    disk = on_disk(tmp_path)
    for session in (memory, disk):
        preview = session.preview(ANSWER)
        assert preview.dry_run and not preview.written
        assert [r.status for r in preview.results] == [Status.APPLIED, Status.FAILED]
        assert session.exit_status(preview) == 1
    assert memory.preview(ANSWER) == disk.preview(ANSWER)
    assert memory.feedback(memory.preview(ANSWER), ANSWER, memory.parse(ANSWER)) == \
        disk.feedback(disk.preview(ANSWER), ANSWER, disk.parse(ANSWER))
    written = [session.apply(ANSWER) for session in (memory, disk)]
    assert replace(written[0], run_id=None) == replace(written[1], run_id=None)  # each store names its own runs
    assert written[0].written and written[0].files_modified == ("app.py",) and written[0].run_id
    assert (tmp_path / "app.py").read_text() == "def main():\n    print('bye')\n"
    assert isinstance(memory.store, MemoryStore) and memory.store.text("app.py") == "def main():\n    print('bye')\n"
    for session in (memory, disk):
        assert session.undo().ok
    assert (tmp_path / "app.py").read_text() == FILES["app.py"] and memory.store.text("app.py") == FILES["app.py"]


def test_nothing_to_undo_makes_no_journal(tmp_path: Path) -> None:
    session = on_disk(tmp_path)
    undone = session.undo()
    assert not undone.ok and undone.message == "nothing to undo"
    assert not (tmp_path / ".editblocks").exists()


def test_the_options_decide_for_every_call() -> None:
    strict = EditSession(MemoryStore({"app.py": "def main():\n\tprint('hi')\n"}), ApplyOptions(strict=True))
    result = strict.apply("app.py\n<<<<<<< SEARCH\n    print('hi')\n=======\n    print('x')\n>>>>>>> REPLACE\n")
    assert result.results[0].code is ResultCode.NOT_FOUND and not result.written


def test_live_verdicts_come_from_the_planner_apply_uses() -> None:
    session = EditSession(MemoryStore(FILES))
    live = session.live()
    for char in ANSWER:
        live.feed(char)
    live.close()
    assert [located.result for located in live.located] == list(session.preview(ANSWER).results)
