"""Old and new front-end parsers give identical results on many random and mutated patches (issue 14).

    PYTHONPATH=DIR .venv/bin/python bench/frontends_equivalence.py [--rounds 3000]

DIR holds a package `oldfe` with the previous `common.py`, `unified.py` and `v4a.py` (their
`editblocks.parsing.patches.common` imports pointed at `oldfe.common`). Each round builds a patch (a shipped
udiff/v4a case answer, or a random multi-hunk patch) and mutates a few lines (prefixes dropped or swapped,
blank lines, `---`/`+++`/`@@`/`\\`/`***` lines, counts changed, CRLF, NUL), then compares both parsers'
results and file spans.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from oldfe import unified as old_unified  # type: ignore[import-not-found]
from oldfe import v4a as old_v4a  # type: ignore[import-not-found]

from editblocks.parsing.patches import unified, v4a

PIECES = [" x", "-y", "+z", "", " ", "--- a/f", "+++ b/f", "@@", "@@ -1,2 +1,2 @@", "@@ -3 +3 @@ def f():",
          "\\ No newline", "*** End of File", "*** End Patch", "*** Update File: g.py", "diff --git a/h b/h",
          "-- c", "-+- q", "```",
          " @@x", "+\x00", "@@ -1,0 +1,1 @@", "@@ class A", "junk", "+", "-", "*** Move to: m.py", "    ```"]


def random_patch(rng: random.Random, fmt: str) -> str:
    lines: list[str] = []
    if fmt == "v4a":
        lines += ["*** Begin Patch", f"*** Update File: f{rng.randint(0, 2)}.py"]
    for _ in range(rng.randint(1, 3)):
        if fmt == "udiff":
            path = f"f{rng.randint(0, 2)}.py"
            lines += [f"diff --git a/{path} b/{path}"] * rng.randint(0, 1) + [f"--- a/{path}", f"+++ b/{path}"]
        for _ in range(rng.randint(1, 8)):
            body = [rng.choice(" -+") + rng.choice(["a", "b", "", "-", "+ x", "@@", "--- z"]) for _ in range(
                rng.randint(0, 6))]
            old, new = sum(1 for b in body if b[0] != "+"), sum(1 for b in body if b[0] != "-")
            if fmt == "udiff":
                old, new = old + rng.choice([0, 0, 0, 1, -1]), new + rng.choice([0, 0, 0, 1])
                lines.append(rng.choice([f"@@ -{rng.randint(0, 9)},{old} +1,{new} @@", "@@ -1 +1 @@", "@@ @@", "@@"]))
            else:
                lines.append(rng.choice(["@@", "@@", "@@ def f():", "@@ -1,2 +1,2 @@ x"]))
            lines += body
        if fmt == "v4a" and rng.random() < 0.3:
            lines.append(f"*** Update File: f{rng.randint(0, 2)}.py")
    if fmt == "v4a" and rng.random() < 0.9:
        lines.append("*** End Patch")
    return "\n".join(lines) + rng.choice(["\n", ""])


def mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(0, 4)):
        at = rng.randrange(len(lines) + 1)
        choice = rng.random()
        if choice < 0.4:
            lines.insert(at, rng.choice(PIECES))
        elif choice < 0.6 and at < len(lines):
            del lines[at]
        elif at < len(lines) and lines[at]:
            lines[at] = rng.choice(" -+@\\*") + lines[at][1:]
    joined = "\n".join(lines)
    return joined.replace("\n", "\r\n") if rng.random() < 0.05 else joined


def main() -> None:
    options = argparse.ArgumentParser()
    options.add_argument("--rounds", type=int, default=3000)
    rounds = options.parse_args().rounds
    rng = random.Random(14)
    root = Path(__file__).resolve().parent.parent / "tests" / "cases"
    shipped = {fmt: [path.read_text() for path in (root / fmt).glob("*/response.md")] for fmt in ("udiff", "v4a")}
    checked = 0
    for round_number in range(rounds):
        for fmt, new_read, old_read in (("udiff", unified.read_unified, old_unified.read_unified),
                                        ("v4a", v4a.read_v4a, old_v4a.read_v4a)):
            base = rng.choice(shipped[fmt]) if shipped[fmt] and rng.random() < 0.3 else random_patch(rng, fmt)
            text = mutate(rng, base) if rng.random() < 0.8 else base
            new, old = new_read(text), old_read(text)
            assert new == old, f"round {round_number} ({fmt}) differs on {text!r}:\n{new}\n{old}"
            checked += 1
    print(f"{checked} patches: identical results and spans")


if __name__ == "__main__":
    main()
