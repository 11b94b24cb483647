"""Defects an independent review found in the V4A / unified / whole / tool front-ends (issue 14), each pinned."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from test_reliability import GROWTH_FACTOR, GROWTH_LIMIT, growth, parsed_with_peak_memory, slow

from editblocks import ResultCode, Status, parse
from editblocks.locate.elision import is_lazy_comment
from editblocks.model import Format
from editblocks.parsing.patches.unified import read_unified
from editblocks.service.apply import apply
from editblocks.tools import ToolHandler

from helpers_apply import make_tree

HEADERLESS = "diff --git a/x b/x\n"


def test_headerless_git_sections_get_spans_that_never_run_backwards() -> None:
    """A `diff --git` line with nothing after it is still a section: its span covers that line."""
    _, spans = read_unified(HEADERLESS * 3)
    assert spans == [(0, 19), (19, 38), (38, 57)]


def test_prose_around_headerless_sections_is_read_for_shell_commands_once() -> None:
    text = "Run:\n\n```bash\nrm -rf build\n```\n\ndiff --git a/x b/x\ndiff --git a/y b/y\n"
    assert [(s.command, s.line) for s in parse(text, Format.UDIFF).shell] == [("rm -rf build", 4)]


@slow
def test_a_flood_of_headerless_git_lines_parses_in_linear_time() -> None:
    ratio = growth(lambda n: functools.partial(parse, HEADERLESS * n), 2_000)
    assert ratio < GROWTH_LIMIT, f"{GROWTH_FACTOR * 2_000} headerless sections took {ratio:.1f}x the time of 2,000"


def test_a_flood_of_headerless_git_lines_takes_bounded_memory() -> None:
    """20,000 such lines once raised MemoryError: the prose around them was rebuilt from ever-longer prefixes.
    Each section keeps its warning (about 20 bytes per byte of answer); quadratic would be thousands."""
    text = HEADERLESS * 5_000
    result, peak = parsed_with_peak_memory(text)
    assert not result.blocks
    assert peak < 50 * len(text), f"peak memory {peak / len(text):.1f}x the answer"


# --- 2. whole-file answers that leave code out in words, or send nothing ---------------------------------------------

LONG_JS = "".join(f"function f{n}() {{ return {n}; }}\n" for n in range(150))


@pytest.mark.parametrize("comment", [
    "// existing code here", "// existing code", "// rest of the file unchanged", "# keep existing code",
    "# (rest of the file as before)", "/* rest of the implementation remains the same */",
])
def test_a_whole_file_that_names_the_code_it_leaves_out_is_refused(tmp_path: Path, comment: str) -> None:
    make_tree(tmp_path, {"a.js": LONG_JS})
    result = apply(parse(f"a.js\n```\nfunction g() {{}}\n{comment}\n```\n", "whole"), tmp_path)
    assert result.results[0].status is Status.FAILED
    assert result.results[0].code is ResultCode.REFUSED
    assert "stands for code it leaves out" in result.results[0].reason
    assert (tmp_path / "a.js").read_text() == LONG_JS


def test_a_lazy_looking_comment_the_file_already_has_is_kept(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "# keep existing code\nx = 1\n"})
    result = apply(parse("a.py\n```\n# keep existing code\nx = 2\n```\n", "whole"), tmp_path)
    assert result.results[0].status is Status.APPLIED
    assert (tmp_path / "a.py").read_text() == "# keep existing code\nx = 2\n"


@pytest.mark.parametrize("line", [
    "# Return the rest of the lines", "# use the existing connection", "# remaining items",
    "# Fall back to the existing code path when the cache is cold", "x = existing_code + rest_of_file",
])
def test_ordinary_comments_and_code_are_not_taken_for_left_out_code(line: str) -> None:
    assert not is_lazy_comment(line)


def test_an_empty_whole_file_never_empties_a_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n", "empty.py": ""})
    result = apply(parse("a.py\n```\n```\n\nnew.py\n```\n```\n\nempty.py\n```\n```\n", "whole"), tmp_path)
    statuses = [(r.block.path, r.status) for r in result.results]
    assert statuses == [("a.py", Status.FAILED), ("new.py", Status.APPLIED), ("empty.py", Status.SKIPPED)]
    assert "is empty" in result.results[0].reason and "delete the file" in result.results[0].reason
    assert (tmp_path / "a.py").read_text() == "x = 1\n"


# --- 3. deleting or moving by a symlink's name --------------------------------------------------------------------

def v4a(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


def linked_tree(root: Path) -> None:
    make_tree(root, {"real.py": "x = 1\n", "other.py": "y = 1\n", "sub/in.py": "z = 1\n"})
    (root / "link.py").symlink_to("real.py")
    (root / "dirlink").symlink_to("sub")


def disk(root: Path) -> dict[str, str]:
    return {path.name: (f"-> {path.readlink()}" if path.is_symlink() else path.read_text())
            for path in sorted(root.iterdir()) if path.name != ".editblocks" and not path.is_dir()}


@pytest.mark.parametrize("answer", [
    v4a("*** Delete File: link.py\n"),
    v4a("*** Update File: link.py\n*** Move to: moved.py\n"),
    "diff --git a/link.py b/moved.py\nsimilarity index 100%\nrename from link.py\nrename to moved.py\n",
    "--- a/link.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x = 1\n",
    v4a("*** Delete File: dirlink/in.py\n"),
], ids=["v4a-delete", "v4a-move", "git-rename", "udiff-delete", "through-a-folder-link"])
def test_a_file_is_never_deleted_or_moved_by_a_symlinks_name(tmp_path: Path, answer: str) -> None:
    linked_tree(tmp_path)
    before = disk(tmp_path)
    result = apply(parse(answer), tmp_path)
    refused = [r for r in result.results if r.block.kind.value in ("delete", "move")]
    assert refused and all(r.status is Status.FAILED and r.code is ResultCode.REFUSED for r in refused)
    assert "symlink" in refused[0].reason
    assert disk(tmp_path) == before and (tmp_path / "sub/in.py").read_text() == "z = 1\n"


def test_a_file_is_never_moved_onto_a_symlinks_name(tmp_path: Path) -> None:
    linked_tree(tmp_path)
    (tmp_path / "dangling.py").symlink_to("nowhere.py")
    before = disk(tmp_path)
    result = apply(parse(v4a("*** Update File: other.py\n*** Move to: dirlink/new.py\n")), tmp_path)
    assert [(r.status, r.code) for r in result.results] == [(Status.FAILED, ResultCode.REFUSED)]
    assert disk(tmp_path) == before and not (tmp_path / "sub/new.py").exists()


def test_by_their_own_names_files_are_still_deleted_moved_and_edited_through_links(tmp_path: Path) -> None:
    linked_tree(tmp_path)
    answer = v4a("*** Update File: link.py\n@@\n-x = 1\n+x = 2\n", "*** Delete File: other.py\n",
                 "*** Update File: sub/in.py\n*** Move to: moved.py\n")
    result = apply(parse(answer), tmp_path)
    assert [r.status for r in result.results] == [Status.APPLIED] * 3
    assert disk(tmp_path) == {"link.py": "-> real.py", "moved.py": "z = 1\n", "real.py": "x = 2\n"}


# --- 4. an Update File + Move to section is one operation ---------------------------------------------------------

def moving(move_to: str, old: str = "x = 1") -> str:
    return v4a(f"*** Update File: a.py\n*** Move to: {move_to}\n@@\n-{old}\n+x = 2\n")


@pytest.mark.parametrize("policy", [None, "skip-file"])
def test_a_section_whose_hunk_fails_does_not_move_its_file(tmp_path: Path, policy: str | None) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n"})
    result = apply(parse(moving("b.py", old="nope")), tmp_path, policy=policy)
    assert [r.status for r in result.results] == [Status.FAILED, Status.SKIPPED]
    assert disk(tmp_path) == {"a.py": "x = 1\n"}


@pytest.mark.parametrize("policy", [None, "skip-file"])
@pytest.mark.parametrize("move_to", ["exists.py", "../outside.py", ".git/x.py"])
def test_a_section_whose_move_is_refused_applies_none_of_its_hunks(tmp_path: Path, move_to: str,
                                                                  policy: str | None) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n", "exists.py": "e\n"})
    result = apply(parse(moving(move_to)), tmp_path, policy=policy)
    assert result.results[0].status is Status.FAILED and "not applied" in result.results[0].reason
    assert result.results[1].status is not Status.APPLIED
    assert disk(tmp_path) == {"a.py": "x = 1\n", "exists.py": "e\n"}
    assert not (tmp_path.parent / "outside.py").exists()


def test_a_section_that_moves_a_symlink_applies_none_of_its_hunks(tmp_path: Path) -> None:
    linked_tree(tmp_path)
    before = disk(tmp_path)
    result = apply(parse(v4a("*** Update File: link.py\n*** Move to: moved.py\n@@\n-x = 1\n+x = 2\n")), tmp_path)
    assert [r.status for r in result.results] == [Status.FAILED, Status.FAILED]
    assert disk(tmp_path) == before


def test_a_section_that_moves_and_edits_still_does_both(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n"})
    result = apply(parse(moving("b.py")), tmp_path)
    assert [r.status for r in result.results] == [Status.APPLIED, Status.APPLIED]
    assert disk(tmp_path) == {"b.py": "x = 2\n"}


# --- 5. a Responses `apply_patch` operation changes only its own file ---------------------------------------------

@pytest.mark.parametrize(("kind", "diff"), [
    ("update_file", "@@\n-x = 1\n+x = 2\n*** Delete File: b.py\n"),
    ("update_file", "@@\n-x = 1\n+x = 2\n*** End Patch\n*** Begin Patch\n*** Add File: c.py\n+c\n"),
    ("update_file", "*** Update File: b.py\n@@\n-y = 1\n+y = 2\n"),
    ("create_file", "+new\n*** Delete File: b.py\n"),
])
def test_an_operation_whose_diff_opens_another_files_section_is_refused(tmp_path: Path, kind: str,
                                                                        diff: str) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    path = "a.py" if kind == "update_file" else "n.py"
    reply = ToolHandler(tmp_path).call("apply_patch", {"type": kind, "path": path, "diff": diff})
    assert not reply.ok and "one operation per file" in reply.text
    assert disk(tmp_path) == {"a.py": "x = 1\n", "b.py": "y = 1\n"}


def test_an_operation_may_pin_its_hunk_to_the_end_of_its_file(tmp_path: Path) -> None:
    make_tree(tmp_path, {"a.py": "x = 1\n"})
    reply = ToolHandler(tmp_path).call("apply_patch", {"type": "update_file", "path": "a.py",
                                                       "diff": "@@\n-x = 1\n+x = 2\n*** End of File\n"})
    assert reply.ok and (tmp_path / "a.py").read_text() == "x = 2\n"


# --- 7. str_replace at the end of a file honours the line break it adds or takes away ----------------------------

@pytest.mark.parametrize(("before", "old", "new", "after"), [
    ("one\ntwo\nthree", "three", "three\n", "one\ntwo\nthree\n"),
    ("one\r\ntwo\r\nthree", "three", "three\nfour\n", "one\r\ntwo\r\nthree\r\nfour\r\n"),
    ("one\ntwo\nthree\n", "three\n", "three", "one\ntwo\nthree"),
    ("one\ntwo\nthree", "two", "2", "one\n2\nthree"),
    ("one\ntwo\nthree\n", "three", "3", "one\ntwo\n3\n"),
])
def test_str_replace_at_the_end_of_a_file_keeps_the_text_it_was_given(tmp_path: Path, before: str, old: str,
                                                                      new: str, after: str) -> None:
    (tmp_path / "a.txt").write_bytes(before.encode())
    reply = ToolHandler(tmp_path).call("str_replace_based_edit_tool",
                                       {"command": "str_replace", "path": "a.txt", "old_str": old, "new_str": new})
    assert reply.ok
    assert (tmp_path / "a.txt").read_bytes() == after.encode()
