"""Seed inputs for the fuzz harnesses, and the one place that writes a seed corpus to disk.

Each harness reads a few header bytes and then UTF-8 text; the seeds are
small, readable examples of every format and of the tricky lines the test
suites already know about, so the fuzzer starts from inputs that reach deep
into the parser and the matching ladder instead of from empty bytes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PARSE_RESPONSES = (
    "src/app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n",
    "```python\nsrc/app.py\n<<<<<<< SEARCH\ndef f():\n    return 1\n=======\n"
    "def f():\n    return 2\n>>>>>>> REPLACE\n```\n",
    "### File: notes.md\n<<<<<<< SEARCH\n=======\n# Notes\n>>>>>>> REPLACE\n\n"
    "<<<<<<< NEW_FILE\nhello\n>>>>>>> NEW_FILE\n",
    "lib.py\n<<<<<<< EDIT\ndef g():\n-------\n    a = 1\n=======\n    a = 2\n-------\n    return a\n>>>>>>>\n",
    "lib.py\n\u00ab\u00ab\u00ab EDIT\ndef h():\n    return 1\n\u2550\u2550\u2550\u2550\u2550\u2550\u2550 REPL\n"
    "def h():\n    return 3\n\u00bb\u00bb\u00bb EDIT END\n",
    "a.py\n<<<<<<<<< SEARCH\nx = '======='\n=======\n=========\ny\n>>>>>>>>> REPLACE\n",
    "<think>\na.py\n<<<<<<< SEARCH\ndraft\n=======\nno\n>>>>>>> REPLACE\n</think>\n"
    "a.py\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n",
    "Run `git rm old.py` then:\n```bash\nmkdir -p build \\\n  && make\n```\n"
    "<source>typescript\nb.ts\n<<<<<<< SEARCH\nlet a\n=======\nlet b\n>>>>>>> REPLACE\n</source>\n",
    "**src\\win\\path.cs**\r\n<<<<<<<SEARCH\r\nold\r\n=======\r\nnew\r\n>>>>>>> REPLACE>\r\n",
    "- item\n    x.py\n    <<<<<<< SEARCH\n    a\n    =======\n    b\n    >>>>>>> REPLACE\n",
    "c.py\n<<<<< SEARCH\nq\n=====\nr\n>>>>> REPLACE\n<<<< SEARCH\nq\n====\nr\n>>>> REPLACE\n"
    "------- SEARCH\nq\n=======\nr\n+++++++ REPLACE\n",
    "d.py\n<<<<<<< SEARCH\nunclosed\n=======\n",
    "e.py\n<<<<<<< ORIGINAL\na\n=======\nb\n>>>>>>> UPDATED\n>>>>>>> REPLACE\n"
    "\u2550\u2550\u2550\u2550\u2550\u2550\u2550 REPL\n",
)
"""Responses for the parser harness; its header bytes choose format, chunking and known files."""

LOCATE_CASES = (
    # (header byte 0 = options, header byte 1 = copied slice, file, search, replace)
    (0x00, 0x21, "def f():\n    return 1\n\ndef g():\n    return 2\n", "", "def f():\n    return 3\n"),
    (0x01, 0x00, "a\r\nb\r\nc\r\n", "b\n", "B\nB2\n"),
    (0x02, 0x31, "if x:\n\tcall(“a”)\n\treturn y\n", "", "    call('b')\n"),
    (0x03, 0x00, "one\ntwo\nthree\nfour", "one\n...\nfour\n", "ONE\n...\nFOUR\n"),
    (0x04, 0x00, "}\n}\nreturn x\nreturn x\n", "return x\n", "return y\n"),
    (0x05, 0x00, "alpha beta\ngamma delta\n", "alpha betta\ngamma delta\n", "x\n"),
    (0x06, 0x10, "lead\nold\ntrail\n", "", "lead\nnew\ntrail\n"),
    (0x07, 0x00, "", "   \n", "created\n"),
)
"""Cases for the locate/plan harness."""

PATH_LINES = (
    "src/app.py", "**src/app.py**", "`src/app.py`:", "### File: src/app.py", "# src/app.py", '"src/app.py"',
    "Here is the change for utils.py:", "src\\app\\main.py", "../outside.txt", "/etc/passwd", "a/../../b",
    ".git/config", ".GIT./config", "link_out/secret.txt", "sub/../link_out/x", "a\uff0fb", "\uff0e\uff0e/x",
    "loop/x", "<!-- file.html -->", "1. list/item.py", "file: ./x.py", "x" * 300, "\u202e.txt", "C:\\x.py",
)
"""Lines for the path harness (model path lines and paths to resolve against a scratch root)."""


def parse_seeds() -> list[bytes]:
    seeds = []
    for number, text in enumerate(PARSE_RESPONSES):
        for header in (bytes([0, number % 4, 7, 3]), bytes([number % 8, 1, 1, 1])):
            seeds.append(header + text.encode("utf-8"))
    return seeds


def locate_seeds() -> list[bytes]:
    return [bytes([flags, copy]) + "\x00".join(parts).encode("utf-8") for flags, copy, *parts in LOCATE_CASES]


def paths_seeds() -> list[bytes]:
    return [bytes([number % 4]) + line.encode("utf-8") for number, line in enumerate(PATH_LINES)]


SEEDS = {"parse": parse_seeds, "locate": locate_seeds, "paths": paths_seeds}


def write_corpus(directory: Path, harness: str) -> int:
    """Fill an empty (or missing) corpus folder with the harness's seeds; returns how many were written."""
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        return 0
    seeds = SEEDS[harness]()
    for seed in seeds:
        (directory / f"seed-{hashlib.sha1(seed).hexdigest()[:16]}").write_bytes(seed)
    return len(seeds)
