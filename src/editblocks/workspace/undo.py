"""Undo: put back what the most recent run changed, or finish a run that was interrupted, and git's index with it.

Runs are undone newest first, all or nothing: a file changed since the run
wrote it stops undo unless forced, and the rounds of one multi-round run
(an `ask` run that wrote in several rounds) are undone together, and so does a run whose record is damaged
(forced, it is set aside and the run before it is undone). A run the user did
not make (someone else's, or out of sequence) is never undone: undo names it
and goes on to the user's own newest run. A door (an MCP server, the review
page) may undo only its own runs: then a newest run it did not make stops
undo, and the outcome names it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from editblocks.errors import GitError
from editblocks.model import counted
from editblocks.workspace.dirfd import Tree, describe
from editblocks.workspace.git import unstage
from editblocks.workspace.journal import Journal
from editblocks.workspace.reading import Reader
from editblocks.workspace.records import DamagedRun, Run, RunState, UntrustedRun
from editblocks.workspace.restore import apply_restore, plan_restore


@dataclass(frozen=True)
class UndoOutcome:
    """What `undo` did; with ``ok`` False, ``message`` says why (and nothing was changed unless it says so)."""

    restored: tuple[str, ...]
    removed: tuple[str, ...]
    refused: tuple[str, ...]
    message: str
    ok: bool
    unstaged: tuple[str, ...] = ()  # paths whose git index entries `apply --git-add` changed were put back
    still_staged: tuple[str, ...] = ()  # paths `apply --git-add` staged whose index entries were left as they are
    run_id: str | None = None  # the run undone (or recovered); the newest, when several rounds were undone
    runs: tuple[str, ...] = ()  # every run undone, newest first (the rounds of one multi-round run)
    not_ours: str = ""  # the newest run, when undo was limited to some runs and this one is not among them


class Undoer:
    """Undoes the runs of one root's journal, newest first."""

    def __init__(self, reader: Reader, journal: Journal) -> None:
        self._reader = reader
        self._journal = journal

    def undo(self, *, force: bool = False, only: Collection[str] | None = None) -> UndoOutcome:
        """Put back what the most recent run not yet undone changed (see `Workspace.undo`)."""
        try:
            listed = [record for record in self._journal.records()
                      if not (isinstance(record, Run) and record.state is RunState.UNDONE)]
        except OSError as error:
            return UndoOutcome((), (), (), f"nothing undone: the journal cannot be read ({describe(error)})", ok=False)
        untrusted = [record for record in listed if isinstance(record, UntrustedRun)]
        records = [record for record in listed if not isinstance(record, UntrustedRun)]
        if only is not None and records and records[0].run_id not in only:
            newest = records[0].run_id
            outcome = UndoOutcome((), (), (), f"nothing undone: the most recent run, {newest}, was made elsewhere",
                                  ok=False, not_ours=newest)
        else:
            outcome = self._undo_newest(records, force=force)
        newer = [record for record in untrusted if not records or record.run_id > records[0].run_id]
        left_alone = "".join(f"left run {record.run_id} alone ({record.why}); " for record in newer)
        return replace(outcome, message=left_alone + outcome.message) if left_alone else outcome

    def _undo_newest(self, records: list[Run | DamagedRun], *, force: bool) -> UndoOutcome:
        set_aside = ""
        while records and isinstance(records[0], DamagedRun):
            damaged, records = records[0], records[1:]
            if not force:
                return UndoOutcome((), (), (), _damaged_message(damaged, records), ok=False)
            try:
                aside = self._journal.set_aside(damaged.run_id)
            except OSError as error:
                return UndoOutcome((), (), (), f"nothing undone: the damaged run {damaged.run_id} could not be "
                                               f"set aside ({describe(error)})", ok=False)
            set_aside += (f"set aside run {damaged.run_id}, whose record is damaged "
                          f"(its saved copies stay in .editblocks/journal/{aside}); ")
            force = False  # --force was spent on the damaged run: the next one gets the usual checks
        if not records:
            return UndoOutcome((), (), (), f"{set_aside}nothing else to undo" if set_aside else "nothing to undo",
                               ok=bool(set_aside))
        try:
            with Tree(self._reader.root) as tree:
                outcome = self._undo_runs(tree, undo_unit(records), force=force)
        except OSError as error:
            return UndoOutcome((), (), (), f"{set_aside}nothing undone: the project folder could not be opened "
                                           f"({describe(error)})", ok=False)
        return replace(outcome, message=set_aside + outcome.message)

    def _undo_runs(self, tree: Tree, rounds: Sequence[Run], *, force: bool) -> UndoOutcome:
        """Undo ``rounds`` (one run, or the rounds of one multi-round run, newest first), all or nothing: every
        round is checked against what the files will hold once the newer rounds are undone, before any file is
        touched."""
        expected: dict[str, str | None] = {}
        for run in rounds if len(rounds) > 1 else ():  # one run alone is checked as it is restored
            plan = plan_restore(tree, run, self._reader, self._journal, force=force, expected=expected)
            if plan.problem or plan.refused:
                return _not_undone(plan.problem, plan.refused, force or not plan.forceable)
            expected.update((entry.path, entry.old_fingerprint) for entry in run.entries)
        last: dict[str, bool] = {}  # path -> restored (True) or removed (False), by the oldest round that did it
        unstaged: list[str] = []
        still_staged: list[str] = []
        notes: list[str] = []
        done: list[str] = []
        for run in rounds:
            plan = plan_restore(tree, run, self._reader, self._journal, force=force)
            if plan.problem or plan.refused:
                if not done:
                    return _not_undone(plan.problem, plan.refused, force or not plan.forceable)
                restored: list[str] = []
                removed: list[str] = []
                problem = plan.problem or "; ".join(f"`{path}` {why}" for path, why in plan.refused)
            else:
                restored, removed, problem = apply_restore(tree, run, plan)
            last.update((path, True) for path in restored)
            last.update((path, False) for path in removed)
            notes += plan.notes
            if not problem:
                try:
                    self._journal.mark(run, RunState.UNDONE)
                except OSError as error:
                    problem = f"{describe(error)} while recording the undo in the journal"
            if problem:
                finished = f"undid run {', '.join(done)}; " if done else ""
                message = f"{finished}undo of run {run.run_id} stopped: {problem}; run undo again to finish it"
                return UndoOutcome(*_by_outcome(last), (), message, ok=False, runs=tuple(done))
            done.append(run.run_id)
            run_unstaged, run_still_staged, index_notes = self._unstage(run)
            unstaged += run_unstaged
            still_staged += run_still_staged
            notes += index_notes
        restored_paths, removed_paths = _by_outcome(last)
        counts = (f"restored {counted(len(restored_paths), 'file')}, "
                  f"removed {counted(len(removed_paths), 'created file')}")
        newest = rounds[0]
        if len(rounds) > 1:
            later = ", ".join(run.run_id for run in rounds[:-1])
            what = f"undid run {rounds[-1].run_id} and its {counted(len(rounds) - 1, 'later round')} ({later})"
        else:
            what = f"{'recovered interrupted run' if newest.state is RunState.PENDING else 'undid run'} {newest.run_id}"
        message = f"{what}: {counts}" + "".join(f"; {note}" for note in notes)
        return UndoOutcome(restored_paths, removed_paths, (), message, ok=True, unstaged=tuple(unstaged),
                           still_staged=tuple(still_staged), run_id=newest.run_id, runs=tuple(done))

    def _unstage(self, run: Run) -> tuple[tuple[str, ...], tuple[str, ...], list[str]]:
        """Put back the index entries the run staged: (unstaged, still staged, the notes for the message)."""
        if not run.staged:
            return (), (), []
        try:
            unstaged, left = unstage(self._reader.root, run.staged)
        except GitError as error:
            left_paths = tuple(item.path for item in run.staged)
            listed = ", ".join(left_paths)
            return (), left_paths, [f"could not put back git's index ({error}), so these stay staged: {listed}"]
        notes = [f"unstaged {counted(len(unstaged), 'file')}"] if unstaged else []
        if left:
            notes.append(f"left {', '.join(left)} staged (the index entry changed after the run staged it; "
                         "`git restore --staged` unstages it)")
        return unstaged, left, notes


def _by_outcome(last: dict[str, bool]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(restored, removed) paths, from each path's last action."""
    return tuple(path for path, kept in last.items() if kept), tuple(path for path, kept in last.items() if not kept)


def _not_undone(problem: str, refused: Sequence[tuple[str, str]], no_hint: bool) -> UndoOutcome:
    """Nothing undone; the `--force` hint unless it was given or could not help."""
    if problem:
        return UndoOutcome((), (), (), f"nothing undone: {problem}", ok=False)
    reasons = "; ".join(f"`{path}` {why}" for path, why in refused)
    hint = "" if no_hint else "; run `editblocks undo --force` to restore them anyway, discarding those changes"
    return UndoOutcome((), (), tuple(path for path, _ in refused), f"nothing undone: {reasons}{hint}", ok=False)


def undo_unit(records: Sequence[Run | DamagedRun]) -> list[Run]:
    """The newest run and, when it is a later round of a multi-round run, the rounds before it (newest first, up to
    the first round): consecutive committed runs of the same run. An interrupted run is recovered alone."""
    newest = records[0]
    assert isinstance(newest, Run)
    if newest.state is not RunState.COMMITTED or newest.joins is None:
        return [newest]
    rounds = []
    for record in records:
        if not isinstance(record, Run) or record.state is not RunState.COMMITTED or record.first != newest.first:
            break
        rounds.append(record)
        if record.run_id == newest.first:
            break
    return rounds


def _damaged_message(damaged: DamagedRun, older: Sequence[Run | DamagedRun]) -> str:
    """Why undo stops at a damaged record, and what `--force` would do instead."""
    earlier = older[0].run_id if older else None
    then = (f"`editblocks undo --force` sets it aside and undoes run {earlier} instead" if earlier
            else "there is no earlier run to undo; `editblocks undo --force` sets it aside")
    return (f"nothing undone: the record of run {damaged.run_id} is damaged ({damaged.why}), so editblocks cannot "
            f"tell which files it changed (.editblocks/journal/{damaged.run_id} is left as it is); {then}")
