"""Parser speed against a peer (issue 13): per answer, per token, and on one big text. Run by hand:

    .venv/bin/python bench/peer_bench.py [--answers 2000] [--rounds 7] [--megabytes 5]

Everything runs in one process, timed with `time.process_time` (CPU time, so
other processes on a shared machine count less), as the median of several
rounds in which the workloads are interleaved (a slow spell of the machine hits
them all alike). The figures:

- per answer: a generated corpus of realistic answers (60 % prose only, 40 %
  with 1-10 blocks, 200 B to 20 KB, with markdown quotes, bullets, headings and
  code fences), each parsed on its own as a coding tool does, by `parse` and by
  `reference_parse` below, a regular-expression parser in the style of aider's
  `find_original_update_blocks` (goal: `parse` at least 3x faster);
- `parse("")` and a one-line answer, per call (goal: at most 2 microseconds);
- one 5 MB answer (the corpus joined) against `str.splitlines` (goal: at most 4x);
- streaming that answer's first megabyte in 1, 4, 16 and 64 characters per `feed`
  (with events) against the one-shot `parse` of the same text (goals: 4
  characters at most 1.4x, 1 character at most 2.5x), next to the cost of merely
  calling an empty `feed` method as often, which no Python parser can go under.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from editblocks import StreamParser, parse

# --- the corpus -------------------------------------------------------------------------------------------------

_WORDS = ("the value of each item is read from the list and added to the total so that a later call can use "
          "it again without looking at the file twice because the cache keeps every result").split()
_CODE = ("def total(items):", "    return sum(items)", "result = compute(values, index)", "if value is None:",
         "    raise ValueError('empty')", "for item in items:", "    count += 1", "class Reader:",
         "    def __init__(self, path):", "        self.path = path", "import os", "return None", "}", "{",
         "const value = items.map((x) => x * 2);", "// keep the order stable", "# a comment line")


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 18))]
    return words[0].capitalize() + " " + " ".join(words[1:]) + "."


def _prose(rng: random.Random) -> str:
    """A paragraph, a bullet list, a quote, a heading or a non-edit code fence."""
    kind = rng.random()
    if kind < 0.40:
        return " ".join(_sentence(rng) for _ in range(rng.randint(1, 4))) + "\n\n"
    if kind < 0.65:
        bullet = rng.choice(("- ", "* ", "+ ", "1. "))
        items = "".join(("  " if rng.random() < 0.2 else "") + bullet + _sentence(rng) + "\n"
                        for _ in range(rng.randint(2, 6)))
        return items + "\n"
    if kind < 0.80:
        return "".join("> " + _sentence(rng) + "\n" for _ in range(rng.randint(1, 4))) + "\n"
    if kind < 0.90:
        return "#" * rng.randint(1, 3) + " " + _sentence(rng) + "\n\n"
    fence = rng.choice(("```python", "```bash", "```", "~~~"))
    body = "".join(rng.choice(_CODE) + "\n" for _ in range(rng.randint(2, 10)))
    return f"{fence}\n{body}{fence[:3]}\n\n"


def _code(rng: random.Random, lines: int) -> str:
    return "".join(rng.choice(_CODE) + "\n" for _ in range(lines))


def _block(rng: random.Random) -> str:
    path = f"src/pkg{rng.randint(0, 9)}/module_{rng.randint(0, 99)}.py"
    old, new = _code(rng, rng.randint(1, 25)), _code(rng, rng.randint(1, 25))
    if rng.random() < 0.7:
        return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n\n"
    return f"```python\n{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n\n"


def answer(rng: random.Random) -> str:
    """One answer: its size drawn between 200 B and 20 KB (log-uniform), prose only or with 1-10 blocks."""
    size = int(200 * 100 ** rng.random())
    blocks = rng.randint(1, 10) if rng.random() < 0.4 else 0
    parts: list[str] = []
    length = 0
    while length < size or blocks:
        piece = _prose(rng)
        if blocks and (length >= size or rng.random() < 0.5):
            piece += _block(rng)
            blocks -= 1
        parts.append(piece)
        length += len(piece)
    return "".join(parts)


def corpus(count: int, seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    return [answer(rng) for _ in range(count)]


# --- the reference: a regular-expression parser in aider's style ------------------------------------------------

_HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_UPDATED = re.compile(r"^>{5,9} REPLACE\s*$")
_FENCE_OPEN = "```"


@dataclass
class ReferenceBlock:
    path: str | None
    old: str
    new: str


def _filename_before(lines: list[str], index: int) -> str | None:
    """The path on one of the (up to three) lines before a block's head, skipping fence lines."""
    for line in reversed(lines[max(0, index - 3) : index]):
        name = line.strip().strip("*#`:").strip()
        if not name or name.startswith(_FENCE_OPEN):
            continue
        if " " not in name and ("." in name or "/" in name):
            return name
    return None


def reference_parse(text: str) -> list[ReferenceBlock | str]:
    """Split into lines, test every line for a shell fence and the three marker expressions, look back for paths.

    The baseline of the comparison: the per-line work of aider's `find_original_update_blocks` as its
    description reads (each line is stripped and tested against the list of shell fence openings unless the
    next line is a block head, then against the head expression; inside a block, the divider and end
    expressions), written here in other words. Shell fences yield their text as a string.
    """
    lines = text.splitlines(keepends=True)
    found: list[ReferenceBlock | str] = []
    path: str | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        shell_openings = ["```bash", "```sh", "```shell", "```cmd", "```batch", "```powershell", "```ps1",
                          "```zsh", "```fish", "```ksh", "```csh", "```tcsh"]
        head_next = index + 1 < len(lines) and _HEAD.match(lines[index + 1].strip())
        if any(line.strip().startswith(opening) for opening in shell_openings) and not head_next:
            shell: list[str] = []
            index += 1
            while index < len(lines) and not lines[index].strip().startswith("```"):
                shell.append(lines[index])
                index += 1
            found.append("".join(shell))
            index += 1
            continue
        if _HEAD.match(line.strip()):
            path = _filename_before(lines, index) or path
            old: list[str] = []
            index += 1
            while index < len(lines) and not _DIVIDER.match(lines[index].strip()):
                old.append(lines[index])
                index += 1
            new: list[str] = []
            index += 1
            while index < len(lines) and not (_UPDATED.match(lines[index].strip())
                                               or _DIVIDER.match(lines[index].strip())):
                new.append(lines[index])
                index += 1
            found.append(ReferenceBlock(path, "".join(old), "".join(new)))
        index += 1
    return found


# --- timing -----------------------------------------------------------------------------------------------------


def cpu_seconds(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def per_call(function: Callable[[], object], calls: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(calls):
            function()
    return run


def streamed(text: str, size: int) -> Callable[[], None]:
    """Chunks are cut as they are fed, as tokens arrive: a list of a million chunks kept alive would make every
    full garbage collection of the process (and so every other workload) slower."""
    def run() -> None:
        parser = StreamParser()
        feed = parser.feed
        for position in range(0, len(text), size):
            feed(text[position : position + size])
        parser.close()
    return run


class _EmptyFeed:
    """The floor of any streaming parser in Python: a `feed` method that does nothing."""

    def feed(self, chunk: str) -> list[object]:
        return []


def empty_feeds(text: str, size: int) -> Callable[[], None]:
    def run() -> None:
        feed = _EmptyFeed().feed
        for position in range(0, len(text), size):
            feed(text[position : position + size])
    return run


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    options.add_argument("--answers", type=int, default=2000)
    options.add_argument("--rounds", type=int, default=7)
    options.add_argument("--megabytes", type=float, default=5.0)
    options.add_argument("--stream-megabytes", type=float, default=1.0)
    args = options.parse_args()

    answers = corpus(args.answers)
    with_blocks = sum(1 for a in answers if "<<<<<<< SEARCH" in a)
    found = sum(len(parse(a).blocks) for a in answers)
    referenced = sum(isinstance(b, ReferenceBlock) for a in answers for b in reference_parse(a))
    assert found == referenced, f"the two parsers disagree on the corpus: {found} and {referenced} blocks"
    big = ""
    rng = random.Random(5)
    pieces: list[str] = []
    size = 0
    while size < args.megabytes * 1_000_000:
        piece = answer(rng)
        pieces.append(piece)
        size += len(piece)
    big = "".join(pieces)
    stream_text = big[: int(args.stream_megabytes * 1_000_000)]
    stream_text = stream_text[: stream_text.rfind("\n") + 1]
    calls = 20_000
    one_line = "Sure, here is the answer you asked for.\n"

    workloads: dict[str, Callable[[], object]] = {
        "corpus: parse": per_call_each(parse, answers),
        "corpus: reference regex parser": per_call_each(reference_parse, answers),
        "parse('') x20,000": per_call(lambda: parse(""), calls),
        "parse(one line) x20,000": per_call(lambda: parse(one_line), calls),
        "5 MB: str.splitlines": big.splitlines,
        "5 MB: parse": lambda: parse(big),
        "stream text: parse": lambda: parse(stream_text),
        **{f"stream text: feed {n} chars": streamed(stream_text, n) for n in (1, 4, 16, 64)},
        **{f"stream text: empty feed {n} chars": empty_feeds(stream_text, n) for n in (1, 4)},
    }
    times: dict[str, list[float]] = {name: [] for name in workloads}
    for _ in range(args.rounds):
        for name, run in workloads.items():
            times[name].append(cpu_seconds(run))
    median = {name: statistics.median(values) for name, values in times.items()}

    print(f"corpus: {len(answers):,} answers, {sum(map(len, answers)) / 1e6:.1f} MB, {with_blocks} with blocks, "
          f"{found:,} blocks; big text {len(big) / 1e6:.1f} MB; stream text {len(stream_text) / 1e6:.1f} MB; "
          f"medians of {args.rounds} rounds (process_time)")
    for name, seconds in median.items():
        print(f"  {name:36} {seconds * 1000:9.1f} ms")
    ratio = median["corpus: reference regex parser"] / median["corpus: parse"]
    print(f"per answer: parse is {ratio:.2f}x faster than the reference            (goal >= 3x)")
    empty = median["parse('') x20,000"]
    print(f"parse(''):        {empty / calls * 1e6:6.2f} us per call             (goal <= 2)")
    print(f"parse(one line):  {median['parse(one line) x20,000'] / calls * 1e6:6.2f} us per call             "
          "(goal <= 2)")
    print(f"5 MB parse vs splitlines: {median['5 MB: parse'] / median['5 MB: str.splitlines']:.2f}x"
          "                 (goal <= 4x)")
    one_shot = median["stream text: parse"]
    for n, goal in ((1, " (goal <= 2.5x)"), (4, " (goal <= 1.4x)"), (16, ""), (64, "")):
        fed = median[f"stream text: feed {n} chars"]
        line = f"feed {n:2} chars vs one-shot: {fed / one_shot:5.2f}x{goal}"
        if n in (1, 4):
            floor = median[f"stream text: empty feed {n} chars"]
            line += (f"; an empty feed() alone costs {floor / one_shot:.2f}x, the parser's work beyond it "
                     f"{(fed - floor) / one_shot:.2f}x")
        print(line)


def per_call_each(function: Callable[[str], object], texts: list[str]) -> Callable[[], None]:
    def run() -> None:
        for text in texts:
            function(text)
    return run


if __name__ == "__main__":
    main()
