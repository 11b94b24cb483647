"""The workbench's one door to the live planner: a block's verdict the moment it closes, as `ask` gives it.

`ask` locates each block as it completes against in-memory copies of the
files (`LiveAnswer` over a `LiveLocator`). The workbench reaches that same
code through `LiveVerdicts` and nothing else, so the page and the terminal
show the same verdict, and moving both to another live planner changes this
module alone.

The copies carry on from round to round: a block the model resends after an
earlier round took it is recognised and not taken twice. `replay` decides
already-parsed blocks again in the same way (after the files changed on
disk, a block was rejected, or an apply wrote some of them).
"""

from __future__ import annotations

from collections.abc import Sequence

from editblocks.ask.live import LiveAnswer
from editblocks.ask.locator import LiveLocator
from editblocks.model import ApplyResult, EditBlock, EditResult, Format
from editblocks.plan import PlanOptions, Source
from editblocks.workspace import Refusal, Workspace


class LiveVerdicts:
    """Verdicts on the blocks of one conversation, round after round, against the files under ``workspace``."""

    def __init__(self, workspace: Workspace, options: PlanOptions | None = None) -> None:
        self._workspace = workspace
        self._locator = LiveLocator(self._source, options)

    def answer(self, format: Format) -> LiveAnswer:
        """A new round's answer: feed it the text as it arrives; every block gets its verdict as it ends."""
        self._locator.start_round()
        return LiveAnswer(self._locator, format)

    def replay(self, blocks: Sequence[EditBlock]) -> list[EditResult]:
        """One round's blocks decided again, in order, each taken into the copies as a streamed block is."""
        self._locator.start_round()
        results = []
        for block in blocks:
            located = self._locator.locate(block)
            self._locator.accept(located)
            results.append(located.result)
        return results

    def round_result(self) -> ApplyResult:
        """The last round's verdicts and diffs, as a dry run reports them."""
        return self._locator.round_result(dry_run=True)

    def round_files(self) -> dict[str, tuple[str | None, str | None, bool]]:
        """Each file the last round touched: its text when the round began, its text now, and whether it has a BOM."""
        return self._locator.round_files()

    def text_of(self, key: str) -> str | None:
        """A file's text as the rounds so far left it in memory (what the model believes), else as on disk."""
        touched = self._locator.round_files().get(key)
        if touched is not None:
            return touched[1]
        read = self._workspace.read(key)
        return None if isinstance(read, Refusal) else read.text

    def _source(self, path: str) -> Source:
        read = self._workspace.read(path)
        if isinstance(read, Refusal):
            return Source(path, None, read.reason, read.code.value)
        return Source(read.rel, read.text, bom=read.encoding != "utf-8")
