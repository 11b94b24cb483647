"""A file's unified diff splits and aligns only the changed lines and their context (issue 29), and says the same
as aligning every line would."""

from __future__ import annotations

import difflib
import random

import pytest

from editblocks.text import diff
from editblocks.text.diff import unified_diff


def reference(old: str | None, new: str, context: int) -> str:
    """The diff from every line of both texts (the equal leading and trailing lines cut to ``context`` first, the
    rest aligned by difflib), grouped as difflib groups them, written as `unified_diff` writes."""
    def bare(text: str) -> list[str]:
        lines = text.split("\n")
        last = lines.pop()
        return lines + ([last + "\n"] if last else [])

    def row(prefix: str, line: str) -> str:
        return prefix + line + ("\\ No newline at end of file\n" if line.endswith("\n") else "\n")

    old_lines, new_lines = bare(old) if old is not None else [], bare(new)
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < min(len(old_lines), len(new_lines)) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    start, cut = max(0, head - context), max(0, tail - context)
    matcher = difflib.SequenceMatcher(None, old_lines[start : len(old_lines) - cut],
                                      new_lines[start : len(new_lines) - cut], autojunk=False)
    out = []
    for group in matcher.get_grouped_opcodes(context):
        group = [(tag, i1 + start, i2 + start, j1 + start, j2 + start) for tag, i1, i2, j1, j2 in group]
        if not any(tag != "equal" for tag, *_ in group):
            continue
        first, last = group[0], group[-1]
        out.append(f"@@ -{diff._range(first[1], last[2])} +{diff._range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            out += [row(" " if tag == "equal" else "-", line) for line in old_lines[i1:i2]]
            out += [row("+", line) for line in new_lines[j1:j2] if tag != "equal"]
    return "".join([f"--- {'/dev/null' if old is None else 'a/f'}\n", "+++ b/f\n", *out]) if out else ""


def random_text(rng: random.Random, lines: list[str]) -> str:
    return "\n".join(lines) + rng.choice(["", "\n", "\n\n"])


@pytest.mark.parametrize("chunk", [1, 3, diff.COMPARE_CHUNK])
def test_the_windowed_diff_is_the_diff_of_every_line(monkeypatch, chunk):
    monkeypatch.setattr(diff, "COMPARE_CHUNK", chunk)
    rng = random.Random(chunk)
    for _ in range(3000):
        alphabet = rng.choice(["a", "ab", "abcd"])
        lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 2))) for _ in range(rng.randint(0, 10))]
        changed = list(lines)
        for _ in range(rng.randint(0, 3)):
            at = rng.randint(0, len(changed))
            if rng.random() < 0.5 or not changed:
                changed.insert(at, rng.choice(alphabet))
            else:
                del changed[min(at, len(changed) - 1)]
        old, new = random_text(rng, lines), random_text(rng, changed)
        context = rng.randint(0, 4)
        for before, after in ((old, new), (new, old), (None, new)):
            assert unified_diff("f", before, after, context) == reference(before, after, context), (before, after)


def test_a_small_edit_of_a_big_file_splits_only_the_lines_around_it(monkeypatch):
    split: list[int] = []
    real = diff._bare_lines

    def counting(text: str) -> list[str]:
        lines = real(text)
        split.append(len(lines))
        return lines

    monkeypatch.setattr(diff, "_bare_lines", counting)
    for size in (10_000, 80_000):
        lines = [f"line {number}" for number in range(size)]
        edited = list(lines)
        edited[size // 2] = "changed"
        split.clear()
        text = unified_diff("f", "\n".join(lines) + "\n", "\n".join(edited) + "\n")
        assert text.count("\n") == 2 + 1 + 6 + 2
        assert sum(split) <= 2 * 7, (size, split)
