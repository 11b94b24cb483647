"""Parser speed and memory on a large generated response (issue: foundation). Run by hand:

    .venv/bin/python bench/parse_bench.py [--megabytes 5] [--blocks 2000]

Prints each figure and its ratio to its baseline, measured in one run:
- one-shot `parse` vs `str.splitlines()` on the same text (target ≤ 3×, goal 2×), next to the least
  work any pure-Python parser of this text must do (find the marker lines, classify them, read the
  path, build the blocks — nothing else), which shows where the floor lies;
- feeding the response one character at a time vs the one-shot parse (target ≤ 3×), next to the
  cost of merely calling an empty `feed` method once per character, which no Python parser can go under;
- feeding 64-character chunks (a realistic stream) vs the one-shot parse;
- peak memory of a parse (tracemalloc) vs the response size (target ≤ 5×).
"""

from __future__ import annotations

import argparse
import random
import re
import time
import tracemalloc
from collections.abc import Callable

from editblocks import BlockKind, EditBlock, Format, StreamParser, parse
from editblocks.parsing.filenames import path_from_line
from editblocks.parsing.markers import MarkerKind, classify

WORDS = "alpha beta gamma delta value result items total count index self return None True".split()


def _code_line(rng: random.Random) -> str:
    indent = "    " * rng.randint(0, 3)
    return indent + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 10))) + "\n"


def _prose(rng: random.Random) -> str:
    sentences = rng.randint(1, 4)
    return " ".join("The " + " ".join(rng.choice(WORDS) for _ in range(8)) + "." for _ in range(sentences)) + "\n\n"


def _block(rng: random.Random, number: int, lines: int) -> str:
    path = f"src/pkg{number % 40}/module_{number % 97}.py"
    old = "".join(_code_line(rng) for _ in range(lines))
    new = "".join(_code_line(rng) for _ in range(lines))
    style = number % 4
    if style == 0:
        return f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"
    if style == 1:
        return f"```python\n{path}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"
    if style == 2:
        return f"{path}\n<<<<<<< EDIT\n{_code_line(rng)}-------\n{old}=======\n{new}-------\n{_code_line(rng)}>>>>>>>\n"
    return f"{path}\n««« EDIT\ndef anchor_{number}():\n{old}═══════ REPL\ndef anchor_{number}():\n{new}»»» EDIT END\n"


def generate(megabytes: float, blocks: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    per_block = max(4, target // blocks // 2 // 45)
    parts: list[str] = []
    size = count = 0
    while size < target or count < blocks:
        piece = _prose(rng) + _block(rng, count, rng.randint(per_block // 2, per_block * 3 // 2))
        parts.append(piece)
        size += len(piece)
        count += 1
    return "".join(parts)


_MARKER_OR_FENCE_LINE = re.compile("\n[<=>\\-+«═»`~]")
_OPENINGS = (MarkerKind.SEARCH_START, MarkerKind.ANCHORED_START, MarkerKind.GUILLEMET_START)
_DIVIDERS = (MarkerKind.SEPARATOR, MarkerKind.DASH, MarkerKind.GUILLEMET_SEPARATOR)
_ENDINGS = (MarkerKind.REPLACE_END, MarkerKind.BARE_END, MarkerKind.GUILLEMET_END)


def least_work(text: str) -> list[EditBlock]:
    """Not a parser: the bare minimum every parser of this generated text does, for a floor to compare with.

    One regular expression finds the lines that start with a marker or fence
    character, each is classified, the path is read from the line before the
    block, and a block is built at each end marker. No fences, events,
    diagnostics, streaming, strict markers or malformed input are handled.
    """
    blocks: list[EditBlock] = []
    body = "\n" + text
    opened: tuple[str, int] | None = None
    cuts: list[tuple[int, int]] = []
    for found in _MARKER_OR_FENCE_LINE.finditer(body):
        start = found.start() + 1
        end = body.find("\n", start)
        marker = classify(body[start:end])
        if marker is None:
            continue
        if opened is None and marker.kind in _OPENINGS:
            before = body.rfind("\n", 0, start - 1)
            path_line = body[before + 1 : start - 1]
            if path_line.startswith("```"):
                path_line = body[body.rfind("\n", 0, before) + 1 : before]
            path = path_from_line(path_line)
            opened, cuts = (path.path if path else "", end + 1), []
        elif opened is not None and marker.kind in _DIVIDERS:
            cuts.append((start, end + 1))
        elif opened is not None and marker.kind in _ENDINGS:
            bounds = [opened[1], *[edge for cut in cuts for edge in cut], start]
            old, new = body[bounds[0] : bounds[1]], body[bounds[-2] : bounds[-1]]
            blocks.append(EditBlock(opened[0], "", old, new, "", BlockKind.EDIT, Format.DIFF, 1))
            opened = None
    body.count("\n")
    return blocks


def best_of(function: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def feed_in_chunks(text: str, size: int) -> None:
    parser = StreamParser()
    feed = parser.feed
    for position in range(0, len(text), size):
        feed(text[position : position + size])
    parser.close()


def feed_characters(text: str) -> None:
    parser = StreamParser()
    feed = parser.feed
    for character in text:
        feed(character)
    parser.close()


class _EmptyFeed:
    def feed(self, chunk: str) -> list[object]:
        return []


def empty_feed_floor(text: str) -> None:
    feed = _EmptyFeed().feed
    for character in text:
        feed(character)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    options.add_argument("--megabytes", type=float, default=5.0)
    options.add_argument("--blocks", type=int, default=2000)
    options.add_argument("--repeats", type=int, default=5)
    args = options.parse_args()

    text = generate(args.megabytes, args.blocks)
    result = parse(text)
    print(f"response: {len(text) / 1e6:.2f} MB, {text.count(chr(10)):,} lines, {len(result.blocks):,} blocks, "
          f"{len(result.diagnostics)} diagnostics")

    split = best_of(text.splitlines, args.repeats)
    one_shot = best_of(lambda: parse(text), args.repeats)
    floor = best_of(lambda: least_work(text), args.repeats)
    print(f"str.splitlines()          {split * 1000:8.1f} ms")
    print(f"least work (a floor)      {floor * 1000:8.1f} ms   {floor / split:5.2f}× splitlines")
    print(f"parse (one shot)          {one_shot * 1000:8.1f} ms   {one_shot / split:5.2f}× splitlines"
          f"   (target ≤ 3×, goal 2×)   {one_shot / floor:.2f}× the floor")

    chunks = best_of(lambda: feed_in_chunks(text, 64), max(1, args.repeats // 2))
    print(f"feed, 64-char chunks      {chunks * 1000:8.1f} ms   {chunks / one_shot:5.2f}× one-shot")
    characters = best_of(lambda: feed_characters(text), 1)
    calls = best_of(lambda: empty_feed_floor(text), 1)
    work = characters - calls
    print(f"feed, 1 char at a time    {characters * 1000:8.1f} ms   {characters / one_shot:5.2f}× one-shot"
          "   (target ≤ 3×)")
    print(f"  empty feed() per char   {calls * 1000:8.1f} ms   {calls / one_shot:5.2f}× one-shot"
          "   (call overhead alone)")
    print(f"  parser work per char    {work * 1000:8.1f} ms   {work / one_shot:5.2f}× one-shot")

    tracemalloc.start()
    parse(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak memory of parse      {peak / 1e6:8.1f} MB   {peak / len(text):5.2f}× response size   (target ≤ 5×)")

    half = generate(args.megabytes / 2, args.blocks // 2)
    linear = best_of(lambda: feed_characters(half), 1)
    print(f"linearity: char feed of half the text {linear * 1000:.0f} ms → full {characters * 1000:.0f} ms "
          f"({characters / linear:.2f}× for {len(text) / len(half):.2f}× the size)")


if __name__ == "__main__":
    main()
