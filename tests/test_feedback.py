"""The feedback message, built from real apply results: every problem is there, and it never reads as edit blocks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks.cli import main
from editblocks.model import ApplyResult, Format, ResultCode, Status
from editblocks.parsing.stream import parse
from editblocks.prompts import PROMPT_FORMATS
from editblocks.report.feedback import feedback_message, reply_format
from editblocks.service.apply import apply

MATH = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\nx = 1\nx = 1\n"


def run(root: Path, files: dict[str, str], response: str, format: str = "auto", **options) -> ApplyResult:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return apply(parse(response, format), root, **options)


def diff_block(path: str, old: str, new: str, run_length: int = 7) -> str:
    return (f"{path}\n```python\n{'<' * run_length} SEARCH\n{old}{'=' * run_length}\n{new}"
            f"{'>' * run_length} REPLACE\n```\n\n")


def assert_not_blocks(message: str) -> None:
    for fmt in ("auto", *PROMPT_FORMATS):
        parsed = parse(message, fmt)
        assert parsed.blocks == (), fmt
        assert parsed.errors == (), (fmt, parsed.errors)


def test_two_failures_of_three_are_both_reported_and_the_applied_block_is_named(tmp_path):
    response = (diff_block("m.py", "def add(a,b):\n    return a+b\n", "def add(a, b):\n    return a * b\n")
                + diff_block("m.py", "x = 1\n", "x = 2\n")
                + diff_block("m.py", "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return b - a\n"))
    result = run(tmp_path, {"m.py": MATH}, response, policy="continue")  # the held wording: test_policy.py
    assert [r.status for r in result.results] == [Status.FAILED, Status.FAILED, Status.APPLIED]
    message = feedback_message(result)

    assert message.startswith("2 of your 3 edit blocks did not apply (2 failed, 1 applied).")
    assert "- Block at line 3 of your reply (m.py, starting “def add(a,b):”): failed, not found." in message
    assert "- Block at line 14 of your reply (m.py, starting “x = 1”): failed, ambiguous." in message
    applied = message.split("do not send them again:\n", 1)[1].split("\n", 1)[0]
    assert applied == "- m.py: the block at line 23 of your reply (lines 5–6)"
    assert "`<<<<<<< SEARCH`" in message and "`>>>>>>> REPLACE`" in message
    assert_not_blocks(message)


def test_not_found_shows_the_closest_real_lines_with_their_numbers(tmp_path):
    result = run(tmp_path, {"m.py": MATH}, diff_block("m.py", "def add(a,b):\n    return a+b\n", "pass\n"))
    message = feedback_message(result)
    assert "the closest text is at lines 1–2" in message
    assert "+ 1 | def add(a, b):" in message and "+ 2 |     return a + b" in message
    assert "-   | def add(a,b):" in message
    assert "Copy the SEARCH section again" in message


def test_not_found_with_nothing_close_quotes_the_searched_text_behind_a_prefix(tmp_path):
    result = run(tmp_path, {"m.py": MATH}, diff_block("m.py", "class Totally:\n    unrelated = True\n", "pass\n"))
    [problem] = result.results
    assert problem.code is ResultCode.NOT_FOUND and problem.hint == ""
    message = feedback_message(result)
    assert "Nothing in m.py is close to your SEARCH section" in message
    assert "  > class Totally:\n  >     unrelated = True\n" in message


def test_ambiguous_lists_every_candidate_line(tmp_path):
    text = "".join(f"def f{n}():\n    return 0\n\n" for n in range(15))
    result = run(tmp_path, {"many.py": text}, diff_block("many.py", "    return 0\n", "    return 1\n"))
    [problem] = result.results
    assert problem.code is ResultCode.AMBIGUOUS and len(problem.candidates) == 15
    message = feedback_message(result)
    listed = re.search(r"It matches many\.py at lines ([\d, and]+);", message)
    assert listed is not None
    assert [int(n) for n in re.findall(r"\d+", listed.group(1))] == [2 + 3 * n for n in range(15)]


def test_a_block_already_in_the_file_is_reported_as_done(tmp_path):
    response = diff_block("m.py", "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return b - a\n")
    first = run(tmp_path, {"m.py": MATH}, response)
    assert first.ok
    again = apply(parse(response), tmp_path)
    [result] = again.results
    assert result.code is ResultCode.ALREADY_APPLIED
    message = feedback_message(again)
    assert "skipped, already applied" in message
    assert "Its new text is already in m.py (lines 5–6): this change is done, do not send it again." in message


def test_a_block_that_changes_nothing_is_called_so(tmp_path):
    result = run(tmp_path, {"m.py": MATH}, diff_block("m.py", "x = 1\nx = 1\n", "x = 1\nx = 1\n"))
    assert result.results[0].code is ResultCode.NO_OP
    assert "old and new text are identical" in feedback_message(result)


MARKER_LINES = "<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n```\n<<<<<<< EDIT\n-------\n>>>>>>>\n"


def near_copy(text: str) -> str:
    """The same lines, each a little different, so the file holds a near miss but no match."""
    return "".join(line + " \n" if line.strip("`") else line + "``\n" for line in text.split("\n")[:-1])


def test_quoted_marker_and_fence_lines_never_become_blocks(tmp_path):
    unrelated = "<<<<<<< NEW_FILE\n>>>>>>> NEW_FILE\n" + "".join(f"<<<<<<< SEARCH {n}\n" for n in range(3))
    response = (diff_block("doc.md", MARKER_LINES, "changed\n", run_length=9)
                + diff_block("doc.md", unrelated, "changed\n", run_length=9))
    result = run(tmp_path, {"doc.md": "intro\n" + near_copy(MARKER_LINES) + "outro\n"}, response, strict=True)
    assert [r.code for r in result.results] == [ResultCode.NOT_FOUND, ResultCode.NOT_FOUND]
    assert result.results[0].hint and not result.results[1].hint
    message = feedback_message(result)
    assert "  > <<<<<<< NEW_FILE" in message
    assert_not_blocks(message)


def test_quoted_lines_of_a_guillemet_block_never_become_blocks(tmp_path):
    text = MARKER_LINES  # a guillemet block cannot hold guillemet marker lines at all
    response = f"doc.md\n««« EDIT\nintro\n{text}═══════ REPL\nintro\nchanged\n»»» EDIT END\n"
    result = run(tmp_path, {"doc.md": "intro\n" + near_copy(text)}, response, format="guillemet")
    assert [r.code for r in result.results] == [ResultCode.NOT_FOUND]
    message = feedback_message(result)
    assert "`««« EDIT`" in message
    assert_not_blocks(message)


def test_the_size_bound_holds_for_a_huge_failing_block(tmp_path):
    huge = "".join(f"line {n} that the model invented\n" for n in range(3000))
    response = diff_block("m.py", huge, "pass\n") + "".join(
        diff_block("m.py", f"missing_{n} = {n}\n", "pass\n") for n in range(60))
    result = run(tmp_path, {"m.py": MATH}, response)
    assert len(result.results) == 61
    for limit in (6000, 2000, 400):
        message = feedback_message(result, max_chars=limit)
        assert len(message) <= limit
        assert_not_blocks(message)
    roomy = feedback_message(result, max_chars=100_000)
    assert "(… 2988 more lines cut)" in roomy and roomy.count("- Block at line") == 61
    bounded = feedback_message(result)
    assert [int(n) for n in re.findall(r"^- Line (\d+) \(m\.py\)", bounded, re.MULTILINE)] == [
        r.block.line for r in result.results]
    assert bounded.endswith(feedback_message(result, max_chars=400).rsplit("\n\n", 1)[1])  # the instructions stay
    assert "more lines cut)" in feedback_message(result, max_chars=2000)


def test_the_instructions_follow_the_format(tmp_path):
    response = "m.py\n««« EDIT\ndef nope():\n═══════ REPL\ndef nope(x):\n»»» EDIT END\n"
    result = run(tmp_path, {"m.py": MATH}, response)
    message = feedback_message(result)
    assert "`««« EDIT`" in message and "edit section" in message and "SEARCH" not in message
    assert "`<<<<<<< EDIT`" in feedback_message(result, format="anchored")
    assert feedback_message(result, format="auto") == message  # auto: the blocks' own format
    assert_not_blocks(message)


def test_blocks_skipped_after_a_failure_are_listed_for_resending(tmp_path):
    response = ("m.py\n««« EDIT\ndef nope():\n═══════ REPL\ndef nope(x):\n»»» EDIT END\n\n"
                "m.py\n««« EDIT\nx = 1\nx = 1\n═══════ REPL\nx = 1\nx = 2\n»»» EDIT END\n")
    result = run(tmp_path, {"m.py": MATH}, response, policy="skip-file")
    assert [r.status for r in result.results] == [Status.FAILED, Status.SKIPPED]
    message = feedback_message(result)
    assert "- Block at line 9 of your reply (m.py, starting “x = 1”): skipped, not tried." in message
    assert "earlier block for this file failed" in message


def test_abort_means_every_block_must_be_sent_again(tmp_path):
    response = diff_block("m.py", "nothing like it\n", "x\n") + diff_block("m.py", "x = 1\nx = 1\n", "x = 3\n")
    result = run(tmp_path, {"m.py": MATH}, response, policy="abort")
    assert not result.written
    message = feedback_message(result)
    assert "do not send them again" not in message
    assert "Nothing from your reply was written, so send this block again too." in message


def test_unreadable_blocks_are_reported_with_their_line(tmp_path):
    response = diff_block("m.py", "x = 1\nx = 1\n", "x = 2\nx = 2\n") + "m.py\n<<<<<<< SEARCH\nx = 2\n>>>>>>> REPLACE\n"
    result = run(tmp_path, {"m.py": MATH}, response)
    assert result.ok
    message = feedback_message(result)
    assert message.startswith("The edit block that could be read was applied. "
                              "1 edit block in your reply could not be read.")
    assert "- line 13 of your reply: block at line 13 has no separator" in message
    assert_not_blocks(message)


@pytest.mark.parametrize("count, expected", [
    (1, "The edit block was applied."),
    (2, "All 2 edit blocks were applied."),
])
def test_nothing_failed_gives_a_short_message(tmp_path, count, expected):
    response = "".join(diff_block(f"f{n}.py", "", "pass\n") for n in range(count))
    result = run(tmp_path, {}, response)
    assert result.ok
    assert feedback_message(result) == expected


def test_cli_apply_writes_feedback_only_when_something_failed(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    good = "calc.py\n<<<<<<< SEARCH\n    return a + b\n=======\n    return b + a\n>>>>>>> REPLACE\n"
    bad = "calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return b - a\n>>>>>>> REPLACE\n"
    runner = CliRunner()
    note = tmp_path / "feedback.txt"
    (tmp_path / "bad.md").write_text(bad)
    failed = runner.invoke(main, ["apply", str(tmp_path / "bad.md"), "--root", str(root), "--feedback", str(note)])
    assert failed.exit_code == 1
    message = note.read_text()
    assert "calc.py" in message and "line 2" in message
    note.unlink()
    (tmp_path / "good.md").write_text(good)
    passed = runner.invoke(main, ["apply", str(tmp_path / "good.md"), "--root", str(root), "--feedback", str(note)])
    assert passed.exit_code == 0 and not note.exists()


def test_dry_run_feedback_says_would_apply(tmp_path):
    (tmp_path / "calc.py").write_text("a = 1\nb = 2\n")
    answer = "calc.py\n<<<<<<< SEARCH\na = 1\n=======\na = 10\n>>>>>>> REPLACE\ncalc.py\n<<<<<<< SEARCH\nc = 3\n=======\nc = 30\n>>>>>>> REPLACE\n"
    result = apply(parse(answer), tmp_path, dry_run=True, policy="continue")
    assert result.dry_run and not result.written
    message = feedback_message(result)
    assert message.startswith("1 of your 2 edit blocks would not apply (1 failed, 1 would apply).")
    assert "would apply as written" in message and "in the files now" not in message
    assert "only those" not in message and "send them again unchanged" not in message
    assert "How to continue: Nothing was written (a dry run), so reply with all your edit blocks again" in message
    assert (tmp_path / "calc.py").read_text() == "a = 1\nb = 2\n"


def test_prompt_command_is_registered_on_the_main_cli():
    result = CliRunner().invoke(main, ["prompt", "anchored"])
    assert result.exit_code == 0 and "<<<<<<< EDIT" in result.output


def feedback_for(root: Path, files: dict[str, str], response: str, format: str = "auto", **options) -> str:
    """The feedback as the command line builds it: in the format asked for, detected, or begun."""
    result = run(root, files, response, format, **options)
    return feedback_message(result, format=reply_format(response, parse(response, format)))


@pytest.mark.parametrize("response, format, expected", [
    ("m.py\n««« EDIT\ndef add(a, b):\n»»» EDIT END\n", "auto", Format.GUILLEMET),
    ("m.py\n```\n<<<<<<< EDIT\ndef add(a, b):\n```\n", "auto", Format.ANCHORED),
    ("m.py\n<<<<<<< NEW_FILE\nx = 1\n", "auto", Format.SEARCH_REPLACE),
    ("m.py\n<<<<<<< SEARCH\nx = 1\n", "auto", Format.DIFF),
    (diff_block("m.py", "x = 1\n", "x = 2\n"), "auto", Format.DIFF),
    (diff_block("m.py", "x = 1\n", "x = 2\n"), "anchored", Format.ANCHORED),
    ("Just advice, no edits.\n", "auto", None),
    ("m.py\n=======\n", "auto", None),
])
def test_reply_format_is_asked_detected_or_read_from_a_malformed_blocks_start(response, format, expected):
    assert reply_format(response, parse(response, format)) is expected


def test_a_malformed_guillemet_block_gets_guillemet_instructions(tmp_path):
    (tmp_path / "m.py").write_text(MATH)
    (tmp_path / "answer.md").write_text("m.py\n««« EDIT\ndef add(a, b):\n    return a + b\n»»» EDIT END\n")
    note = tmp_path / "feedback.txt"
    args = ["apply", str(tmp_path / "answer.md"), "--root", str(tmp_path), "--feedback", str(note)]
    assert CliRunner().invoke(main, args).exit_code == 1
    message = note.read_text()
    assert "- line 2 of your reply: block at line 2 has no separator" in message
    assert "`««« EDIT`" in message and "without code fences" in message
    assert "SEARCH" not in message and "opening fence" not in message
    assert_not_blocks(message)


@pytest.mark.parametrize("response, format, noticed, marker", [
    (diff_block("m.py", "x = 1\n", "x = 2\n"), "anchored",
     "- line 3 of your reply: search start marker ignored: the response format is anchored", "`<<<<<<< EDIT`"),
    ("<think>\nLet me edit.\n" + diff_block("m.py", "x = 1\n", "x = 2\n"), "auto",
     "- line 1 of your reply: reasoning section opened at line 1 is never closed", "`<<<<<<< SEARCH`"),
])
def test_the_parsers_warnings_are_given_when_no_block_was_found(tmp_path, response, format, noticed, marker):
    message = feedback_for(tmp_path, {"m.py": MATH}, response, format)
    assert message.startswith("No edit blocks were found in your reply, so nothing was changed.\n")
    assert noticed in message
    assert "How to continue: If you meant to change files, send the changes as edit blocks." in message
    assert marker in message.split("How to continue:")[1]
    assert_not_blocks(message)


def test_a_reply_with_no_blocks_and_no_diagnostics_still_says_how_to_continue(tmp_path):
    message = feedback_for(tmp_path, {}, "Just advice, no edits.\n")
    assert message.startswith("No edit blocks were found in your reply, so nothing was changed.\n\nHow to continue: ")
    assert "`<<<<<<< SEARCH`" in message


def test_warnings_are_given_even_when_every_block_that_was_read_applied(tmp_path):
    response = diff_block("m.py", "x = 1\nx = 1\n", "x = 2\nx = 2\n") + "<think>\n" + diff_block("m.py", "x", "y")
    message = feedback_for(tmp_path, {"m.py": MATH}, response)
    assert message.startswith("The edit block was applied.\n")
    assert "- line 12 of your reply: reasoning section opened at line 12 is never closed" in message
    assert "How to continue: If a change you meant is missing (see the notes above), send only that change." in message


def test_many_warnings_stay_within_the_size_bound(tmp_path):
    response = "some prose\n>>>>>>> REPLACE\n" * 3000
    for limit in (6000, 400):
        message = feedback_message(run(tmp_path, {}, response), max_chars=limit)
        assert len(message) <= limit
        assert "How to continue:" in message
        assert_not_blocks(message)
    assert "- (… 2980 more lines like these cut)" in feedback_message(run(tmp_path, {}, response))


def test_counts_and_spans_read_as_english(tmp_path):
    one_line = diff_block("m.py", "def sub(a, b):\n", "def minus(a, b):\n")
    response = one_line + diff_block("m.py", "".join(f"invented {n}\n" for n in range(13)), "pass\n")
    message = feedback_message(run(tmp_path, {"m.py": MATH}, response, policy="continue"))
    assert "- m.py: the block at line 3 of your reply (line 5)" in message
    assert "(… 1 more line cut)" in message
    single = feedback_message(run(tmp_path, {}, diff_block("m.py", "nothing like it\n", "x\n")))
    assert single.startswith("Your edit block did not apply.\n")
    both = diff_block("m.py", "nothing like it\n", "x\n") * 2
    assert feedback_message(run(tmp_path, {}, both)).startswith("None of your 2 edit blocks applied (2 failed).")


def test_cli_apply_removes_a_stale_feedback_file_when_every_block_applied(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "calc.py").write_text("a = 1\nb = 2\n")
    (tmp_path / "a.md").write_text(diff_block("calc.py", "a = 1\n", "a = 10\n"))
    (tmp_path / "b.md").write_text(diff_block("calc.py", "b = 2\n", "b = 20\n"))
    (tmp_path / "c.md").write_text(diff_block("calc.py", "b = 20\n", "b = 200\n"))
    note = tmp_path / "feedback.txt"
    note.write_text("an old failure\n")

    def apply_with_feedback(answer: str, *options: str):
        args = ["apply", str(tmp_path / answer), "--root", str(root), "--feedback", str(note), *options]
        done = CliRunner().invoke(main, args)
        assert done.exit_code == 0, done.output
        return done.output

    assert f"removed {note}: every block applied" in apply_with_feedback("a.md") and not note.exists()
    kept = tmp_path / "kept.txt"
    kept.write_text("not ours\n")
    note.symlink_to(kept)
    assert f"left {note} in place: not a regular file" in apply_with_feedback("b.md")
    assert note.is_symlink() and kept.read_text() == "not ours\n"
    note.unlink()
    note.write_text("an old failure\n")
    assert json.loads(apply_with_feedback("c.md", "--json"))["written"] is True  # only JSON on standard output
    assert not note.exists()
