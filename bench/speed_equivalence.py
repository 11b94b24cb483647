"""Speed changes keep every output byte-identical: record them all on one code base, compare two recordings.

    .venv/bin/python bench/speed_equivalence.py --out /tmp/new.json.gz [--quick]
    PYTHONPATH=OLD/src .venv/bin/python bench/speed_equivalence.py --out /tmp/old.json.gz
    .venv/bin/python bench/speed_equivalence.py --compare /tmp/old.json.gz /tmp/new.json.gz

OLD is a checkout of the commit to compare with (`git worktree add --detach /tmp/old COMMIT`); PYTHONPATH
puts its `src` ahead of the editable install. What is recorded, keyed by input:
- every answer (the shipped examples, tests/cases, the corpus's answers under ``--corpus``, generated
  answers and patches): `parse` with the default fence and with an equal fence passed by value, as JSON;
- every answer with a folder to apply to (examples, tests/cases, corpus cases, generated patches on a big
  generated file): `apply(..., dry_run=True)` as JSON, its feedback message and git patch; then a real
  apply (the files' bytes after, the result's JSON) and `undo` (the files must be back byte for byte);
- a session of text-editor tool calls (view, str_replace, insert, create, undo_edit) on a generated file:
  every reply's text, and the file after each call;
- live answers (`LiveAnswer` over a `LiveLocator`, fed in 4-character chunks): the events and final results;
- the CLI (`editblocks apply --dry-run`, text and ``--json``) on the shipped example.
Run ids and temporary folders are masked; everything else is compared as text.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import editblocks  # noqa: E402
from editblocks import apply, feedback_message, git_patch, parse, reply_format, undo  # noqa: E402
from editblocks.report.serialize import apply_json, json_text, parse_json  # noqa: E402

RUN_ID = re.compile(r"\b\d{8}-\d{8}T\d{6}Z\b")
FENCE_BY_VALUE = tuple(["```", "```"])


class Recorder:
    def __init__(self) -> None:
        self.outputs: dict[str, str] = {}
        self.masks: list[str] = []

    def put(self, key: str, value: Any) -> None:
        text = value if isinstance(value, str) else repr(value)
        for mask in self.masks:
            text = text.replace(mask, "<root>")
        self.outputs[key] = RUN_ID.sub("<run>", text)


def files_of(root: Path) -> dict[str, str]:
    """Every file under ``root`` (outside the journal) by relative path, as a hash of its bytes."""
    found = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_file() and not relative.startswith(".editblocks"):
            found[relative] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return found


def record_parse(rec: Recorder, key: str, text: str, fmt: str = "auto") -> None:
    first = json_text(parse_json(parse(text, fmt)))
    rec.put(f"{key}|parse", first)
    if fmt == "auto":
        rec.put(f"{key}|parse-fence-by-value", json_text(parse_json(parse(text, fmt, fence=FENCE_BY_VALUE))))


def record_apply(rec: Recorder, key: str, text: str, before: Path, settings: dict[str, Any]) -> None:
    fmt = settings.get("format", "auto")
    known = settings.get("known_files")
    if known is True:
        known = [path.relative_to(before).as_posix() for path in before.rglob("*") if path.is_file()]
    flags = {name: settings[name] for name in ("fuzzy", "first_match", "strict") if name in settings}
    if "on_failure" in settings:
        flags["policy"] = settings["on_failure"]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "root"
        shutil.copytree(before, root)
        rec.masks = [str(root), str(root.resolve())]
        parsed = parse(text, fmt, known_files=known)
        dry = apply(parsed, root, dry_run=True, known_files=known, **flags)
        rec.put(f"{key}|dry-run", json_text(apply_json(dry)))
        rec.put(f"{key}|dry-run-feedback", feedback_message(dry, format=reply_format(text, parsed)))
        rec.put(f"{key}|dry-run-patch", git_patch(dry.diffs).decode("utf-8", "replace"))
        original = files_of(root)
        real = apply(parsed, root, known_files=known, **flags)
        rec.put(f"{key}|apply", json_text(apply_json(real)))
        rec.put(f"{key}|apply-files", files_of(root))
        if real.written:
            outcome = undo(root)
            rec.put(f"{key}|undo", (outcome.restored, outcome.removed, outcome.refused, outcome.message, outcome.ok))
            rec.put(f"{key}|undo-exact", files_of(root) == original)
        rec.masks = []


def shipped_cases() -> Iterator[tuple[str, str, Path, dict[str, Any]]]:
    yield "examples/response.md", (REPO / "examples/response.md").read_text(), REPO / "examples/project", {}
    yield "examples/misquoted.md", (REPO / "examples/misquoted.md").read_text(), REPO / "examples/project", {}
    for case in sorted((REPO / "tests/cases").glob("*/*/")):
        response = case / "response.md"
        if not response.is_file():
            continue
        settings = json.loads((case / "case.json").read_text()) if (case / "case.json").is_file() else {}
        before = case / "before"
        if not before.is_dir():
            before = Path(tempfile.mkdtemp())
        yield f"cases/{case.parent.name}/{case.name}", response.read_text(errors="replace"), before, settings


def corpus_cases(corpus: Path, every: int) -> Iterator[tuple[str, str, Path, dict[str, Any]]]:
    for index, case in enumerate(sorted((corpus / "cases").glob("*/"))):
        if index % every == 0 and (case / "before").is_dir() and (case / "response.md").is_file():
            yield f"corpus-case/{case.name}", (case / "response.md").read_text(errors="replace"), case / "before", {}


def generated_patches(rec: Recorder, folder: Path) -> Iterator[tuple[str, str, Path, dict[str, Any]]]:
    from goalkit import code_lines, hunk_places, unified_patch, v4a_patch

    lines = code_lines(20_000)
    (folder / "big.py").write_text("".join(line + "\n" for line in lines))
    for hunks in (1, 7, 200):
        places = hunk_places(lines, hunks)
        yield f"generated/udiff-{hunks}", unified_patch("big.py", lines, places), folder, {}
        yield f"generated/v4a-{hunks}", v4a_patch("big.py", lines, places), folder, {}
    from memory_bench import answer as many_blocks

    yield "generated/blocks-500", many_blocks(lines, 500), folder, {}


def tool_session(rec: Recorder, seed: int) -> None:
    from goalkit import code_lines

    from editblocks.tools import ToolHandler

    rng = random.Random(seed)
    lines = code_lines(3_000, seed=seed)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        rec.masks = [str(root), str(root.resolve())]
        (root / "big.py").write_text("".join(line + "\n" for line in lines))
        handler = ToolHandler(root)
        for step in range(40):
            choice = rng.random()
            current = (root / "big.py").read_text().split("\n")
            at = rng.randrange(len(current) - 5)
            if choice < 0.5:
                old = "\n".join(current[at : at + rng.randint(1, 4)])
                new = old + rng.choice(["  # x", "\n    added = 1", ""]) if rng.random() < 0.9 else ""
                args: dict[str, Any] = {"command": "str_replace", "path": "big.py", "old_str": old, "new_str": new}
            elif choice < 0.6:
                args = {"command": "str_replace", "path": "big.py", "old_str": "missing text\n", "new_str": "x"}
            elif choice < 0.7:
                args = {"command": "insert", "path": "big.py", "insert_line": at, "insert_text": f"# note {step}\n"}
            elif choice < 0.8:
                args = {"command": "view", "path": "big.py", "view_range": [at, at + 5]}
            elif choice < 0.9:
                args = {"command": "create", "path": f"new{step % 3}.py", "file_text": f"print({step})\n"}
            else:
                args = {"command": "undo_edit", "path": "big.py"}
            reply = handler.call("str_replace_based_edit_tool", args)
            rec.put(f"tools/{seed}/{step}", (reply.ok, reply.text))
            if reply.result is not None:
                rec.put(f"tools/{seed}/{step}|result", json_text(apply_json(reply.result)))
            rec.put(f"tools/{seed}/{step}|files", files_of(root))
        rec.masks = []


def live_answers(rec: Recorder) -> None:
    from ask_bench import answer, big_file, sources

    from editblocks.service.live import LiveAnswer, LiveLocator

    file_text = big_file(2_000)
    for blocks in (1, 6, 12):
        text = answer(blocks)
        if blocks == 12:  # a block whose text is missing, and one repeated
            text += "\n" + text.split("Handler", 2)[1].replace("context.default", "context.nothing") + text
        stream = LiveAnswer(LiveLocator(sources(file_text)))
        events = []
        for start in range(0, len(text), 4):
            events += [repr(event) for event in stream.feed(text[start : start + 4])]
        events += [repr(event) for event in stream.close()]
        rec.put(f"live/{blocks}|events", "\n".join(events))
        result = stream.locator.round_result(dry_run=True, parsed=stream.result())
        rec.put(f"live/{blocks}|result", json_text(apply_json(result)))


def cli(rec: Recorder) -> None:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    for extra in ([], ["--json"], ["--diff"]):
        command = [sys.executable, "-m", "editblocks", "apply", "examples/response.md", "--root",
                   "examples/project", "--dry-run", *extra]
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        rec.put(f"cli/apply-dry-run{''.join(extra)}", (done.returncode, done.stdout, done.stderr))


def generated_answers(count: int) -> Iterator[tuple[str, str]]:
    from peer_bench import corpus

    for index, text in enumerate(corpus(count)):
        yield f"generated-answer/{index}", text


def record(out: Path, corpus: Path, quick: bool) -> None:
    rec = Recorder()
    every = 8 if quick else 1
    for key, text, before, settings in shipped_cases():
        record_parse(rec, key, text, settings.get("format", "auto"))
        record_apply(rec, key, text, before, settings)
    if (corpus / "responses").is_dir():
        for index, path in enumerate(sorted((corpus / "responses").glob("*.md"))):
            if index % every == 0:
                record_parse(rec, f"corpus/{path.name}", path.read_text(errors="replace"))
        for key, text, before, settings in corpus_cases(corpus, every):
            record_parse(rec, key, text)
            record_apply(rec, key, text, before, settings)
    else:
        print(f"no corpus at {corpus}: its answers are left out", file=sys.stderr)
    for key, text in generated_answers(300 if quick else 1500):
        record_parse(rec, key, text)
    with tempfile.TemporaryDirectory() as folder:
        for key, text, before, settings in generated_patches(rec, Path(folder)):
            record_parse(rec, key, text)
            record_apply(rec, key, text, before, settings)
    for seed in range(2 if quick else 6):
        tool_session(rec, seed)
    live_answers(rec)
    cli(rec)
    rec.put("meta|editblocks", str(Path(editblocks.__file__).parent.parent.parent.name))
    with gzip.open(out, "wt") as stream:
        json.dump(rec.outputs, stream)
    print(f"{len(rec.outputs)} outputs from {editblocks.__file__} -> {out}")


def compare(old_path: Path, new_path: Path) -> int:
    def load(path: Path) -> dict[str, str]:
        with gzip.open(path, "rt") as stream:
            loaded: dict[str, str] = json.load(stream)
        loaded.pop("meta|editblocks", None)
        return loaded

    old, new = load(old_path), load(new_path)
    differing = [key for key in old if key in new and old[key] != new[key]]
    missing = sorted(set(old) ^ set(new))
    for key in differing[:5]:
        print(f"--- {key}")
        sys.stdout.writelines(difflib.unified_diff(old[key].splitlines(True), new[key].splitlines(True), n=1))
        print()
    print(f"{len(old)} outputs compared: {len(differing)} differ, {len(missing)} only on one side"
          + (f" ({missing[:5]})" if missing else ""))
    return 1 if differing or missing else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path)
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/editcorpus-dev"))
    parser.add_argument("--quick", action="store_true", help="every 8th corpus answer, fewer generated inputs")
    args = parser.parse_args()
    if args.compare:
        sys.exit(compare(*args.compare))
    if args.out is None:
        parser.error("--out or --compare is needed")
    record(args.out, args.corpus, args.quick)


if __name__ == "__main__":
    main()
