"""Paths that look like something else (issue 18, holes 9 and 10).

Invisible and bidirectional format characters make a new file look like an
existing one; rich's emoji codes turn `:warning:` into a sign; a C1 control
reaches the JSON raw; `//tmp/x`, `~/x` and `$HOME/x` are read as comments or
created as literal folders. Each is refused with a reason, or shown escaped.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from click.testing import CliRunner

from editblocks import parse
from editblocks.cli import main
from editblocks.model import Status
from editblocks.service.apply import apply
from editblocks.workspace.paths import Refusal, RefusalCode, resolve_path

from helpers_apply import diff_edit, make_tree, tree_state

FORMAT_CHARACTERS = ["\u200b", "\u2060", "\ufeff", "\u200f", "\u061c", "\u202e", "\U000e0041"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    make_tree(root, {"src/app.py": "APP = 1\n"})
    return root


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def answer(tmp_path: Path, text: str) -> str:
    path = tmp_path / "answer.md"
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- hole 9: invisible and bidirectional characters ---------------------------------------------------


@pytest.mark.parametrize("char", FORMAT_CHARACTERS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_new_path_with_a_format_character_is_refused(root: Path, char: str) -> None:
    assert unicodedata.category(char) == "Cf"
    before = tree_state(root)
    result = apply(parse(diff_edit(f"src/app{char}.py", ("", "EVIL = 1\n"))), root)
    [outcome] = result.results
    assert outcome.status is Status.FAILED and not result.written
    assert "invisible or direction-changing" in outcome.reason
    assert f"U+{ord(char):04X}" in outcome.reason and char not in outcome.reason
    assert tree_state(root) == before


def test_a_file_that_already_has_the_format_character_in_its_name_can_be_edited(root: Path) -> None:
    make_tree(root, {"docs/\u200bnotes.md": "old\n"})
    assert resolve_path(root, "docs/\u200bnotes.md") == "docs/\u200bnotes.md"
    result = apply(parse(diff_edit("docs/\u200bnotes.md", ("old\n", "new\n"), lang="")), root)
    assert result.written and (root / "docs/\u200bnotes.md").read_text() == "new\n"


def test_a_disguised_folder_on_the_way_to_a_new_file_is_refused(root: Path) -> None:
    refused = resolve_path(root, "src\u200b/new.py")
    assert isinstance(refused, Refusal) and refused.code is RefusalCode.INVALID_PATH


def test_terminal_html_and_json_show_format_characters_escaped(root: Path, tmp_path: Path) -> None:
    make_tree(root, {"src/x\u200b\u202e.py": "A = 1\n"})
    text = answer(tmp_path, diff_edit("src/x\u200b\u202e.py", ("A = 1\n", "A = 2\n")))
    code, terminal = cli("apply", text, "--root", str(root), "--dry-run")
    assert code == 0, terminal
    assert "src/x\\u200b\\u202e.py" in terminal and "\u200b" not in terminal and "\u202e" not in terminal
    page = tmp_path / "report.html"
    code, _ = cli("apply", text, "--root", str(root), "--dry-run", "--html", str(page))
    html = page.read_text(encoding="utf-8")
    assert "x\\u200b\\u202e.py" in html and "\u200b" not in html and "\u202e" not in html
    code, out = cli("apply", text, "--root", str(root), "--dry-run", "--json")
    assert "\u200b" not in out and "\u202e" not in out
    assert json.loads(out)["results"][0]["path"] == "src/x\u200b\u202e.py"  # escaped, not changed


def test_json_escapes_a_c1_control_from_a_refused_path(root: Path, tmp_path: Path) -> None:
    code, out = cli("apply", answer(tmp_path, diff_edit("src/a\x9bb.py", ("", "x = 1\n"))), "--root", str(root),
                    "--json")
    assert code == 1
    assert not any("\x80" <= char <= "\x9f" for char in out), out
    data = json.loads(out)
    assert data["results"][0]["path"] == "src/a\x9bb.py" and data["results"][0]["status"] == "failed"


def test_emoji_codes_in_paths_are_printed_as_written(root: Path, tmp_path: Path) -> None:
    text = answer(tmp_path, diff_edit("src/x:warning:.py", ("", "x = 1\n")))
    code, applied = cli("apply", text, "--root", str(root))
    assert code == 0 and "src/x:warning:.py" in applied and "\u26a0" not in applied
    code, undone = cli("undo", "--root", str(root))
    assert code == 0 and "removed  src/x:warning:.py" in undone and "\u26a0" not in undone


# --- hole 10: comments, home folders and variables that are not paths -------------------------------------


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("//tmp/x.txt", "absolute path"),
        ("//server/share/x.txt", "absolute path"),
        ("\\\\server\\share\\x.txt", "absolute path"),
        ("~/x.txt", "home folder"),
        ("~alice/x.txt", "home folder"),
        ("$HOME/x.txt", "environment variable"),
        ("${HOME}/x.txt", "environment variable"),
        ("%USERPROFILE%\\x.txt", "environment variable"),
    ],
)
def test_absolute_home_and_variable_paths_are_refused_with_a_reason(root: Path, tmp_path: Path, path: str,
                                                                    why: str) -> None:
    before = tree_state(root)
    code, out = cli("apply", answer(tmp_path, diff_edit(path, ("", "x = 1\n"))), "--root", str(root), "--json")
    assert code == 1, out
    [result] = json.loads(out)["results"]
    assert result["status"] == "failed" and why in result["reason"], result
    assert tree_state(root) == before


def test_a_comment_naming_a_path_still_names_it(root: Path) -> None:
    [block] = parse("// src/app.py\n<<<<<<< SEARCH\nAPP = 1\n=======\nAPP = 2\n>>>>>>> REPLACE\n").blocks
    assert block.path == "src/app.py"


def test_a_file_really_named_with_a_tilde_or_dollar_can_still_be_edited(root: Path) -> None:
    make_tree(root, {"~/notes.txt": "old\n", "$HOME/x.txt": "old\n"})
    for path in ("~/notes.txt", "$HOME/x.txt"):
        assert resolve_path(root, path) == path
