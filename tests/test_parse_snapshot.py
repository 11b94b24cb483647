"""The parser's output and event streams, pinned: every shipped answer and a few hundred generated hostile ones give
exactly the results and events (split as they were, per chunking) recorded before the parser was made faster
(issue 13). A speed-up that changes one event, one diagnostic or where a text event is cut fails here.

The snapshot holds one digest per answer and chunking. After a deliberate change to the parser's output,
record it again with ``.venv/bin/python tests/test_parse_snapshot.py --record`` and review the diff of tests.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import pytest

from editblocks import StreamParser, parse

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOT = ROOT / "tests" / "snapshots" / "parser_events.json"
CHUNKINGS = (0, 1, 3, 4, 16, 64)  # 0: the whole text in one feed
_LINES = [
    "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "<<<<<<< NEW_FILE", ">>>>>>> NEW_FILE", "<<<<<<< EDIT",
    "-------", ">>>>>>>", "««« EDIT", "═══════ REPL", "»»» EDIT END", "```", "```python", "````", "~~~", "~~~~",
    "```bash", "```console", "$ ls -la", "<source>ts", "</source>", "<think>", "</think>", "<thinking about>",
    "src/app.py", "### File: a.py", "**b.py**", "Here is the change for c.py:", "`git rm x.py` then", "``x``",
    "<<<<<<<<< SEARCH", "=========", ">>>>>>>>> REPLACE", "<<<< SEARCH", "====", ">>>> REPLACE", "", "  ",
    "   <<<<<<< SEARCH", "   =======", "   >>>>>>> REPLACE", "\t=======", "<<<<<<< SEARCH>", ">>>>>>> replace",
    "<<<<<<<< SEARCH", "========", ">>>>>>>> REPLACE", "==========", ">>>>>>> REPLACE<", ":start_line:3",
    ":end_line:4", "\\=======", "\\<<<<<<< SEARCH", "```patch d.py", "5 | x = 1", "- a bullet", "  - nested",
    "+ plus item", "> a quote", ">> nested quote", "> ```", "-- dashes", "--- a/x.py", "+++ b/x.py", "=== title",
    "== x", "<b>bold</b>", "<<", "<< SEARCH", "<<<SEARCH", "<<<<<<<SEARCH", "«« x", "»» y", "══ z", "~~ strike",
    "\u00a0<<<<<<< SEARCH", "\x0c=======", "  ```", "  ~~~", "    code = 1", "x = '======='", "--------",
    "-------- SEARCH", "+++++++ REPLACE", "<<<<<<< ORIGINAL", ">>>>>>> UPDATED", "<<<<<<< SEARCH please",
]


def generated_answers(count: int = 400, seed: int = 1313) -> list[str]:
    """Answers made of marker, fence, path, bullet and quote lines in random order, with every line ending."""
    rng = random.Random(seed)
    answers = []
    for _ in range(count):
        lines = [rng.choice(_LINES) if rng.random() < 0.7 else "word " * rng.randint(0, 4)
                 for _ in range(rng.randint(0, 60))]
        ending = rng.choice(["\n", "\n", "\r\n", "\r"])
        answers.append(ending.join(lines) + rng.choice(["", ending]))
    return answers


def shipped_answers() -> dict[str, str]:
    found = {}
    for folder in ("tests/cases", "bench/recovered-answers"):
        for path in sorted((ROOT / folder).rglob("response.md")):
            found[str(path.relative_to(ROOT))] = path.read_bytes().decode("utf-8", errors="replace")
    return found


def all_answers() -> dict[str, str]:
    answers = shipped_answers()
    answers.update({f"generated/{n}": text for n, text in enumerate(generated_answers())})
    return answers


def digest(text: str, chunk: int) -> str:
    """The events of feeding ``text`` in ``chunk``-character pieces, as fed (not merged), then the result."""
    parser = StreamParser()
    pieces = [text] if chunk == 0 else [text[i : i + chunk] for i in range(0, len(text), chunk)]
    seen = [repr(parser.feed(piece)) for piece in pieces]
    seen.append(repr(parser.close()))
    seen.append(repr(parser.result()))
    seen.append(repr((sorted(parser.starts_seen.items()), sorted(parser.ends_seen.items()))))
    if chunk == 0:
        seen.append(repr(parse(text)))
    return hashlib.sha256("\n".join(seen).encode("utf-8", "surrogatepass")).hexdigest()[:20]


def record() -> None:
    snapshot = {name: [digest(text, chunk) for chunk in CHUNKINGS] for name, text in all_answers().items()}
    SNAPSHOT.write_text(json.dumps(snapshot, indent=0, sort_keys=True) + "\n", encoding="utf-8")


@pytest.mark.slow
def test_every_answer_gives_the_recorded_results_and_events_for_every_chunking():
    recorded = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    answers = all_answers()
    assert sorted(answers) == sorted(recorded)
    changed = [(name, chunk) for name, text in answers.items() for chunk, expected in zip(CHUNKINGS, recorded[name])
               if digest(text, chunk) != expected]
    assert not changed, f"{len(changed)} answer/chunking pairs changed, first: {changed[:5]}"


def test_the_snapshot_covers_markers_bullets_and_quotes():
    answers = all_answers()
    assert len(answers) > 600
    assert any("\n- " in text and "<<<<<<< SEARCH" in text for text in answers.values())
    assert any("\n> " in text for text in answers.values())


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    record()
