"""How fast locating, planning and the near-miss diagnosis are, against the naive approach,
and what a whole apply and undo on real files cost (reads, journal, atomic writes).

Run by hand: ``.venv/bin/python bench/apply_bench.py``. Files are synthetic,
Python-like and deterministic. Each case is timed as the best of several runs.
The baseline is what aider does: a difflib ``SequenceMatcher`` slid over every
window of the file. It is far too slow to run in full, so only a prefix of the
windows is timed and the cost is extrapolated to all of them (marked ``~``).
"""

from __future__ import annotations

import difflib
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from editblocks.locate.diagnosis import find_near_miss
from editblocks.locate.ladder import locate
from editblocks.locate.types import DEFAULT_RUNGS, Ambiguous, Found, LocateOptions, NotFound, Rung
from editblocks.model import BlockKind, EditBlock, Format, Status
from editblocks.plan import TargetFile, plan_edits
from editblocks.service.apply import apply
from editblocks.workspace import Workspace

SEED = 20240611
VERBS = "load save parse render fetch merge split index scan build check apply clear count drop emit".split()
NOUNS = "user order item config cache token record frame node edge path query report batch entry".split()
ATTRS = "items total limit name size state owner parent children buffer offset".split()


def synthetic_file(line_count: int, seed: int = SEED) -> list[str]:
    """Classes and functions with numbered names, so most lines are distinct but blanks and returns repeat."""
    rng = random.Random(seed)
    lines: list[str] = []
    serial = 0
    while len(lines) < line_count:
        serial += 1
        verb, noun, attr = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(ATTRS)
        if serial % 7 == 0:
            lines += [f"class {noun.title()}{verb.title()}{serial}:", f'    """Keeps the {noun} {attr}."""', ""]
        indent = "    " * (serial % 2)
        body = [
            f"def {verb}_{noun}_{serial}(self, {noun}, limit={rng.randint(1, 99)}):",
            f'    """{verb.title()} the {noun} and return its {attr}."""',
            f"    result = self.{attr}.get({noun}.id, {rng.randint(0, 999)})",
            "    if result is None:",
            "        return None",
        ]
        for step in range(rng.randint(1, 12)):
            call = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
            body.append(f"    result = {call}(result, {step}, self.{rng.choice(ATTRS)})")
        body += ["    return result", ""]
        lines += [indent + line if line else line for line in body]
    return lines[:line_count]


def best_time(action: Callable[[], object], repeats: int = 5) -> tuple[float, object]:
    best, outcome = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        outcome = action()
        best = min(best, time.perf_counter() - started)
    return best, outcome


def difflib_windows(file: Sequence[str], search: Sequence[str], timed_windows: int, joined: bool) -> float:
    """Seconds a full difflib sliding window would take, extrapolated from the first ``timed_windows`` windows.

    ``joined`` compares window texts (aider's edit-distance matcher); otherwise
    lists of lines (aider's ``find_similar_lines`` for "did you mean").
    """
    size = len(search)
    total = len(file) - size + 1
    count = min(total, timed_windows)
    needle: str | Sequence[str] = "\n".join(search) if joined else search
    started = time.perf_counter()
    best = 0.0
    for start in range(count):
        window = file[start : start + size]
        best = max(best, difflib.SequenceMatcher(None, "\n".join(window) if joined else window, needle).ratio())
    return (time.perf_counter() - started) * total / count


def naive_exact(file: Sequence[str], search: Sequence[str]) -> list[int]:
    """Compare the block with a slice at every position: the obvious exact search."""
    size = len(search)
    target = list(search)
    return [start for start in range(len(file) - size + 1) if file[start : start + size] == target]


@dataclass
class Row:
    case: str
    ours_ms: float
    baseline: str
    baseline_ms: float
    extrapolated: bool
    correct: bool


def edit_line(line: str) -> str:
    return line.replace("result", "value", 1) + "  # changed"


def misremember(line: str) -> str:
    """The kind of small slip a model makes copying a line: a misspelt name, a lost space."""
    return line.replace("result", "reslut", 1).replace(", ", ",", 1)


def bench_exact() -> list[Row]:
    file = synthetic_file(100_000)
    search = file[-6:] if file[-1] else file[-7:-1]
    end = len(file) if file[-1] else len(file) - 1
    replace = [*search[:-1], "    return result  # edited"]
    ours, outcome = best_time(lambda: locate(file, search, replace))
    correct = isinstance(outcome, Found) and (outcome.start, outcome.end) == (end - len(search), end)
    naive, _ = best_time(lambda: naive_exact(file, search), repeats=3)
    by_difflib = difflib_windows(file, search, 5_000, joined=True)
    return [
        Row("exact, 6 lines at the end of 100k lines", ours * 1e3, "slice compare per line", naive * 1e3, False,
            correct),
        Row("", ours * 1e3, "difflib sliding window", by_difflib * 1e3, True, correct),
    ]


def bench_fuzzy() -> list[Row]:
    file = synthetic_file(50_000)
    start = 33_001
    while sum(len(line.strip()) for line in file[start : start + 10]) < 300 or not file[start].strip():
        start += 1
    truth = file[start : start + 10]
    search = list(truth)
    for index in (2, 5, 8):
        search[index] = misremember(search[index])
    options = LocateOptions(rungs=(*DEFAULT_RUNGS, Rung.FUZZY))
    ours, outcome = best_time(lambda: locate(file, search, search, options))
    correct = isinstance(outcome, Found) and (outcome.start, outcome.end) == (start, start + 10)
    similarity = f" (similarity {outcome.similarity:.3f})" if isinstance(outcome, Found) else f" ({outcome!r:.60})"
    baseline = difflib_windows(file, search, 3_000, joined=True)
    case = "fuzzy, 10 lines (3 edited) in 50k lines" + similarity
    return [Row(case, ours * 1e3, "difflib sliding window", baseline * 1e3, True, correct)]


def bench_near_miss() -> list[Row]:
    rows: list[Row] = []
    file = synthetic_file(20_000)
    start = 9_000
    truth = file[start : start + 2_000]
    search = list(truth)
    for index in range(17, len(search), 97):
        search[index] = edit_line(search[index])
    del search[500:503]
    search[1_200:1_200] = ["    # a line the model added", "    extra_step()"]
    ours, outcome = best_time(lambda: find_near_miss(file, search))
    correct = outcome is not None and (outcome.start, outcome.end) == (start, start + 2_000)
    whole, not_found = best_time(lambda: locate(file, search, search), repeats=3)
    whole_ok = isinstance(not_found, NotFound) and not_found.near_miss == outcome
    baseline = difflib_windows(file, search, 3, joined=False)
    case = "near miss, 2,000 edited lines in 20k lines"
    rows.append(Row(case, ours * 1e3, "difflib line windows (aider)", baseline * 1e3, True, correct))
    rows.append(Row("  whole locate() ending in NotFound", whole * 1e3, "", 0.0, False, whole_ok))

    big = synthetic_file(50_000)
    small_start = 41_003
    while not big[small_start].strip() or not big[small_start + 9].strip():
        small_start += 1
    small = big[small_start : small_start + 10]
    small = [edit_line(line) if index in (3, 6) else line for index, line in enumerate(small)]
    ours, outcome = best_time(lambda: find_near_miss(big, small))
    correct = outcome is not None and (outcome.start, outcome.end) == (small_start, small_start + 10)
    baseline = difflib_windows(big, small, 5_000, joined=False)
    case = "near miss, 10 lines (2 edited) in 50k lines"
    rows.append(Row(case, ours * 1e3, "difflib line windows (aider)", baseline * 1e3, True, correct))
    return rows


def per_candidate_shift_check(file: Sequence[str], search: Sequence[str], timed: int) -> float:
    """Seconds the obvious indentation rung would take: every window whose lines match once indentation is
    stripped, checked line by line for one uniform shift. Extrapolated from the first ``timed`` candidates."""
    keys = [line.strip() for line in file]
    wanted = [line.strip() for line in search]
    candidates = [start for start in range(len(file) - len(search) + 1) if keys[start] == wanted[0]]
    started = time.perf_counter()
    for start in candidates[:timed]:
        if keys[start : start + len(search)] != wanted:
            continue
        shifts = {len(a) - len(a.lstrip()) - (len(b) - len(b.lstrip()))
                  for a, b in zip(file[start:], search) if b.strip()}
        if len(shifts) == 1:
            break
    return (time.perf_counter() - started) * len(candidates) / max(1, min(timed, len(candidates)))


def bench_repetitive() -> list[Row]:
    """Files made of near-copies, where each candidate window differs only in one line's indentation."""
    rows: list[Row] = []
    records = ["  {", '    "id": 1,', '    "name": "a",', '    "tags": [', '      "x"', "    ]", "  },"]
    json_file = ["[", *records * 3_000, "]"]
    search = [line[2:] for line in records] * 300
    search[-1] = "  },"  # de-indented by two columns, all but the last line: no uniform shift anywhere
    ours, outcome = best_time(lambda: locate(json_file, search, search), repeats=3)
    baseline = per_candidate_shift_check(json_file, search, 100)
    rows.append(Row("indentation rung, 2,100-line search, 21k-line JSON of copies", ours * 1e3,
                    "shift check per candidate", baseline * 1e3, True, isinstance(outcome, NotFound)))

    repeated = ["    x = 1", "    y = 2", "}", ""] * 5_000
    search = ["    x = 1", "    y = 3", "}", ""] * 10
    options = LocateOptions(rungs=(*DEFAULT_RUNGS, Rung.FUZZY))
    ours, outcome = best_time(lambda: locate(repeated, search, ["z = 9"], options), repeats=3)
    rows.append(Row("fuzzy, 40 lines over 20k lines of copies (ambiguous)", ours * 1e3, "", 0.0, False,
                    isinstance(outcome, Ambiguous)))
    return rows


def bench_planning() -> list[Row]:
    """200 blocks over 20 files of 2,000 lines, applied in order on in-memory copies (the whole plan)."""
    files = {f"src/module_{n}.py": synthetic_file(2_000, seed=SEED + n) for n in range(20)}
    blocks: list[EditBlock] = []
    for path, lines in files.items():
        definitions = [i for i, line in enumerate(lines[:-4]) if line.lstrip().startswith("def ")]
        starts = definitions[:: max(1, len(definitions) // 10)][:10]
        for start in starts:
            old = lines[start : start + 4]
            new = [*old[:-1], old[-1] + "  # edited"]
            blocks.append(EditBlock(path, "", _text(old), _text(new), "", BlockKind.EDIT, Format.DIFF, 1))
    sources = {path: TargetFile(path, _text(lines)) for path, lines in files.items()}
    ours, plan = best_time(lambda: plan_edits(blocks, sources), repeats=3)
    correct = len(blocks) == 200 and all(r.status is Status.APPLIED for r in plan.results) and len(plan.files) == 20
    naive, _ = best_time(lambda: naive_plan(blocks, sources), repeats=3)
    return [Row(f"planning {len(blocks)} blocks over {len(files)} files", ours * 1e3,
                "split + slice compare per block", naive * 1e3, False, correct)]


def _text(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


def naive_plan(blocks: Sequence[EditBlock], sources: dict[str, TargetFile]) -> dict[str, str]:
    """What an applier without a plan does per block: split the file, slice-compare, join it back."""
    texts = {path: source.text or "" for path, source in sources.items()}
    for block in blocks:
        lines = texts[block.path].split("\n")
        search = block.old.split("\n")[:-1]
        hits = naive_exact(lines, search)
        if hits:
            lines[hits[0] : hits[0] + len(search)] = block.new.split("\n")[:-1]
            texts[block.path] = "\n".join(lines)
    return texts


def bench_disk() -> list[Row]:
    """The same 200 blocks applied to real files three folders deep, then undone: reads, checks, journal, writes.

    Each repeat starts from a fresh copy of the project, so every apply really writes.
    """
    files = {f"src/pkg/sub/module_{n}.py": synthetic_file(2_000, seed=SEED + n) for n in range(20)}
    blocks: list[EditBlock] = []
    for path, lines in files.items():
        definitions = [i for i, line in enumerate(lines[:-4]) if line.lstrip().startswith("def ")]
        for start in definitions[:: max(1, len(definitions) // 10)][:10]:
            old = lines[start : start + 4]
            blocks.append(EditBlock(path, "", _text(old), _text([*old[:-1], old[-1] + "  # edited"]), "",
                                    BlockKind.EDIT, Format.DIFF, 1))
    with tempfile.TemporaryDirectory() as scratch:
        pristine = Path(scratch) / "pristine"
        for path, lines in files.items():
            (pristine / path).parent.mkdir(parents=True, exist_ok=True)
            (pristine / path).write_text(_text(lines))
        applies: list[float] = []
        undos: list[float] = []
        correct = True
        for attempt in range(5):
            root = Path(scratch) / f"run{attempt}"
            shutil.copytree(pristine, root)
            started = time.perf_counter()
            outcome = apply(blocks, root)
            applies.append(time.perf_counter() - started)
            started = time.perf_counter()
            undone = Workspace(root).undo()
            undos.append(time.perf_counter() - started)
            correct = correct and outcome.written and len(outcome.files_modified) == 20 and undone.ok
    return [Row(f"apply {len(blocks)} blocks to {len(files)} files on disk", min(applies) * 1e3, "", 0.0, False,
                correct),
            Row("  undo of that run", min(undos) * 1e3, "", 0.0, False, correct)]


def main() -> None:
    rows = (bench_exact() + bench_fuzzy() + bench_planning() + bench_disk() + bench_near_miss()
            + bench_repetitive())
    print(f"{'case':62} {'ours ms':>9}  {'baseline':30} {'baseline ms':>13} {'ratio':>9}  ok")
    for row in rows:
        baseline = f"{'~' if row.extrapolated else ''}{row.baseline_ms:,.1f}" if row.baseline else ""
        ratio = f"{row.baseline_ms / row.ours_ms:,.0f}x" if row.baseline else ""
        verdict = "yes" if row.correct else "NO"
        print(f"{row.case:62} {row.ours_ms:9.2f}  {row.baseline:30} {baseline:>13} {ratio:>9}  {verdict}")
    print("~ = extrapolated from a timed prefix of the windows")


if __name__ == "__main__":
    main()
