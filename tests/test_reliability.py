"""Reliability under hostile input and a hostile environment (issue 6).

- properties (hypothesis): apply then undo is byte-exact, a dry run never
  touches the disk, no path a model writes ever leads to a write outside the root;
- fault injection at the command-line level: `editblocks apply` killed with
  SIGKILL before every write-like system call of a multi-file run, and the
  same run hit by ENOSPC, EACCES and EIO at every such call;
- limits: huge lines, many blocks, big files, degenerate responses; parsing
  must grow linearly (CPU time at 8N over CPU time at N, measured in one run);
- regressions for the problems found this way (each test names the problem).

Times are never asserted, only behaviour and growth ratios. The ratios are
built to stay green on a busy machine: they compare N with 8N, where linear
work gives about 8x and quadratic work about 64x, so the limit can sit far
from both; they use `time.process_time`, which other processes do not add to;
and a measurement over the limit is repeated and the lowest kept. A Python-level
work counter would be exact but blind to where quadratic slips hide in a parser
(C string methods re-searching or re-joining a growing buffer), so CPU time it is.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from editblocks import BlockKind, EditBlock, Format, ParseResult, StreamParser, apply, parse, validate
from editblocks.cli import main
from editblocks.plan import TargetFile, plan_edits
from editblocks.workspace import Workspace

JOURNAL = ".editblocks"
EDITBLOCKS = [str(Path(sys.executable).with_name("editblocks"))]
GROWTH_FACTOR = 8
GROWTH_LIMIT = 24.0
"""CPU time at size 8N over CPU time at size N above which growth is flagged as worse than linear.

Linear work measures about 8x (a little less when a fixed cost shows at N), quadratic work about 64x:
24x is three times linear and well short of quadratic, so neither noise nor a loaded machine decides.
"""
slow = pytest.mark.slow


# --- helpers -------------------------------------------------------------------------------------


def tree_state(top: Path, *, skip: tuple[str, ...] = (JOURNAL,), times: bool = False) -> dict[str, tuple[object, ...]]:
    """Every entry under ``top`` with its kind, bytes or link target and mode; folders named in ``skip`` left out."""
    state: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(top):
        dirs[:] = [name for name in dirs if name not in skip]
        for name in dirs + files:
            path = Path(folder, name)
            status = os.lstat(path)
            extra = (status.st_mtime_ns,) if times else ()
            if stat.S_ISLNK(status.st_mode):
                state[str(path.relative_to(top))] = ("link", os.readlink(path))
            elif stat.S_ISDIR(status.st_mode):
                state[str(path.relative_to(top))] = ("dir", stat.S_IMODE(status.st_mode), *extra)
            else:
                state[str(path.relative_to(top))] = ("file", path.read_bytes(), stat.S_IMODE(status.st_mode), *extra)
    return state


def temp_files(top: Path) -> list[str]:
    return sorted(str(path.relative_to(top)) for path in top.rglob("*.editblocks-*.tmp"))


def write_tree(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def diff_block(path: str, old: str, new: str) -> str:
    """One block in the `diff` format; ``old`` and ``new`` are LF texts ending in a newline (or empty)."""
    return f"{path}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"


def invoke(*args: str) -> tuple[int, str]:
    """Run the command line in this process; (exit code, stdout and stderr)."""
    result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout + result.stderr


def cpu_time(function: Callable[[], object], repeats: int) -> float:
    """The least CPU time of ``repeats`` runs of ``function``, with the garbage collector off.

    CPU time counts only this process's work, so another busy process on the
    machine does not inflate it; the minimum discards runs that were disturbed
    anyway (cache misses after a context switch, a frequency change).
    """
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            start = time.process_time()
            function()
            best = min(best, time.process_time() - start)
    finally:
        gc.enable()
    return best


def growth_ratio(small: Callable[[], object], large: Callable[[], object], limit: float,
                 attempts: int = 4) -> float:
    """CPU time of ``large`` over CPU time of ``small``; the lowest of up to ``attempts`` measurements.

    A ratio under ``limit`` ends the measuring at once, so a healthy run costs
    one pass; one over it is measured again, because a quadratic algorithm is
    over the limit every time and a disturbed measurement is not.
    """
    small()  # warm caches and imports before timing either size
    ratio = float("inf")
    for _ in range(attempts):
        ratio = min(ratio, cpu_time(large, 2) / cpu_time(small, 5))
        if ratio < limit:
            break
    return ratio


def growth(run_at: Callable[[int], Callable[[], object]], size: int) -> float:
    """CPU time at ``GROWTH_FACTOR * size`` over CPU time at ``size``: about 8 for linear work, 64 for quadratic."""
    return growth_ratio(run_at(size), run_at(GROWTH_FACTOR * size), GROWTH_LIMIT)


# --- properties: apply then undo, dry runs ------------------------------------------------------

LINE_VOCABULARY = [
    "def f():", "    return 1", "\treturn 2", "x = 'a'", "", "  ", "}", "# comment", "alpha", "beta",
    "gamma = \u201cq\u201d", "=======", "```", "...", "    if x:", "        y()", "<<<<<<< SEARCH",
]
TREE_PATHS = ["a.txt", "src/b.py", "src/c.md", "d/e/f.txt", "bin.dat", "latin.txt"]
NEW_PATHS = ["new.txt", "src/new.py", "deep/er/new.md", "./a.txt", "src\\b.py", "SRC/B.PY"]
free_line = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)
some_lines = st.lists(st.one_of(st.sampled_from(LINE_VOCABULARY), free_line), max_size=5)


@st.composite
def file_bytes(draw: st.DrawFn, path: str) -> bytes:
    """A text file in LF, CRLF or mixed endings, with or without BOM and final newline; or binary/Latin-1."""
    if path == "bin.dat":
        return b"\x00\x01binary\n"
    if path == "latin.txt":
        return "caf\u00e9 = 1\n".encode("latin-1")
    lines = draw(st.lists(st.sampled_from(LINE_VOCABULARY), min_size=1, max_size=8))
    style = draw(st.sampled_from(["\n", "\r\n", "mixed"]))
    endings = ["\r\n" if i % 2 else "\n" for i in range(len(lines))] if style == "mixed" else [style] * len(lines)
    text = "".join(map(str.__add__, lines, endings))
    if not draw(st.booleans()):
        text = text.rstrip("\r\n")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8")


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[dict[str, bytes], str, str | None]:
    """A tree, an answer whose blocks often quote the real files (so they apply), and a failure policy."""
    paths = draw(st.lists(st.sampled_from(TREE_PATHS), min_size=1, max_size=4, unique=True))
    files = {path: draw(file_bytes(path)) for path in paths}
    blocks = []
    for _ in range(draw(st.integers(1, 5))):
        path = draw(st.sampled_from(paths + NEW_PATHS))
        known = files.get(path, b"").decode("utf-8-sig", errors="replace").replace("\r\n", "\n").split("\n")
        choice = draw(st.sampled_from(["quote", "quote", "random", "create"]))
        if choice == "quote":
            start = draw(st.integers(0, max(0, len(known) - 1)))
            old_lines = known[start : start + draw(st.integers(1, 3))]
        else:
            old_lines = draw(some_lines) if choice == "random" else []
        old = "".join(line + "\n" for line in old_lines)
        new = "".join(line + "\n" for line in draw(some_lines))
        blocks.append(diff_block(path, old, new))
    policy = draw(st.sampled_from([None, "continue", "skip-file", "abort"]))
    return files, "Here are the edits.\n\n" + "\n".join(blocks), policy


@slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_apply_then_undo_restores_every_byte(scenario: tuple[dict[str, bytes], str, str | None]) -> None:
    files, answer, policy = scenario
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_tree(root, files)
        before = tree_state(root)
        result = apply(parse(answer), root, policy=policy)
        after = tree_state(root)
        touched = set(result.files_modified) | set(result.files_created)
        changed = {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
        assert {path for path in changed if (after.get(path) or before[path])[0] != "dir"} <= touched
        assert bool(changed) == result.written
        if result.written:
            undone = Workspace(root).undo()
            assert undone.ok, undone.message
        assert tree_state(root) == before
        assert temp_files(root) == []


@slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_a_dry_run_never_touches_the_disk(scenario: tuple[dict[str, bytes], str, str | None]) -> None:
    files, answer, policy = scenario
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "root"
        root.mkdir()
        write_tree(root, files)
        (root / "answer.md").write_text(answer)
        before = tree_state(Path(folder), skip=(), times=True)
        apply(parse(answer), root, policy=policy, dry_run=True)
        invoke("apply", str(root / "answer.md"), "--root", str(root), "--dry-run")
        invoke("check", str(root / "answer.md"), "--root", str(root))
        assert tree_state(Path(folder), skip=(), times=True) == before


# --- properties: nothing is ever written outside the root ---------------------------------------

HOSTILE_PARTS = [
    "..", ".", "", "link_dir", "link_file", "abs_link", "dangling", "sub", "up", "far", "loop", "outside", "secret.txt",
    "x.txt", "new.txt", "root", "\uff0e\uff0e", "\u2025", "\u2024\u2024", "\uff0f", "a\uff0fb", "\u2215", "\u2044",
    "..\\..", ".git", ".GIT.", ".editblocks", "~", "x" * 300, "%2e%2e", "..\u200b", " ..", ".. ",
]
HOSTILE_PREFIXES = [
    "", "", "", "./", "/", "{base}/", "{root}/", "{root}/", "{root}/../", "{root}/../../", "{root}/sub/../../", "\\\\",
    "C:\\",
]
SECRET = "secret\n"


@st.composite
def hostile_paths(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(HOSTILE_PARTS), min_size=1, max_size=5))
    separator = draw(st.sampled_from(["/", "/", "\\", "\uff0f"]))
    return draw(st.sampled_from(HOSTILE_PREFIXES)) + separator.join(parts)


def hostile_layout(base: Path) -> Path:
    """``base/root`` with symlinks out to ``base/outside`` (relative, absolute, dangling), a loop, and two levels up."""
    root, outside = base / "root", base / "outside"
    (root / "sub").mkdir(parents=True)
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET)
    (outside / "x.txt").write_text(SECRET)
    (outside / "dir" / "secret.txt").write_text(SECRET)
    (root / "secret.txt").write_text(SECRET)
    (root / "link_dir").symlink_to("../outside")
    (root / "link_file").symlink_to("../outside/secret.txt")
    (root / "abs_link").symlink_to(outside / "dir")
    (root / "dangling").symlink_to("../outside/missing")
    (root / "sub" / "up").symlink_to("../..")
    (root / "far").symlink_to("../..")
    (root / "loop").symlink_to("loop")
    return root


@slow
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(hostile_paths(), st.booleans()), min_size=1, max_size=6))
def test_no_path_ever_leads_to_a_write_outside_the_root(tmp_path: Path, targets: list[tuple[str, bool]]) -> None:
    """Each example gets ``tmp_path/<example>/{root,outside}``: only ``root`` may change, nothing may appear around."""
    around = set(os.listdir(tmp_path))
    base = Path(tempfile.mkdtemp(dir=tmp_path))
    root = hostile_layout(base)
    paths = [path.format(base=base, root=root) for path, _ in targets]
    blocks = [
        EditBlock(path, "", SECRET if edit else "", "PWNED\n", "", BlockKind.EDIT if edit else BlockKind.CREATE,
                  Format.DIFF, number)
        for number, (path, (_, edit)) in enumerate(zip(paths, targets), start=1)
    ]
    (base / "answer.md").write_text("".join(diff_block(block.path, block.old, block.new) for block in blocks))
    outside_before = tree_state(base, skip=("root",))
    links_before = {rel: entry for rel, entry in tree_state(root).items() if entry[0] == "link"}
    apply(blocks, root)
    invoke("apply", str(base / "answer.md"), "--root", str(root))
    assert tree_state(base, skip=("root",)) == outside_before
    assert {rel: e for rel, e in tree_state(root).items() if e[0] == "link"} == links_before
    assert set(os.listdir(tmp_path)) == around | {base.name}
    shutil.rmtree(base)


# --- fault injection at the command line ----------------------------------------------------------

FAULT_DRIVER = textwrap.dedent(
    '''
    """Run `editblocks` once per fault point, each time on a fresh copy of a tree, in a forked child.

    argv[1] is a JSON job: template (folder copied for every point), work (where
    the copies go), args (CLI arguments; "{root}" becomes the copy), functions
    (names in `os` to sabotage), fault ("kill" or an errno name) and points (the
    call, counted over all sabotaged functions, that is sabotaged; 0: none).
    Prints one JSON line per point: exit code or killing signal, and calls made.
    """

    import errno
    import json
    import os
    import shutil
    import signal
    import sys
    import traceback

    from editblocks.cli import main

    job = json.loads(sys.argv[1])
    REAL = {name: getattr(os, name) for name in job["functions"]}
    WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT


    def counted(name, args):
        """`os.open` counts only when it opens for writing; the other functions always count."""
        return name != "open" or bool((args[1] if len(args) > 1 else 0) & WRITING)


    def sabotage(point, counter):
        def wrap(name, real):
            def wrapper(*args, **kwargs):
                if counted(name, args):
                    counter[0] += 1
                    if counter[0] == point:
                        if job["fault"] == "kill":
                            os.kill(os.getpid(), signal.SIGKILL)
                        code = getattr(errno, job["fault"])
                        raise OSError(code, os.strerror(code))
                return real(*args, **kwargs)
            return wrapper
        for name, real in REAL.items():
            setattr(os, name, wrap(name, real))


    def child(point, root, folder):
        log = os.open(os.path.join(folder, "output.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(log, 1)
        os.dup2(log, 2)
        counter = [0]
        sabotage(point, counter)
        code = 0
        try:
            main([argument.replace("{root}", root) for argument in job["args"]], prog_name="editblocks")
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 99
        sys.stdout.flush()
        sys.stderr.flush()
        with open(os.path.join(folder, "calls.txt"), "w") as calls:
            calls.write(str(counter[0]))
        os._exit(code)


    for point in job["points"]:
        folder = os.path.join(job["work"], str(point))
        root = os.path.join(folder, "root")
        shutil.copytree(job["template"], root, symlinks=True)
        pid = os.fork()
        if pid == 0:
            child(point, root, folder)
        _, status = os.waitpid(pid, 0)
        calls = os.path.join(folder, "calls.txt")
        print(json.dumps({
            "point": point,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "calls": int(open(calls).read()) if os.path.exists(calls) else None,
        }), flush=True)
    '''
)
WRITE_LIKE = ["write", "fsync", "replace", "rename", "open", "mkdir", "unlink", "rmdir"]
PROJECT = {
    "src/app.py": b"def total(items):\n    return sum(items)\n",
    "src/crlf.txt": b"first line\r\nsecond line\r\n",
    "no_newline.txt": b"the last line has no newline",
    "bom.md": b"\xef\xbb\xbf# Title\n\nbody\n",
    "run.sh": b"#!/bin/sh\necho hello\n",
}
ANSWER = "".join([
    diff_block("src/app.py", "    return sum(items)\n", "    return sum(items, 0)\n"),
    diff_block("src/crlf.txt", "second line\n", "second line, edited\nthird line\n"),
    diff_block("no_newline.txt", "the last line has no newline\n", "still no newline\n"),
    diff_block("bom.md", "body\n", "new body\n"),
    diff_block("run.sh", "echo hello\n", "echo goodbye\n"),
    diff_block("made/deep/new.py", "", "print('created')\n"),
])
SECOND_ANSWER = diff_block("src/app.py", "def total(items):\n", "def total(items, start=0):\n")


@pytest.fixture
def fault_project(tmp_path: Path) -> Path:
    """A template project (five files: CRLF, BOM, executable, no final newline) and the answer next to it."""
    template = tmp_path / "template"
    write_tree(template, PROJECT)
    (template / "run.sh").chmod(0o755)
    (tmp_path / "answer.md").write_text(ANSWER)
    (tmp_path / "second.md").write_text(SECOND_ANSWER)
    return tmp_path


def run_driver(job: dict[str, object]) -> list[dict[str, int | None]]:
    """The fault driver's report for ``job``, one entry per point."""
    Path(str(job["work"])).mkdir()
    finished = subprocess.run([sys.executable, "-c", FAULT_DRIVER, json.dumps(job)], capture_output=True,
                              text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    return [json.loads(line) for line in finished.stdout.splitlines()]


def run_faults(base: Path, name: str, fault: str, functions: list[str], points: list[int],
               extra: tuple[str, ...] = ()) -> list[dict[str, int | None]]:
    """Apply the answer once per point; each point leaves its tree under ``base/name/<point>/root``."""
    return run_driver({"template": str(base / "template"), "work": str(base / name), "functions": functions,
                       "fault": fault, "points": points,
                       "args": ["apply", str(base / "answer.md"), "--root", "{root}", *extra]})


def clean_run(base: Path, functions: list[str]) -> tuple[int, dict[str, tuple[object, ...]]]:
    """How many sabotageable calls a complete run makes, and the tree it leaves."""
    [outcome] = run_faults(base, f"clean-{'-'.join(functions)}", "kill", functions, [0])
    assert outcome["exit"] == 0 and outcome["calls"], outcome
    return int(outcome["calls"]), tree_state(base / f"clean-{'-'.join(functions)}" / "0" / "root")


@slow
def test_apply_killed_at_every_write_is_all_or_nothing_and_undoable(fault_project: Path) -> None:
    """SIGKILL before each write-like call: files whole, next apply refused while pending, undo exact."""
    base = fault_project
    old = tree_state(base / "template")
    total, new = clean_run(base, WRITE_LIKE)
    outcomes = run_faults(base, "kill", "kill", WRITE_LIKE, list(range(1, total + 1)))
    torn: list[str] = []
    problems: list[str] = []
    pending_points = 0
    for outcome in outcomes:
        point = outcome["point"]
        root = base / "kill" / str(point) / "root"
        if outcome["signal"] != signal.SIGKILL:
            problems.append(f"point {point}: not killed ({outcome})")
            continue
        state = tree_state(root)
        for rel in sorted(old.keys() | new.keys()):
            if state.get(rel) not in (old.get(rel), new.get(rel)):
                torn.append(f"point {point}: {rel}")
        if Workspace(root).interrupted_run() is not None:
            pending_points += 1
            code, output = invoke("apply", str(base / "second.md"), "--root", str(root))
            if code == 0 or "editblocks undo" not in output or tree_state(root) != state:
                problems.append(f"point {point}: apply while a run is pending was not refused ({code}): {output}")
        code, output = invoke("undo", "--root", str(root))
        if tree_state(root) != old or temp_files(root):
            problems.append(f"point {point}: undo left {temp_files(root)} / a different tree ({code}): {output}")
        code, output = invoke("apply", str(base / "answer.md"), "--root", str(root))
        if code != 0 or tree_state(root) != new:
            problems.append(f"point {point}: the workspace is not usable after recovery ({code}): {output}")
    print(f"kill points tried: {len(outcomes)}, pending after kill: {pending_points}, torn files: {len(torn)}")
    assert len(outcomes) == total >= 40
    assert pending_points > 0
    assert torn == []
    assert problems == []


def most_advanced_interruption(base: Path, total: int) -> Path:
    """The tree of a run killed while pending with the most files already new."""
    outcomes = run_faults(base, "late-kills", "kill", WRITE_LIKE, list(range(total // 2, total + 1)))
    pending = [base / "late-kills" / str(o["point"]) / "root" for o in outcomes
               if Workspace(base / "late-kills" / str(o["point"]) / "root").interrupted_run() is not None]
    assert pending
    return pending[-1]


@slow
def test_undo_killed_at_every_write_can_be_finished(fault_project: Path) -> None:
    """A run interrupted late, then `undo` itself killed before each write-like call: undo again restores all."""
    base = fault_project
    old = tree_state(base / "template")
    total, _ = clean_run(base, WRITE_LIKE)
    interrupted = base / "interrupted"
    shutil.copytree(most_advanced_interruption(base, total), interrupted, symlinks=True)
    job = {"template": str(interrupted), "functions": WRITE_LIKE, "fault": "kill", "args": ["undo", "--root", "{root}"]}
    [counted] = run_driver({**job, "work": str(base / "undo-clean"), "points": [0]})
    assert counted["exit"] == 0 and counted["calls"]
    outcomes = run_driver({**job, "work": str(base / "undo-kill"), "points": list(range(1, counted["calls"] + 1))})
    failures, leftovers = [], []
    for outcome in outcomes:
        root = base / "undo-kill" / str(outcome["point"]) / "root"
        code, output = invoke("undo", "--root", str(root))
        leftovers += [f"point {outcome['point']}: {name}" for name in temp_files(root)]
        restored = {rel: entry for rel, entry in tree_state(root).items() if ".editblocks-" not in rel}
        if outcome["signal"] != signal.SIGKILL or restored != old:
            failures.append(f"point {outcome['point']}: {outcome} then undo ({code}): {output}")
    assert len(outcomes) == counted["calls"]
    assert failures == []
    assert leftovers == [], "temporary files of the killed undo were never cleaned up"


@slow
@pytest.mark.parametrize(
    ("fault", "functions", "words"),
    [
        ("ENOSPC", ["write"], "No space left on device"),
        ("EACCES", ["open"], "Permission denied"),
        ("EIO", ["fsync", "replace"], "Input/output error"),
    ],
    ids=["disk-full-on-write", "permission-denied-on-open", "io-error-on-fsync-or-rename"],
)
def test_environment_failure_at_any_write_changes_nothing(
    fault_project: Path, fault: str, functions: list[str], words: str
) -> None:
    """With --on-failure abort, an OSError at any one call: exit non-zero, one clear reason, tree as before."""
    base = fault_project
    old = tree_state(base / "template")
    total, _ = clean_run(base, functions)
    outcomes = run_faults(base, fault, fault, functions, list(range(1, total + 1)), ("--on-failure", "abort"))
    failures = []
    for outcome in outcomes:
        root = base / fault / str(outcome["point"]) / "root"
        output = (base / fault / str(outcome["point"]) / "output.txt").read_text()
        if (outcome["exit"] not in (1, 2) or words not in output or "Traceback" in output
                or tree_state(root) != old or temp_files(root) or Workspace(root).interrupted_run() is not None):
            failures.append(f"point {outcome['point']}: {outcome}\n{output}")
    assert len(outcomes) == total
    assert failures == []


def test_a_kill_while_creating_the_journal_leaves_it_hidden_from_git(tmp_path: Path) -> None:
    """A kill between creating `.editblocks/.gitignore` and writing it leaves it empty; the next run must repair it.

    Otherwise `git add -A` stages the journal, which holds full copies of the user's files.
    """
    write_tree(tmp_path, {"a.txt": b"one\n", ".editblocks/.gitignore": b""})
    (tmp_path / "answer.md").write_text(diff_block("a.txt", "one\n", "two\n"))
    code, output = invoke("apply", str(tmp_path / "answer.md"), "--root", str(tmp_path))
    assert code == 0, output
    assert (tmp_path / JOURNAL / ".gitignore").read_bytes() == b"*\n"


# --- limits: behaviour at size ------------------------------------------------------------------

MEGABYTE = 1_000_000


def test_a_one_megabyte_line_in_a_block_parses_and_applies(tmp_path: Path) -> None:
    long_line = "data = '" + "x" * MEGABYTE + "'"
    (tmp_path / "big.py").write_text(f"before\n{long_line}\nafter\n")
    [block] = parse(diff_block("big.py", long_line + "\n", "data = 'short'\n")).blocks
    assert block.old == long_line + "\n"
    result = apply([block], tmp_path)
    assert result.ok and (tmp_path / "big.py").read_text() == "before\ndata = 'short'\nafter\n"


def test_a_one_megabyte_line_of_prose_is_just_text() -> None:
    prose = "The model rambles " * (MEGABYTE // 18)
    result = parse(f"{prose}\n{'<' * MEGABYTE}\n" + diff_block("a.py", "x\n", "y\n"))
    assert [(block.path, block.old, block.new) for block in result.blocks] == [("a.py", "x\n", "y\n")]
    assert not result.errors


@slow
def test_many_blocks_parse_alike_whole_and_streamed() -> None:
    count = 20_000
    text = "".join(diff_block(f"pkg/m{number % 300}.py", f"v = {number}\n", f"v = {number + 1}\n")
                   for number in range(count))
    whole = parse(text)
    assert len(whole.blocks) == count and not whole.diagnostics
    parser = StreamParser()
    for position in range(0, len(text), 4096):
        parser.feed(text[position : position + 4096])
    parser.close()
    assert parser.result() == whole


def test_an_edit_in_the_middle_of_a_200000_line_file(tmp_path: Path) -> None:
    lines = [f"value_{number} = {number}\n" for number in range(200_000)]
    (tmp_path / "big.py").write_text("".join(lines), newline="")
    answer = diff_block("big.py", lines[100_000] + lines[100_001], "changed = True\n")
    result = apply(parse(answer), tmp_path)
    assert result.ok and result.results[0].start_line == 100_001
    assert (tmp_path / "big.py").read_text() == "".join(lines[:100_000] + ["changed = True\n"] + lines[100_002:])


def test_a_response_of_repeated_search_markers_reports_every_block() -> None:
    count = 20_000
    result = parse("a.py\n" + "<<<<<<< SEARCH\n" * count)
    assert result.blocks == ()
    assert len(result.errors) == count and all(2 <= error.line <= count + 1 for error in result.errors)


@pytest.mark.parametrize(
    ("text", "blocks"),
    [
        ("=======\n" * 50_000, 0),
        (">>>>>>> REPLACE\n" * 50_000, 0),
        ("```\n" * 50_000 + diff_block("after.py", "x\n", "y\n"), 1),
        ("<think>\n" * 10_000 + diff_block("hidden.py", "x\n", "y\n"), 0),
        ("a.py\n<<<<<<< SEARCH\n" + "=======\n" * 50_000 + ">>>>>>> REPLACE\n", 0),
    ],
    ids=["all-separators", "all-replace-ends", "fence-lines", "unclosed-think-tags", "block-of-separators"],
)
def test_degenerate_responses_parse_without_crashing(text: str, blocks: int) -> None:
    result = parse(text)
    assert len(result.blocks) == blocks
    lines = text.count("\n") + 1
    assert all(1 <= d.line <= lines for d in result.diagnostics)
    assert validate(text).result == result


def test_a_diagnostic_stays_short_whatever_the_block_holds() -> None:
    """A block with 50,000 separator lines is one error, not a 340 KB list of every line number."""
    [error] = parse("a.py\n<<<<<<< SEARCH\n" + "=======\n" * 50_000 + ">>>>>>> REPLACE\n").errors
    assert len(error.message) < 500, f"a {len(error.message):,}-character diagnostic"


def typical_response(blocks: int) -> str:
    return "".join(
        f"Step {n}: update the helper.\n\n" + diff_block(f"src/m{n % 50}.py", f"def f{n}():\n    return {n}\n",
                                                          f"def f{n}():\n    return {n + 1}\n")
        for n in range(blocks)
    )


def mixed_line_endings(count: int) -> str:
    """Blocks whose lines end in LF, CRLF or a bare CR, mixed (issue 17)."""
    endings = ("\n", "\r\n", "\r", "\r\n", "\n")
    lines = [line for n in range(count) for line in (f"m{n % 50}.py", "<<<<<<< SEARCH", f"v = {n}", "=======",
                                                        f"v = {n + 1}", ">>>>>>> REPLACE")]
    return "".join(line + endings[(n * 7) % 5] for n, line in enumerate(lines))


PARSER_GROWTH_CASES: dict[str, tuple[Callable[[int], str], int]] = {
    "typical-response": (typical_response, 1_500),
    "repeated-search-markers": (lambda n: "a.py\n" + "<<<<<<< SEARCH\n" * n, 6_000),
    "all-separators": (lambda n: "=======\n" * n, 20_000),
    "fence-lines": (lambda n: "```\n" * n, 20_000),
    "unclosed-think-tags": (lambda n: "<think>\n" * n, 30_000),
    "search-block-of-separators": (lambda n: "a.py\n<<<<<<< SEARCH\n" + "=======\n" * n + ">>>>>>> REPLACE\n", 20_000),
    "anchored-block-of-separators": (lambda n: "a.py\n<<<<<<< EDIT\n" + "=======\n" * n + ">>>>>>>\n", 5_000),
    "shell-continuation-lines": (lambda n: "```bash\n" + "echo hi \\\n" * n + "```\n", 20_000),
    # Shapes whose text is read a second time (issue 12): each must still be read at most a bounded number of times.
    "blocks-ended-by-a-second-separator": (lambda n: "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n```\n" * n, 1_000),
    "strict-blocks-ended-at-another-length": (lambda n: "a.py\n<<<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n" * n, 1_000),
    "blocks-with-several-readings": (lambda n: "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n=======\nz\n>>>>>>> REPLACE\n" * n,
                                     600),
    "roo-hints-and-escapes": (lambda n: "a.py\n<<<<<<< SEARCH\n:start_line:3\n-------\n\\=======\n=======\nq\n"
                                        ">>>>>>> REPLACE\n" * n, 1_000),
    "strict-block-never-closed": (lambda n: "a.py\n<<<<<<<<< SEARCH\n" + "x\n=======\ny\n>>>>>>> REPLACE\n" * n, 2_500),
    # Hostile shapes (issue 17).
    "stray-end-markers": (lambda n: ">>>>>>> REPLACE\n" * n, 12_000),
    "unclosed-blocks-in-growing-fences": (lambda n: "".join(("`" if k % 2 else "~") * (3 + k % 64)
                                                            + "\n<<<<<<< SEARCH\nx\n" for k in range(n)), 6_000),
    "blocks-with-mixed-line-endings": (mixed_line_endings, 2_000),
}
"""Each case's N is picked so that one parse at 8N takes a tenth to a quarter of a second."""


@slow
@pytest.mark.parametrize("case", sorted(PARSER_GROWTH_CASES))
def test_parsing_grows_linearly(case: str) -> None:
    make, size = PARSER_GROWTH_CASES[case]
    ratio = growth(lambda n: functools.partial(parse, make(n)), size)
    assert ratio < GROWTH_LIMIT, f"{case}: parsing {GROWTH_FACTOR * size} units took {ratio:.1f}x the time of {size}"


def feeding(head: str, chunk: str) -> Callable[[int], Callable[[], object]]:
    """A run that feeds ``head`` and then ``chunk`` a given number of times, then closes the parser."""

    def run_at(count: int) -> Callable[[], object]:
        def run() -> None:
            parser = StreamParser()
            parser.feed(head)
            for _ in range(count):
                parser.feed(chunk)
            parser.close()
        return run

    return run_at


@slow
@pytest.mark.parametrize(
    ("head", "chunk", "size"),
    [
        ("a.py\n<<<<<<< SEARCH\n", "x\n=======\n", 2_000),
        ("a.py\n<<<<<<< SEARCH\n", "x" * 8, 100_000),
        ("Some prose, then a block.\n", "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", 1_500),
    ],
    ids=["block-gathering-separators", "one-long-line-in-small-chunks", "many-small-blocks"],
)
def test_streaming_grows_linearly(head: str, chunk: str, size: int) -> None:
    """Each feed must cost in proportion to its chunk, not to everything fed before it."""
    ratio = growth(feeding(head, chunk), size)
    assert ratio < GROWTH_LIMIT, f"feeding {GROWTH_FACTOR * size} chunks took {ratio:.1f}x the time of {size}"


PLANNING_GROWTH_LIMIT = 38.0
"""Planning indexes a file's lines (`editblocks.locate.line_index`), so k blocks on an n-line file cost O(k·log n + n):
eight times the blocks on eight times the lines cost about 8 to 10 times as much (an older index, O(k·√n + n), at
most 23), where a scan of the whole file per block costs 64 times as much. 38 is between the two."""


def planning(blocks: int) -> Callable[[], object]:
    """Plan ``blocks`` one-line edits spread over a file of 250 lines per block."""
    lines = blocks * 250
    text = "".join(f"value_{number} = {number}\n" for number in range(lines))
    step = lines // blocks
    edits = parse("".join(diff_block("big.py", f"value_{n * step} = {n * step}\n", f"value_{n * step} = 0\n")
                          for n in range(blocks))).blocks
    return lambda: plan_edits(edits, {"big.py": TargetFile("big.py", text)})


@slow
def test_planning_grows_linearly_with_blocks_and_file_together() -> None:
    """k blocks on an n-line file: eight times both must not cost 64 times as much (no block re-reads the file)."""
    ratio = growth_ratio(planning(40), planning(GROWTH_FACTOR * 40), PLANNING_GROWTH_LIMIT)
    assert ratio < PLANNING_GROWTH_LIMIT, (
        f"planning 320 blocks on 80,000 lines took {ratio:.1f}x the time of 40 blocks on 10,000"
    )


def parsed_with_peak_memory(text: str) -> tuple[ParseResult, int]:
    """`parse(text)` and the peak memory it traced beyond what was held before."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = parse(text)
        return result, tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_a_flood_of_stray_end_markers_takes_at_most_ten_times_its_size_in_memory() -> None:
    """Issue 17: a million stray `>>>>>>> REPLACE` lines once took 1.3 GB. Each still gets its warning (the output
    groups them), but the warnings share one message, so the parse's peak memory stays within 10x the answer."""
    text = ">>>>>>> REPLACE\n" * 50_000
    result, peak = parsed_with_peak_memory(text)
    assert len(result.warnings) == 50_000
    assert peak < 10 * len(text), f"peak memory {peak / len(text):.1f}x the answer"


def test_a_flood_of_start_markers_takes_at_most_ten_times_its_size_in_memory() -> None:
    """Issue 17: each `<<<<<<< SEARCH` of a flood interrupts the block before it, an error with two line numbers of
    its own; written out, those messages alone took eight times the answer (17.6x in all). Every error is kept,
    its message formatted when read, so the parse's peak memory stays within 10x the answer."""
    text = "a.py\n" + "<<<<<<< SEARCH\n" * 50_000
    result, peak = parsed_with_peak_memory(text)
    assert len(result.errors) == 50_000
    assert result.errors[1].message == "block at line 3 is not closed before the next block at line 4"
    assert peak < 10 * len(text), f"peak memory {peak / len(text):.1f}x the answer"


def test_every_error_of_a_flood_of_start_markers_reaches_the_json_output(tmp_path: Path) -> None:
    """The errors whose messages are formatted when read still come out whole, one by one, in `parse --json`."""
    answer = tmp_path / "answer.md"
    answer.write_text("a.py\n" + "<<<<<<< SEARCH\n" * 1_000, encoding="utf-8")
    result = CliRunner().invoke(main, ["parse", str(answer), "--json"])
    messages = [d["message"] for d in json.loads(result.stdout)["diagnostics"]]
    assert len(messages) == 1_000
    assert messages[0] == "block at line 2 is not closed before the next block at line 3"
    assert messages[998] == "block at line 1000 is not closed before the next block at line 1001"


def test_parsing_does_not_keep_long_lines_alive() -> None:
    """Marker and fence look-ups are cached; a long line must not stay in memory after the parse is gone."""
    text = "".join(f"{'<=>`'[n % 4]}{chr(65 + n) * MEGABYTE}\n" for n in range(20))
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        parse(text)
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert retained < 2 * MEGABYTE, f"{retained / MEGABYTE:.0f} MB of response lines outlive the parse"


# --- a configurable size limit for responses (proposed: --max-bytes) -------------------------------


@pytest.fixture
def big_answer(tmp_path: Path) -> Path:
    answer = tmp_path / "big.md"
    answer.write_text(diff_block("a.txt", "one\n", "two\n") + "padding " * 600)
    (tmp_path / "a.txt").write_text("one\n")
    return answer


@pytest.mark.parametrize("command", ["parse", "check", "apply"])
def test_a_response_over_max_bytes_is_refused_in_one_line(big_answer: Path, command: str) -> None:
    root = ["--root", str(big_answer.parent)] if command != "parse" else []
    refused = subprocess.run([*EDITBLOCKS, command, str(big_answer), "--max-bytes", "1000", *root],
                             capture_output=True, text=True, timeout=60)
    assert "No such option" not in refused.stderr, "proposed option --max-bytes does not exist yet"
    assert refused.returncode == 2, refused.stderr
    assert refused.stdout == ""
    [message] = refused.stderr.strip().splitlines()
    assert "1000" in message and str(big_answer.stat().st_size) in message and "Traceback" not in message
    assert (big_answer.parent / "a.txt").read_text() == "one\n"


def test_max_bytes_applies_to_stdin_and_accepts_a_response_at_the_limit(big_answer: Path) -> None:
    data = big_answer.read_bytes()
    over = subprocess.run([*EDITBLOCKS, "parse", "-", "--max-bytes", str(len(data) - 1)], input=data,
                          capture_output=True, timeout=60)
    assert "No such option" not in over.stderr.decode(), "proposed option --max-bytes does not exist yet"
    assert over.returncode == 2 and len(over.stderr.decode().strip().splitlines()) == 1
    at_limit = subprocess.run([*EDITBLOCKS, "parse", "-", "--max-bytes", str(len(data))], input=data,
                              capture_output=True, timeout=60)
    assert at_limit.returncode == 0, at_limit.stderr

