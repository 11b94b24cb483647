"""The layers: the pure core imports nothing above it, and `import editblocks` stays cheap.

Each check runs in a fresh interpreter, so what an earlier test imported
cannot hide what a module really pulls in.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "editblocks"
CORE = ("model", "document", "plan", "patch_plan", "parsing", "locate", "frontends")
NOT_CORE = ("workspace", "report", "cli", "eval", "ask", "web", "mcp", "prompts")
UI_AND_PROCESS = ("rich", "click", "subprocess", "fcntl")


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def top_level(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names}


def core_modules() -> list[str]:
    found = []
    for part in CORE:
        path = PACKAGE / part
        files = sorted(path.glob("*.py")) if path.is_dir() else [path.with_suffix(".py")]
        found += [f for f in (str(p.relative_to(PACKAGE.parent).with_suffix("")).replace("/", ".") for p in files
                              if p.exists())]
    return found


def test_parsing_through_the_public_api_loads_no_ui_fuzzy_process_or_lock_library() -> None:
    loaded = loaded_after("import editblocks\nassert editblocks.parse('a.py\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n"
                          ">>>>>>> REPLACE\\n').blocks")
    assert not top_level(loaded) & {"rich", "click", "rapidfuzz", "subprocess", "fcntl"}
    assert not {name for name in loaded if name.startswith(tuple(f"editblocks.{p}" for p in NOT_CORE))}


@pytest.mark.parametrize("module", core_modules())
def test_a_core_module_loads_nothing_above_the_core(module: str) -> None:
    loaded = loaded_after(f"import {module}")
    above = {name for name in loaded if name.startswith(tuple(f"editblocks.{p}" for p in NOT_CORE))}
    assert not above, f"{module} pulls in {sorted(above)}"
    assert not top_level(loaded) & set(UI_AND_PROCESS), f"{module} pulls in a UI or process library"


@pytest.mark.parametrize("module", core_modules())
def test_a_core_module_names_nothing_above_the_core(module: str) -> None:
    """Also imports inside functions: the arrows point down even on paths a test may not take."""
    tree = ast.parse((PACKAGE.parent / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
    named = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    named |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    bad = {name for name in named if name.startswith(tuple(f"editblocks.{p}" for p in NOT_CORE))
           or name.split(".")[0] in UI_AND_PROCESS}
    assert not bad, f"{module} imports {sorted(bad)}"


def test_the_public_names_all_resolve() -> None:
    loaded = loaded_after("import editblocks\nfor name in editblocks.__all__: getattr(editblocks, name)\n"
                          "assert callable(editblocks.parse) and callable(editblocks.apply)")
    assert "editblocks.workspace.apply" in loaded


def test_a_dry_run_apply_loads_neither_eval_nor_the_html_report_nor_the_feedback() -> None:
    example = PACKAGE.parent.parent / "examples"
    loaded = loaded_after(
        "from editblocks.cli import main\n"
        f"try:\n    main(['apply', {str(example / 'response.md')!r}, '--root', {str(example / 'project')!r}, "
        "'--dry-run'], standalone_mode=False)\nexcept SystemExit:\n    pass")
    assert "editblocks.workspace.apply" in loaded
    assert not {name for name in loaded if name.startswith(("editblocks.eval", "editblocks.report.html",
                                                            "editblocks.report.feedback", "editblocks.prompts"))}


def test_help_loads_no_command_machinery() -> None:
    loaded = loaded_after("from editblocks.cli import main\ntry:\n    main(['--help'], standalone_mode=False)\n"
                          "except SystemExit:\n    pass")
    assert not top_level(loaded) & {"rich", "rapidfuzz", "subprocess", "fcntl"}
    assert not {name for name in loaded if name.startswith(("editblocks.workspace", "editblocks.report",
                                                            "editblocks.eval", "editblocks.locate"))}
