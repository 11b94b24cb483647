"""editblocks beside `git apply` on real `git diff`s: the same diff applied to the same files, the bytes compared.

    .venv/bin/python bench/git_apply_differential.py [--repo PATH] [--commits 300] [--context 3 0 1]

Takes the last ``--commits`` commits of a local repository (default: this one), and for each commit, each file it
changes (a rename as one) and each context size, that file's `git diff -M` from the commit's parent (`-U0` diffs
are applied with `git apply --unidiff-zero`). Each diff is applied twice to a fresh folder holding the parent's
version of the file: once by `git apply`, once by `editblocks.apply` (format `udiff`). Per diff it counts:

- exact: both give the same bytes (and the same presence, and the same executable bit);
- refused: editblocks wrote nothing to the file where git applied it (a refusal is safe, but a loss);
- wrong: editblocks wrote something else than git (the figure that must stay 0);
- git refused: git could not apply the diff (then editblocks must not have written the file either).

Binary files are skipped (neither tool applies them from a text diff), and so are files that are not UTF-8 text
(editblocks refuses them by design; counted as such). Files whose names git cannot spell without quotes are
kept: they test the unquoting. The run prints the counts, then every file that was not exact.
"""

from __future__ import annotations

import argparse
import os
import shutil
import stat
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from editblocks import parse
from editblocks.service.apply import apply

GIT = ("git", "-c", "core.autocrlf=false", "-c", "core.quotepath=true", "-c", "diff.noprefix=false",
       "-c", "diff.mnemonicprefix=false", "-c", "diff.renames=true")


def git(repo: Path, *args: str, check: bool = True) -> bytes:
    return subprocess.run([*GIT, *args], cwd=repo, check=check, capture_output=True).stdout


def commits(repo: Path, count: int) -> list[tuple[str, str]]:
    """(parent, commit) pairs of the newest ``count`` non-merge commits that have a parent."""
    lines = git(repo, "log", "--no-merges", f"-{count}", "--format=%H %P").decode().split("\n")
    pairs = []
    for line in lines:
        parts = line.split()
        if len(parts) == 2:
            pairs.append((parts[1], parts[0]))
    return pairs


def touched(repo: Path, parent: str, commit: str) -> list[tuple[str, str | None, str | None]]:
    """(status, old path, new path) of each file the commit changes, binary files left out."""
    raw = git(repo, "diff", "-M", "-z", "--name-status", parent, commit).decode("utf-8", "surrogateescape")
    fields = raw.split("\0")
    result = []
    position = 0
    while position < len(fields) and fields[position]:
        status = fields[position]
        if status[0] in "RC":
            result.append((status[0], fields[position + 1], fields[position + 2]))
            position += 3
        else:
            path = fields[position + 1]
            result.append((status[0], None if status[0] == "A" else path, None if status[0] == "D" else path))
            position += 2
    numstat = git(repo, "diff", "-M", "--numstat", "-z", parent, commit).decode("utf-8", "surrogateescape")
    binary = {piece.split("\t")[-1] for piece in numstat.split("\0") if piece.startswith("-\t-\t")}
    return [entry for entry in result if not ({entry[1], entry[2]} & binary)]


def blob(repo: Path, commit: str, path: str) -> tuple[bytes, bool]:
    """The file's bytes at ``commit`` and whether git records it executable."""
    listing = git(repo, "ls-tree", "-z", commit, "--", path).decode("utf-8", "surrogateescape")
    mode = listing.split(" ", 1)[0]
    return git(repo, "show", f"{commit}:{path}"), mode == "100755"


def lay_out(root: Path, files: dict[str, tuple[bytes, bool]]) -> None:
    for path, (data, executable) in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        os.chmod(target, 0o755 if executable else 0o644)


def state(root: Path, paths: set[str]) -> dict[str, tuple[bytes, bool] | None]:
    found: dict[str, tuple[bytes, bool] | None] = {}
    for path in paths:
        target = root / path
        if target.is_file():
            found[path] = (target.read_bytes(), bool(stat.S_IMODE(target.stat().st_mode) & 0o100))
        else:
            found[path] = None
    return found


def is_text(data: bytes) -> bool:
    """Whether editblocks edits such a file: UTF-8 without NUL bytes (a text diff of anything else is not its job)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\0" not in data


def compare(repo: Path, parent: str, commit: str, context: int, scratch: Path) -> list[tuple[str, str, str]]:
    """(path, verdict, detail) for each file the commit changes, its diff applied on its own at one context size."""
    verdicts = []
    for _, old, new in touched(repo, parent, commit):
        paths = sorted({path for path in (old, new) if path is not None})
        before = {old: blob(repo, parent, old)} if old is not None else {}
        after = blob(repo, commit, new)[0] if new is not None else b""
        if not all(is_text(data) for data, _ in before.values()) or not is_text(after):
            verdicts.append((new or old or "?", "not UTF-8 text", ""))
            continue
        diff = git(repo, "diff", "-M", f"-U{context}", parent, commit, "--", *paths).decode("utf-8")
        if diff.strip():
            verdicts.append(one_diff(diff, paths, before, context, scratch))
    return verdicts


def one_diff(diff: str, paths: list[str], before: dict[str, tuple[bytes, bool]], context: int,
             scratch: Path) -> tuple[str, str, str]:
    """Apply one file's diff both ways in fresh folders and compare what each leaves."""
    by_git, by_us = scratch / "git", scratch / "editblocks"
    for folder in (by_git, by_us):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        lay_out(folder, before)
    (scratch / "change.diff").write_text(diff, encoding="utf-8")
    options = ["--unidiff-zero"] if context == 0 else []
    applied = subprocess.run([*GIT, "apply", *options, str(scratch / "change.diff")], cwd=by_git,
                             capture_output=True).returncode == 0
    result = apply(parse(diff, "udiff"), by_us)
    reasons = "; ".join(r.reason for r in result.results if r.reason) or "; ".join(
        d.message for d in result.diagnostics)
    ours, theirs = state(by_us, set(paths)), state(by_git, set(paths))
    original = {path: before.get(path) for path in paths}
    if not applied:
        verdict = "git refused" if ours == original else "wrote where git refused"
    elif ours == theirs:
        verdict = "exact"
    elif ours == original:
        verdict = "refused"
    else:
        verdict = "wrong"
    return " → ".join(paths), verdict, reasons


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--context", type=int, nargs="+", default=[3, 0, 1])
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    notable: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        for parent, commit in commits(args.repo, args.commits):
            for context in args.context:
                try:
                    verdicts = compare(args.repo, parent, commit, context, Path(scratch))
                except subprocess.CalledProcessError:  # a mirror without some of the commit's objects
                    counts["commit unreadable"] += 1
                    continue
                for path, verdict, detail in verdicts:
                    counts[verdict] += 1
                    if verdict not in ("exact", "not UTF-8 text"):
                        notable.append(f"{commit[:10]} -U{context} {path}: {verdict} {detail[:160]}")
    total = sum(count for key, count in counts.items() if key != "commit unreadable")
    print(f"{total} file diffs from {args.repo} ({args.commits} commits, -U{' -U'.join(map(str, args.context))}): "
          + ", ".join(f"{counts[key]} {key}" for key in ("exact", "refused", "wrong", "git refused",
                                                          "wrote where git refused", "not UTF-8 text",
                                                          "commit unreadable")
                      if counts[key]))
    for line in notable:
        print("  " + line)


if __name__ == "__main__":
    main()
