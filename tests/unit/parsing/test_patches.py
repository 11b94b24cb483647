"""The front-end parsers: V4A patches, unified diffs and whole-file answers, read into blocks (no files touched).

Malformed input is reported with its line and yields no block for the file
it concerns; no text makes a parser raise, and parsing grows linearly.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_reliability import GROWTH_FACTOR, GROWTH_LIMIT, growth, slow

from editblocks import parse, validate
from editblocks.model import BlockKind, EditBlock, Format, Scope, Severity
from editblocks.parsing.patches.unified import parse_unified
from editblocks.parsing.patches.v4a import parse_v4a
from editblocks.parsing.patches.whole import parse_whole

PATCH = """I'll make the change.

```
*** Begin Patch
*** Update File: src/a.py
*** Move to: src/b.py
@@ class B:
@@     def f(self):
-        return 1
+        return 2
*** Add File: docs/new.md
+# New
+
+text
*** Delete File: old.txt
*** Update File: c.py
 x
-y
+z
*** End of File
*** End Patch
```
"""


def kinds(result) -> list[tuple[str, str]]:
    return [(block.kind.value, block.path) for block in result.blocks]


def errors(result) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in result.diagnostics if d.severity is Severity.ERROR]


# --- V4A -----------------------------------------------------------------------------------------------------------


def test_v4a_every_operation_becomes_a_block_in_order() -> None:
    result = parse(PATCH)
    assert result.format == "v4a" and result.diagnostics == ()
    assert kinds(result) == [("edit", "src/a.py"), ("move", "src/a.py"), ("create", "docs/new.md"),
                             ("delete", "old.txt"), ("edit", "c.py")]
    update, move, add, _, last = result.blocks
    assert (update.old, update.new) == ("        return 1\n", "        return 2\n")
    assert update.scope == Scope(("class B:", "def f(self):"), after_previous=True)
    assert move.move_to == "src/b.py" and add.new == "# New\n\ntext\n"
    assert last.scope == Scope((), after_previous=True, at_end=True) and last.old == "x\ny\n"
    assert {block.format for block in result.blocks} == {Format.V4A}


def test_v4a_hunks_split_at_each_at_at_line_and_blank_lines_are_context() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n a\n\n-b\n+c\n@@\n d\n-e\n*** End Patch\n"
    first, second = parse_v4a(text).blocks
    assert (first.old, first.new, first.scope.anchors) == ("a\n\nb\n", "a\n\nc\n", ("def f():",))
    assert (second.old, second.new, second.scope.anchors, second.line) == ("d\ne\n", "d\n", (), 8)


def test_v4a_an_indented_patch_is_read_as_if_it_were_not() -> None:
    text = "  *** Begin Patch\n  *** Update File: a.py\n  @@\n   x\n  -y\n  +z\n  *** End Patch\n"
    (block,) = parse_v4a(text).blocks
    assert (block.old, block.new) == ("x\ny\n", "x\nz\n")


def test_v4a_a_line_without_prefix_drops_that_file_only_and_names_the_line() -> None:
    text = PATCH.replace(" x\n-y\n", "x\n-y\n")
    result = parse_v4a(text)
    assert kinds(result) == [("edit", "src/a.py"), ("move", "src/a.py"), ("create", "docs/new.md"),
                             ("delete", "old.txt")]
    ((line, message),) = errors(result)
    assert line == 17 and "line 17 (`x`) does not start with a space, `-` or `+`" in message
    assert "nothing is applied to c.py" in message


def test_v4a_missing_end_patch_drops_the_last_file_and_says_so() -> None:
    text = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: b.py\n x\n-y\n+z\n"
    result = parse_v4a(text)
    assert kinds(result) == [("create", "a.txt")]
    ((line, message),) = errors(result)
    assert "the patch begun at line 1 has no `*** End Patch` line" in message and "nothing is applied to b.py" in message
    fenced = parse_v4a("```\n*** Begin Patch\n*** Delete File: a.txt\n```\n")
    assert kinds(fenced) == [] and "ends (a fence at line 4) without a `*** End Patch`" in errors(fenced)[0][1]


def test_v4a_malformed_sections() -> None:
    move_late = parse_v4a("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Move to: b.py\n*** End Patch\n")
    assert kinds(move_late) == [] and "must follow its `*** Update File:` line directly" in errors(move_late)[0][1]
    delete_body = parse_v4a("*** Begin Patch\n*** Delete File: a.py\n-x\n*** End Patch\n")
    assert kinds(delete_body) == [] and "takes no lines" in errors(delete_body)[0][1]
    no_hunks = parse_v4a("*** Begin Patch\n*** Update File: a.py\n*** End Patch\n")
    assert kinds(no_hunks) == [] and "has no hunks" in errors(no_hunks)[0][1]
    add_unprefixed = parse_v4a("*** Begin Patch\n*** Add File: a.py\n+x\ny\n*** End Patch\n")
    assert kinds(add_unprefixed) == [] and "does not start with `+`" in errors(add_unprefixed)[0][1]
    unnamed = parse_v4a("*** Begin Patch\n*** Add File:\n+x\n*** End Patch\n")
    assert kinds(unnamed) == [] and "names no file" in errors(unnamed)[0][1]


def test_v4a_an_at_at_header_with_line_numbers_keeps_only_its_text_as_anchor() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@ -3,2 +3,2 @@ def f():\n-x\n+y\n*** End Patch\n"
    assert parse_v4a(text).blocks[0].scope.anchors == ("def f():",)


def test_validate_reports_a_patch_without_blocks_and_accepts_a_good_one() -> None:
    assert validate(PATCH).ok
    bad = validate("*** Begin Patch\n*** Update File: a.py\nx\n*** End Patch\n", "v4a")
    assert not bad.ok and any("no edit blocks found" in d.message for d in bad.errors)


# --- unified diffs ---------------------------------------------------------------------------------------------------

GIT_DIFF = """diff --git a/app.py b/app.py
index 3b18e51..a042389 100644
--- a/app.py
+++ b/app.py
@@ -1,3 +1,3 @@
 import os
-x = 1
+x = 2
 print(x)
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..ce01362
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hello
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index ce01362..0000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/old_name.py b/new_name.py
similarity index 100%
rename from old_name.py
rename to new_name.py
diff --git a/empty.txt b/empty.txt
new file mode 100644
index 0000000..e69de29
"""


def test_git_diff_yields_edits_creates_deletes_renames_and_empty_files() -> None:
    result = parse(GIT_DIFF)
    assert result.format == "udiff" and result.diagnostics == ()
    assert kinds(result) == [("edit", "app.py"), ("create", "new.txt"), ("delete", "gone.txt"),
                             ("move", "old_name.py"), ("create", "empty.txt")]
    edit, create, delete, move, empty = result.blocks
    assert (edit.old, edit.new, edit.line_hint) == ("import os\nx = 1\nprint(x)\n", "import os\nx = 2\nprint(x)\n", 1)
    assert create.new == "hello\n" and delete.old == "bye\n" and move.move_to == "new_name.py" and empty.new == ""


def test_a_rename_with_changes_edits_the_old_path_then_moves_it() -> None:
    text = ("diff --git a/a.py b/b.py\nsimilarity index 80%\nrename from a.py\nrename to b.py\n--- a/a.py\n"
            "+++ b/b.py\n@@ -1 +1 @@\n-x\n+y\n")
    assert kinds(parse_unified(text)) == [("edit", "a.py"), ("move", "a.py")]


def test_model_written_hunks_bare_headers_wrong_counts_and_no_newline_marker() -> None:
    text = ("--- a.py\n+++ a.py\n@@ ... @@\n def f():\n-    return 1\n+    return 2\n"
            "@@ -40,9 +40,9 @@\n x\n-y\n+z\n\\ No newline at end of file\n\nSome prose after.\n")
    result = parse_unified(text)
    first, second = result.blocks
    assert first.line_hint is None and second.line_hint == 40
    assert (second.old, second.new) == ("x\ny\n", "x\nz\n")
    (warning,) = result.warnings
    assert warning.line == 7 and "says 9 old and 9 new lines but has 2 and 2" in warning.message


def test_diff_u_timestamps_are_not_part_of_the_path() -> None:
    text = "--- a.txt\t2024-05-01 10:00:00.000000000 +0200\n+++ a.txt\t2024-05-02 11:00:00.000000000 +0200\n" \
           "@@ -1 +1 @@\n-a\n+b\n"
    assert kinds(parse_unified(text)) == [("edit", "a.txt")]


def test_counts_decide_whether_a_dashed_line_is_removed_text_or_a_new_header() -> None:
    text = "--- a/x.md\n+++ b/x.md\n@@ -1,2 +0,0 @@\n--- old rule\n-+++ more\n"
    (block,) = parse_unified(text).blocks
    assert block.old == "-- old rule\n+++ more\n" and block.new == ""


def test_binary_patches_are_refused_naming_the_line() -> None:
    text = GIT_DIFF + "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n"
    result = parse_unified(text)
    assert ("edit", "logo.png") not in kinds(result) and len(result.blocks) == 5
    ((line, message),) = errors(result)
    assert line == 33 and "binary patch for logo.png is refused" in message


def test_a_dev_null_header_whose_hunk_removes_lines_edits_the_file_by_its_content() -> None:
    # Issue 24: models write `--- /dev/null` for a file that exists; the hunk's old lines say which file it is.
    result = parse_unified("--- /dev/null\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n")
    assert kinds(result) == [("edit", "a.py")] and not result.errors


# --- whole files ----------------------------------------------------------------------------------------------------


def test_whole_files_with_their_paths_shell_fences_and_snippets() -> None:
    text = ("Here is the file.\n\nsrc/app.py\n```python\ndef f():\n    return 2\n```\n\n"
            "```bash\npytest -q\n```\n\n```python\nprint('a snippet with no path')\n```\n"
            "```python scripts/run.py\nrun()\n```\n")
    result = parse_whole(text)
    assert kinds(result) == [("whole", "src/app.py"), ("whole", "scripts/run.py")]
    assert result.blocks[0].new == "def f():\n    return 2\n"
    assert [s.command for s in result.shell] == ["pytest -q"]
    assert [w.line for w in result.warnings] == [13]


def test_a_whole_file_never_closed_is_an_error_and_no_block() -> None:
    result = parse("a.py\n```python\nx = 1\n", "whole")
    assert result.blocks == () and "never closed" in errors(result)[0][1]


def test_whole_files_are_read_only_when_asked_for() -> None:
    assert parse("a.py\n```python\nx = 1\n```\n").blocks == ()


# --- every parser: never raises, grows linearly ---------------------------------------------------------------------

_PIECES = ["*** Begin Patch\n", "*** End Patch\n", "*** Update File: a.py\n", "*** Add File: b\n",
           "*** Delete File: c\n", "*** Move to: d\n", "*** End of File\n", "@@\n", "@@ x\n", " x\n", "-y\n", "+z\n",
           "\n", "junk\n", "--- a/a.py\n", "+++ b/a.py\n", "@@ -1,2 +1 @@\n", "diff --git a/a b/b\n",
           "rename from a\n", "rename to b\n", "Binary files a and b differ\n", "\\ No newline at end of file\n",
           "```\n", "```python\n", "a.py\n", "/dev/null\n", "--- /dev/null\n", "+++ /dev/null\n"]


def test_look_alikes_of_a_patch_start_are_no_patch() -> None:
    for text in ("*** Begin Patchwork\n", "x *** Begin Patch\n", "Notes\n--- a\n+++ b\n"):
        assert parse(text).blocks == () and parse(text).format == "auto"


def test_a_hunk_header_with_digits_int_refuses_is_read_without_numbers() -> None:
    # `²` is a digit to `str.isdigit` but not a number to `int`: the header once made the parser raise.
    for header, hint in (("@@ -² +1 @@", None), ("@@ -1,² +1 @@", None), ("@@ -3 +3,³ @@", 3)):
        result = parse(f"--- a/x.py\n+++ b/x.py\n{header}\n-a\n+b\n", "udiff")
        assert [(block.old, block.new, block.line_hint) for block in result.blocks] == [("a\n", "b\n", hint)], header


@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.text(max_size=20))
def test_no_text_makes_a_front_end_raise(pieces: list[str], noise: str) -> None:
    text = "".join(pieces) + noise
    for fmt in ("v4a", "udiff", "whole", "auto"):
        result = parse(text, fmt)
        assert all(block.path is not None for block in result.blocks)
    assert validate(text, "v4a") is not None


V4A_HUNK = "@@ def f():\n a\n-b\n+c\n"
UNIFIED_HUNK = "@@ -1,3 +1,3 @@\n a\n-b\n+c\n"


LONG_HUNK = " a\n b\n c\n" + "-old\n" * 20 + "+new\n" * 20 + " d\n e\n f\n"
FRONT_END_GROWTH_CASES: dict[str, tuple[str, Callable[[int], str], int]] = {
    "v4a": ("v4a", lambda n: "*** Begin Patch\n*** Update File: a.py\n" + V4A_HUNK * n + "*** End Patch\n", 4_000),
    "udiff": ("udiff", lambda n: "--- a/a.py\n+++ b/a.py\n" + UNIFIED_HUNK * n, 4_000),
    "whole": ("whole", lambda n: "a.py\n```\n" + "x = 1\n" * (4 * n) + "```\n", 4_000),
    # Long hunks: per-line work dominates.
    "v4a-long-hunks": ("v4a", lambda n: "*** Begin Patch\n*** Update File: a.py\n" + ("@@\n" + LONG_HUNK) * n
                       + "*** End Patch\n", 1_200),
    "udiff-long-hunks": ("udiff", lambda n: "--- a/a.py\n+++ b/a.py\n" + ("@@ -1,26 +1,26 @@\n" + LONG_HUNK) * n,
                         1_200),
    # One hunk as long as the answer.
    "v4a-one-hunk": ("v4a", lambda n: "*** Begin Patch\n*** Update File: a.py\n@@\n" + " a\n-b\n+c\n" * n
                     + "*** End Patch\n", 24_000),
    "udiff-one-hunk": ("udiff", lambda n: f"--- a/a.py\n+++ b/a.py\n@@ -1,{2 * n} +1,{2 * n} @@\n" + " a\n-b\n+c\n" * n,
                       24_000),
    # Lines a run leaves to be decided one at a time: `---`/`+++` lines the counts claim, blank lines.
    "udiff-counted-header-lines": ("udiff", lambda n: f"--- a/a.py\n+++ b/a.py\n@@ -1,{n} +1,{n} @@\n"
                                   + "--- x\n+++ y\n" * n, 6_000),
    "udiff-blank-lines": ("udiff", lambda n: "--- a/a.py\n+++ b/a.py\n" + "@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n" * n,
                          1_500),
    "v4a-alternating-lines": ("v4a", lambda n: "*** Begin Patch\n*** Update File: a.py\n@@\n" + "-b\n+c\n\n" * n
                              + "*** End Patch\n", 24_000),
    "v4a-added-file": ("v4a", lambda n: "*** Begin Patch\n*** Add File: a.py\n" + "+x = 1\n\n" * n
                       + "*** End Patch\n", 60_000),
    # Patches standing in prose under `auto`: the prose around them is read for shell commands.
    "auto-v4a-in-prose": ("auto", lambda n: "Here is the patch.\n\n*** Begin Patch\n*** Update File: a.py\n"
                          + V4A_HUNK * n + "*** End Patch\n\nThen run `pytest`.\n", 2_500),
    "auto-udiff-in-prose": ("auto", lambda n: "Here is the diff:\n\ndiff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
                            + UNIFIED_HUNK * n + "\nThen run `pytest`.\n", 2_000),
}
"""Each case's N is picked so that one parse at 8N takes a tenth to a quarter of a second."""


@slow
@pytest.mark.parametrize("case", sorted(FRONT_END_GROWTH_CASES))
def test_front_end_parsing_grows_linearly(case: str) -> None:
    fmt, make, size = FRONT_END_GROWTH_CASES[case]
    ratio = growth(lambda n: functools.partial(parse, make(n), fmt), size)
    assert ratio < GROWTH_LIMIT, f"{case}: {GROWTH_FACTOR}x the input took {ratio:.1f}x the time"


def test_block_kinds_of_patches_are_in_the_model() -> None:
    assert {BlockKind.DELETE.value, BlockKind.MOVE.value, BlockKind.WHOLE.value} <= {k.value for k in BlockKind}


def test_shell_suggestions_come_from_the_prose_around_a_patch_never_from_inside_it() -> None:
    inside = "*** Begin Patch\n*** Add File: run.md\n+```bash\n+rm -rf build\n+```\n*** End Patch\n"
    text = "Run `git rm old.py` first.\n\n" + inside + "\n```bash\npytest -q\n```\n"
    for fmt in ("v4a", "auto"):
        result = parse(text, fmt)
        assert [(s.command, s.line) for s in result.shell] == [("git rm old.py", 1), ("pytest -q", 11)], fmt
    diff = "--- a/x.md\n+++ b/x.md\n@@ -1 +1 @@\n-```bash\n+`git mv a b`\n\nThen run:\n```sh\nmake\n```\n"
    assert [(s.command, s.line) for s in parse(diff, "udiff").shell] == [("make", 9)]


@given(st.lists(st.sampled_from(["a", "b", "", "  x = 1", "def f():", "```"]), max_size=6),
       st.lists(st.sampled_from(["a", "c", "", "  x = 2", "```"]), max_size=6), st.booleans())
def test_a_front_end_block_renders_back_to_itself(old: list[str], new: list[str], at_end: bool) -> None:
    from editblocks import render

    old_text, new_text = "".join(f"{line}\n" for line in old), "".join(f"{line}\n" for line in new)
    blocks = [
        *parse_v4a(PATCH).blocks,
        parse_v4a("*** Begin Patch\n*** Update File: q.py\n@@ def f():\n -\n+x\n*** End Patch\n").blocks[0],
        *parse_unified(GIT_DIFF).blocks,
        *parse_whole("a.md\n````\n```\ncode\n```\n````\n").blocks,
    ]
    if old:
        scope = Scope(("def f():",), after_previous=True, at_end=at_end)
        blocks.append(EditBlock("p.py", "", old_text, new_text, "", BlockKind.EDIT,
                                Format.V4A, 1, scope=scope))
    for block in blocks:
        again = parse(render(block), block.format)
        assert len(again.blocks) == 1, (block, render(block))
        (read,) = again.blocks
        assert (read.path, read.old, read.new, read.kind, read.scope, read.move_to) == (
            block.path, block.old, block.new, block.kind, block.scope, block.move_to), render(block)


def test_streaming_a_patch_in_any_chunks_gives_the_parse_of_the_whole_answer() -> None:
    from editblocks import BlockCompleted, StreamParser

    for text, fmt in ((PATCH, "auto"), (PATCH, "v4a"), (GIT_DIFF, "auto"), (GIT_DIFF, "udiff"),
                      ("a.py\n```python\nx = 1\n```\n", "whole")):
        for size in (1, 7, len(text)):
            parser = StreamParser(fmt)
            events = [event for start in range(0, len(text), size) for event in parser.feed(text[start : start + size])]
            events += parser.close()
            assert parser.result() == parse(text, fmt) and parser.result().blocks, (fmt, size)
            assert [e.block for e in events if isinstance(e, BlockCompleted)] == list(parser.result().blocks)


def test_auto_finds_a_bare_patch_whose_lines_look_like_nothing_a_marker_answer_holds() -> None:
    """A bare V4A patch or a rename-only git diff has no fence and no marker-like line: the parser's
    nothing-to-read shortcut must still hand it to the front-ends."""
    v4a = parse("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n")
    assert [(block.path, block.old, block.new, block.format) for block in v4a.blocks] == [
        ("a.py", "x\n", "y\n", Format.V4A)]
    rename = parse("diff --git a/a.py b/c.py\nsimilarity index 100%\nrename from a.py\nrename to c.py\n")
    assert [(block.kind, block.path, block.move_to) for block in rename.blocks] == [(BlockKind.MOVE, "a.py", "c.py")]


def test_looks_like_unified_wants_a_git_header_or_a_dashes_line_over_a_pluses_line() -> None:
    from editblocks.parsing.patches.unified import looks_like_unified

    cases = {"diff --git a/x b/x\n": True, "x\ndiff --git a b\n": True, "xdiff --git a b": False, "diff --gitx": False,
             "--- a/x\n+++ b/x\n": True, "p\n--- a\n+++ b\n": True, "--- a\n+++b\n": False, "-- a\n+++ b\n": False,
             "+++ b\n": False, "--- a\nx\n+++ b\n": False, "": False, "a --- b\n+++ c": False}
    assert {text: looks_like_unified(text) for text in cases} == cases
