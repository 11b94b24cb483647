"""`EditSession`: one store and one set of options; everything a door asks of editblocks goes through it.

Parse an answer, preview it (every block decided, nothing written), apply it
(under the store's lock: read, plan, commit, all or nothing), undo the last
run, phrase the feedback for the model, and give the exit status. The same
session over a `MemoryStore` previews, evaluates and tests without a disk;
`live` gives the verdicts of an answer as it streams, from the same planner.

A door that talks to a model in rounds makes its session with ``hold``: the
good blocks of a file held back by a failed block (policy `file`) are kept
in `held` and written with the file's last block, in a later round. With
``one_undo`` every run the session writes joins its first one in the
journal, so one `undo` takes back the whole multi-round run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from editblocks.model import (
    ApplyResult,
    Diagnostic,
    EditBlock,
    EditResult,
    Format,
    ParseResult,
    Policy,
    Severity,
    ShellSuggestion,
)
from editblocks.parsing.stream import parse
from editblocks.plan import FilePlan, Plan, abort_plan
from editblocks.plan.files import moving_sections
from editblocks.plan.planner import Planner
from editblocks.service.held import HeldBlocks, HeldRound
from editblocks.service.options import ApplyOptions
from editblocks.service.reading import StoreReader
from editblocks.service.results import apply_result, clean, not_written, refused_run
from editblocks.workspace.commit import PlannedWrite
from editblocks.workspace.reading import FileSnapshot
from editblocks.workspace.store import FileStore
from editblocks.workspace.undo import UndoOutcome
from editblocks.workspace.workspace import Workspace

if TYPE_CHECKING:  # live answers load their module when a door streams one
    from editblocks.service.live import LiveAnswer, LiveLocator

Edits = str | ParseResult | Sequence[EditBlock]
"""An answer's text, its parse, or blocks made some other way."""
EXIT_OK, EXIT_FAILED = 0, 1


class EditSession:
    """Answers applied to the files of ``store`` as ``options`` say; ``hold`` keeps held blocks from run to run,
    ``one_undo`` makes every run it writes one undo (see the module's text)."""

    def __init__(self, store: FileStore, options: ApplyOptions | None = None, *, hold: bool = False,
                 one_undo: bool = False) -> None:
        self.store = store
        self.options = options or ApplyOptions()
        self.held: HeldBlocks | None = HeldBlocks() if hold else None
        """The held files, for a session that holds (None: a stateless door, which keeps nothing)."""
        self.one_undo = one_undo
        self.first_run: str | None = None
        """With ``one_undo``: the journal run of the session's first write, which every later run joins."""

    @classmethod
    def on_disk(cls, root: str | os.PathLike[str], options: ApplyOptions | None = None, *, hold: bool = False,
                one_undo: bool = False) -> EditSession:
        """A session on the files under ``root``, journaled as ``options`` say. Raises `WorkspaceError` for a root
        that cannot be used."""
        options = options or ApplyOptions()
        return cls(Workspace(root, keep_runs=options.keep_runs, journal_max_bytes=options.journal_max_bytes), options,
                   hold=hold, one_undo=one_undo)

    def with_options(self, options: ApplyOptions) -> EditSession:
        """This session with other options: the same store, held blocks and run (itself, for the same options)."""
        if options == self.options:
            return self
        other = EditSession(self.store, options, one_undo=self.one_undo)
        other.held, other.first_run = self.held, self.first_run
        return other

    # --- answers ----------------------------------------------------------------------------------------------

    def parse(self, answer: str, format: Format | str | None = None) -> ParseResult:
        """``answer`` read in ``format`` (default: the options'), with the options' known files."""
        return parse(answer, format or self.options.format, known_files=self.options.known_files)

    def planner(self) -> tuple[Planner, StoreReader]:
        """A planner over the store's files as they are now, and the reader that keeps what it read."""
        reader = StoreReader(self.store)
        known = self.options.known_files
        return Planner(reader, self.options.plan_options(), lambda: known if known is not None else
                       self.store.files()), reader

    def live_locator(self) -> LiveLocator:
        """In-memory copies of the store's files for live verdicts, carried from round to round (`LiveLocator`)."""
        from editblocks.service.live import LiveLocator

        known = self.options.known_files
        return LiveLocator(StoreReader(self.store), self.options.plan_options(),
                           lambda: known if known is not None else self.store.files(), self.held)

    def live(self, format: Format | str | None = None, locator: LiveLocator | None = None) -> LiveAnswer:
        """An answer to stream: every block gets its verdict the moment it ends, from the planner `apply` uses."""
        from editblocks.service.live import LiveAnswer

        return LiveAnswer(locator or self.live_locator(), format or self.options.format, self.options.known_files)

    def preview(self, edits: Edits) -> ApplyResult:
        """Every block decided against the files as they are; nothing is written (a dry run)."""
        plan, earlier, _, reader, parsed = self._plan(edits, keeps=False)
        return apply_result(plan, reader.snapshots, written=False, shell=parsed.shell,
                            diagnostics=parsed.diagnostics, dry_run=True, held_over=earlier)

    def apply(self, edits: Edits) -> ApplyResult:
        """Every block decided and the files written, all or nothing, under the store's lock.

        Raises `WorkspaceBusy` when another process holds the store longer than the options' ``lock_wait``;
        everything a model can get wrong is in the result.
        """
        with self.store.lock(wait=self.options.lock_wait):
            interrupted = self.store.interrupted_run()
            if interrupted is not None:
                parsed = self._parsed(edits)
                return refused_run(parsed.blocks, f"a previous apply was interrupted (journal run {interrupted}); "
                                                  "run `editblocks undo` to restore its files first",
                                   shell=parsed.shell, diagnostics=parsed.diagnostics)
            plan, earlier, held, reader, parsed = self._plan(edits, keeps=self.held is not None)
            result = self.commit(plan, reader, shell=parsed.shell, diagnostics=parsed.diagnostics, held_over=earlier)
        if self.held is None:
            return result
        return replace(result, holding=self.held.settle(result.held_over + result.results, held.untouched))

    def commit(self, plan: Plan, reader: StoreReader, *, shell: tuple[ShellSuggestion, ...] = (),
               diagnostics: tuple[Diagnostic, ...] = (), held_over: tuple[EditResult, ...] = ()) -> ApplyResult:
        """Write what ``plan`` changes, checked against the snapshots ``reader`` took; hold the lock around the
        planning and this call. ``held_over``: the results of the held blocks ``plan`` also writes."""
        snapshots = reader.snapshots
        if not plan.files:
            return apply_result(plan, snapshots, written=False, shell=shell, diagnostics=diagnostics,
                                held_over=held_over)
        outcome = self.store.commit([_planned_write(f, snapshots) for f in plan.files], git_add=self.options.git_add,
                                    joins=self.first_run if self.one_undo else None)
        notes: tuple[str, ...] = (outcome.git_error,) if outcome.git_error else ()
        if not outcome.written:
            notes += () if plan.results or held_over else (outcome.error,)  # no block result to say why
            unwritten = not_written(Plan(held_over + plan.results, plan.files, plan.aborted),
                                    outcome.changed_on_disk, outcome.error)
            held_over, plan = unwritten.results[:len(held_over)], replace(unwritten,
                                                                          results=unwritten.results[len(held_over):])
        elif self.one_undo and self.first_run is None:
            self.first_run = outcome.run_id
        return apply_result(plan, snapshots, written=outcome.written, shell=shell, diagnostics=diagnostics,
                            notes=notes, run_id=outcome.run_id if outcome.written else None, held_over=held_over)

    def write(self, files: Sequence[tuple[FileSnapshot, str]]) -> ApplyResult:
        """Write whole texts decided elsewhere (a scratch copy's), all or nothing, under the store's lock; each is
        checked against the snapshot it was made from. When nothing is written, the notes say why."""
        reader = StoreReader(self.store)
        reader.snapshots.update((snapshot.rel, snapshot) for snapshot, _ in files)
        plan = Plan((), tuple(FilePlan(snapshot.rel, snapshot.text, text) for snapshot, text in files))
        with self.store.lock(wait=self.options.lock_wait):
            return self.commit(plan, reader)

    def undo(self, *, force: bool = False, runs: Collection[str] | None = None,
             refuse: Callable[[], str | None] | None = None) -> UndoOutcome:
        """Undo the last run (see `Workspace.undo`), under the store's lock; a store that never recorded a run
        has nothing to undo (and no journal is made to find that out). With ``runs``, a newest run not among
        them is left alone (a door undoes only the runs it made); ``refuse``, asked under the lock, says why the
        run must not be undone (None: undo it)."""
        if not self.store.has_journal():
            return UndoOutcome((), (), (), "nothing to undo", ok=False)
        with self.store.lock(wait=self.options.lock_wait):
            refused = refuse() if refuse is not None else None
            if refused is not None:
                return UndoOutcome((), (), (), refused, ok=False)
            return self.store.undo(force=force, only=runs)

    # --- what to tell the model and the shell -----------------------------------------------------------------

    def feedback(self, result: ApplyResult, answer: str | None = None, parsed: ParseResult | None = None) -> str:
        """The message for the model about ``result``, in the format ``answer`` was written in (else the options')."""
        from editblocks.report.feedback import feedback_message, reply_format

        fmt = reply_format(answer, parsed) if answer is not None and parsed is not None else None
        return feedback_message(result, format=fmt or self.options.format)

    @staticmethod
    def exit_status(result: ApplyResult) -> int:
        """0 when every block applied or was already applied (re-running an answer is not an error), else 1."""
        return EXIT_OK if clean(result) else EXIT_FAILED

    # --- inside -----------------------------------------------------------------------------------------------

    def _parsed(self, edits: Edits) -> ParseResult:
        if isinstance(edits, str):
            return self.parse(edits)
        if isinstance(edits, ParseResult):
            return edits
        blocks = tuple(edits)
        return ParseResult(str(blocks[0].format) if blocks else str(Format.AUTO), blocks, (), ())

    def _plan(self, edits: Edits, *, keeps: bool
              ) -> tuple[Plan, tuple[EditResult, ...], HeldRound, StoreReader, ParseResult]:
        """The answer's plan after the held blocks, their results, the round (what it left untouched), the reader
        and the parse; ``keeps``: the held blocks left will be kept (the reasons say so)."""
        parsed = self._parsed(edits)
        planner, reader = self.planner()
        held = HeldRound(self.held, planner)
        sections = moving_sections(parsed.blocks)
        repeats: dict[int, EditResult] = {}
        for index, block in enumerate(parsed.blocks):
            key = planner.source(block.path).key
            repeat = held.repeat(key, block)
            if repeat is not None:
                repeats[index] = repeat
            else:
                held.touch(key)
                planner.accept(planner.decide(block, sections.get(index)))
        plan, earlier = held.plan(planner, keeps=keeps)
        planned = iter(plan.results)
        plan = replace(plan, results=tuple(repeats[index] if index in repeats else next(planned)
                                           for index in range(len(parsed.blocks))))
        malformed = [d for d in parsed.diagnostics if d.severity is Severity.ERROR]
        if self.options.on_failure is Policy.ABORT and malformed and not plan.aborted:
            plan = abort_plan(plan, f"the response has a malformed block (line {malformed[0].line})")
        return plan, earlier, held, reader, parsed


def _planned_write(file: FilePlan, snapshots: Mapping[str, FileSnapshot]) -> PlannedWrite:
    """What commit writes for one planned file: a moved file keeps its source's permission bits and encoding
    (byte-order mark, UTF-16), so a move changes no byte it does not edit."""
    snapshot = snapshots[file.key]
    if file.moved_from is None:
        return PlannedWrite(snapshot, file.text, file.deleted, executable=file.executable)
    source = snapshots[file.moved_from]
    return PlannedWrite(replace(snapshot, encoding=source.encoding), file.text, file.deleted, source.mode,
                        executable=file.executable)
