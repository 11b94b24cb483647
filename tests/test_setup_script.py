"""scripts/test.sh, the README's test command: what it installs, how, and what it runs.

It runs here with stand-ins for the system's commands (apt-get, sudo, id, python3) that write down how
they were called, so the test sees what the script would do on a fresh Debian machine without doing it.
CI runs the real thing: `.ci/run` starts with this script.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "test.sh"
REAL_TOOLS = ("dirname", "env", "mkdir", "chmod")

STAND_INS = {
    "apt-get": 'echo "apt-get $*" >> "$LOG"',
    "sudo": 'echo "sudo $*" >> "$LOG"; exec "$@"',
    "id": 'echo "$FAKE_UID"',
    "python3": """if [ "$1" = -c ]; then exit "$FAKE_NO_VENV"; fi
echo "python3 $*" >> "$LOG"
mkdir -p .venv/bin
for tool in pip python; do
    printf '#!/bin/bash\\necho "%s $*" >> "$LOG"\\n' "$tool" > ".venv/bin/$tool"
    chmod +x ".venv/bin/$tool"
done""",
    "git": "true",
}


def stand_ins(folder: Path, *, without: tuple[str, ...] = ()) -> Path:
    folder.mkdir()
    for name, body in STAND_INS.items():
        if name not in without:
            (folder / name).write_text(f"#!/bin/bash\n{body}\n")
            (folder / name).chmod(0o755)
    for name in REAL_TOOLS:
        real = shutil.which(name)
        assert real is not None
        (folder / name).symlink_to(real)
    return folder


def run(tmp_path: Path, *args: str, uid: int = 1000, no_venv: bool = False, without: tuple[str, ...] = (),
        chromium: Path | None = None, debian_chromium: bool = False,
        ) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Run the script in a copy of the checkout; ``debian_chromium`` leaves EDITBLOCKS_CHROMIUM unset."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, checkout / "scripts" / "test.sh")
    if chromium is None:
        chromium = tmp_path / "chromium"
        chromium.write_text("#!/bin/sh\n")
        chromium.chmod(stat.S_IRWXU)
    log = tmp_path / "log"
    log.touch()
    env = {"PATH": str(stand_ins(tmp_path / "bin", without=without)), "LOG": str(log), "FAKE_UID": str(uid),
           "FAKE_NO_VENV": "1" if no_venv else "0", "HOME": str(tmp_path)}
    if not debian_chromium:
        env["EDITBLOCKS_CHROMIUM"] = str(chromium)
    done = subprocess.run([shutil.which("bash") or "/bin/bash", str(checkout / "scripts" / "test.sh"), *args],
                          env=env, capture_output=True, text=True, timeout=60)
    return done, log.read_text().splitlines()


def test_with_everything_there_it_installs_editblocks_and_runs_the_suite(tmp_path: Path) -> None:
    done, calls = run(tmp_path, "-m", "not slow")
    assert done.returncode == 0, done.stderr
    assert calls == ["python3 -m venv .venv", "pip install -q -e .[dev]", "python -m pytest -n auto --dist loadgroup -m not slow"]


def test_a_missing_package_is_installed_with_sudo_and_without_questions(tmp_path: Path) -> None:
    done, calls = run(tmp_path, no_venv=True, without=("git",))
    assert done.returncode == 0, done.stderr
    assert calls[:4] == [
        "sudo apt-get update -q",
        "apt-get update -q",
        "sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv git",
        "apt-get install -y -q python3-venv git",
    ]
    assert calls[4:] == ["python3 -m venv .venv", "pip install -q -e .[dev]", "python -m pytest -n auto --dist loadgroup"]


def test_as_root_it_needs_no_sudo(tmp_path: Path) -> None:
    done, calls = run(tmp_path, uid=0, no_venv=True)
    assert done.returncode == 0, done.stderr
    assert calls[:2] == ["apt-get update -q", "apt-get install -y -q python3-venv"]
    assert not [call for call in calls if call.startswith("sudo")]


def test_a_chromium_named_but_missing_stops_it_before_anything_is_installed(tmp_path: Path) -> None:
    done, calls = run(tmp_path, chromium=tmp_path / "nowhere" / "chromium")
    assert done.returncode == 1 and calls == []
    assert done.stderr == f"EDITBLOCKS_CHROMIUM={tmp_path}/nowhere/chromium is not an executable file: " \
                          "point it at a Chromium\n"


def test_without_apt_it_says_what_to_install(tmp_path: Path) -> None:
    done, calls = run(tmp_path, no_venv=True, without=("apt-get",))
    assert done.returncode == 1 and calls == []
    assert "the tests need python3-venv, and this system has no apt-get to install them" in done.stderr


def test_without_the_variable_it_installs_debians_chromium_when_it_is_missing(tmp_path: Path) -> None:
    done, calls = run(tmp_path, debian_chromium=True)
    assert done.returncode == 0, done.stderr
    missing = not os.access("/usr/bin/chromium", os.X_OK)
    assert ("apt-get install -y -q chromium" in calls) == missing
