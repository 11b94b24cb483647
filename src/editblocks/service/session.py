"""`EditSession`: one store and one set of options; everything a door asks of editblocks goes through it.

Parse an answer, preview it (every block decided, nothing written), apply it
(under the store's lock: read, plan, commit, all or nothing), undo the last
run, phrase the feedback for the model, and give the exit status. The same
session over a `MemoryStore` previews, evaluates and tests without a disk;
`live` gives the verdicts of an answer as it streams, from the same planner.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Sequence

from editblocks.model import ApplyResult, Diagnostic, EditBlock, Format, ParseResult, Policy, Severity, ShellSuggestion
from editblocks.parsing.stream import parse
from editblocks.plan import FilePlan, Plan, abort_plan
from editblocks.plan.planner import Planner
from editblocks.service.live import LiveAnswer, LiveLocator
from editblocks.service.options import ApplyOptions
from editblocks.service.reading import StoreReader
from editblocks.service.results import apply_result, clean, not_written, refused_run
from editblocks.workspace.commit import PlannedWrite
from editblocks.workspace.reading import FileSnapshot
from editblocks.workspace.store import FileStore
from editblocks.workspace.undo import UndoOutcome
from editblocks.workspace.workspace import Workspace

Edits = str | ParseResult | Sequence[EditBlock]
"""An answer's text, its parse, or blocks made some other way."""
EXIT_OK, EXIT_FAILED = 0, 1


class EditSession:
    """Answers applied to the files of ``store`` as ``options`` say."""

    def __init__(self, store: FileStore, options: ApplyOptions | None = None) -> None:
        self.store = store
        self.options = options or ApplyOptions()

    @classmethod
    def on_disk(cls, root: str | os.PathLike[str], options: ApplyOptions | None = None) -> EditSession:
        """A session on the files under ``root``, journaled as ``options`` say. Raises `WorkspaceError` for a root
        that cannot be used."""
        options = options or ApplyOptions()
        return cls(Workspace(root, keep_runs=options.keep_runs, journal_max_bytes=options.journal_max_bytes), options)

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
        known = self.options.known_files
        return LiveLocator(StoreReader(self.store), self.options.plan_options(),
                           lambda: known if known is not None else self.store.files())

    def live(self, format: Format | str | None = None, locator: LiveLocator | None = None) -> LiveAnswer:
        """An answer to stream: every block gets its verdict the moment it ends, from the planner `apply` uses."""
        return LiveAnswer(locator or self.live_locator(), format or self.options.format, self.options.known_files)

    def preview(self, edits: Edits) -> ApplyResult:
        """Every block decided against the files as they are; nothing is written (a dry run)."""
        plan, reader, parsed = self._plan(edits)
        return apply_result(plan, reader.snapshots, written=False, shell=parsed.shell,
                            diagnostics=parsed.diagnostics, dry_run=True)

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
            plan, reader, parsed = self._plan(edits)
            return self.commit(plan, reader, shell=parsed.shell, diagnostics=parsed.diagnostics)

    def commit(self, plan: Plan, reader: StoreReader, *, shell: tuple[ShellSuggestion, ...] = (),
               diagnostics: tuple[Diagnostic, ...] = ()) -> ApplyResult:
        """Write what ``plan`` changes, checked against the snapshots ``reader`` took; hold the lock around the
        planning and this call."""
        snapshots = reader.snapshots
        if not plan.files:
            return apply_result(plan, snapshots, written=False, shell=shell, diagnostics=diagnostics)
        modes = {f.key: snapshots[f.moved_from].mode for f in plan.files if f.moved_from is not None}
        outcome = self.store.commit([PlannedWrite(snapshots[f.key], f.text, f.deleted, modes.get(f.key))
                                     for f in plan.files], git_add=self.options.git_add)
        notes: tuple[str, ...] = (outcome.git_error,) if outcome.git_error else ()
        if not outcome.written:
            notes += () if plan.results else (outcome.error,)  # no block result to say why
            plan = not_written(plan, outcome.changed_on_disk, outcome.error)
        return apply_result(plan, snapshots, written=outcome.written, shell=shell, diagnostics=diagnostics,
                            notes=notes, run_id=outcome.run_id if outcome.written else None)

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

    def _plan(self, edits: Edits) -> tuple[Plan, StoreReader, ParseResult]:
        parsed = self._parsed(edits)
        planner, reader = self.planner()
        planner.take(parsed.blocks)
        plan = planner.plan()
        malformed = [d for d in parsed.diagnostics if d.severity is Severity.ERROR]
        if self.options.on_failure is Policy.ABORT and malformed and not plan.aborted:
            plan = abort_plan(plan, f"the response has a malformed block (line {malformed[0].line})")
        return plan, reader, parsed
