"""The `parse`, `check` and `formats` commands, through click's test runner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from editblocks import parse
from editblocks.cli import main

GOOD = "I'll bump the version.\n\nsetup.py\n```python\n<<<<<<< SEARCH\nversion = '1.0'\n=======\nversion = '1.1'\n>>>>>>> REPLACE\n```\nThen `git rm old.cfg`.\n"
BROKEN = "setup.py\n<<<<<<< SEARCH\nversion = '1.0'\n>>>>>>> REPLACE\n"


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def write(tmp_path, text: str | bytes, name: str = "response.md") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def test_parse_json_has_exactly_the_spec_shape(runner, tmp_path):
    result = runner.invoke(main, ["parse", write(tmp_path, GOOD), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert set(data) == {"schema_version", "format", "blocks", "shell", "diagnostics"}
    assert data["format"] == "diff"
    [block] = data["blocks"]
    assert set(block) == {"path", "leading", "old", "new", "trailing", "kind", "format", "line"}
    assert block == {
        "path": "setup.py", "leading": "", "old": "version = '1.0'\n", "new": "version = '1.1'\n",
        "trailing": "", "kind": "edit", "format": "diff", "line": 5,
    }
    assert data["shell"] == [{"command": "git rm old.cfg", "line": 11}]
    assert data["diagnostics"] == []


def test_parse_json_diagnostics_and_exit_one_for_a_malformed_block(runner, tmp_path):
    result = runner.invoke(main, ["parse", write(tmp_path, BROKEN), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["diagnostics"] == [
        {"severity": "error", "line": 2, "message": "block at line 2 has no separator"}
    ]


def test_parse_human_output_lists_blocks_per_file(runner, tmp_path):
    result = runner.invoke(main, ["parse", write(tmp_path, GOOD)])
    assert result.exit_code == 0
    assert "setup.py" in result.output and "line 5" in result.output
    assert "version = '1.1'" in result.output and "git rm old.cfg" in result.output


def test_parse_reads_stdin(runner):
    result = runner.invoke(main, ["parse", "-", "--json"], input=GOOD)
    assert result.exit_code == 0
    assert json.loads(result.output)["blocks"][0]["path"] == "setup.py"


def test_parse_format_option(runner, tmp_path):
    result = runner.invoke(main, ["parse", write(tmp_path, GOOD), "--format", "editor-diff", "--json"])
    assert json.loads(result.output)["blocks"][0]["format"] == "editor-diff"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"a\x00b", "looks binary"),
        (b"caf\xe9\n", "not valid UTF-8"),
    ],
)
def test_bad_input_is_one_line_and_exit_two(runner, tmp_path, content, expected):
    result = runner.invoke(main, ["parse", write(tmp_path, content)])
    assert result.exit_code == 2
    assert expected in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_file_and_directory_exit_two(runner, tmp_path):
    for target, expected in ((str(tmp_path / "nope.md"), "cannot read"), (str(tmp_path), "is a directory")):
        result = runner.invoke(main, ["parse", target])
        assert result.exit_code == 2 and expected in result.output


def test_bad_format_is_a_usage_error(runner, tmp_path):
    assert runner.invoke(main, ["parse", write(tmp_path, GOOD), "--format", "xml"]).exit_code == 2


def test_utf8_bom_in_the_response_is_accepted(runner, tmp_path):
    result = runner.invoke(main, ["parse", write(tmp_path, b"\xef\xbb\xbf" + GOOD.encode()), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["blocks"]


def test_check_reports_validation_problems(runner, tmp_path):
    ok = runner.invoke(main, ["check", write(tmp_path, GOOD)])
    assert ok.exit_code == 0 and "ok" in ok.output
    bad = runner.invoke(main, ["check", write(tmp_path, BROKEN, "bad.md")])
    assert bad.exit_code == 1
    assert "has no separator" in bad.output and "Mismatched SEARCH/REPLACE: 1 SEARCH vs 1 REPLACE" not in bad.output
    nothing = runner.invoke(main, ["check", write(tmp_path, "No edits here.", "none.md"), "--json"])
    assert nothing.exit_code == 1
    message = json.loads(nothing.output)["diagnostics"][0]["message"]
    assert message.startswith("no edit blocks found: looked for every format (diff,") and "`editblocks formats`" in message


def test_formats_lists_every_format_with_an_example(runner):
    result = runner.invoke(main, ["formats"])
    assert result.exit_code == 0
    for name in ("diff", "diff-fenced", "editor-diff", "editor-diff-fenced", "search-replace", "anchored", "guillemet"):
        assert name in result.output
    assert "««« EDIT" in result.output
    for name in ("v4a", "udiff", "whole"):
        assert f"\n{name}  " in result.output
    assert "*** Begin Patch" in result.output and "@@ ... @@" in result.output


def test_the_front_end_examples_of_formats_parse_into_blocks():
    from editblocks.parsing.catalog import CATALOG

    for info in CATALOG:
        assert parse(info.example, info.format).blocks, info.format
