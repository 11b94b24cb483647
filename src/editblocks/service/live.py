"""Live verdicts: an answer's blocks decided the moment each one ends, by the same planner `apply` uses.

`LiveAnswer` is what `ask` and the review page drive: feed it the model's
text as it arrives and it returns the parser's events plus a `BlockLocated`
for every block as soon as it ends, so a verdict can be shown before the
answer is over. The parser holds a finished block back one step (a stray
marker right after it would withdraw it); the block is decided at once
anyway, and taken into the in-memory files only when the parser confirms
it. A withdrawn block becomes a `BlockWithdrawn`. Patches and whole-file
answers are read from the whole text, so their blocks get their verdicts
when the answer ends. Asked for such a format, the stream's own reading of
marker blocks is never taken (a patch whose lines quote SEARCH/REPLACE
markers is a patch), so a streamed answer ends with exactly the blocks a
one-shot parse gives.

A block that may be the first of identical blocks, one for each place its
old text occurs, has no verdict yet: it becomes a `BlockWaiting`, and gets
its `BlockLocated` when the last copy is confirmed (every place edited) or
when it can no longer come (at the latest when the answer ends: ambiguous).
A verdict shown is never taken back, except by withdrawing its block.

`LiveLocator` holds the files an answer edits in memory, one incremental
`Planner` per round over them. Across feedback rounds the copies carry on,
and a block the model resends after it applied in an earlier round is
recognised and never applied twice. A session's held blocks (`held`) are
decided first in every round, as the session's apply decides them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from editblocks.model import (
    FRONT_END_FORMATS,
    ApplyResult,
    BlockCompleted,
    BlockProgress,
    BlockStarted,
    DiagnosticEvent,
    EditBlock,
    EditResult,
    Event,
    Format,
    ParseResult,
    ResultCode,
    ShellSuggested,
    Status,
)
from editblocks.parsing.stream import StreamParser, parse
from editblocks.plan import Plan, PlanOptions, TargetFile
from editblocks.plan.files import moving_sections
from editblocks.plan.planner import Decision, Planner
from editblocks.plan.state import FilePlan
from editblocks.service.held import HeldBlocks, HeldRound
from editblocks.service.results import apply_result


@dataclass(frozen=True)
class Located:
    """A block's verdict, and the decision that takes it into the copies once the parser confirms the block."""

    block: EditBlock
    result: EditResult
    key: str
    decision: Decision | None = None
    repeat: bool = False  # an earlier round applied this very block: the workspace must not see it again
    awaiting: int = 0  # identical blocks this one waits for: until they come or cannot, ``result`` is provisional


@dataclass
class _Copy:
    source: TargetFile
    text: str | None  # as the rounds before this one left it
    round_start: str | None


class LiveLocator:
    """The files an answer edits, held in memory and updated block by block."""

    def __init__(self, source_for: Callable[[str], TargetFile], options: PlanOptions | None = None,
                 existing: Callable[[], Sequence[str]] = tuple, held: HeldBlocks | None = None) -> None:
        self._source_for = source_for
        self._options = options or PlanOptions()
        self._existing = existing
        self._held = held
        self._copies: dict[str, _Copy] = {}  # by canonical key
        self._keys: dict[str, str] = {}  # a path as a block wrote it -> the file's key
        self._applied: set[tuple[str, str, str]] = set()
        self._round: list[Located] = []
        self._planner, self._held_round = self._new_planner()

    def locate(self, block: EditBlock, section: EditBlock | None = None) -> Located:
        """The verdict on ``block`` (a hunk of the move ``section``, when given) against the current copies;
        nothing changes until `accept`."""
        key = self._planner.source(block.path).key
        if (key, block.search, block.replace) in self._applied:
            result = EditResult(block, Status.SKIPPED, "this very block already applied earlier in this run; "
                                "not applied again", ResultCode.ALREADY_APPLIED, file=key)
            return Located(block, result, key, repeat=True)
        held = self._held_round.repeat(key, block)
        if held is not None:
            return Located(block, held, key, repeat=True)
        decision = self._planner.decide(block, section)
        return Located(block, decision.result, key, decision, awaiting=decision.awaiting)

    def accept(self, located: Located) -> list[Located]:
        """Take a located block into the copies: the next block of its file meets the text it left. Returns the
        earlier waiting blocks it gave their final verdicts."""
        self._round.append(located)
        settled: list[Located] = []
        if located.decision is not None:
            self._planner.accept(located.decision)
            self._held_round.touch(located.key)
            final = {result.block: result for result in located.decision.settles}
            for position, earlier in enumerate(self._round):
                if earlier.block in final and earlier.awaiting:
                    earlier = self._round[position] = replace(earlier, result=final[earlier.block], awaiting=0)
                    settled.append(earlier)
        return settled

    def settle_waiting(self) -> list[Located]:
        """The answer ended: this round's blocks still waiting for identical blocks get the verdict the plan gives
        them (ambiguous), which is returned."""
        final = {result.block: result for result in self._planner.waiting()}
        settled = []
        for position, item in enumerate(self._round):
            if item.awaiting:
                item = self._round[position] = replace(item, result=final[item.block], awaiting=0)
                settled.append(item)
        return settled

    def start_round(self) -> None:
        """A new answer begins: its diffs start from the copies as they are, and no file has failed yet."""
        plan = self._end_round()
        for file in plan.files:
            self._carry(file)
        for copy in self._copies.values():
            copy.round_start = copy.text
        self._planner, self._held_round = self._new_planner()

    def reload(self) -> None:
        """Forget the copies (the files were written): the next block reads each file afresh."""
        self._end_round()
        self._copies.clear()
        self._keys.clear()
        self._planner, self._held_round = self._new_planner()

    def _end_round(self) -> Plan:
        """The round's plan; its blocks that applied are remembered, so that none is ever applied twice."""
        plan = self.round_plan()
        for located, result in zip(self._round, plan.results):
            if result.status is Status.APPLIED:
                self._applied.add((located.key, located.block.search, located.block.replace))
        self._round = []
        return plan

    def round_blocks(self) -> Sequence[Located]:
        return tuple(self._round)

    def round_plan(self) -> Plan:
        """This round's plan: every located block's result in order (repeats included) and the changed files."""
        return self._round_plans()[0]

    def round_result(self, *, dry_run: bool, parsed: ParseResult | None = None) -> ApplyResult:
        """This round's verdicts and diffs, as `apply` would report them without writing (with the shell
        suggestions and diagnostics of the answer's parse, when given), and the held blocks' verdicts."""
        plan, held_over = self._round_plans()
        return apply_result(plan, {}, written=False, dry_run=dry_run,
                            shell=parsed.shell if parsed is not None else (),
                            diagnostics=parsed.diagnostics if parsed is not None else (), held_over=held_over)

    def _round_plans(self) -> tuple[Plan, tuple[EditResult, ...]]:
        plan, held_over = self._held_round.plan(self._planner, keeps=False)
        planned = iter(plan.results)
        results = tuple(located.result if located.decision is None else next(planned) for located in self._round)
        return Plan(results, plan.files, plan.aborted), held_over

    def round_files(self) -> dict[str, tuple[str | None, str | None, bool]]:
        """Every file this round touched: its text when the round began, its text now, and whether it has a BOM."""
        files = {key: (copy.round_start, copy.text, copy.source.bom) for key, copy in self._copies.items()
                 if not copy.source.refusal}
        for file in self.round_plan().files:
            copy = self._copies.get(file.key)
            start = copy.round_start if copy is not None else file.original
            files[file.key] = (start, None if file.deleted else file.text, copy.source.bom if copy else False)
            if file.moved_from is not None and file.moved_from in files:
                before, _, bom = files[file.moved_from]
                files[file.moved_from] = (before, None, bom)
        return files

    def _new_planner(self) -> tuple[Planner, HeldRound]:
        """A planner for the next answer, with the session's held blocks decided first."""
        planner = Planner(self._source, self._options, self._existing)
        return planner, HeldRound(self._held, planner)

    def _source(self, path: str) -> TargetFile:
        """A file as the earlier rounds left it: read once, then the copy."""
        key = self._keys.get(path)
        if key is None:
            source = self._source_for(path)
            key = self._keys[path] = source.key
            if key not in self._copies:
                self._copies[key] = _Copy(source, source.text, source.text)
            elif source.refusal:
                return source
        copy = self._copies[key]
        source = copy.source
        return replace(source, text=copy.text)

    def _carry(self, file: FilePlan) -> None:
        copy = self._copies.get(file.key)
        if copy is None:
            copy = self._copies[file.key] = _Copy(TargetFile(file.key, None), None, None)
        copy.text = None if file.deleted else file.text
        if file.executable is not None:
            copy.source = replace(copy.source, executable=file.executable)
        if file.moved_from is not None and file.moved_from in self._copies:
            self._copies[file.moved_from].text = None


@dataclass(frozen=True)
class BlockLocated:
    """A block ended and was located against the in-memory files: ``result`` says how (or why not)."""

    block: EditBlock
    result: EditResult


@dataclass(frozen=True)
class BlockWaiting:
    """A block ended and has no verdict yet: its old text occurs at several places, and identical blocks for the
    other places may follow (``awaiting``: how many). ``result`` is its verdict if they do not."""

    block: EditBlock
    result: EditResult
    awaiting: int


@dataclass(frozen=True)
class BlockWithdrawn:
    """A block that had ended turned out to be cut short by a marker line in its text; nothing of it applies."""

    block: EditBlock


LiveEvent = Event | BlockLocated | BlockWaiting | BlockWithdrawn


class LiveAnswer:
    """One answer being streamed: feed it chunks, get events; `close()` at the end, then `result()`."""

    def __init__(self, locator: LiveLocator, format: Format | str = Format.AUTO,
                 known_files: Collection[str] | None = None) -> None:
        self._format = Format(format)
        self._known_files = known_files
        streamed = Format.AUTO if self._format in FRONT_END_FORMATS else self._format
        self._parser = StreamParser(streamed, known_files=known_files)
        self._whole: ParseResult | None = None  # a patch or whole-file answer, read by its front-end at the end
        self._locator = locator
        self._chunks: list[str] = []
        self._pending: Located | None = None  # located, not yet confirmed by the parser
        self.located: list[Located] = []

    @property
    def text(self) -> str:
        """The answer so far."""
        return "".join(self._chunks)

    @property
    def locator(self) -> LiveLocator:
        return self._locator

    def feed(self, chunk: str) -> list[LiveEvent]:
        self._chunks.append(chunk)
        events = self._parser.feed(chunk)
        if not events and "\n" not in chunk:
            return []  # no line ended: the parser's held block is the one already located, as after every chunk
        if self._format in FRONT_END_FORMATS:
            return [event for event in events if not isinstance(event, _MARKER_EVENTS)]
        held = self._parser.held_block()
        if not events and held is (self._pending.block if self._pending is not None else None):
            return []  # the usual chunk: text inside a line
        return self._after(events, held)

    def close(self) -> list[LiveEvent]:
        closing = self._parser.close()
        if self._format in FRONT_END_FORMATS:
            events: list[LiveEvent] = [event for event in closing if not isinstance(event, _MARKER_EVENTS)]
        else:
            completed = [event.block for event in closing if isinstance(event, BlockCompleted)]
            sections = moving_sections(completed)  # a patch read at the end: its moves go with their hunks
            events = self._after(closing, None,
                                 {block: sections[i] for i, block in enumerate(completed) if i in sections})
        if self._format in FRONT_END_FORMATS or (self._format is Format.AUTO and not self.located):
            whole = parse(self.text, self._format, known_files=self._known_files)
            if self._format in FRONT_END_FORMATS:
                events += [DiagnosticEvent(diagnostic) for diagnostic in whole.diagnostics]
                events += [ShellSuggested(suggestion) for suggestion in whole.shell]
            if self._format in FRONT_END_FORMATS or whole.blocks and not self.located:
                self._whole = whole
                sections = moving_sections(whole.blocks)
                for index, block in enumerate(whole.blocks):
                    located = self._locator.locate(block, sections.get(index))
                    events += [BlockCompleted(block), _verdict(located), *self._confirm(located)]
        for located in self._locator.settle_waiting():
            self._settled(located)
            events.append(BlockLocated(located.block, located.result))
        return events

    def result(self) -> ParseResult:
        return self._whole if self._whole is not None else self._parser.result()

    def _after(self, events: list[Event], held: EditBlock | None,
               sections: dict[EditBlock, EditBlock] | None = None) -> list[LiveEvent]:
        out: list[LiveEvent] = []
        for event in events:
            out.append(event)
            if isinstance(event, BlockCompleted):
                pending = self._pending
                if pending is not None and pending.block is event.block:
                    self._pending = None
                    out += self._confirm(pending)
                else:
                    located = self._locator.locate(event.block, (sections or {}).get(event.block))
                    out += [_verdict(located), *self._confirm(located)]
        pending = self._pending
        if pending is not None and held is not pending.block:
            self._pending = None  # ended, then withdrawn: the parser never completed it
            out.append(BlockWithdrawn(pending.block))
        if held is not None and self._pending is None:  # a held block is never one already confirmed
            self._pending = self._locator.locate(held)
            out.append(_verdict(self._pending))
        return out

    def _confirm(self, located: Located) -> list[LiveEvent]:
        """Take a confirmed block; the verdicts it settles for earlier waiting blocks."""
        settled = self._locator.accept(located)
        self.located.append(located)
        for earlier in settled:
            self._settled(earlier)
        return [BlockLocated(earlier.block, earlier.result) for earlier in settled]

    def _settled(self, located: Located) -> None:
        self.located = [located if item.block is located.block else item for item in self.located]


def _verdict(located: Located) -> BlockLocated | BlockWaiting:
    if located.awaiting:
        return BlockWaiting(located.block, located.result, located.awaiting)
    return BlockLocated(located.block, located.result)


_MARKER_EVENTS = (BlockStarted, BlockProgress, BlockCompleted, DiagnosticEvent, ShellSuggested)
"""What the stream reads as marker blocks (and their diagnostics and shell fences): dropped when the answer is read
as a patch or whole files, whose front-end reads the whole text at the end."""
