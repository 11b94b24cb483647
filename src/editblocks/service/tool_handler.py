"""`ToolHandler`: run an agent's tool calls against a project root and phrase the outcome for the model.

One handler serves every tool of `editblocks.tools`: Anthropic's text editor
(`str_replace_based_edit_tool`), OpenAI's `apply_patch` (patch text, or one
operation of the Responses API), `apply_edits` / `check_edits` (an answer in
any format), Claude Code's `edit` and `multi_edit`, `view` and `undo`. A call
never raises for what the model sent: missing or mistyped arguments, unknown
tools and refused paths come back as an error reply the model can act on.
Every call goes through the service's `EditSession` (the same options,
planner, commit and feedback as `apply`), so every write is the store's
(atomic, journaled, inside the root), and `undo`
takes back only the handler's own runs: a run the user made meanwhile (with
`editblocks apply`, say) is not the model's to undo. A handler keeps state
across calls: when a call's blocks for a file do not all apply, the ones that
do are held, and the file is written when a later call's blocks for it land
(the model resends only the failed ones).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from editblocks.errors import ArgumentError, WorkspaceError
from editblocks.model import ApplyResult, BlockKind, EditBlock, Format, ParseResult, Policy, ResultCode, Status
from editblocks.plan.guards import text_refusal
from editblocks.service.options import ApplyOptions
from editblocks.service.read_versions import ReadVersions, stale_refusal
from editblocks.service.results import clean
from editblocks.service.session import EditSession
from editblocks.service.string_edit_tool import run_string_edits
from editblocks.service.text_editor import Decided, EditorReply, TextEditor, as_edit
from editblocks.tools.argument_help import argument_help
from editblocks.tools.definitions import (
    APPLY_EDITS,
    APPLY_PATCH,
    CHECK_EDITS,
    EDIT,
    MULTI_EDIT,
    PATCH_OPERATIONS,
    TEXT_EDITOR_ALIASES,
    TEXT_EDITOR_COMMANDS,
    TOOL_NAMES,
    UNDO,
    VIEW,
    arguments,
    int_argument,
    operation_patch,
    text_argument,
    view_range_argument,
)
from editblocks.tools.edit_arguments import StringEdit, path_argument, string_edit_argument, string_edits_argument
from editblocks.tools.text_editor import Occurrences, normalized, replace_once
from editblocks.workspace.paths import Refusal
from editblocks.workspace.store import FileStore


@dataclass(frozen=True)
class ToolReply:
    """The outcome of one tool call: ``text`` goes back to the model; ``result`` is the run, when one was made."""

    text: str
    ok: bool
    result: ApplyResult | None = None
    version: str | None = None
    """With stale-read protection: the version of the file the call viewed or wrote (its fingerprint's start)."""
    replacements: int | None = None
    """For `edit` and `multi_edit`: how many places were replaced (None when nothing was written)."""

    @property
    def is_error(self) -> bool:
        return not self.ok


class ToolHandler:
    """Runs tool calls inside ``root``, which the model never chooses.

    ``options`` mean what they mean for `editblocks apply` (``format`` is the default of `apply_edits`);
    ``store`` runs the calls on a store of the caller's (a `MemoryStore`) instead of the files under ``root``,
    and ``session`` on a session of the caller's (its held blocks and options). ``hold`` (the default) keeps
    the blocks of a file whose other block failed from call to call (see the module's text).
    The keywords ``policy``, ``fuzzy``, ``first_match``, ``strict``, ``git_add``, ``lock_wait`` and
    ``known_files`` are the older spelling of ``options`` and set the same fields. `undo` (and `undo_edit`)
    take back only runs this handler made, unless ``undo_any_run``; ``door`` names the handler in the refusal,
    and ``undo_hint`` tells how to lift the limit where it is started. With ``stale_reads``, `view` gives each file's
    version, and an edit of a file that changed since the model last viewed or edited it through this handler is
    refused, with the file's current lines where the edit aims.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, *, options: ApplyOptions | None = None,
                 store: FileStore | None = None, policy: Policy | str | None = None, fuzzy: bool | None = None,
                 first_match: bool | None = None, strict: bool | None = None, git_add: bool | None = None,
                 lock_wait: float | None = None, known_files: Collection[str] | None = None,
                 undo_any_run: bool = False, door: str = "this tool handler",
                 undo_hint: str = "ToolHandler(undo_any_run=True) lifts that", session: EditSession | None = None,
                 hold: bool = True, stale_reads: bool = False) -> None:
        options = (options or (session.options if session is not None else ApplyOptions())).updated({
            "on_failure": policy, "fuzzy": fuzzy, "first_match": first_match, "strict": strict, "git_add": git_add,
            "lock_wait": lock_wait, "known_files": tuple(known_files) if known_files is not None else None})
        if session is not None:
            self.session = session.with_options(options)
        elif store is not None:
            self.session = EditSession(store, options, hold=hold)
        elif root is not None:
            self.session = EditSession.on_disk(root, options, hold=hold)
        else:
            raise TypeError("ToolHandler needs a root, a store or a session")
        self.workspace = self.session.store
        self.root = getattr(self.workspace, "root", root)
        self.versions = ReadVersions() if stale_reads else None
        self._editor = TextEditor(self.session, versions=self.versions)
        self._undo_any_run = undo_any_run
        self._door = door
        self._undo_hint = undo_hint
        self._made: set[str] = set()  # the journal runs this handler's calls wrote
        self._noop: str | None = None  # the path of the latest edit, when it changed nothing

    def call(self, name: str, input: object = None) -> ToolReply:
        """Run the tool ``name`` with ``input`` (a dict, or the JSON text Chat Completions sends)."""
        reply = self._call(name, input)
        if reply.result is not None and reply.result.run_id is not None:
            self._made.add(reply.result.run_id)
            self._noop = None
        return reply

    def _call(self, name: str, input: object) -> ToolReply:
        try:
            args = arguments(input)
            if name in TEXT_EDITOR_ALIASES:
                return self._text_editor(args)
            if name == APPLY_PATCH:
                return self._apply_patch(args)
            if name in (APPLY_EDITS, CHECK_EDITS):
                return self._apply_edits(args, dry_run=name == CHECK_EDITS)
            if name == UNDO:
                return self._undo()
            if name in (EDIT, MULTI_EDIT):
                path = path_argument(args)
                edits = [string_edit_argument(args)] if name == EDIT else string_edits_argument(args)
                reply = _edits_refused(path, edits) or _reply(run_string_edits(self._editor, path, edits))
                return self._unless_noop(path, reply)
            if name == VIEW:
                return _reply(self._editor.view(path_argument(args), view_range_argument(args)))
            return ToolReply(f"Error: there is no tool `{name}`; the tools are {', '.join(TOOL_NAMES)}.", False)
        except ArgumentError as error:
            how = argument_help(name, error.argument) if error.argument else ""
            return ToolReply(f"Error: {name}: {error}" + (f"; {how}." if how else "."), False)
        except WorkspaceError as error:  # busy, or the journal cannot be used: nothing was written
            return ToolReply(f"Error: the project cannot be edited right now ({error}); nothing was written.", False)

    # --- the text editor ----------------------------------------------------------------------------

    def _text_editor(self, args: Mapping[str, Any]) -> ToolReply:
        command = text_argument(args, "command")
        if command not in TEXT_EDITOR_COMMANDS:
            raise ArgumentError(f"`command` must be one of {', '.join(TEXT_EDITOR_COMMANDS)}, not {command!r}")
        path = text_argument(args, "path")
        if command == "undo_edit":
            return self._undo(path)
        if command == "view":
            return _reply(self._editor.view(path, view_range_argument(args)))
        if command == "create":
            file_text = text_argument(args, "file_text")
            return _refused(path, "", file_text) or _reply(self._editor.create(path, file_text))
        if command == "insert":
            spelling = "insert_text" if args.get("new_str") is None and args.get("insert_text") is not None \
                else "new_str"  # the older tool versions' name
            new = text_argument(args, spelling)
            return _refused(path, "", new) or _reply(self._editor.insert(path, int_argument(args, "insert_line"), new))
        old = normalized(text_argument(args, "old_str"))
        new = normalized(text_argument(args, "new_str", required=False))
        return _refused(path, old, new) or self._unless_noop(path, self._str_replace(path, old, new))

    def _unless_noop(self, path: str, reply: ToolReply) -> ToolReply:
        """Remember an edit that changed nothing: to the model it is its latest edit, which `undo_edit` takes back."""
        if reply.ok and (reply.result is None or reply.result.run_id is None):
            self._noop = path
        return reply

    def _str_replace(self, path: str, old: str, new: str) -> ToolReply:
        """`old` as text, exactly once; when it is not there at all, its lines go through the tolerant ladder."""
        if not old:
            raise ArgumentError("`old_str` is empty; quote the text to replace (use `insert` to add lines, "
                                "`create` for a new file)")
        absent: list[bool] = []

        def decide(lines: list[str], final_newline: bool, text: str | None) -> Decided:
            found = replace_once(lines, final_newline, old, new, text)
            if isinstance(found, Occurrences) and not found.lines:
                absent.append(True)
                return EditorReply("", False)
            return as_edit(found, path)

        reply = self._editor.edit(path, decide, old=old)
        if not absent:
            return _reply(reply)
        if old == new:
            return ToolReply(f"Error: `old_str` does not occur in {path} as written, and `new_str` is the same text, "
                             "so the edit would change nothing anyway; `view` the file and quote what to change.",
                             False)
        return self._str_replace_by_lines(path, old, new)

    def _str_replace_by_lines(self, path: str, old: str, new: str) -> ToolReply:
        terminated = old if old.endswith("\n") else old + "\n"
        replacement = new if new.endswith("\n") or not new else new + "\n"
        block = EditBlock(path, "", terminated, replacement, "", BlockKind.EDIT, Format.DIFF, 1)
        result = self.session.apply([block])
        version = self._wrote(result).get(result.results[0].path)
        outcome = result.results[0]
        where = f"lines {outcome.start_line}–{outcome.end_line}"
        if outcome.status is Status.APPLIED:
            return ToolReply(f"`old_str` does not occur in {outcome.path} as written; read as whole lines it was "
                             f"found at {where} ({outcome.reason or outcome.strategy}; strategy: {outcome.strategy}) "
                             "and those lines were replaced.", True, result, version)
        if outcome.code is ResultCode.ALREADY_APPLIED:
            return ToolReply(f"Nothing changed: {outcome.reason}.", True, result)
        detail = outcome.reason.removeprefix(f"the old text was not found in {outcome.path}").lstrip("; ")
        text = f"Error: `old_str` was not found in {outcome.path}" + (f"; {detail}." if detail else ".")
        if outcome.hint:
            text += ("\nHow the closest lines differ from old_str (`-` old_str, `+` the file):\n" + outcome.hint)
        text += "\nCopy `old_str` exactly from the file (`view` it first), including whitespace."
        return ToolReply(text, False, result)

    def _undo(self, path: str | None = None) -> ToolReply:
        if self._noop is not None and (path is None or self.session.store.resolve(path) ==
                                       self.session.store.resolve(self._noop)):
            edited, self._noop = self._noop, None
            return ToolReply(f"Nothing undone: your latest edit, of {edited}, changed nothing, so there is nothing of "
                             "it to take back; the edits before it stay (undo again to take back the one before).",
                             True)
        reply = self._editor.undo(path, only=None if self._undo_any_run else frozenset(self._made))
        if not reply.not_ours:
            return _reply(reply)
        return ToolReply(f"Error: nothing undone: the most recent edit (journal run {reply.not_ours}) was not made by "
                         f"{self._door}; another editblocks command made it, so it stays as it is. `undo` takes back "
                         f"only the edits made through {self._door} ({self._undo_hint}).", False)

    # --- answers and patches ------------------------------------------------------------------------

    def _apply_edits(self, args: Mapping[str, Any], *, dry_run: bool) -> ToolReply:
        answer = text_argument(args, "edits")
        requested = text_argument(args, "format", required=False, default=self.session.options.format.value)
        if requested not in {fmt.value for fmt in Format}:
            raise ArgumentError(f"`format` must be one of {', '.join(fmt.value for fmt in Format)}, not "
                                f"{requested!r}")
        return self._run(answer, self.session.parse(answer, requested), dry_run=dry_run)

    def _apply_patch(self, args: Mapping[str, Any]) -> ToolReply:
        operation = args.get("operation")
        if operation is None and args.get("type") in PATCH_OPERATIONS:
            operation = args
        if operation is not None:
            patch = operation_patch(arguments(operation))
        else:
            patch = text_argument(args, "input", required=False) or text_argument(args, "patch", required=False)
            if not patch:
                raise ArgumentError("the argument `input` (the patch, `*** Begin Patch` to `*** End Patch`) is "
                                    "missing")
        return self._run(patch, self.session.parse(patch, Format.V4A), dry_run=False)

    def _run(self, answer: str, parsed: ParseResult, *, dry_run: bool) -> ToolReply:
        if not dry_run:
            stale = self._stale(parsed.blocks)
            if stale is not None:
                return stale
        result = self.session.preview(parsed) if dry_run else self.session.apply(parsed)
        self._wrote(result)
        message = self.session.feedback(result, answer, parsed)
        changed = [*(f"{path} (created)" for path in result.files_created), *result.files_modified,
                   *(f"{path} (deleted)" for path in result.files_deleted),
                   *(f"{old} (renamed to {new})" for old, new in result.files_renamed)]
        if changed and not dry_run and result.written:
            message += "\nFiles changed: " + ", ".join(changed) + "."
        return ToolReply(message, clean(result) and not parsed.errors, result)


    # --- stale-read protection ----------------------------------------------------------------------

    def _stale(self, blocks: Sequence[EditBlock]) -> ToolReply | None:
        """The refusal when a file these blocks edit changed since the model saw it (None: none did)."""
        if self.versions is None:
            return None
        for block in blocks:
            snapshot = self.session.store.read(block.path)
            if isinstance(snapshot, Refusal):
                continue
            seen = self.versions.stale(snapshot)
            if seen is not None:
                now = self.versions.saw(snapshot) or ""
                return ToolReply(stale_refusal(snapshot, seen, now, old=block.search), False, version=now)
        return None

    def _wrote(self, result: ApplyResult) -> dict[str, str]:
        return self.versions.wrote(result) if self.versions is not None else {}


def _refused(path: str, old: str, new: str, which: str = "") -> ToolReply | None:
    """A call whose new text would delete code behind a placeholder or write an edit marker: refused, nothing
    written (``which`` names the edit of several)."""
    why = text_refusal(old, normalized(new), path)
    return ToolReply(f"Error: {which}{why}; nothing was written.", False) if why else None


def _edits_refused(path: str, edits: Sequence[StringEdit]) -> ToolReply | None:
    """An `edit` or `multi_edit` call one of whose edits `_refused` refuses: none of them is made."""
    for number, edit in enumerate(edits, start=1):
        refused = _refused(path, normalized(edit.old), edit.new, f"edit {number} of {len(edits)}: " * (len(edits) > 1))
        if refused is not None:
            return refused
    return None


def _reply(reply: EditorReply) -> ToolReply:
    return ToolReply(reply.text, reply.ok, reply.result, reply.version, reply.replacements)
