"""V4A patches and the Responses API's `apply_patch` operations, as Codex and OpenAI's reference apply them.

Issue 24 §2: header lines padded with spaces (Codex's fixtures 017, 018 and
020), `*** End of File` after an earlier hunk, the operation's `move_to`, and
`create_file` content exactly as the reference writes it (a last bare `+` line
only ends the text; CRLF stays CRLF). Issue 25: growth of hunks whose `@@`
anchor is missing.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from test_reliability import GROWTH_FACTOR, GROWTH_LIMIT, growth, slow

from editblocks import Status, parse
from editblocks.plan import TargetFile, plan_edits
from editblocks.service.apply import apply
from editblocks.tools import ToolHandler

from helpers_apply import make_tree, tree_state


def files(root: Path) -> dict[str, bytes]:
    return {path: entry[1] for path, entry in tree_state(root).items() if entry[0] == "file"}


def applied(root: Path, patch: str) -> object:
    return apply(parse(patch, "v4a"), root)


# --- padded header lines ------------------------------------------------------------------------------------------

PADDED = {
    "an update line with leading spaces": "*** Begin Patch\n  *** Update File: f.txt\n@@\n-one\n+two\n*** End Patch\n",
    "begin with a trailing space, end with a leading one": "*** Begin Patch \n*** Update File: f.txt\n@@\n-one\n"
                                                           "+two\n *** End Patch\n",
    "begin with a leading space, end with a trailing one": " *** Begin Patch\n*** Update File: f.txt\n@@\n-one\n"
                                                           "+two\n*** End Patch \n",
    "padded add and delete lines": "*** Begin Patch\n *** Add File: n.txt\n+new\n   *** Delete File: gone.txt\n"
                                   "*** Update File: f.txt\n@@\n-one\n+two\n*** End Patch\n",
}


@pytest.mark.parametrize("case", sorted(PADDED))
def test_padded_patch_lines_are_read_as_codex_reads_them(tmp_path: Path, case: str) -> None:
    make_tree(tmp_path, {"f.txt": "one\n", "gone.txt": "bye\n"})
    result = applied(tmp_path, PADDED[case])
    assert result.results and all(r.status is Status.APPLIED for r in result.results), result.results
    expected = {"f.txt": b"two\n", "gone.txt": b"bye\n"}
    if "add and delete" in case:
        expected = {"f.txt": b"two\n", "n.txt": b"new\n"}
    assert files(tmp_path) == expected


def test_a_padded_end_patch_followed_by_hunk_lines_is_a_context_line(tmp_path: Path) -> None:
    make_tree(tmp_path, {"doc.md": "Write:\n*** End Patch\nlast\n"})
    patch = "*** Begin Patch\n*** Update File: doc.md\n@@\n-Write:\n+Then write:\n *** End Patch\n last\n*** End Patch\n"
    result = applied(tmp_path, patch)
    assert [r.status for r in result.results] == [Status.APPLIED]
    assert files(tmp_path)["doc.md"] == b"Then write:\n*** End Patch\nlast\n"


def test_a_padded_header_inside_an_update_section_stays_a_context_line(tmp_path: Path) -> None:
    make_tree(tmp_path, {"doc.md": "a\n*** Update File: x\nb\n"})
    patch = "*** Begin Patch\n*** Update File: doc.md\n@@\n a\n *** Update File: x\n-b\n+B\n*** End Patch\n"
    result = applied(tmp_path, patch)
    assert [r.status for r in result.results] == [Status.APPLIED]
    assert files(tmp_path)["doc.md"] == b"a\n*** Update File: x\nB\n"


# --- `*** End of File` ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["a\nb\nc\nd\ne\nf\n", "a\nb\nc\nd\ne\nf"])
def test_end_of_file_with_an_additions_only_chunk_after_an_earlier_hunk_appends_at_the_end(tmp_path: Path,
                                                                                          text: str) -> None:
    make_tree(tmp_path, {"i.txt": text})
    patch = "*** Begin Patch\n*** Update File: i.txt\n@@\n a\n-b\n+B\n@@\n+g\n+h\n*** End of File\n*** End Patch\n"
    result = applied(tmp_path, patch)
    assert [r.status for r in result.results] == [Status.APPLIED, Status.APPLIED]
    ending = "\n" if text.endswith("\n") else ""
    assert files(tmp_path)["i.txt"] == f"a\nB\nc\nd\ne\nf\ng\nh{ending}".encode()


def test_codex_interleaved_chunks_with_an_end_of_file_append(tmp_path: Path) -> None:
    make_tree(tmp_path, {"i.txt": "a\nb\nc\nd\ne\nf\n"})
    patch = ("*** Begin Patch\n*** Update File: i.txt\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n"
             "*** End of File\n*** End Patch\n")
    applied(tmp_path, patch)
    assert files(tmp_path)["i.txt"] == b"a\nB\nc\nd\nE\nf\ng\n"


# --- the Responses API's operations --------------------------------------------------------------------------------


def test_an_update_operation_with_move_to_moves_the_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"src/old.py": "VALUE = 1\n"})
    reply = ToolHandler(tmp_path).call("apply_patch", {"operation": {
        "type": "update_file", "path": "src/old.py", "move_to": "src/new.py", "diff": "@@\n-VALUE = 1\n+VALUE = 2\n"}})
    assert reply.ok, reply.text
    assert files(tmp_path) == {"src/new.py": b"VALUE = 2\n"}
    assert "renamed to src/new.py" in reply.text


@pytest.mark.parametrize("move_to", [5, ["a.py"], {"path": "a.py"}, "", "two\nlines.py"])
def test_an_invalid_move_to_is_refused_and_nothing_changes(tmp_path: Path, move_to: object) -> None:
    make_tree(tmp_path, {"old.py": "VALUE = 1\n"})
    reply = ToolHandler(tmp_path).call("apply_patch", {"operation": {
        "type": "update_file", "path": "old.py", "move_to": move_to, "diff": "@@\n-VALUE = 1\n+VALUE = 2\n"}})
    assert not reply.ok and "move_to" in reply.text
    assert files(tmp_path) == {"old.py": b"VALUE = 1\n"}


def test_move_to_on_a_create_operation_is_refused(tmp_path: Path) -> None:
    reply = ToolHandler(tmp_path).call("apply_patch", {"operation": {
        "type": "create_file", "path": "a.py", "move_to": "b.py", "diff": "+x = 1\n"}})
    assert not reply.ok and files(tmp_path) == {}


@pytest.mark.parametrize(("diff", "written"), [
    ("+a\n+b\n+", b"a\nb\n"),
    ("+a\n+b\n+\n", b"a\nb\n"),
    ("+a\n+\n+b\n", b"a\n\nb\n"),
    ("+a\n+b", b"a\nb\n"),
    ("+a\r\n+b\r\n+", b"a\r\nb\r\n"),
    ("+a\r\n+b\r\n", b"a\r\nb\r\n"),
])
def test_create_file_writes_the_content_as_openais_reference_does(tmp_path: Path, diff: str, written: bytes) -> None:
    reply = ToolHandler(tmp_path).call("apply_patch", {"operation": {"type": "create_file", "path": "n.txt",
                                                                     "diff": diff}})
    assert reply.ok, reply.text
    assert files(tmp_path) == {"n.txt": written}


def test_an_add_file_section_with_crlf_lines_creates_a_crlf_file(tmp_path: Path) -> None:
    applied(tmp_path, "*** Begin Patch\n*** Add File: w.txt\n+one\r\n+two\r\n*** End Patch\n")
    assert files(tmp_path) == {"w.txt": b"one\r\ntwo\r\n"}


def test_an_all_crlf_patch_still_creates_an_lf_file(tmp_path: Path) -> None:
    applied(tmp_path, "*** Begin Patch\r\n*** Add File: w.txt\r\n+one\r\n+two\r\n*** End Patch\r\n")
    assert files(tmp_path) == {"w.txt": b"one\ntwo\n"}


# --- growth ------------------------------------------------------------------------------------------------------


def planning(make: object) -> object:
    def run_at(size: int) -> functools.partial[object]:
        text, patch, fmt = make(size)  # type: ignore[operator]
        blocks = parse(patch, fmt).blocks
        return functools.partial(plan_edits, blocks, {"a.py": TargetFile("a.py", text)})
    return run_at


def numbered(size: int) -> str:
    return "".join(f"line {n}\n" for n in range(size))


def missing_anchors(size: int) -> tuple[str, str, str]:
    hunks = "".join(f"@@ not in the file {n}\n-line {n}\n+LINE {n}\n" for n in range(0, size, 4))
    return numbered(size), f"*** Begin Patch\n*** Update File: a.py\n{hunks}*** End Patch\n", "v4a"


def found_anchors(size: int) -> tuple[str, str, str]:
    hunks = "".join(f"@@ line {n}\n-line {n + 1}\n+LINE {n + 1}\n" for n in range(0, size - 1, 4))
    return numbered(size), f"*** Begin Patch\n*** Update File: a.py\n{hunks}*** End Patch\n", "v4a"


def u0_insertions(size: int) -> tuple[str, str, str]:
    hunks = "".join(f"@@ -{n},0 +{n + n // 4 + 1} @@\n+new {n}\n" for n in range(0, size, 4))
    return numbered(size), f"--- a/a.py\n+++ b/a.py\n{hunks}", "udiff"


GROWTH_CASES = {"v4a-missing-anchors": (missing_anchors, 2_000), "v4a-found-anchors": (found_anchors, 2_000),
                "udiff-u0-insertions": (u0_insertions, 4_000)}


@slow
@pytest.mark.parametrize("case", sorted(GROWTH_CASES))
def test_planning_many_hunks_on_one_file_grows_linearly(case: str) -> None:
    make, size = GROWTH_CASES[case]
    ratio = growth(planning(make), size)  # type: ignore[arg-type]
    assert ratio < GROWTH_LIMIT, f"{case}: {GROWTH_FACTOR}x the hunks and lines took {ratio:.1f}x the time"


def test_the_growth_cases_do_what_they_say() -> None:
    for make in (missing_anchors, found_anchors, u0_insertions):
        text, patch, fmt = make(40)
        plan = plan_edits(parse(patch, fmt).blocks, {"a.py": TargetFile("a.py", text)})
        wanted = Status.FAILED if make is missing_anchors else Status.APPLIED
        assert {r.status for r in plan.results} == {wanted}, make
