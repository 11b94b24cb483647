"""The package's own face: `help(editblocks)` opens with a runnable example, and `undo` and the workspace's
names are importable from the top level like `apply` (whose docstring names them)."""

from __future__ import annotations

import doctest
import pydoc
from pathlib import Path

import pytest

import editblocks
from editblocks import Workspace, WorkspaceBusy, WorkspaceError, apply, parse, undo

ANSWER = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"


def test_the_package_docstring_example_runs() -> None:
    outcome = doctest.testmod(editblocks, report=True)
    assert outcome.attempted >= 8 and outcome.failed == 0


def test_help_opens_with_the_example() -> None:
    head = pydoc.render_doc(editblocks, renderer=pydoc.plaintext).splitlines()[:25]
    assert any(">>> result = editblocks.apply(editblocks.parse(answer), root)" in line for line in head)
    assert any("editblocks.undo(root)" in line for line in head)


def test_the_names_apply_raises_are_public() -> None:
    for name in ("WorkspaceBusy", "WorkspaceError"):
        assert name in (editblocks.apply.__doc__ or "")
        assert name in editblocks.__all__ and name in dir(editblocks)
    assert issubclass(WorkspaceBusy, WorkspaceError)
    assert {"undo", "Workspace", "UndoOutcome"} <= set(editblocks.__all__)


def test_undo_takes_back_the_last_apply(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    assert apply(parse(ANSWER), tmp_path).written
    undone = undo(tmp_path)
    assert undone.ok and undone.restored == ("a.py",)
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    assert not undo(tmp_path).ok  # nothing left to undo


def test_undo_refuses_a_file_changed_since_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    apply(parse(ANSWER), tmp_path)
    (tmp_path / "a.py").write_text("x = 3\n")
    refused = undo(tmp_path)
    assert not refused.ok and refused.refused == ("a.py",) and (tmp_path / "a.py").read_text() == "x = 3\n"
    assert undo(tmp_path, force=True).ok and (tmp_path / "a.py").read_text() == "x = 1\n"


def test_undo_of_a_root_never_written_creates_no_journal(tmp_path: Path) -> None:
    outcome = undo(tmp_path)
    assert not outcome.ok and outcome.message == "nothing to undo"
    assert not (tmp_path / ".editblocks").exists()


def test_undo_waits_for_the_lock_and_then_says_the_workspace_is_busy(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    apply(parse(ANSWER), tmp_path)
    with Workspace(tmp_path).lock(wait=1), pytest.raises(WorkspaceBusy, match="is busy"):
        undo(tmp_path, lock_wait=0.1)
    assert (tmp_path / "a.py").read_text() == "x = 2\n"


def test_undo_of_a_missing_root_is_a_workspace_error(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match="is not a directory"):
        undo(tmp_path / "nowhere")
