"""The workbench as the page draws it, as JSON: only what changed since the version a page last saw.

The page keeps what it was sent and asks for the changes since (``since``):
the state (small, always sent), each round whose card changed with the
pieces of its answer that changed, and the files' diffs when the preview
changed. A long conversation therefore costs a page the same per change as
a short one. Text is made printable here and code is cut into highlighted
segments; the prose alone is HTML, made safe by `markdown.render`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from editblocks.model import EditBlock, FileDiff, ResultCode, Status
from editblocks.prompts import PROMPT_FORMATS
from editblocks.text.diff import printable, unified_diff
from editblocks.web.block_changes import change_count, change_rows
from editblocks.web.conversation import Entry, Turn
from editblocks.web.highlight import lexer_for
from editblocks.web.live_round import Prose, Slot
from editblocks.web.markdown import around_block, render
from editblocks.web.view import block_rows, file_hunks, nearest_hunk, where_found
from editblocks.web.workbench import Workbench

STATUSES = ("ready", "applied", "held", "failed", "skipped", "rejected")
WHOLE_FILE = 1_000_000  # context lines that show a whole file
_ENDED_WHY = {
    "stopped": "the answer was stopped before it ended, so its blocks are never applied",
    "broken": "the answer broke off before it ended, so its blocks are never applied",
    "error": "the answer did not arrive, so its blocks are never applied",
}


def snapshot(bench: Workbench, since: int) -> dict[str, Any]:
    """Everything a page that has seen version ``since`` needs to catch up (call it holding ``bench.lock``)."""
    numbers = {id(entry): number for number, entry in bench.conversation.numbered()}
    entries = {id(entry.slot): entry for entry in bench.conversation.entries()}
    turns = [_turn(turn, since, numbers, entries) for turn in bench.conversation.turns]
    return {
        "version": bench.version,
        "state": _state(bench, numbers),
        "turns": [turn for turn in turns if turn is not None],
        "order": [turn.number for turn in bench.conversation.turns],
        "files": _files(bench, numbers) if bench.files_rev > since else None,
    }


def status_of(entry: Entry, turn: Turn) -> tuple[str, str]:
    """The block's status on the page and the sentence that goes with it."""
    if entry.applied:
        return "applied", "written to the file by Apply"
    if not entry.accepted:
        return "rejected", "rejected on this page: " + (
            "it is not written" if entry.verdict.status is Status.APPLIED else "its feedback is not sent")
    if turn.ended and not turn.whole:
        return "skipped", _ENDED_WHY.get(turn.state, "the answer is not complete")
    if entry.waits:
        return "held", (f"held: it applies, and is kept until every block for {entry.verdict.path} lands; Apply "
                        "writes it with them")
    result = entry.preview if entry.held and entry.preview is not None else entry.verdict
    if result.status is Status.APPLIED:
        if turn.ended and not entry.held:
            return "skipped", "not held for Apply by the session's policy"
        return "ready", f"ready to apply{where_found(result)}"
    return result.status.value, result.reason


def _state(bench: Workbench, numbers: dict[int, int]) -> dict[str, Any]:
    counts = dict.fromkeys(STATUSES, 0)
    failures = []
    turn_of = {turn.number: turn for turn in bench.conversation.turns}
    for entry in bench.conversation.entries():
        status, reason = status_of(entry, turn_of[entry.turn])
        counts[status] += 1
        if status == "failed":
            failures.append({"n": numbers[id(entry)], "path": printable(entry.block.path), "reason": printable(reason)})
    streaming = sum(1 for turn in bench.conversation.turns for piece in turn.live.pieces
                    if isinstance(piece, Slot) and piece.result is None and not turn.ended)
    last = bench.conversation.last
    running = bench.running
    settings = bench.settings
    return {
        "root": bench.root,
        "model": settings.model or "",
        "where": settings.where,
        "problem": settings.problem,
        "format": bench.format.value,
        "formats": list(PROMPT_FORMATS),
        "retries": settings.retries,
        "running": running,
        "message": printable(bench.message),
        "notice": printable(bench.notice),
        "review": bench.review_version,
        "can_apply": not running and bool(bench.conversation.for_apply()),
        "can_undo": not running and bench._last_apply is not None,
        "can_feedback": not running and last is not None and last.whole and any(
            entry.accepted and not entry.applied and entry.sent_back is None and entry.verdict.status is not
            Status.APPLIED and entry.verdict.code is not ResultCode.ALREADY_APPLIED
            for entry in bench.conversation.of_turn(last)),
        "conversation": bench.conversation.name or "",
        "summary": {"counts": counts, "streaming": streaming, "total": len(numbers), "failures": failures[:50],
                    "changed": [printable(diff.path) for diff in bench.preview.diffs] if bench.preview else []},
    }


def _turn(turn: Turn, since: int, numbers: dict[int, int], entries: dict[int, Entry]) -> dict[str, Any] | None:
    pieces = turn.live.pieces
    changed = []
    for index, piece in enumerate(pieces):
        entry = entries.get(id(piece)) if isinstance(piece, Slot) else None
        if max(piece.rev, entry.rev if entry is not None else 0) <= since:
            continue
        if isinstance(piece, Prose):
            changed.append(_prose(turn, index, piece))
        elif entry is not None:
            changed.append(_block(turn, piece, entry, numbers[id(entry)]))
        else:
            changed.append(_partial(turn, piece))
    if turn.rev <= since and not changed:
        return None
    return {
        "n": turn.number, "kind": turn.kind, "text": printable(turn.text), "files": [printable(f) for f in turn.files],
        "format": turn.format.value, "state": turn.state, "note": printable(turn.note),
        "pieces": [_piece_id(turn, piece) for piece in pieces if not _withdrawn(piece, turn)],
        "changed": changed,
    }


def _piece_id(turn: Turn, piece: Prose | Slot) -> str:
    return f"r{turn.number}p{piece.id}"


def _withdrawn(piece: Prose | Slot, turn: Turn) -> bool:
    return isinstance(piece, Slot) and piece.result is None and turn.live.closed


def _prose(turn: Turn, index: int, piece: Prose) -> dict[str, Any]:
    pieces = turn.live.pieces
    text = piece.text
    following = pieces[index + 1] if index + 1 < len(pieces) else None
    if isinstance(following, Slot):
        text, _ = around_block(text, "", following.path)
    before = pieces[index - 1] if index > 0 else None
    if isinstance(before, Slot):
        opening = pieces[index - 2] if index > 1 else None
        _, text = around_block(opening.text if isinstance(opening, Prose) else "", text, before.path)
    return {"id": _piece_id(turn, piece), "t": "prose", "html": render(text) if text.strip() else ""}


def _partial(turn: Turn, slot: Slot) -> dict[str, Any]:
    path = slot.path or ""
    sections = slot.sections
    rows = block_rows(sections.get("leading", ""), sections.get("old", ""), sections.get("new", ""),
                      sections.get("trailing", ""), lexer_for(path))
    return {"id": _piece_id(turn, slot), "t": "partial", "path": printable(path), "line": slot.line,
            "rows": [[kind, segments, 0] for kind, segments in rows]}


def _block(turn: Turn, slot: Slot, entry: Entry, number: int) -> dict[str, Any]:
    status, reason = status_of(entry, turn)
    verdict = entry.verdict
    failed = verdict.status is not Status.APPLIED
    return {
        "id": _piece_id(turn, slot), "t": "block", "n": number, "round": turn.number,
        "path": printable(entry.block.path), "file": printable(verdict.path), "line": entry.block.line,
        "kind": entry.block.kind.value, "status": status, "reason": printable(reason),
        "rung": verdict.strategy or "", "code": verdict.code.value,
        "accepted": entry.accepted, "refused": sorted(entry.refused), "changes": change_count(entry.block),
        "held": entry.held, "applied": entry.applied, "sent_back": entry.sent_back,
        "accept_means": "Accept sends this block's feedback to the model; Reject leaves it out" if failed
        else "Accept writes this block on Apply; Reject leaves the file as it is",
        "rows": _rows(entry.block),
        "excerpt": entry.excerpt if verdict.status is Status.FAILED else None,
    }


@lru_cache(maxsize=4096)
def _rows(block: EditBlock) -> list[list[Any]]:
    return change_rows(block, lexer_for(block.path))


def _files(bench: Workbench, numbers: dict[int, int]) -> list[dict[str, Any]]:
    """Every file a block names, in order, with the diff Apply would write (3 lines of context)."""
    diffs = {diff.path: diff for diff in bench.preview.diffs} if bench.preview else {}
    order: dict[str, list[int]] = {}
    for entry in bench.conversation.entries():
        order.setdefault(entry.verdict.path, []).append(numbers[id(entry)])
    files: list[dict[str, Any]] = []
    for index, (key, blocks) in enumerate(order.items()):
        diff = diffs.get(key)
        files.append({"id": f"f{index}", "path": printable(key), "key": key, "blocks": blocks,
                      "created": bool(diff and diff.created), "deleted": bool(diff and diff.deleted),
                      "hunks": file_hunks(diff, f"f{index}") if diff else []})
    _link_hunks(bench, numbers, {file["key"]: file for file in files})
    return files


def _link_hunks(bench: Workbench, numbers: dict[int, int], files: dict[str, dict[str, Any]]) -> None:
    """Each block Apply would write to the hunk of its file nearest the lines it changes."""
    for entry in bench.conversation.entries():
        result = entry.preview
        file = files.get(entry.verdict.path)
        if result is None or result.status is not Status.APPLIED or result.start_line is None or not file:
            continue
        if not file["hunks"]:
            continue
        nearest_hunk(file["hunks"], result.start_line)["blocks"].append(numbers[id(entry)])


def file_diff(bench: Workbench, key: str, context: int | None, file_id: str) -> dict[str, Any] | None:
    """One file's diff with ``context`` lines around each change (None: the whole file), or None if Apply would
    not change it (call it holding ``bench.lock``)."""
    diff = next((d for d in bench.preview.diffs if d.path == key), None) if bench.preview else None
    if diff is None:
        return None
    lines = WHOLE_FILE if context is None else context
    wider = FileDiff(diff.path, diff.created, unified_diff(diff.path, diff.before, diff.after, lines,
                                                         deleted=diff.deleted, old_path=diff.moved_from),
                     diff.before, diff.after, diff.encoding, diff.deleted, diff.moved_from)
    return {"id": file_id, "context": context, "hunks": file_hunks(wider, file_id)}
