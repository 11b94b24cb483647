"""A 200-hunk V4A patch: editblocks' parse + plan, and its whole dry run, against openai-agents' `apply_diff`.

    .venv/bin/python bench/v4a_bench.py [--hunks 200] [--lines 10000 100000] [--rounds 7] [--agents-site DIR]

openai-agents' `apply_diff(text, diff)` (agents/apply_diff.py, standard library only) is loaded from its file in
the peer's site-packages (``--agents-site`` or AGENTS_SITE), without importing the rest of the SDK. It takes
the file's text and the update's hunks and returns the new text, in memory. editblocks is timed twice on the
same change: `parse(patch, "v4a")` + `plan_edits` (the pure core, no I/O: the like of `apply_diff`), and
`apply(parse(patch), root, dry_run=True)` (reads the file, plans, builds the report's diffs). All three must
produce the same text. CPU time (`process_time`), medians of interleaved rounds. Goals: parse + plan at most
the peer, the dry run at most 1.5x.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from goalkit import (
    OPENAI_AGENTS,
    Row,
    Work,
    changed_text,
    code_lines,
    command_line,
    emit,
    hunk_places,
    interleaved_cpu,
    locate_peer,
    options,
    ratio_row,
    v4a_hunks,
    v4a_patch,
)

from editblocks import apply, parse
from editblocks.plan import TargetFile, plan_edits


def load_apply_diff(site: Path) -> Callable[[str, str], str]:
    path = site / "agents" / "apply_diff.py"
    spec = importlib.util.spec_from_file_location("peer_agents_apply_diff", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    function: Callable[[str, str], str] = module.apply_diff
    return function


def measure(hunks: int, line_count: int, rounds: int, site: Path) -> list[Row]:
    apply_diff = load_apply_diff(site)
    lines = code_lines(line_count)
    places = hunk_places(lines, hunks)
    original, expected = "".join(line + "\n" for line in lines), changed_text(lines, places)
    patch, body = v4a_patch("big.py", lines, places), v4a_hunks(lines, places)

    def parse_and_plan() -> str:
        result = parse(patch, "v4a")
        plan = plan_edits(result.blocks, {"big.py": TargetFile("big.py", original)})
        return plan.files[0].text

    with tempfile.TemporaryDirectory(prefix="editblocks-v4a-") as root:
        Path(root, "big.py").write_text(original)

        def dry_run() -> str:
            result = apply(parse(patch), root, dry_run=True)
            return result.diffs[0].after

        assert apply_diff(original, body) == expected, "apply_diff did not make the expected text"
        assert parse_and_plan() == expected and dry_run() == expected, "editblocks did not make the expected text"
        medians = interleaved_cpu({"parse+plan": Work(parse_and_plan), "dry run": Work(dry_run),
                                   "apply_diff": Work(lambda: apply_diff(original, body))}, rounds)
    peer = "openai-agents apply_diff"
    return [
        ratio_row(f"V4A {hunks} hunks, {line_count:,} lines: parse+plan (CPU)", medians["parse+plan"],
                  medians["apply_diff"], "ms", peer, 1, command_line()),
        ratio_row(f"V4A {hunks} hunks, {line_count:,} lines: dry run (CPU)", medians["dry run"],
                  medians["apply_diff"], "ms", peer, 1.5, command_line()),
    ]


def main() -> None:
    parser = options(__doc__.splitlines()[0])
    parser.add_argument("--hunks", type=int, default=200)
    parser.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--agents-site", help=f"openai-agents' site-packages (else ${OPENAI_AGENTS.env})")
    args = parser.parse_args()
    site = locate_peer(OPENAI_AGENTS, args.agents_site)
    emit([row for lines in args.lines for row in measure(args.hunks, lines, args.rounds, site)], args.json)


if __name__ == "__main__":
    main()
