"""Conversations kept under `.editblocks/runs/`, in the files `ask` keeps, so either can reopen the other's.

A conversation is one run folder: per round the messages sent, the answer,
the files before and after, and the results (what `eval --from-run` reads),
plus `run.json` (what the history lists) and `conversation.json`, the
workbench's own: who said what in each round, the reviewer's choices and
which blocks were written. A run `ask` saved has no `conversation.json`; its
rounds are read from its messages.

Everything read back is checked for shape and size: a run folder is data on
disk, and a cloned repository can carry one. A file that does not fit is
left out, never trusted, and reading never raises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from editblocks.model import Format
from editblocks.report.serialize import apply_json, json_text
from editblocks.web.chat import ModelSettings
from editblocks.web.conversation import Conversation, Turn
from editblocks.web.verdicts import LiveVerdicts
from editblocks.workspace.run_records import RunRecord, list_records, open_record, start_record

CONVERSATION_FILE = "conversation.json"
RUN_FILE = "run.json"
TITLE_CHARS = 100
MAX_LISTED = 50


@dataclass(frozen=True)
class SavedTurn:
    number: int
    kind: str  # "instruction" or "feedback"
    text: str
    files: tuple[str, ...]
    format: str
    state: str  # how the round ended: "done", "stopped", "broken" or "error"
    note: str
    answer: str
    messages: tuple[dict[str, Any], ...]


@dataclass
class SavedConversation:
    name: str
    turns: list[SavedTurn] = field(default_factory=list)
    decisions: dict[int, tuple[bool, tuple[int, ...]]] = field(default_factory=dict)  # block: (accepted, refused)
    applied: tuple[int, ...] = ()


class ConversationLog:
    """The run folder one conversation is saved in; a folder that cannot be written never stops the conversation."""

    def __init__(self, record: RunRecord | None, problem: str = "") -> None:
        self.record = record
        self.problem = problem  # why nothing is saved, in one line

    @classmethod
    def start(cls, root: str | Path) -> ConversationLog:
        try:
            return cls(start_record(root))
        except OSError as error:
            return cls(None, f"the conversation is not saved: {error.strerror or error}")

    @property
    def name(self) -> str | None:
        return self.record.name if self.record is not None else None

    def save_round(self, turn: Turn, verdicts: LiveVerdicts) -> None:
        """Keep a round as `ask` keeps one: the messages sent, the answer, the files before and after, and (for an
        answer that arrived whole) the results."""
        prefix = f"round-{turn.number}"
        self.save(f"{prefix}.messages.json", turn.messages)
        self.save(f"{prefix}.answer.md", turn.live.text)
        files = {key: {"before": before, "after": after, "bom": bom}
                 for key, (before, after, bom) in verdicts.round_files().items()}
        self.save(f"{prefix}.files.json", files)
        if turn.whole:
            self.save(f"{prefix}.results.json", json_text(apply_json(verdicts.round_result())))

    def save_conversation(self, conversation: Conversation, settings: ModelSettings, format: Format) -> None:
        """Keep who said what in each round, the reviewer's choices and what was written (`conversation.json`),
        and what the history lists (`run.json`); ``format`` is the one asked for before any instruction."""
        turns = conversation.turns
        numbered = list(conversation.numbered())
        written = sorted({entry.verdict.path for _, entry in numbered if entry.applied})
        first = next((turn for turn in turns if turn.kind == "instruction"), None)
        self.save(CONVERSATION_FILE, {
            "turns": [{"round": t.number, "kind": t.kind, "text": t.text, "files": list(t.files),
                       "format": t.format.value, "state": t.state, "note": t.note} for t in turns],
            "decisions": {str(n): {"accepted": e.accepted, "refused": sorted(e.refused)} for n, e in numbered
                          if not e.accepted or e.refused},
            "applied": [n for n, e in numbered if e.applied],
        })
        self.save(RUN_FILE, {
            "instruction": first.text if first else "", "files": sorted({f for t in turns for f in t.files}),
            "model": settings.model, "base_url": settings.endpoint().shown_url,
            "format": (first.format if first else format).value, "dry_run": False, "rounds": len(turns),
            "written": written, "stopped": None, "workbench": True,
        })

    def save(self, filename: str, data: Any) -> None:
        """Keep ``data`` (text as it is, anything else as JSON) under ``filename``, replacing what was there."""
        if self.record is None:
            return
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, indent=1)
        try:
            self.record.put(filename, text.encode("utf-8", "surrogatepass"))
        except OSError:
            pass


def reopen_log(root: str | Path, name: str) -> ConversationLog | None:
    record = open_record(root, name)
    return ConversationLog(record) if record is not None else None


def saved_list(root: str | Path, limit: int = MAX_LISTED) -> list[dict[str, Any]]:
    """The saved conversations, newest first: name, title (the first instruction), rounds, model, files written."""
    listed = []
    for record in list_records(root)[:limit]:
        run = _json_object(record.get(RUN_FILE))
        if run is None:
            continue
        title = _text(run.get("instruction")).strip().split("\n", 1)[0][:TITLE_CHARS] or "(no instruction)"
        listed.append({"name": record.name, "title": title, "rounds": _count(run.get("rounds")),
                       "model": _text(run.get("model")), "written": len(_strings(run.get("written")))})
    return listed


def load(root: str | Path, name: str) -> SavedConversation | None:
    """The conversation saved as ``name``, or None when there is no such run or it holds no round."""
    record = open_record(root, name)
    if record is None:
        return None
    run = _json_object(record.get(RUN_FILE))
    if run is None:
        return None
    saved = SavedConversation(name)
    own = _json_object(record.get(CONVERSATION_FILE))
    told = {turn["round"]: turn for turn in _list(own.get("turns") if own else None)
            if isinstance(turn, dict) and isinstance(turn.get("round"), int)}
    for number in range(1, _count(run.get("rounds")) + 1):
        answer = record.get(f"round-{number}.answer.md")
        messages = tuple(m for m in _list(_json_value(record.get(f"round-{number}.messages.json")))
                         if isinstance(m, dict))
        turn = told.get(number) or _turn_from_messages(number, run, messages)
        saved.turns.append(SavedTurn(
            number, "feedback" if turn.get("kind") == "feedback" else "instruction", _text(turn.get("text")),
            _strings(turn.get("files")), _text(turn.get("format")) or _text(run.get("format")) or "diff",
            _text(turn.get("state")) or "done", _text(turn.get("note")),
            answer.decode("utf-8", "replace") if answer is not None else "", messages))
    if own is not None:
        for key, choice in (own.get("decisions") or {}).items() if isinstance(own.get("decisions"), dict) else ():
            if key.isdigit() and isinstance(choice, dict):
                refused = tuple(n for n in _list(choice.get("refused")) if isinstance(n, int))
                saved.decisions[int(key)] = (choice.get("accepted") is not False, refused)
        saved.applied = tuple(n for n in _list(own.get("applied")) if isinstance(n, int))
    return saved if saved.turns else None


def _turn_from_messages(number: int, run: dict[str, Any], messages: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """A round `ask` saved: the first asks for the run's instruction, each later one sends the feedback."""
    if number == 1:
        return {"kind": "instruction", "text": run.get("instruction"), "files": run.get("files")}
    last = messages[-1].get("content") if messages else ""
    return {"kind": "feedback", "text": last, "files": run.get("files")}


def _json_value(raw: bytes | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None


def _json_object(raw: bytes | None) -> dict[str, Any] | None:
    value = _json_value(raw)
    return value if isinstance(value, dict) else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in _list(value) if isinstance(item, str))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000 else 0
