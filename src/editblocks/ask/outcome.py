"""What an `ask` run is given and what it gives back: its options, its rounds, its outcome and exit status.

Shared by the round trip over an edit format (`rounds`) and the tool-call loop (`tool_loop`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from editblocks.ask.messages import DEFAULT_MAX_FILE_BYTES, PromptFile
from editblocks.errors import AskInputError
from editblocks.model import ApplyResult, Format, counted
from editblocks.service.options import ApplyOptions
from editblocks.service.results import clean
from editblocks.workspace.paths import Refusal
from editblocks.workspace.store import FileStore

EXIT_OK, EXIT_FAILED, EXIT_NOTHING_WRITTEN = 0, 1, 2
NOT_CONFIRMED = ("declined", "no-answer", "not-given")  # the stops where nothing was written because no one said yes


@dataclass(frozen=True)
class AskOptions:
    instruction: str
    paths: tuple[str, ...]
    root: str = "."
    format: Format = Format.DIFF
    editor: bool = False
    dry_run: bool = False
    yes: bool = False
    retries: int = 2
    git_commit: bool = False
    git_hooks: bool = False  # let the repository's hooks run on that commit (off: they are its scripts, not yours)
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    tools: bool = False  # edit through tool calls (`tool_loop`) instead of an edit format
    apply: ApplyOptions = ApplyOptions()  # how answers are applied, as for `editblocks apply` (its format: ``format``)

    def apply_options(self) -> ApplyOptions:
        """The options the service applies this run's answers with: ``apply``, in the format the model answers in."""
        return replace(self.apply, format=self.format)


@dataclass
class Round:
    number: int
    answer: str = ""
    result: ApplyResult | None = None
    feedback: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # with --tools: name, input, ok, reply


@dataclass
class AskOutcome:
    rounds: list[Round] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # files changed on disk, in the order first written
    stopped: tuple[str, str] | None = None  # (code, message) when the run ended early
    notes: list[str] = field(default_factory=list)
    run_folder: str | None = None
    commit: str | None = None
    settled: bool | None = None  # with --tools: whether the model finished and its edits landed

    @property
    def exit_code(self) -> int:
        if self.stopped is not None and self.stopped[0] not in (*NOT_CONFIRMED, "no-blocks", "not-written"):
            return EXIT_FAILED if self.written else EXIT_NOTHING_WRITTEN
        if self.settled is not None:
            return EXIT_OK if self.settled and self.stopped is None else EXIT_FAILED
        last = self.rounds[-1].result if self.rounds else None
        return EXIT_OK if last is not None and self.stopped is None and clean(last) else EXIT_FAILED


@dataclass(frozen=True)
class Unconfirmed:
    """No yes could be had (standard input at its end, or no one to ask about files that were not given): nothing
    is written; ``code`` is the run's stop code and ``message`` says what happened and how to go on."""

    code: str
    message: str


class Confirm(Protocol):
    """Asked before a round is written, with the paths it writes that were not among the files given: yes, no,
    why no yes could be had, or the result of a write it made itself (the review page's Apply)."""

    def __call__(self, preview: ApplyResult, outside: Sequence[str], /) -> bool | ApplyResult | Unconfirmed: ...


def outside_given(result: ApplyResult, given: Collection[str]) -> tuple[str, ...]:
    """The paths ``result`` writes that are not among ``given``: files the model was never shown."""
    return tuple(path for path in result.paths_changed if path not in given)


def also_writes(outside: Sequence[str]) -> str:
    """Said before the question: the files the edits write that were not given, which the model was never shown."""
    return f"these edits also write {counted(len(outside), 'file')} you did not give: {', '.join(outside)}"


def missing_note(files: Sequence[PromptFile]) -> str | None:
    """The warning for given files that do not exist: the model is told to create them, which may be a typo."""
    missing = [file.path for file in files if file.text is None]
    if not missing:
        return None
    return (f"warning: no such file{'s' if len(missing) > 1 else ''}: {', '.join(missing)} (sent to the model as "
            f"{'new files' if len(missing) > 1 else 'a new file'} to create)")


def prompt_files(store: FileStore, paths: Sequence[str], max_bytes: int,
                 text_of: Callable[[str], str | None] | None = None) -> list[PromptFile]:
    """The files as the model will see them (as ``text_of`` gives a file's text, when given: a conversation shows
    the files as its earlier rounds left them); a file that cannot be sent is refused, naming why."""
    files = []
    for path in paths:
        read = store.read(path)
        if isinstance(read, Refusal):
            raise AskInputError(f"cannot send {path}: {read.reason}")
        text = text_of(read.rel) if text_of is not None else read.text
        if text is not None and len(text.encode("utf-8", "surrogatepass")) > max_bytes:
            raise AskInputError(f"cannot send {path}: it is larger than {max_bytes} bytes (--max-file-bytes); "
                                "send a smaller file or raise the limit")
        files.append(PromptFile(read.rel, text))
    return files
