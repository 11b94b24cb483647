"""The workbench's parts on their own: Markdown, the picker's listing, changes inside a block, saved runs, answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from editblocks.model import Status
from editblocks.parsing.stream import parse
from editblocks.plan import TargetFile
from editblocks.service.live import LiveAnswer, LiveLocator
from editblocks.web.block_changes import change_count, change_rows, without_changes
from editblocks.web.file_picker import list_project
from editblocks.web.highlight import lexer_for
from editblocks.web.live_round import LiveRound, Prose, Slot
from editblocks.web.markdown import around_block, render
from editblocks.workspace.project_files import file_heads, file_stamps
from editblocks.workspace.run_records import list_records, open_record, start_record

from helpers_apply import diff_edit
from helpers_web import ANSWER, FILES


@pytest.mark.parametrize(("text", "present", "absent"), [
    ("<script>alert(1)</script>", "&lt;script&gt;", "<script"),
    ('<img src=x onerror="alert(1)">', "&lt;img", "<img"),
    ("![pic](http://example.invalid/a.png)", "[image: pic · http://example.invalid/a.png]", "<img"),
    ("[x](javascript:alert(1))", "[x](javascript:alert(1))", "href"),
    ("[x](data:text/html,boom)", "[x](data:text/html,boom)", "href"),
    ("[x](https://example.invalid/)", 'rel="noopener noreferrer"', "javascript"),
    ("a\u202eb", "\\u202e", "\u202e"),
    ("| a |\n|---|\n| 1 |", "<table>", "| a |"),
])
def test_markdown_holds_no_markup_from_the_model(text: str, present: str, absent: str) -> None:
    html = render(text)
    assert present in html and absent not in html


@pytest.mark.parametrize(("before", "after", "shown_before", "shown_after"), [
    ("Intro.\n\napp.py\n```python\n", "```\n\nThen.\n", "Intro.\n\n", "\nThen.\n"),
    ("Intro.\n\n`app.py`\n~~~\n", "~~~\nThen.\n", "Intro.\n\n", "Then.\n"),
    ("```\n\n```python\napp.py\n", "```\n", "```\n\n", ""),  # the path inside the fence
    ("Intro.\n\napp.py\n", "```python\ncode\n```\n", "Intro.\n\n", "```python\ncode\n```\n"),  # not fenced
    ("Intro ending mid-line", "```\n", "Intro ending mid-line", "```\n"),
    ("", "", "", ""),
])
def test_the_lines_that_frame_a_block_are_not_prose(before: str, after: str, shown_before: str,
                                                    shown_after: str) -> None:
    assert around_block(before, after, "app.py") == (shown_before, shown_after)


def test_the_picker_reads_every_gitignore_on_the_way_and_sniffs_binary_files(tmp_path: Path) -> None:
    files = {".gitignore": "*.log\n!keep.log\ncache/\n", "a.py": "x\n", "keep.log": "k\n", "drop.log": "d\n",
             "cache/c.py": "c\n", "sub/.gitignore": "local.py\n", "sub/local.py": "l\n", "sub/other.py": "o\n",
             "local.py": "not ignored at the top\n", ".git/info/exclude": "excluded.txt\n", "excluded.txt": "e\n"}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "blob.bin").write_bytes(b"GIF89a\0\0")
    (tmp_path / "late.bin").write_bytes(b"x" * 9000 + b"\0")  # a NUL past the first bytes: read as text, as git does
    listing = list_project(tmp_path)
    by_path = {f.path: f for f in listing.files}
    assert {p for p, f in by_path.items() if f.ignored} == {"drop.log", "cache/c.py", "sub/local.py", "excluded.txt"}
    assert {p for p, f in by_path.items() if f.binary} == {"blob.bin"}
    assert ".git/info/exclude" not in by_path and not listing.truncated
    assert list_project(tmp_path, limit=3).truncated


def test_the_picker_lists_no_file_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("s\n")
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.py").write_text("a\n")
    os.symlink(outside, root / "linked")
    os.symlink(outside / "secret.py", root / "link.py")
    assert [f.path for f in list_project(root).files] == ["a.py", "link.py"]
    assert file_heads(root, ["link.py", "linked/secret.py", "../outside/secret.py", "a.py"], 10) == {
        "link.py": None, "linked/secret.py": None, "../outside/secret.py": None, "a.py": b"a\n"}
    stamps = file_stamps(root, ["a.py", "missing.py", "/etc/passwd"])
    assert stamps["a.py"] is not None and stamps["missing.py"] is None and stamps["/etc/passwd"] is None


def test_changes_inside_a_block_can_be_kept_or_refused_one_by_one() -> None:
    old = "a = 1\nb = 2\nc = 3\nd = 4\n"
    new = "a = 10\nb = 2\nc = 3\nd = 40\n"
    block = parse(diff_edit("f.py", (old, new))).blocks[0]
    assert change_count(block) == 2
    assert without_changes(block, {2}).new == "a = 10\nb = 2\nc = 3\nd = 4\n"
    assert without_changes(block, {1}).new == "a = 1\nb = 2\nc = 3\nd = 40\n"
    assert without_changes(block, {1, 2}).new == old
    rows = change_rows(block, lexer_for("f.py"))
    assert [(kind, change) for kind, _, change in rows] == [("-", 1), ("+", 1), (" ", 0), (" ", 0), ("-", 2), ("+", 2)]
    created = parse(diff_edit("new.py", ("", "x = 1\n"))).blocks[0]
    assert change_count(created) == 1


def test_saved_runs_are_listed_newest_first_and_only_by_their_own_names(tmp_path: Path) -> None:
    first, second = start_record(tmp_path), start_record(tmp_path)
    first.put("run.json", b"{}")
    assert [r.name for r in list_records(tmp_path)] == [second.name, first.name]
    assert open_record(tmp_path, first.name).get("run.json") == b"{}"  # type: ignore[union-attr]
    assert open_record(tmp_path, first.name).get("missing.json") is None  # type: ignore[union-attr]
    for name in ("..", "../x", "20250101T000000.000000Z", first.name + "/"):
        assert open_record(tmp_path, name) is None
    assert list_records(tmp_path / "nowhere") == []


def test_an_answer_is_kept_in_reading_order_with_each_verdict_as_its_block_closes() -> None:
    clock = iter(range(1, 10_000))
    live = LiveRound(LiveAnswer(LiveLocator(lambda path: TargetFile(path, FILES.get(path)))), lambda: next(clock))
    verdict_at = []
    for start in range(0, len(ANSWER), 5):
        if live.feed(ANSWER[start:start + 5]):
            verdict_at.append(start + 5)
    live.close()
    kinds = ["prose" if isinstance(p, Prose) else "block" for p in live.pieces]
    assert kinds == ["prose", "block"] * 4 + ["prose"]
    slots = [p for p in live.pieces if isinstance(p, Slot)]
    assert [s.result.status for s in slots if s.result] == [Status.APPLIED] * 3 + [Status.FAILED]
    assert verdict_at[-1] < len(ANSWER)  # the last block's verdict came before the answer's end
    assert live.text == ANSWER
