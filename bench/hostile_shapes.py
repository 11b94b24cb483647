"""Issue 17's shapes beyond the parser: many blocks on one big file, mixed line endings, huge not-found lines,
thousands of diagnostics. Each run does what `editblocks apply ANSWER --root DIR --dry-run` does in-process:
parse, plan, diff, and render the terminal report (into a string), so display costs count too.
Used by `limits_bench.py`; sizes are at scale 1.0.
"""

from __future__ import annotations

import io
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from editblocks import apply, parse
from editblocks.report.display import apply_report


def diff_block(path: str, old: str, new: str, end: str = "\n") -> str:
    return end.join([path, "```", "<<<<<<< SEARCH", old + "=======", new + ">>>>>>> REPLACE", "```", ""])


def numbered_file(lines: int) -> str:
    return "".join(f"value_{n} = {n}\n" for n in range(lines))


def dry_run(files: dict[str, str], answer: str) -> Callable[[], object]:
    """Write the files to a fresh folder once; each run parses, plans and renders the report, writing nothing."""
    folder = tempfile.mkdtemp(prefix="editblocks-bench-")
    for name, text in files.items():
        Path(folder, name).write_text(text, newline="")

    def run() -> None:
        result = apply(parse(answer), folder, dry_run=True)
        Console(file=io.StringIO(), width=120).print(apply_report(result, show_diffs=True, dry_run=True))
    return run


def blocks_on_big_file(blocks: int, lines: int, failing_every: int = 0) -> Callable[[], object]:
    """``blocks`` one-line edits spread over a ``lines``-line file; every ``failing_every``-th one not found."""
    step = lines // blocks
    def old(n: int) -> str:
        gone = failing_every and n % failing_every
        return f"value_{n * step} = {n * step}{'  # gone' if gone else ''}\n"
    answer = "".join(diff_block("big.py", old(n), f"value_{n * step} = -1\n") for n in range(blocks))
    return dry_run({"big.py": numbered_file(lines)}, answer)


def mixed_endings(blocks: int) -> Callable[[], object]:
    """Blocks whose every line ends in a random one of LF, CRLF and a bare CR."""
    chooser = random.Random(17)
    answer = "".join(
        "".join(part + chooser.choice(("\n", "\r\n", "\r")) for part in
                ("big.py", "```", "<<<<<<< SEARCH", f"value_{3 * n} = {3 * n}", "=======", f"value_{3 * n} = -1",
                 ">>>>>>> REPLACE", "```"))
        for n in range(blocks)
    )
    return dry_run({"big.py": numbered_file(3 * blocks)}, answer)


def huge_lines_not_found(searched: int, file_lines: int = 1_000, width: int = 9_000) -> Callable[[], object]:
    """A not-found block of ``searched`` lines of ``width`` characters, in a file of ``file_lines`` such lines."""
    chooser = random.Random(3)

    def line() -> str:
        return "x = '" + "".join(chooser.choice("abcdefgh ") for _ in range(width)) + "'\n"
    text = "".join(line() for _ in range(file_lines))
    return dry_run({"big.py": text}, diff_block("big.py", "".join(line() for _ in range(searched)), "y = 1\n"))


def stray_markers(count: int) -> Callable[[], object]:
    return dry_run({}, ">>>>>>> REPLACE\n" * count)


SHAPES: list[tuple[str, str, Callable[[float], Callable[[], object]]]] = [
    ("blocks on one 200,000-line file", "10,000 x 200,000", lambda s: blocks_on_big_file(int(10_000 * s), 200_000)),
    ("blocks, half not found, one file", "10,000 x 200,000",
     lambda s: blocks_on_big_file(int(10_000 * s), 200_000, failing_every=2)),
    ("blocks with mixed LF/CRLF/CR", "6,000", lambda s: mixed_endings(int(6_000 * s))),
    ("not-found block of 9 KB lines", "80 in 1,000 lines", lambda s: huge_lines_not_found(max(1, int(80 * s)))),
    ("stray `>>>>>>> REPLACE` (display)", "30,000", lambda s: stray_markers(int(30_000 * s))),
]
"""(name, size at scale 1, builder taking the scale)."""
