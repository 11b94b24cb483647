"""The layers: arrows point down across the whole import graph, and `import editblocks` stays cheap.

The graph is read from the source (every import, inside functions and
`TYPE_CHECKING` blocks too, and the names a lazy public face loads on first
use), so an arrow a test run never takes still counts. The checks that load
modules run in a fresh interpreter, so what an earlier test imported cannot
hide what a module really pulls in.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "editblocks"
LAYERS = (
    ("model", "errors", "record"),
    ("text",),
    ("parsing", "locate"),
    ("plan", "tools", "prompts"),
    ("workspace",),
    ("report", "extras"),
    ("service",),
    ("mcp", "eval"),
    ("integrations",),
    ("ask",),
    ("web",),
    ("cli",),
    ("__main__",),
)
"""Bottom to top. A module may import its own package and the layers below its own; packages that share a layer
know nothing of one another."""
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}
PUBLIC_FACES = {"editblocks": len(LAYERS), "editblocks.tools": RANK["service"] + 0.5}
"""Public faces that load names of higher layers on first use (`_LAZY`), with the layer importing one counts as
reaching; what they import at once obeys their own package's place."""
CORE = ("model", "errors", "record", "text", "parsing", "locate", "plan", "tools", "prompts")
UI_AND_PROCESS = ("rich", "click", "subprocess", "fcntl", "openai", "starlette", "uvicorn", "mcp", "socket")


@dataclass(frozen=True)
class Arrow:
    source: str
    target: str
    names: tuple[str, ...]
    lazy: bool  # named in a `_LAZY` table, loaded on first use
    line: int
    typing: bool = False  # imported for type checking only


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def arrows_of(name: str, path: Path, known: set[str], added: str = "") -> list[Arrow]:
    """Every arrow out of one module (with ``added`` code after its own): each import statement anywhere in it,
    and its `_LAZY` table's modules."""
    tree = ast.parse(path.read_text(encoding="utf-8") + added)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    typing_only = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                   for inner in ast.walk(node)}
    for node in ast.walk(tree):
        typing = id(node) in typing_only
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                target = f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                found.append(Arrow(name, target, (alias.name,) if target == base else (), False, node.lineno,
                                   typing))
        elif isinstance(node, ast.Import):
            found += [Arrow(name, alias.name, (), False, node.lineno, typing) for alias in node.names]
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in node.targets):
            assert isinstance(node.value, ast.Dict)
            found += [Arrow(name, value.value, (), True, node.lineno) for value in node.value.values
                      if isinstance(value, ast.Constant) and isinstance(value.value, str)]
    return [arrow for arrow in found if arrow.target.split(".")[0] == "editblocks" and arrow.target != name]


def graph(added: dict[str, str] | None = None) -> list[Arrow]:
    """The whole import graph; ``added`` maps a module to code added at its end (to test the checks)."""
    found, added = modules(), added or {}
    return [arrow for name, path in found.items()
            for arrow in arrows_of(name, path, set(found), "\n" + added.get(name, "") + "\n")]


def part_of(module: str) -> str:
    """The package (or top-level module) of ``module`` that the layers are made of."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else module


def rank_of(module: str) -> float:
    return PUBLIC_FACES.get(module, RANK.get(part_of(module), -1))


def test_every_part_of_the_package_has_a_layer() -> None:
    missing = {part_of(name) for name in modules() if name not in PUBLIC_FACES and part_of(name) not in RANK}
    assert not missing, f"add {sorted(missing)} to LAYERS"


def test_no_arrow_points_up_or_sideways() -> None:
    """Not even an import inside a function or for type checking: the layers hold on every path."""
    assert not arrows_up(graph()), "arrows that do not point down:\n" + "\n".join(arrows_up(graph()))


def arrows_up(arrows: list[Arrow]) -> list[str]:
    bad = []
    for arrow in arrows:
        if (arrow.lazy or arrow.typing) and arrow.source in PUBLIC_FACES:
            continue
        source = RANK.get(part_of(arrow.source), len(LAYERS)) if arrow.source in PUBLIC_FACES else rank_of(arrow.source)
        same_part = part_of(arrow.source) == part_of(arrow.target)
        if not same_part and rank_of(arrow.target) >= source:
            bad.append(f"{arrow.source}:{arrow.line} -> {arrow.target}")
    return bad


def test_the_import_graph_has_no_cycle() -> None:
    assert not cycles(graph()), f"import cycles: {cycles(graph())}"


def cycles(arrows: list[Arrow]) -> list[list[str]]:
    edges: dict[str, set[str]] = {name: set() for name in modules()}
    for arrow in arrows:
        if arrow.target in edges and not arrow.lazy:
            edges[arrow.source].add(arrow.target)
    return strongly_connected(edges)


def test_no_module_imports_another_packages_private_name() -> None:
    assert not private_imports(graph()), "\n".join(private_imports(graph()))


def private_imports(arrows: list[Arrow]) -> list[str]:
    return [f"{arrow.source}:{arrow.line} imports {arrow.target}.{name}" for arrow in arrows for name in arrow.names
            if name.startswith("_") and not name.startswith("__") and part_of(arrow.source) != part_of(arrow.target)]


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that import one another, round and round (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return groups


@pytest.mark.parametrize(("source", "added", "check"), [
    ("editblocks.locate.ladder", "from editblocks.plan import plan_edits", arrows_up),
    ("editblocks.parsing.stream", "def f():\n    from editblocks.locate import ladder", arrows_up),
    ("editblocks.workspace.reading", "if TYPE_CHECKING:\n    from editblocks.report.display import View", arrows_up),
    ("editblocks.plan.edits", "def f():\n    from editblocks.plan.planner import plan_edits", cycles),
    ("editblocks.service.apply", "from editblocks.plan.edits import _without_bom", private_imports),
])
def test_each_check_fails_when_one_bad_import_is_added(source: str, added: str,
                                                       check: Callable[[list[Arrow]], list[Any]]) -> None:
    assert not check(graph())
    assert check(graph({source: added}))


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    probe = code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def top_level(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names}


def above_core(names: set[str]) -> set[str]:
    return {name for name in names if name.startswith("editblocks.") and part_of(name) not in CORE}


def core_modules() -> list[str]:
    return [name for name in modules() if name != "editblocks" and part_of(name) in CORE
            and name not in PUBLIC_FACES]


def test_parsing_through_the_public_api_loads_no_ui_fuzzy_process_or_lock_library() -> None:
    loaded = loaded_after("import editblocks\nassert editblocks.parse('a.py\\n<<<<<<< SEARCH\\nx\\n=======\\ny\\n"
                          ">>>>>>> REPLACE\\n').blocks")
    assert not top_level(loaded) & {"rich", "click", "rapidfuzz", "subprocess", "fcntl"}
    assert not above_core(loaded)


@pytest.mark.parametrize("module", core_modules())
def test_a_core_module_loads_nothing_above_the_core(module: str) -> None:
    loaded = loaded_after(f"import {module}")
    assert not above_core(loaded), f"{module} pulls in {sorted(above_core(loaded))}"
    assert not top_level(loaded) & set(UI_AND_PROCESS), f"{module} pulls in a UI, network or process library"


@pytest.mark.parametrize("module", core_modules())
def test_a_core_module_names_no_ui_network_or_process_library(module: str) -> None:
    """Also imports inside functions: the core stays pure even on paths a test may not take."""
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    named = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    named |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert not {name for name in named if name.split(".")[0] in UI_AND_PROCESS}, f"{module} imports {sorted(named)}"


def test_the_public_names_all_resolve() -> None:
    loaded = loaded_after("import editblocks\nfor name in editblocks.__all__: getattr(editblocks, name)\n"
                          "assert callable(editblocks.parse) and callable(editblocks.apply)")
    assert "editblocks.service.apply" in loaded


def test_a_dry_run_apply_loads_neither_eval_nor_the_html_report_nor_the_feedback() -> None:
    example = PACKAGE.parent.parent / "examples"
    loaded = loaded_after(
        "from editblocks.cli import main\n"
        f"try:\n    main(['apply', {str(example / 'response.md')!r}, '--root', {str(example / 'project')!r}, "
        "'--dry-run'], standalone_mode=False)\nexcept SystemExit:\n    pass")
    assert "editblocks.service.session" in loaded
    assert not {name for name in loaded if name.startswith(("editblocks.eval", "editblocks.report.html",
                                                            "editblocks.report.feedback", "editblocks.prompts",
                                                            "editblocks.service.live"))}
    assert "tempfile" not in loaded  # the report writer's, loaded only when a report file is written


def test_help_loads_no_command_machinery() -> None:
    loaded = loaded_after("from editblocks.cli import main\ntry:\n    main(['--help'], standalone_mode=False)\n"
                          "except SystemExit:\n    pass")
    assert not top_level(loaded) & {"rich", "rapidfuzz", "subprocess", "fcntl"}
    assert not {name for name in loaded if name.startswith(("editblocks.workspace", "editblocks.report",
                                                            "editblocks.eval", "editblocks.locate",
                                                            "editblocks.service"))}
