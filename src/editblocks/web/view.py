"""The page's view of a review, as plain JSON data: the answer in order, every block, every file's hunks.

Everything the browser draws comes from here already cut into segments
(`highlight.segments`) and made printable (control and bidi characters made
visible), so the page's script only places text with ``textContent``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pygments.lexer import Lexer

from editblocks.model import ApplyResult, EditBlock, EditResult, FileDiff, ResultCode, Status
from editblocks.text.diff import diff_rows, printable, split_lines, word_changes
from editblocks.web.answer import AnswerFeed, BlockSlot
from editblocks.web.highlight import Segment, lexer_for, segments

CLOSEST_MARGIN = 2  # lines of the file shown around a failed block's closest lines
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
Reader = Callable[[str], str | None]


@dataclass(frozen=True)
class BlockOutcome:
    block: EditBlock
    result: EditResult | None  # None: not run (rejected, or the answer is still arriving)
    accepted: bool


@dataclass(frozen=True)
class Outcome:
    answer: AnswerFeed
    blocks: list[BlockOutcome]
    result: ApplyResult | None
    applied: bool
    streaming: bool
    message: str
    version: int
    locked: bool = False  # an answer that broke off: shown, never applied
    feedback: str = ""  # the service's message for the model about ``result`` ("" when there is nothing to say)
    newest_run: str | None = None  # a newer run made elsewhere, which only "Undo newest run" takes back
    holds: bool = False  # the session keeps held blocks for the next answer, so Apply may keep them alone


def build_view(outcome: Outcome, read: Reader) -> dict[str, Any]:
    files = _files(outcome)
    blocks = [_block(number, item, outcome, read) for number, item in enumerate(outcome.blocks, 1)]
    _link_hunks(blocks, outcome, files)
    counts = {status: sum(1 for b in blocks if b["status"] == status)
              for status in ("pending", "applied", "held", "failed", "skipped")}
    ready = ("pending", "held") if outcome.holds else ("pending",)
    accepted_pending = any(b["status"] in ready and b["accepted"] for b in blocks)
    return {
        "version": outcome.version,
        "streaming": outcome.streaming,
        "applied": outcome.applied,
        "can_apply": not outcome.applied and not outcome.streaming and not outcome.locked and accepted_pending,
        "message": printable(outcome.message),
        "newest_run": outcome.newest_run,
        "answer": _pieces(outcome.answer, outcome.blocks),
        "blocks": blocks,
        "files": files,
        "summary": {
            "counts": counts,
            "changed": [{"id": f["id"], "path": f["path"]} for f in files if f["hunks"]],
            "failures": [{"n": b["n"], "path": b["path"], "reason": b["reason"]} for b in blocks
                         if b["status"] == "failed" or (b["status"] == "skipped" and b["accepted"])],
            "notes": [printable(f"{r.path}, block at line {r.block.line} of an earlier answer: {r.reason}")
                      for r in (outcome.result.held_over if outcome.result is not None else ())]
            + [printable(str(d)) for d in outcome.answer.result().diagnostics]
            + [f"suggested shell command (not run): {printable(s.command)}" for s in outcome.answer.result().shell],
        },
        "feedback": outcome.feedback,
    }


def _status(item: BlockOutcome, applied: bool) -> tuple[str, str]:
    result = item.result
    if not item.accepted:
        return "skipped", "rejected on this page"
    if result is None:
        return "pending", ""
    if result.status is Status.FAILED:
        return "failed", result.reason
    if result.code is ResultCode.HELD:
        return "held", result.reason
    if result.status is Status.SKIPPED:
        return "skipped", result.reason
    if applied:
        return "applied", result.reason or f"applied{where_found(result)}"
    return "pending", result.reason or f"ready to apply{where_found(result)}"


def where_found(result: EditResult) -> str:
    """` at line 3 (exact)`: where a block that applies lands and the rung that found it, for both pages."""
    if result.start_line is None:
        return f" ({result.strategy})" if result.strategy else ""
    span = f"line {result.start_line}" if result.end_line in (None, result.start_line) else \
        f"lines {result.start_line}–{result.end_line}"
    return f" at {span}" + (f" ({result.strategy})" if result.strategy else "")


def _block(number: int, item: BlockOutcome, outcome: Outcome, read: Reader) -> dict[str, Any]:
    block, result = item.block, item.result
    status, reason = _status(item, outcome.applied)
    key = result.path if result is not None else block.path
    view: dict[str, Any] = {
        "n": number,
        "path": printable(block.path),
        "file": key,
        "line": block.line,
        "kind": block.kind.value,
        "status": status,
        "reason": printable(reason),
        "accepted": item.accepted,
        "rows": block_rows(block.leading, block.old, block.new, block.trailing, lexer_for(block.path)),
        "hunk": None,
        "closest": None,
    }
    if result is not None and result.status is Status.FAILED and item.accepted:
        view["closest"] = _closest(block, result, read)
    return view


def block_rows(leading: str, old: str, new: str, trailing: str, lexer: Lexer) -> list[list[Any]]:
    """A block's text as rows ``[kind, segments]``: context ' ', removed '-', added '+'.

    Old and new text are compared line by line, so lines a block repeats unchanged read as context and only
    what it changes is marked (a SEARCH/REPLACE block usually quotes a whole function to change one line).
    """
    context = [[" ", segments(_shown(line), lexer)] for line in split_lines(leading)]
    removed_lines = [_shown(line) for line in split_lines(old)]
    added_lines = [_shown(line) for line in split_lines(new)]
    rows: list[list[Any]] = context
    matcher = difflib.SequenceMatcher(None, removed_lines, added_lines, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            rows += [[" ", segments(line, lexer)] for line in removed_lines[old_start:old_end]]
            continue
        removed, added = _paired(removed_lines[old_start:old_end], added_lines[new_start:new_end], lexer)
        rows += [["-", s] for s in removed] + [["+", s] for s in added]
    rows += [[" ", segments(_shown(line), lexer)] for line in split_lines(trailing)]
    return rows


def _shown(line: str) -> str:
    return printable(line.removesuffix("\n"))


def _paired(removed: list[str], added: list[str], lexer: Lexer) -> tuple[list[list[Segment]], list[list[Segment]]]:
    """Both runs as segments, changed characters marked where the lines pair up one to one."""
    if len(removed) != len(added):
        return [segments(line, lexer) for line in removed], [segments(line, lexer) for line in added]
    changes = [word_changes(old, new) for old, new in zip(removed, added)]
    return ([segments(line, lexer, spans[0]) for line, spans in zip(removed, changes)],
            [segments(line, lexer, spans[1]) for line, spans in zip(added, changes)])


def _closest(block: EditBlock, result: EditResult, read: Reader) -> dict[str, Any]:
    """The block's SEARCH text beside the file's lines most like it (or the planner's hint when it has none)."""
    lexer = lexer_for(block.path)
    search = [segments(_shown(line), lexer) for line in split_lines(block.search)]
    text = read(result.path) if result.closest is not None else None
    if text is None or result.closest is None:
        return {"search": search, "start": None, "lines": [], "hint": printable(result.hint)}
    lines = split_lines(text.replace("\r\n", "\n"))
    first = max(1, result.closest[0] - CLOSEST_MARGIN)
    last = min(len(lines), result.closest[1] + CLOSEST_MARGIN)
    shown = [[number, segments(_shown(lines[number - 1]), lexer),
              result.closest[0] <= number <= result.closest[1]] for number in range(first, last + 1)]
    return {"search": search, "start": first, "lines": shown, "hint": ""}


def _files(outcome: Outcome) -> list[dict[str, Any]]:
    """Every file a block names, in answer order, with its diff's hunks when the run changes it."""
    diffs = {diff.path: diff for diff in outcome.result.diffs} if outcome.result else {}
    order: dict[str, list[int]] = {}
    for number, item in enumerate(outcome.blocks, 1):
        key = item.result.path if item.result is not None else item.block.path
        order.setdefault(key, []).append(number)
    files = []
    for index, (key, numbers) in enumerate(order.items()):
        diff = diffs.get(key)
        files.append({
            "id": f"f{index}",
            "path": printable(key),
            "key": key,
            "created": bool(diff and diff.created),
            "blocks": numbers,
            "hunks": file_hunks(diff, f"f{index}") if diff else [],
        })
    return files


def file_hunks(diff: FileDiff, file_id: str) -> list[dict[str, Any]]:
    lexer = lexer_for(diff.path)
    rows = diff_rows(diff.unified)
    hunks: list[dict[str, Any]] = []
    old_no = new_no = 0
    index = 0
    while index < len(rows):
        kind, line = rows[index]
        index += 1
        if kind == "header":
            continue
        if kind == "hunk":
            match = _HUNK.match(line)
            old_no, new_no = (int(match[1]), int(match[3])) if match else (0, 0)
            new_count = int(match[4]) if match and match[4] is not None else 1
            old_no, new_no = max(old_no, 1), max(new_no, 1)
            hunks.append({"id": f"{file_id}h{len(hunks)}", "header": line, "new_start": new_no,
                          "new_end": new_no + max(new_count, 1) - 1, "rows": [], "blocks": []})
            continue
        if not hunks:
            continue
        out = hunks[-1]["rows"]
        if kind == "\\":
            out.append(["\\", None, None, [[line, ""]]])
        elif kind == " ":
            out.append([" ", old_no, new_no, segments(line[1:], lexer)])
            old_no, new_no = old_no + 1, new_no + 1
        else:
            removed = _run(rows, index - 1, "-") if kind == "-" else []
            added = _run(rows, index - 1 + len(removed), "+")
            index += len(removed) + len(added) - 1
            old_segments, new_segments = _paired(removed, added, lexer)
            for segs in old_segments:
                out.append(["-", old_no, None, segs])
                old_no += 1
            for segs in new_segments:
                out.append(["+", None, new_no, segs])
                new_no += 1
    return hunks


def nearest_hunk(hunks: list[dict[str, Any]], line: int) -> dict[str, Any]:
    """The hunk holding new line ``line``, else the one closest to it."""
    return min(hunks, key=lambda h: 0 if h["new_start"] <= line <= h["new_end"]
               else min(abs(h["new_start"] - line), abs(h["new_end"] - line)))


def _run(rows: list[tuple[str, str]], start: int, kind: str) -> list[str]:
    end = start
    while end < len(rows) and rows[end][0] == kind:
        end += 1
    return [line[1:] for _, line in rows[start:end]]


def _link_hunks(blocks: list[dict[str, Any]], outcome: Outcome, files: list[dict[str, Any]]) -> None:
    """Each applied (or ready) block to the hunk of its file nearest the lines it changed, and back."""
    by_key = {f["key"]: f for f in files}
    for view, item in zip(blocks, outcome.blocks):
        result = item.result
        file = by_key.get(view["file"])
        if result is None or result.status is not Status.APPLIED or result.start_line is None or not file:
            continue
        if not file["hunks"]:
            continue
        hunk = nearest_hunk(file["hunks"], result.start_line)
        view["hunk"] = hunk["id"]
        hunk["blocks"].append(view["n"])
    for file in files:
        del file["key"]


def _pieces(answer: AnswerFeed, items: list[BlockOutcome]) -> list[dict[str, Any]]:
    numbers = {item.block.line: number for number, item in enumerate(items, 1)}
    pieces: list[dict[str, Any]] = []
    for piece in answer.pieces:
        if isinstance(piece, str):
            if pieces and pieces[-1]["t"] == "text":
                pieces[-1]["text"] += printable(piece)
            else:
                pieces.append({"t": "text", "text": printable(piece)})
        elif piece.block is not None and piece.block.line in numbers:
            pieces.append({"t": "block", "n": numbers[piece.block.line]})
        else:
            pieces.append(_partial(piece))
    return pieces


def _partial(slot: BlockSlot) -> dict[str, Any]:
    """A block still arriving: its path and the text of each section so far."""
    path = slot.path or ""
    sections = slot.sections
    rows = block_rows(sections.get("leading", ""), sections.get("old", ""), sections.get("new", ""),
                      sections.get("trailing", ""), lexer_for(path))
    return {"t": "partial", "path": printable(path), "line": slot.line, "rows": rows}
