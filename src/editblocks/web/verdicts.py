"""The workbench's one door to the live planner: a block's verdict the moment it closes, as `ask` gives it.

The verdicts come from the service (`EditSession.live_locator` and
`EditSession.live`), the same code `ask` and the review page run, so the
workbench, the review page and the terminal show the same verdict.
`LiveVerdicts` adds only what a conversation needs on top: one set of
in-memory copies carried from round to round (a block the model resends
after an earlier round took it is recognised and not taken twice), and
`replay`, which decides already-parsed blocks again the same way (after the
files changed on disk, a block was rejected, or an apply wrote some of them).
"""

from __future__ import annotations

from collections.abc import Sequence

from editblocks.model import ApplyResult, EditBlock, EditResult, Format
from editblocks.plan.files import moving_sections
from editblocks.service.live import LiveAnswer
from editblocks.service.session import EditSession
from editblocks.workspace import Refusal


class LiveVerdicts:
    """Verdicts on the blocks of one conversation, round after round, against the files of ``session``."""

    def __init__(self, session: EditSession) -> None:
        self._session = session
        self._locator = session.live_locator()

    def answer(self, format: Format) -> LiveAnswer:
        """A new round's answer: feed it the text as it arrives; every block gets its verdict as it ends."""
        self._locator.start_round()
        return self._session.live(format, self._locator)

    def replay(self, blocks: Sequence[EditBlock]) -> list[EditResult]:
        """One round's blocks decided again, in order, each taken into the copies as a streamed block is; their
        results as the round's plan gives them (as `ask` reports a round once its answer is whole)."""
        self._locator.start_round()
        sections = moving_sections(blocks)  # a patch's moves go with their hunks, as when it streamed
        for index, block in enumerate(blocks):
            self._locator.accept(self._locator.locate(block, sections.get(index)))
        return list(self._locator.round_plan().results)

    def round_result(self) -> ApplyResult:
        """The last round's verdicts and diffs, as a dry run reports them."""
        return self._locator.round_result(dry_run=True)

    def round_files(self) -> dict[str, tuple[str | None, str | None, bool]]:
        """Each file the last round touched: its text when the round began, its text now, and whether it has a BOM."""
        return self._locator.round_files()

    def text_of(self, key: str) -> str | None:
        """A file's text as the rounds so far left it in memory (what the model believes), else as stored."""
        touched = self._locator.round_files().get(key)
        if touched is not None:
            return touched[1]
        read = self._session.store.read(key)
        return None if isinstance(read, Refusal) else read.text
