"""Turn Codex's apply-patch scenario folders into cases.

Codex (openai/codex) keeps end-to-end tests of its `apply_patch` format as
one folder per scenario: ``input/`` (the files before), ``patch.txt`` (the
patch the model would send) and ``expected/`` (the files that must result).
That is a case in all but names: the patch becomes the answer (read in the
format editblocks detects, V4A), ``input/`` before and ``expected/`` after.
Where Codex expects something editblocks refuses on purpose (it writes all
or nothing, for one), the verdict shows the difference; the case is kept as
Codex wrote it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from editblocks.errors import CaseError
from editblocks.eval.case_files import CaseDataError, DataFolder
from editblocks.eval.cases import Case, CaseSpec

PATCH_FILE = "patch.txt"
INPUT_DIR = "input"
EXPECTED_DIR = "expected"


def is_scenario(folder: Path) -> bool:
    return os.path.lexists(folder / PATCH_FILE)


def import_scenarios(root: str | os.PathLike[str], passed_over: list[str] | None = None) -> Iterator[Case]:
    """A case per scenario folder under ``root`` (or ``root`` itself when it is one), in name order; a scenario
    that cannot be read is named in ``passed_over`` with the reason."""
    top = Path(root)
    folders = [top] if is_scenario(top) else sorted(
        child for child in top.iterdir() if child.is_dir() and not child.is_symlink() and is_scenario(child))
    for folder in folders:
        try:
            yield _case(folder)
        except (CaseError, CaseDataError) as error:
            if passed_over is not None:
                passed_over.append(f"{folder.name}: {error}")


def _case(folder: Path) -> Case:
    with DataFolder(folder) as scenario:
        raw = scenario.read(PATCH_FILE) or b""
        before, after = scenario.tree(INPUT_DIR), scenario.tree(EXPECTED_DIR)
    try:
        patch = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CaseError(f"{PATCH_FILE} is not UTF-8 ({error})") from None
    why = f"Codex apply-patch scenario {folder.name}: the patch must leave the files as expected/ holds them"
    return Case(f"codex/{folder.name}", before, after, answer=patch, spec=CaseSpec(why=why),
                metadata={"source": "codex apply-patch scenario", "scenario": folder.name})
