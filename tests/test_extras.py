"""A missing extra is named with the install command that fits the running copy: from a source checkout
`pip install -e '.[web]'`, from an installed package `pip install 'editblocks[web]'`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from editblocks.extras import install_command, source_checkout

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "src" / "editblocks"


def checkout(where: Path, name: str = "editblocks") -> Path:
    """A checkout's shape: pyproject.toml naming the project, and the package under src/."""
    (where / "src" / "editblocks").mkdir(parents=True)
    (where / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "1"\n')
    return where / "src" / "editblocks"


def test_this_copy_runs_from_its_checkout() -> None:
    assert source_checkout() == REPO
    assert install_command("web", cwd=REPO) == "pip install -e '.[web]'"


def test_from_another_folder_the_checkout_is_named(tmp_path: Path) -> None:
    assert install_command("ask", cwd=tmp_path) == f"pip install -e '{REPO}[ask]'"


def test_a_checkout_path_with_a_space_is_quoted_for_the_shell(tmp_path: Path) -> None:
    package = checkout(tmp_path / "my projects" / "editblocks")
    command = install_command("mcp", package=package, cwd=tmp_path)
    assert command == f"pip install -e '{tmp_path}/my projects/editblocks[mcp]'"


def test_an_installed_package_is_installed_from_the_index(tmp_path: Path) -> None:
    package = tmp_path / "lib" / "python3.11" / "site-packages" / "editblocks"
    package.mkdir(parents=True)
    assert source_checkout(package) is None
    assert install_command("web", package=package, cwd=tmp_path) == "pip install 'editblocks[web]'"


def test_a_src_folder_of_another_project_is_no_checkout_of_editblocks(tmp_path: Path) -> None:
    assert source_checkout(checkout(tmp_path, name="vendored-things")) is None
    package = checkout(tmp_path / "broken")
    (tmp_path / "broken" / "pyproject.toml").write_text("[project\n")
    assert source_checkout(package) is None


def test_an_installed_copy_run_as_a_user_would_names_the_package_index(tmp_path: Path) -> None:
    """The package copied out of the checkout, as an install lays it out, then `editblocks mcp` without mcp."""
    site = tmp_path / "site-packages"
    shutil.copytree(PACKAGE, site / "editblocks", ignore=shutil.ignore_patterns("__pycache__"))
    probe = ("import sys; sys.modules['mcp'] = None\nfrom editblocks.cli import main\n"
             f"main(['mcp', '--root', {str(tmp_path)!r}])")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(site)}, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["Error: the MCP server needs the mcp package: "
                                                "pip install 'editblocks[mcp]'"]
