"""Turn a saved `editblocks ask` run into an evaluation case: the answer a model really gave, and its files.

A run folder (``.editblocks/runs/<time>/``) keeps, per round, the raw answer
and the text of every file the round's blocks touched before and after. One
round becomes a case: its answer is ``response.md``, the files before it are
``before/`` and the files it left are ``after/``, so every later version of
the parser and the matcher is scored on exactly what happened then. The
`expect` of case.json records whether every block applied, none or some.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from editblocks.errors import ReplayError
from editblocks.eval.case_files import CaseDataError, DataFolder
from editblocks.eval.cases import CASE_FILE
from editblocks.eval.folders import AFTER_DIR, BEFORE_DIR, RESPONSE_FILE
from editblocks.eval.replay import ReplayedCase

BOM = "\ufeff"


def import_run(run: str | Path, out: str | Path, round_number: int = 1) -> ReplayedCase:
    """Write the case folder ``out`` from round ``round_number`` of the run folder ``run``; raises ReplayError."""
    folder, source = Path(out), Path(run)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ReplayError(f"{folder} already exists and is not an empty folder")
    prefix = f"round-{round_number}"
    try:
        with DataFolder(source) as saved:
            answer, files_json, run_json, results_json = (
                saved.read(name) for name in (f"{prefix}.answer.md", f"{prefix}.files.json", "run.json",
                                              f"{prefix}.results.json"))
    except CaseDataError as error:
        raise ReplayError(f"cannot use the saved run {source}: {error}") from None
    try:
        if answer is None or files_json is None or run_json is None:
            raise ValueError("a file of the round is missing")
        files: dict[str, Any] = json.loads(files_json.decode("utf-8"))
        run_info: dict[str, Any] = json.loads(run_json.decode("utf-8"))
        if not _saved_shape(files, run_info):
            raise ValueError("its files or its record are not in the shape editblocks saves them in")
    except ValueError as error:
        raise ReplayError(f"{source} holds no complete round {round_number} of a saved run ({error})") from None
    results = _results(results_json)
    for path in files:
        _safe(path)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for path, texts in files.items():
            for side, key in ((BEFORE_DIR, "before"), (AFTER_DIR, "after")):
                text = texts.get(key)
                if text is not None:
                    target = folder / side / path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(((BOM if texts.get("bom") else "") + text).encode("utf-8", "surrogatepass"))
        (folder / RESPONSE_FILE).write_bytes(answer)
        case: dict[str, Any] = {"why": f"round {round_number} of the saved run {source.name}: "
                                       f"{run_info.get('instruction', '')}"[:500],
                                "format": run_info.get("format", "auto")}
        if results:
            case["expect"] = ("applied" if all(results) else "refused" if not any(results) else "partial")
        (folder / CASE_FILE).write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        raise ReplayError(f"cannot write the case into {folder}: {error.strerror or error}") from None
    return ReplayedCase(folder, source.name,
                        tuple(sorted(p for p, t in files.items() if t.get("before") is not None)),
                        tuple(sorted(p for p, t in files.items() if t.get("after") is not None)))


def _saved_shape(files: Any, run_info: Any) -> bool:
    """Whether the round's files map paths to their texts and the run's record is an object, as `ask` saves them."""
    return isinstance(run_info, dict) and isinstance(files, dict) and all(
        isinstance(texts, dict) and all(isinstance(texts.get(key), str | None) for key in ("before", "after"))
        for texts in files.values())


def _results(raw: bytes | None) -> list[bool]:
    """Whether each block of the round applied (an already-applied block counts), or [] if not recorded."""
    try:
        data = json.loads(raw or b"")
    except ValueError:
        return []
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        return []
    return [r.get("status") == "applied" or r.get("code") == "already-applied" for r in results]


def _safe(path: str) -> None:
    parts = PurePosixPath(path).parts
    if not parts or path.startswith("/") or any(part in ("..", ".") for part in parts) or "\\" in path:
        raise ReplayError(f"refusing the path {path!r} recorded in the run")
