"""Start a harness under atheris: seed its corpus folder if it is empty, then fuzz.

Command-line arguments are libFuzzer's (`-runs=`, `-max_total_time=`, corpus
folders, ...). The first argument that is not a flag is taken as the corpus
folder and seeded from `seeds.py` when empty or missing, so one command is
enough; an existing file there is an input to replay, and is left alone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import atheris

from seeds import write_corpus


def run(harness: str, check: Callable[[bytes], None]) -> None:
    """Fuzz ``check`` with the process's command line; a raised exception is a crash libFuzzer saves."""
    corpus = [argument for argument in sys.argv[1:] if not argument.startswith("-")]
    if corpus and not Path(corpus[0]).is_file():
        write_corpus(Path(corpus[0]), harness)
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()
