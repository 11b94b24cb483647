"""Turn an aider chat history and its git repository into cases: each answer aider committed becomes one.

aider writes every session to ``.aider.chat.history.md``: what the user typed
(`#### ` lines), what the model answered (plain text), and its own messages
(`> ` lines), among them the model in use (`> Model: NAME with FORMAT edit
format`) and the commit it made of an applied answer (`> Commit HASH
MESSAGE`). An answer followed by such a commit, before the next message of
the user, becomes a case: the answer, the files the commit changed as its
parent held them (before) and as it left them (after), the model and the
format as labels. A commit aider made of the user's own changes before
applying the edits (`> Committing PATH before applying edits`) is not the
answer's, and a commit the repository does not hold is passed over with a
note.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from editblocks.errors import CaseError, ReplayError
from editblocks.eval.cases import Case, CaseOptions, CaseSpec, tree_of
from editblocks.eval.replay import read_commit
from editblocks.model import Format

HISTORY_FILE = ".aider.chat.history.md"
_SESSION = re.compile(r"^# aider chat started at (?P<when>.*)$")
_COMMIT = re.compile(r"^> Commit (?P<hash>[0-9a-f]{7,64})\b")
_MODEL = re.compile(r"^> (?:Main model|Model): (?P<model>\S+) with (?P<format>[\w-]+) edit format")
_OWN_CHANGES = re.compile(r"^> Committing .* before applying edits")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Answer:
    """One answer aider committed, with what the transcript says about it."""

    text: str
    commit: str
    line: int
    model: str
    format: str
    session: str


@dataclass
class Imported:
    """What an import found: the answers with a commit, and why the others were passed over."""

    answers: int = 0
    cases: int = 0
    passed_over: list[str] = field(default_factory=list)


def read_answers(history: str) -> Iterator[Answer]:
    """Every answer of the transcript followed by an aider commit of its own."""
    session = model = edit_format = ""
    answer: list[str] = []
    answer_line = 0
    pending: tuple[str, int] | None = None  # the last answer, waiting for its commit
    own_changes = in_fence = False
    for number, line in enumerate(history.split("\n"), start=1):
        if not in_fence and (started := _SESSION.match(line)):
            session, model, edit_format, pending, answer = started["when"].strip(), "", "", None, []
            continue
        if not in_fence and line.startswith("#### "):
            pending, answer = None, []
            continue
        if not in_fence and _is_aider_line(line):
            if answer:
                pending, answer = ("\n".join(answer).strip("\n") + "\n", answer_line), []
            commit = _COMMIT.match(line)
            if found := _MODEL.match(line):
                model, edit_format = found["model"], found["format"]
            elif _OWN_CHANGES.match(line):
                own_changes = True
            elif commit and own_changes:
                own_changes = False
            elif commit and pending is not None:
                yield Answer(pending[0], commit["hash"], pending[1], model, edit_format, session)
                pending = None
            continue
        if not answer and not line.strip():
            continue
        if not answer:
            answer_line = number
        answer.append(line)
        if _FENCE.match(line):
            in_fence = not in_fence


def _is_aider_line(line: str) -> bool:
    """aider's own messages are quoted, and end with the two spaces of a markdown line break (or are one line of
    its known kinds); an answer's quoted lines do not."""
    return line.rstrip() == ">" or line.startswith("> ") and (
        line.endswith("  ") or bool(_COMMIT.match(line) or _MODEL.match(line) or _OWN_CHANGES.match(line)))


def import_history(repo: str | os.PathLike[str], history: str | os.PathLike[str] | None = None,
                   report: Imported | None = None) -> Iterator[Case]:
    """The cases of the transcript ``history`` (default: the repository's own), read against ``repo``'s commits;
    ``report`` counts what was found and says what was passed over."""
    found = report if report is not None else Imported()
    path = Path(history) if history is not None else Path(repo) / HISTORY_FILE
    try:
        text = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
    except OSError as error:
        raise ReplayError(f"cannot read the chat history {path}: {error.strerror or error}") from None
    seen: set[str] = set()
    for answer in read_answers(text):
        found.answers += 1
        try:
            files = read_commit(repo, answer.text.encode("utf-8"), answer.commit)
            if files.sha in seen:
                raise ReplayError(f"commit {answer.commit} was already taken by an earlier answer")
            seen.add(files.sha)
            case = _case(answer, files.sha, files.before, files.after, path.name)
        except (ReplayError, CaseError) as error:
            found.passed_over.append(f"line {answer.line}: {error}")
            continue
        found.cases += 1
        yield case


def _case(answer: Answer, sha: str, before: dict[str, bytes], after: dict[str, bytes], source: str) -> Case:
    fmt = answer.format if answer.format in {f.value for f in Format} else None
    why = f"aider's answer at line {answer.line} of {source}, committed as {sha[:12]}: it must leave the files " \
          "as that commit did"
    return Case(f"aider/{sha[:12]}", tree_of(before, "before"), tree_of(after, "after"), answer=answer.text,
                spec=CaseSpec(CaseOptions(format=fmt), why=why), model=answer.model,
                metadata={"commit": sha, "session": answer.session, "line": answer.line,
                          "aider_format": answer.format})
