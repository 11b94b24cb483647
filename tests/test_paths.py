"""Path resolution (CASES F6, F7): every escape is a refusal value, and looking never writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from editblocks.workspace.paths import Refusal, RefusalCode, is_canonical, name_key, resolve_path


def tree_state(top: Path) -> dict[str, tuple[object, ...]]:
    """Everything under ``top``: files with bytes and mode, folders with mode, symlinks with target."""
    state: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder, name)
            rel = str(path.relative_to(top))
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                state[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(mode):
                state[rel] = ("dir", stat.S_IMODE(mode))
            else:
                state[rel] = ("file", path.read_bytes(), stat.S_IMODE(mode))
    return state


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """``base/root`` is the project; ``base/outside`` is what must never be reached."""
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "README.md").write_text("# readme\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "vendor" / "lib" / ".git").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    os.symlink("../outside", root / "out_dir")
    os.symlink("../outside/secret.txt", root / "out_file")
    os.symlink(str(outside / "secret.txt"), root / "out_abs")
    os.symlink("/nonexistent/editblocks/target.txt", root / "out_dangling")
    os.symlink("../..", root / "src" / "up")
    os.symlink(".git/config", root / "git_cfg")
    os.symlink(".", root / "self")
    os.symlink("loop_b", root / "loop_a")
    os.symlink("loop_a", root / "loop_b")
    os.symlink("src", root / "in_dir")
    os.symlink("src/app.py", root / "in_file")
    return tmp_path


def resolve(base: Path, path: str) -> str | Refusal:
    return resolve_path(base / "root", path)


REFUSED = [
    ("../outside/secret.txt", RefusalCode.OUTSIDE_ROOT),
    ("a/../../outside/secret.txt", RefusalCode.OUTSIDE_ROOT),
    ("src/../../outside/secret.txt", RefusalCode.OUTSIDE_ROOT),
    ("..\\outside\\secret.txt", RefusalCode.OUTSIDE_ROOT),
    ("/etc/passwd", RefusalCode.OUTSIDE_ROOT),
    ("//etc/passwd", RefusalCode.OUTSIDE_ROOT),
    ("out_dir/secret.txt", RefusalCode.OUTSIDE_ROOT),
    ("out_dir/new.txt", RefusalCode.OUTSIDE_ROOT),
    ("out_file", RefusalCode.OUTSIDE_ROOT),
    ("out_abs", RefusalCode.OUTSIDE_ROOT),
    ("out_dangling", RefusalCode.OUTSIDE_ROOT),
    ("src/up/outside/secret.txt", RefusalCode.OUTSIDE_ROOT),
    (".git/config", RefusalCode.GIT_DIR),
    (".git", RefusalCode.GIT_DIR),
    (".GIT/config", RefusalCode.GIT_DIR),
    (".Git/hooks/pre-commit", RefusalCode.GIT_DIR),
    ("vendor/lib/.git/HEAD", RefusalCode.GIT_DIR),
    ("sub/.git/x", RefusalCode.GIT_DIR),
    ("src/.git", RefusalCode.GIT_DIR),
    (".git./config", RefusalCode.GIT_DIR),
    (".\uff47\uff49\uff54/config", RefusalCode.GIT_DIR),  # fullwidth "git"
    (".g\u200bit/config", RefusalCode.GIT_DIR),  # zero-width space inside
    ("git_cfg", RefusalCode.GIT_DIR),  # a symlink into .git
    (".editblocks/journal/x/manifest.json", RefusalCode.JOURNAL_DIR),
    (".EditBlocks/lock", RefusalCode.JOURNAL_DIR),
    ("src", RefusalCode.DIRECTORY),
    ("src/", RefusalCode.DIRECTORY),
    ("new_folder/", RefusalCode.DIRECTORY),
    ("in_dir", RefusalCode.DIRECTORY),
    (".", RefusalCode.DIRECTORY),
    ("./", RefusalCode.DIRECTORY),
    ("src/..", RefusalCode.DIRECTORY),
    ("self", RefusalCode.DIRECTORY),
    ("", RefusalCode.INVALID_PATH),
    ("src/a\0b.py", RefusalCode.INVALID_PATH),
    ("src/a\nb.py", RefusalCode.INVALID_PATH),
    ("C:\\Users\\x\\app.py", RefusalCode.INVALID_PATH),
    ("c:/x.py", RefusalCode.INVALID_PATH),
    ("D:x.py", RefusalCode.INVALID_PATH),
    ("x" * 256, RefusalCode.INVALID_PATH),
    ("\u00e9" * 128, RefusalCode.INVALID_PATH),  # 128 characters but 256 bytes
    ("d/" * 2100 + "x.py", RefusalCode.INVALID_PATH),
    ("README.md/x.py", RefusalCode.INVALID_PATH),
    ("loop_a", RefusalCode.INVALID_PATH),
    ("loop_a/x.py", RefusalCode.INVALID_PATH),
    ("bad\ud800.py", RefusalCode.INVALID_PATH),  # a lone surrogate cannot be a file name
]


@pytest.mark.parametrize(("path", "code"), REFUSED)
def test_refused_paths_are_values_and_touch_nothing(base: Path, path: str, code: RefusalCode) -> None:
    before = tree_state(base)
    result = resolve(base, path)
    assert isinstance(result, Refusal), result
    assert result.code is code, result.reason
    assert result.path == path
    assert result.reason.startswith("refused: ")
    assert tree_state(base) == before


def test_absolute_path_to_an_outside_file_is_refused(base: Path) -> None:
    result = resolve(base, str(base / "outside" / "secret.txt"))
    assert isinstance(result, Refusal) and result.code is RefusalCode.OUTSIDE_ROOT


def test_reasons_name_the_path_and_the_problem(base: Path) -> None:
    assert resolve(base, "../x.py") == Refusal(
        "../x.py", RefusalCode.OUTSIDE_ROOT, "refused: `../x.py` resolves outside the project root"
    )
    directory = resolve(base, "src")
    assert isinstance(directory, Refusal) and directory.reason == "refused: `src` is a directory, not a file"
    nul = resolve(base, "a\0b")
    assert isinstance(nul, Refusal) and "`a\\x00b`" in nul.reason
    long = resolve(base, "y" * 300)
    assert isinstance(long, Refusal) and len(long.reason) < 250


ACCEPTED = [
    ("src/app.py", "src/app.py"),
    ("./src//app.py", "src/app.py"),
    ("src\\app.py", "src/app.py"),
    ("src/../README.md", "README.md"),
    ("new/deeper/file.txt", "new/deeper/file.txt"),
    ("in_file", "src/app.py"),  # a link inside the root is written through
    ("in_dir/app.py", "src/app.py"),
    ("in_dir/new.py", "src/new.py"),
    ("..\uff0f..\uff0foutside.txt", "..\uff0f..\uff0foutside.txt"),  # fullwidth solidus: one name
    ("\uff0e\uff0e/x.txt", "\uff0e\uff0e/x.txt"),  # fullwidth dots are not ".."
    ("caf\u00e9/na\u00efve \U0001f600.py", "caf\u00e9/na\u00efve \U0001f600.py"),
    (".github/workflows/ci.yml", ".github/workflows/ci.yml"),
    (".gitignore", ".gitignore"),
    ("src/.editblocks/notes.txt", "src/.editblocks/notes.txt"),  # only the root's journal is reserved
    ("x" * 255, "x" * 255),
]


@pytest.mark.parametrize(("path", "rel"), ACCEPTED)
def test_accepted_paths_become_canonical(base: Path, path: str, rel: str) -> None:
    before = tree_state(base)
    assert resolve(base, path) == rel
    assert tree_state(base) == before


def test_absolute_path_inside_the_root_is_made_relative(base: Path) -> None:
    assert resolve(base, str(base / "root" / "src" / "app.py")) == "src/app.py"
    root_itself = resolve(base, str(base / "root"))
    assert isinstance(root_itself, Refusal) and root_itself.code is RefusalCode.DIRECTORY


def test_absolute_path_through_the_roots_unresolved_spelling(base: Path) -> None:
    alias = base / "alias"
    os.symlink("root", alias)
    root = Path(os.path.realpath(alias))
    assert resolve_path(root, str(alias / "src" / "app.py"), root_aliases=(alias,)) == "src/app.py"
    assert isinstance(resolve_path(root, str(alias / "src" / "app.py")), Refusal)


def test_special_files_are_refused_without_opening_them(base: Path) -> None:
    os.mkfifo(base / "root" / "pipe")
    result = resolve(base, "pipe")
    assert isinstance(result, Refusal) and result.code is RefusalCode.UNREADABLE


def test_name_key_sees_through_disguises() -> None:
    disguises = [".git", ".GIT", ".git.", ".git ", ".\uff47\uff49\uff54", ".g\u200cit"]
    assert {name_key(name) for name in disguises} == {".git"}
    assert name_key(".github") != ".git"


def test_is_canonical_rejects_dots_empty_parts_and_reserved_names() -> None:
    """The lexical check for names a journal manifest gives; links on the way are refused by `dirfd`."""
    assert is_canonical("src/app.py")
    assert is_canonical("src/missing.tmp")
    assert not is_canonical("src/../README.md")
    assert not is_canonical("./src/app.py")
    assert not is_canonical("src//app.py")
    assert not is_canonical("/etc/passwd")
    assert not is_canonical(".git/config")
    assert not is_canonical(".editblocks/lock")
    assert not is_canonical("")
