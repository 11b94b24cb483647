"""What a Python user expects of the package: a license, type information, `python -m`, a complete sdist."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import tomllib
from importlib import metadata, resources
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LEFT_OUT = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", "*.egg-info",
                                  "build", "dist", ".editblocks", "corpus*")


def test_python_dash_m_runs_the_command_line() -> None:
    answer = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
    run = subprocess.run([sys.executable, "-m", "editblocks", "parse", "-", "--json"], input=answer,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert '"path": "a.py"' in run.stdout
    version = subprocess.run([sys.executable, "-m", "editblocks", "--version"], capture_output=True, text=True,
                             timeout=60)
    assert version.stdout.startswith("editblocks, version ")


def test_the_package_is_typed_and_licensed() -> None:
    assert resources.files("editblocks").joinpath("py.typed").is_file()
    assert (REPO / "LICENSE").read_text().startswith("MIT License\n")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT" and project["project"]["license-files"] == ["LICENSE"]
    assert metadata.metadata("editblocks")["License-Expression"] == "MIT"
    assert set(project["project"]["urls"]) >= {"Homepage", "Documentation", "Changelog"}


@pytest.mark.slow
def test_the_sdist_holds_the_tests_and_they_run_from_it(tmp_path: Path) -> None:
    """Build the sdist from a copy of the checkout (no network: the build backend is a dev dependency),
    unpack it, and run tests that need the corpus, the snapshots, the helpers and the README."""
    source = tmp_path / "checkout"
    shutil.copytree(REPO, source, ignore=LEFT_OUT, symlinks=True)
    build = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                            "print(build_meta.build_sdist(sys.argv[1]))", str(tmp_path / "dist")],
                           cwd=source, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    archive = tmp_path / "dist" / build.stdout.strip().splitlines()[-1]
    with tarfile.open(archive) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        names = {name.removeprefix(top + "/") for name in sdist.getnames()}
        sdist.extractall(tmp_path / "unpacked", filter="data")
    for needed in ("LICENSE", "CHANGELOG.md", "README.md", "src/editblocks/py.typed", "tests/conftest.py",
                   "tests/helpers_apply.py", "tests/cases/conftest.py", "tests/snapshots/prompts/diff.txt",
                   "examples/response.md", "fuzz/seeds.py", ".ci/run", "docs/index.md", "docs/images/review-page.png",
                   "mkdocs.yml", "scripts/test.sh", "scripts/screenshots.py"):
        assert needed in names, f"{needed} is missing from the sdist"
    cases = {name for name in names if name.startswith("tests/cases/") and name.endswith("/response.md")}
    assert len(cases) >= 250
    tests = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not slow", "tests/test_readme.py",
                            "tests/test_prompts.py", "tests/test_eval.py", "-k", "not parallel"],
                           cwd=tmp_path / "unpacked" / top, capture_output=True, text=True, timeout=600)
    assert tests.returncode == 0, tests.stdout[-3000:]
    assert " passed" in tests.stdout
