"""Parser speed against peers: per answer (against aider's own parser), per token, and on one big text.

    .venv/bin/python bench/peer_bench.py [--answers 2000] [--rounds 7] [--megabytes 5]
        [--aider-site DIR | --no-aider] [--corpus DIR]

Everything runs in one process, timed with `time.process_time` (CPU time, so
other processes on a shared machine count less), as the median of several
rounds in which the workloads are interleaved (a slow spell of the machine hits
them all alike). The figures:

- per answer: a generated corpus of realistic answers (60 % prose only, 40 %
  with 1-10 blocks, 200 B to 20 KB, with markdown quotes, bullets, headings and
  code fences), each parsed on its own as a coding tool does, by `parse`, by
  aider 0.86.2's own `find_original_update_blocks` (loaded from its file in
  aider's site-packages, ``--aider-site`` or AIDER_SITE, with the few modules
  it imports stubbed), and by `reference_parse` below, a regular-expression
  parser in the same style. `parse` runs twice: with its default fence, and
  with a fence equal to it but not the same object, as a caller like aider
  passes its own (goal: `parse` at least 3x faster than aider in both); and
  again on the answers without a backtick, where `parse` can take its
  shortcut for text with no structure (if it knows the fence is the default). The
  same on real model answers when a corpus folder is there (``--corpus``,
  EDITCORPUS_ANSWERS, or the development split built as
  shared/corpus/README.md says, under /tmp);
- `parse("")` and a one-line answer, per call (goal: at most 2 microseconds);
- one 5 MB answer (the corpus joined) against `str.splitlines` (goal: at most 4x);
- streaming that answer's first megabyte in 1, 4, 16 and 64 characters per `feed`
  (with events) against the one-shot `parse` of the same text (goals: 4
  characters at most 1.4x, 1 character at most 2.5x), next to the cost of merely
  calling an empty `feed` method as often, which no Python parser can go under.
"""

from __future__ import annotations

import importlib.util
import os
import random
import re
import statistics
import sys
import time
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from goalkit import AIDER, Row, command_line, emit, locate_peer, options

from editblocks import StreamParser, parse

REAL_ANSWERS = "/tmp/editcorpus-dev/responses"
"""Where shared/corpus/README.md's build leaves the development split's answers (never copied into the repo)."""
FENCE_BY_VALUE = tuple(["`" * 3, "`" * 3])
"""Equal to the default fence, but another object: what a caller that keeps its own fence passes."""

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


# --- aider's own parser ----------------------------------------------------------------------------------------


def load_aider_parser(site: Path) -> Callable[[str], Iterable[object]]:
    """aider's `find_original_update_blocks`, from its module file; the modules that file imports for its coder
    class (the coder base, prompts, utils) are stood in for by empty ones, so nothing else of aider loads."""
    for name in ("aider", "aider.coders"):
        package = types.ModuleType(name)
        package.__path__ = []
        sys.modules[name] = package
    stand_ins = {"aider.utils": {}, "aider.dump": {"dump": print}, "aider.coders.base_coder": {"Coder": object},
                 "aider.coders.editblock_prompts": {"EditBlockPrompts": object}}
    for name, attributes in stand_ins.items():
        module = types.ModuleType(name)
        module.__dict__.update(attributes)
        sys.modules[name] = module
    sys.modules["aider"].utils = sys.modules["aider.utils"]  # type: ignore[attr-defined]
    spec = importlib.util.spec_from_file_location("aider.coders.editblock_coder",
                                                  site / "aider" / "coders" / "editblock_coder.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load aider's editblock_coder from {site}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    function: Callable[[str], Iterable[object]] = module.find_original_update_blocks
    return function


def real_answers(given: str | None) -> list[str]:
    """The real answers of a corpus folder, or none when no folder is given and the default is absent."""
    folder = Path(given or os.environ.get("EDITCORPUS_ANSWERS") or REAL_ANSWERS)
    if not folder.is_dir():
        if given:
            raise SystemExit(f"no corpus folder at {folder}")
        return []
    paths = sorted(folder.glob("*.md")) or sorted(folder.glob("*/response.md"))
    return [path.read_text(encoding="utf-8", errors="replace") for path in paths]


def aider_parse(find_blocks: Callable[[str], Iterable[object]]) -> Callable[[str], list[object]]:
    """One answer through aider's parser as its coder reads it: every block, or nothing when aider refuses it."""
    def run(text: str) -> list[object]:
        try:
            return list(find_blocks(text))
        except ValueError:
            return []
    return run


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
    parser = options(__doc__.split("\n", 1)[0])
    parser.add_argument("--answers", type=int, default=2000)
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--stream-megabytes", type=float, default=1.0)
    parser.add_argument("--aider-site", help=f"aider's site-packages (else ${AIDER.env})")
    parser.add_argument("--no-aider", action="store_true", help="leave aider out (no goal row)")
    parser.add_argument("--corpus", help="a folder of real answers (*.md, or */response.md), else $EDITCORPUS_ANSWERS "
                        f"or {REAL_ANSWERS} when present")
    args = parser.parse_args()
    real = real_answers(args.corpus)
    aider = None if args.no_aider else aider_parse(load_aider_parser(locate_peer(AIDER, args.aider_site)))

    answers = corpus(args.answers)
    with_blocks = sum(1 for a in answers if "<<<<<<< SEARCH" in a)
    found = sum(len(parse(a).blocks) for a in answers)
    referenced = sum(isinstance(b, ReferenceBlock) for a in answers for b in reference_parse(a))
    assert found == referenced, f"the two parsers disagree on the corpus: {found} and {referenced} blocks"
    plain = [a for a in answers if "`" not in a]  # where parse's no-structure shortcut may apply
    by_value = sum(len(parse(a, fence=FENCE_BY_VALUE).blocks) for a in answers)
    assert by_value == found, "a fence equal to the default changed what parse found"
    by_aider = sum(1 for a in answers for b in aider(a) if len(b) == 3) if aider else found  # type: ignore[arg-type]
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
        "corpus: parse, fence by value": per_call_each(lambda a: parse(a, fence=FENCE_BY_VALUE), answers),
        "no backtick: parse": per_call_each(parse, plain),
        "no backtick: parse, fence by value": per_call_each(lambda a: parse(a, fence=FENCE_BY_VALUE), plain),
        **({"no backtick: aider find_original_update_blocks": per_call_each(aider, plain)} if aider else {}),
        **({"corpus: aider find_original_update_blocks": per_call_each(aider, answers)} if aider else {}),
        **({"real: parse": per_call_each(parse, real),
            "real: parse, fence by value": per_call_each(lambda a: parse(a, fence=FENCE_BY_VALUE), real)}
           if real else {}),
        **({"real: aider find_original_update_blocks": per_call_each(aider, real)} if real and aider else {}),
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

    lines = [f"corpus: {len(answers):,} answers, {sum(map(len, answers)) / 1e6:.1f} MB, {with_blocks} with blocks, "
             f"{found:,} blocks (aider: {by_aider:,}); big text {len(big) / 1e6:.1f} MB; stream text "
             f"{len(stream_text) / 1e6:.1f} MB; medians of {args.rounds} rounds (process_time)"]
    for name, seconds in median.items():
        lines.append(f"  {name:42} {seconds * 1000:9.1f} ms")
    ratio = median["corpus: reference regex parser"] / median["corpus: parse"]
    lines.append(f"per answer: parse is {ratio:.2f}x faster than the reference regex parser")
    empty = median["parse('') x20,000"]
    lines.append(f"parse(''):        {empty / calls * 1e6:6.2f} us per call             (goal <= 2)")
    lines.append(f"parse(one line):  {median['parse(one line) x20,000'] / calls * 1e6:6.2f} us per call             "
                 "(goal <= 2)")
    lines.append(f"5 MB parse vs splitlines: {median['5 MB: parse'] / median['5 MB: str.splitlines']:.2f}x"
                 "                 (goal <= 4x)")
    one_shot = median["stream text: parse"]
    for n, goal in ((1, " (goal <= 2.5x)"), (4, " (goal <= 1.4x)"), (16, ""), (64, "")):
        fed = median[f"stream text: feed {n} chars"]
        line = f"feed {n:2} chars vs one-shot: {fed / one_shot:5.2f}x{goal}"
        if n in (1, 4):
            floor = median[f"stream text: empty feed {n} chars"]
            line += (f"; an empty feed() alone costs {floor / one_shot:.2f}x, the parser's work beyond it "
                     f"{(fed - floor) / one_shot:.2f}x")
        lines.append(line)
    if real:
        lines.insert(1, f"real answers: {len(real):,} from {args.corpus or REAL_ANSWERS}, "
                        f"{sum(map(len, real)) / 1e6:.1f} MB, {sum('`' not in a for a in real)} without a backtick")
    rows = []
    for corpus_name, texts in (("corpus", answers), ("no backtick", plain), ("real", real)):
        if not (aider and texts):
            continue
        theirs = median[f"{corpus_name}: aider find_original_update_blocks"]
        label = {"corpus": "generated answers", "no backtick": "generated answers without a backtick",
                 "real": "real answers"}[corpus_name]
        for fence, name in (("default fence", "parse"), ("fence by value", "parse, fence by value")):
            ours = median[f"{corpus_name}: {name}"]
            rows.append(Row(f"parsing per answer vs aider, {len(texts):,} {label}, {fence} (CPU)",
                            f"{ours / len(texts) * 1e6:.1f} us", f"{theirs / len(texts) * 1e6:.1f} us (aider "
                            "find_original_update_blocks)", ours / theirs, "<= 0.33x (3x faster)",
                            ours / theirs <= 1 / 3, command_line()))
    emit(rows, args.json, lines)


def per_call_each(function: Callable[[str], object], texts: list[str]) -> Callable[[], None]:
    def run() -> None:
        for text in texts:
            function(text)
    return run


if __name__ == "__main__":
    main()
