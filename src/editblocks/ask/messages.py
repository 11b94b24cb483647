"""The conversation sent to the model: the format's system prompt and tested examples, the files, the request.

The files go in as they are on disk, each after its path in a fence longer
than any run of backticks inside it, so no file can close its own fence. A
file that cannot be shown as text (binary, undecodable, outside the root) or
is too large for a prompt is refused with the reason, before anything is sent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from editblocks.model import Format
from editblocks.prompts import example_messages, reminder, system_prompt

DEFAULT_MAX_FILE_BYTES = 200_000
_BACKTICKS = re.compile(r"`{3,}")

Message = dict[str, Any]


@dataclass(frozen=True)
class PromptFile:
    """A file as the model sees it: its path inside the root and its text (None: it does not exist yet)."""

    path: str
    text: str | None


def conversation(instruction: str, files: Sequence[PromptFile], format: Format | str, *,
                 editor: bool = False) -> list[Message]:
    """System prompt, the format's example turns, then one user turn: the files, the reminder, the instruction."""
    messages: list[Message] = [{"role": "system", "content": system_prompt(format, editor=editor)}]
    messages += example_messages(format, editor=editor)
    messages.append(request(instruction, files, format, editor=editor))
    return messages


def request(instruction: str, files: Sequence[PromptFile], format: Format | str, *, editor: bool = False) -> Message:
    """A user turn asking for edits: the files as they are now, the format's reminder, the instruction (a
    conversation's next instruction is one more of these)."""
    parts = [files_text(files), reminder(format, editor=editor).strip(), instruction.strip()]
    return {"role": "user", "content": "\n\n".join(part for part in parts if part)}


def tool_conversation(instruction: str, files: Sequence[PromptFile]) -> list[Message]:
    """For tool-call editing: a short system prompt, the files and the instruction; the tools carry the rest."""
    system = ("You edit the user's files only by calling the tools you are given. Quote file text exactly as it is "
              "shown. When every change is made, answer with a short summary and no further tool calls.")
    parts = [files_text(files), instruction.strip()]
    return [{"role": "system", "content": system},
            {"role": "user", "content": "\n\n".join(part for part in parts if part)}]


def files_text(files: Sequence[PromptFile]) -> str:
    """Each file after its path, fenced; a missing file is named as one to create."""
    if not files:
        return ""
    sections = ["These are the files to work on, as they are now:"]
    for file in files:
        if file.text is None:
            sections.append(f"{file.path}\n(this file does not exist yet)")
            continue
        fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(file.text)), default=0))
        body = file.text if file.text.endswith("\n") or not file.text else file.text + "\n"
        sections.append(f"{file.path}\n{fence}\n{body}{fence}")
    return "\n\n".join(sections)


def feedback_turns(answer: str, feedback: str) -> list[Message]:
    """What a feedback round adds: the model's own answer, then the message saying what failed and why."""
    return [{"role": "assistant", "content": answer}, {"role": "user", "content": feedback}]
