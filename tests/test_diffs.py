"""`diffs`: unified diffs that git and patch apply byte for byte, and the highlights people see.

A file line ends at `\\n` only; form feeds, U+2028, NEL, file separators and
a lone CR are ordinary characters inside it, as they are for diff, git and
patch. Every diff here is checked by applying it with the real tools.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from editblocks import apply, parse
from editblocks.model import Diagnostic, Severity
from editblocks.report.diffs import render_diff
from editblocks.report.display import diagnostics_table, outcome_lines
from editblocks.text.diff import diff_rows, printable, split_lines, unified_diff, word_changes

ODD_CHARACTERS = ["\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r", "\x0b"]


def git_apply(tmp_path: Path, original: str | None, diff: str, path: str = "f.txt") -> bytes:
    """Apply `diff` with `git apply` to a file holding `original` (None: no file) and return the result."""
    target = tmp_path / path
    if original is not None:
        target.write_bytes(original.encode())
    (tmp_path / "change.diff").write_bytes(diff.encode())
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)}
    for check in (["--check"], []):
        subprocess.run(["git", "apply", "--whitespace=nowarn", *check, "change.diff"],
                       cwd=tmp_path, env=env, check=True, capture_output=True)
    return target.read_bytes()


def patch_dry_run(tmp_path: Path, original: str, diff: str) -> None:
    """GNU patch accepts the diff too (it has its own line splitting, so it is a second opinion)."""
    (tmp_path / "p.txt").write_bytes(original.encode())
    (tmp_path / "p.diff").write_bytes(diff.encode())
    subprocess.run(["patch", "--dry-run", "--binary", "p.txt", "p.diff"], cwd=tmp_path, check=True, capture_output=True)


# --- splitting ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "lines"), [
    ("", []),
    ("a", ["a"]),
    ("a\n", ["a\n"]),
    ("a\nb", ["a\n", "b"]),
    ("a\r\nb\r\n", ["a\r\n", "b\r\n"]),
    ("a\x0cb\u2028c\rd\x85e\n\n", ["a\x0cb\u2028c\rd\x85e\n", "\n"]),
])
def test_split_lines_splits_at_newlines_only_and_keeps_them(text, lines):
    assert split_lines(text) == lines
    assert "".join(split_lines(text)) == text


# --- unified_diff -------------------------------------------------------------------------------


@pytest.mark.parametrize("odd", ODD_CHARACTERS)
def test_a_line_holding_an_odd_character_stays_one_line(tmp_path, odd):
    original = f"one\ntw{odd}o\nthree\nfour\n"
    new = f"one\ntw{odd}o\nTHREE\nfour\n"
    diff = unified_diff("f.txt", original, new)
    assert "No newline" not in diff
    assert f"@@ -1,4 +1,4 @@\n one\n tw{odd}o\n-three\n+THREE\n four\n" in diff
    assert git_apply(tmp_path, original, diff) == new.encode()


def test_hunk_header_counts_lines_not_separators_far_into_the_file(tmp_path):
    original = "".join(f"line {n}\x0cpage\u2028x\n" for n in range(1, 41))
    new = original.replace("line 30\x0c", "line 30 changed\x0c")
    diff = unified_diff("f.txt", original, new)
    assert "@@ -27,7 +27,7 @@" in diff
    assert git_apply(tmp_path, original, diff) == new.encode()
    patch_dry_run(tmp_path, original, diff)


def test_a_changed_last_line_without_a_newline_is_marked_once_at_the_end(tmp_path):
    original, new = "a\x0cb\nlast", "a\x0cb\nLAST"
    diff = unified_diff("f.txt", original, new)
    assert diff.endswith("-last\n\\ No newline at end of file\n+LAST\n\\ No newline at end of file\n")
    assert diff.count("No newline") == 2
    assert git_apply(tmp_path, original, diff) == new.encode()
    patch_dry_run(tmp_path, original, diff)


@pytest.mark.parametrize(("original", "new", "hunk"), [
    ("one\r\ntwo\r\nthree\r\n", "one\r\nTWO\r\nthree\r\n", "\n-two\r\n+TWO\r\n three\r\n"),
    ("a\rb\r\nkeep\r\n", "a\rB\r\nkeep\r\n", "\n-a\rb\r\n+a\rB\r\n keep\r\n"),  # a lone CR inside a line
])
def test_crlf_text_as_apply_passes_it_keeps_its_endings(tmp_path, original, new, hunk):
    """`apply` diffs the text as read, line endings kept: a CRLF file gets CRLF diff lines."""
    diff = unified_diff("f.txt", original, new)
    assert hunk in diff
    assert git_apply(tmp_path, original, diff) == new.encode()


def test_a_created_file_applies_as_a_new_file(tmp_path):
    new = "x\x0cy\nz\u2028w"
    diff = unified_diff("new.txt", None, new)
    assert diff.startswith("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n")
    assert git_apply(tmp_path, None, diff, path="new.txt") == new.encode()


_TEXT = st.lists(st.sampled_from(["a", "b", " ", "\n", "\r\n", *ODD_CHARACTERS]), max_size=30).map("".join)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(original=_TEXT, new=_TEXT)
def test_every_diff_applies_with_git_and_gives_the_new_bytes(tmp_path_factory, original, new):
    diff = unified_diff("f.txt", original, new)
    if original == new:
        assert diff == ""
        return
    assert git_apply(tmp_path_factory.mktemp("git"), original, diff) == new.encode()


# --- highlights ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("old", "new", "removed", "added"), [
    ("return greet(name)", "return greets(name)", "", "s"),
    ("PORT = 8000", "PORT = 8080", "0", "8"),
    ("x = value1 + 2", "x = value2 + 2", "1", "2"),
    ("return 'home'", "return 'welcome'", "home", "welcome"),  # little in common: whole words stay readable
    ("DEBUG = False", "DEBUG = True", "False", "True"),
    ("a, b", "a, b, c", "", ", c"),
])
def test_word_changes_narrow_to_characters_only_when_most_of_the_word_is_shared(old, new, removed, added):
    old_spans, new_spans = word_changes(old, new)
    assert "".join(old[a:b] for a, b in old_spans) == removed
    assert "".join(new[a:b] for a, b in new_spans) == added


def test_diff_rows_tell_a_removed_sql_comment_from_a_file_header():
    diff = unified_diff("q.sql", "-- old\n++ keep\n", "-- new\n++ keep\n")
    kinds = [kind for kind, _ in diff_rows(diff)]
    assert kinds == ["header", "header", "hunk", "-", "+", " "]


def test_diff_rows_of_two_hunks_and_a_missing_newline():
    original = "".join(f"{n}\n" for n in range(20)) + "end"
    new = original.replace("1\n", "one\n", 1).replace("end", "END")
    kinds = [kind for kind, _ in diff_rows(unified_diff("f", original, new))]
    assert kinds.count("hunk") == 2 and kinds.count("header") == 2
    assert kinds[-4:] == ["-", "\\", "+", "\\"]


def plain_and_highlights(text) -> tuple[str, list[str]]:
    """The rendered plain text and every emphasised (white on red/green) piece of it."""
    pieces = [text.plain[span.start : span.end] for span in text.spans if "white" in str(span.style)]
    return text.plain, pieces


def test_render_diff_highlights_the_right_characters_next_to_a_form_feed():
    text = render_diff(unified_diff("f.txt", "x\x0cy = 1\n", "x\x0cy = 2\n"))
    plain, pieces = plain_and_highlights(text)
    assert "-x␌y = 1\n+x␌y = 2\n" in plain
    assert pieces == ["1", "2"]


def test_render_diff_shows_crlf_lines_without_the_cr_and_a_lone_cr_visibly():
    plain, pieces = plain_and_highlights(render_diff(unified_diff("f", "a\rb\r\n", "a\rc\r\n")))
    assert plain.endswith("-a␍b\n+a␍c\n")
    assert pieces == ["b", "c"]


def test_render_diff_never_sends_escape_sequences_or_bidi_overrides_to_the_terminal():
    hostile = "x = 1\x1b[2J\x9b31m\u202eevil\u2028\n"
    output = Console(force_terminal=True, width=200, file=None, record=True)
    with output.capture() as captured:
        output.print(render_diff(unified_diff("f", "x = 0\n", hostile)))
    shown = captured.get()
    assert "\x1b[2J" not in shown and "\x9b" not in shown and "\u202e" not in shown and "\u2028" not in shown
    assert "␛[2J" in shown and "\\x9b31m" in shown and "\\u202eevil\\u2028" in shown


def test_printable_keeps_tabs_and_newlines():
    assert printable("a\tb\nc\x07") == "a\tb\nc␇"


# --- the terminal report ------------------------------------------------------------------------


def test_a_near_miss_hint_quoting_a_form_feed_line_keeps_it_one_line(tmp_path):
    (tmp_path / "f.py").write_text("def f():\n    x\x0c = 1\n    return x\n")
    answer = "f.py\n<<<<<<< SEARCH\ndef f():\n    x\x0c = 2\n=======\ndef f():\n    x = 3\n>>>>>>> REPLACE\n"
    outcome = apply(parse(answer), tmp_path, dry_run=True).results[0]
    assert outcome.status.value == "failed" and "\x0c" in outcome.hint
    shown = outcome_lines(outcome).plain.split("\n")
    assert len(shown) == 2 + len(outcome.hint.split("\n"))
    assert any("x␌ = 1" in line for line in shown)


def test_a_diagnostic_is_shown_as_typed_never_as_markup_or_escapes():
    message = "[bold red]not bold[/bold red] \x1b[2J"
    output = Console(width=200, record=True)
    with output.capture() as captured:
        output.print(diagnostics_table([Diagnostic(Severity.WARNING, 4, message)]))
    assert "[bold red]not bold[/bold red] ␛[2J" in captured.get()


def test_a_result_makes_each_diff_only_when_it_is_read(tmp_path, monkeypatch):
    """A dry run or an apply whose report shows no diff never aligns a file's lines; reading it makes it once."""
    import pickle

    import editblocks.service.results as results

    made: list[str] = []

    def counted(path: str, *args: object, **kwargs: object) -> str:
        made.append(path)
        return unified_diff(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(results, "unified_diff", counted)
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    answer = "a.py\n```\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n```\n"
    result = apply(parse(answer), tmp_path, dry_run=True)
    assert made == []
    diff = result.diffs[0]
    assert diff.unified == unified_diff("a.py", "one\ntwo\nthree\n", "one\n2\nthree\n")
    assert diff.unified is diff.unified and made == ["a.py"]
    copy = pickle.loads(pickle.dumps(diff))
    assert copy == diff and hash(copy) == hash(diff) and repr(copy) == repr(diff)
    assert (copy.before, copy.after) == ("one\ntwo\nthree\n", "one\n2\nthree\n")
    with pytest.raises(AttributeError):
        diff.path = "b.py"  # type: ignore[misc]
