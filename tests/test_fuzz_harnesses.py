"""Short runs of the atheris harnesses under fuzz/, so a broken invariant fails the normal test suite.

Each harness runs a few thousand inputs from its seed corpus with a fixed
seed (reproducible); longer runs are documented in fuzz/README.md.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FUZZ_DIR = Path(__file__).resolve().parent.parent / "fuzz"
HARNESS_RUNS = {"fuzz_parse.py": 3000, "fuzz_locate.py": 3000, "fuzz_paths.py": 3000}

pytest.importorskip("atheris")


def run_harness(script: Path, tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """Run a harness with a fresh corpus and crash folder under ``tmp_path``; libFuzzer reports on stderr."""
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir(exist_ok=True)
    command = [sys.executable, str(script), "-seed=1", "-timeout=20", f"-artifact_prefix={artifacts}/",
               *flags, str(tmp_path / "corpus")]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HARNESS_RUNS))
def test_harness_runs_clean(name: str, tmp_path: Path) -> None:
    finished = run_harness(FUZZ_DIR / name, tmp_path, f"-runs={HARNESS_RUNS[name]}")
    assert finished.returncode == 0, finished.stderr[-4000:]
    assert f"Done {HARNESS_RUNS[name]} runs" in finished.stderr
    assert not list((tmp_path / "artifacts").iterdir()), "the harness saved a crashing input"
    assert any((tmp_path / "corpus").iterdir()), "the seed corpus was not written"


def test_a_failing_invariant_fails_the_run(tmp_path: Path) -> None:
    """The wiring the harnesses share turns an exception into a non-zero exit and a saved input."""
    script = tmp_path / "fuzz_broken.py"
    script.write_text(textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(FUZZ_DIR)!r})
        from runner import run

        def check(data):
            assert b"<<<" not in data, "found the marker"

        run("parse", check)
        """
    ))
    finished = run_harness(script, tmp_path, "-runs=100000")
    assert finished.returncode != 0
    assert "found the marker" in finished.stdout + finished.stderr
    assert list((tmp_path / "artifacts").iterdir()), "no crashing input was saved"
