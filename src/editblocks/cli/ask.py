"""`editblocks ask`: send files and an instruction to a model, watch the answer's blocks land, apply them.

The command only gathers options and picks the view; the round trip lives in
`editblocks.ask`. The `openai` SDK is the `[ask]` extra: without it the
command says which package to install, in one line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

import click

from editblocks.cli.model_options import api_key, model_options
from editblocks.cli.options import apply_options, options_from
from editblocks.cli.shared import (
    JSON_HELP,
    JSONL_HELP,
    InputError,
    JsonAwareCommand,
    console,
    emit_event,
    emit_json,
    json_or_lines,
    root_option,
)
from editblocks.prompts import PROMPT_FORMATS

if TYPE_CHECKING:
    from editblocks.ask.client import Endpoint
    from editblocks.ask.outcome import AskOptions, AskOutcome, Unconfirmed
    from editblocks.model import ApplyResult


@click.command("ask", cls=JsonAwareCommand)
@click.argument("instruction")
@click.argument("files", nargs=-1)
@click.option("--format", "format_", type=click.Choice(PROMPT_FORMATS), default="diff", show_default=True,
              help="The edit format the model is asked to answer in.")
@model_options("Feedback rounds after failed blocks (a round that applies nothing new stops them).")
@click.option("--editor", is_flag=True, help="The editor variant of the prompt: edits only, no shell commands.")
@click.option("--tools", is_flag=True,
              help="Edit through tool calls (editblocks.tools, run by ToolHandler) instead of an edit format.")
@root_option()
@click.option("--dry-run", is_flag=True, help="Show what the answer would change; write nothing.")
@click.option("--yes", "-y", is_flag=True, help="Apply without asking for confirmation.")
@click.option("--git-commit", is_flag=True, help="Commit the changed files, with the instruction as the message.")
@click.option("--git-hooks", is_flag=True,
              help="With --git-commit: let the repository's git hooks run (off by default: a hook is a script of "
                   "the work tree, which the model may just have edited).")
@click.option("--serve", is_flag=True,
              help="Stream every round into the review page on 127.0.0.1 (its address is printed); the page's Apply "
                   "writes the accepted blocks (with --yes: all, at once). Serves until Ctrl-C. Needs editblocks[web].")
@apply_options(with_format=False)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@click.option("--jsonl", "as_jsonl", is_flag=True, help=JSONL_HELP)
def ask_command(instruction: str, files: tuple[str, ...], model: str | None, base_url: str | None, api_key_env: str,
                format_: str, editor: bool, tools: bool, root: str | None, dry_run: bool, yes: bool, retries: int,
                git_commit: bool, git_hooks: bool, timeout: float, backoff: float, max_file_bytes: int, serve: bool,
                as_json: bool, as_jsonl: bool, **given: Any) -> None:
    """Ask a model to edit FILES as INSTRUCTION says; its blocks are located live and applied after a yes."""
    from editblocks.ask.client import missing_extra

    json_or_lines(as_json, as_jsonl)
    if find_spec("openai") is None:
        raise InputError(missing_extra(), code="missing-extra")
    if dry_run and yes:
        raise click.UsageError("--dry-run writes nothing, so --yes has nothing to confirm; give one of them")
    if git_hooks and not git_commit:
        raise click.UsageError("--git-hooks only goes with --git-commit (no other git command runs hooks)")
    if serve:
        _check_serve(dry_run=dry_run, tools=tools, as_json=as_json or as_jsonl)
    if not model:
        raise InputError("no model: give --model, or set EDITBLOCKS_MODEL or `model` in your own config file "
                         "(`editblocks config` names it)", code="usage")
    from editblocks.ask.client import Endpoint
    from editblocks.ask.outcome import AskOptions
    from editblocks.ask.rounds import ask
    from editblocks.errors import AskInputError
    from editblocks.model import Format
    from editblocks.workspace import WorkspaceError

    base_url = base_url or None
    key = api_key(api_key_env, base_url)
    if key is None:
        raise InputError(f"no API key: set {api_key_env} (or name another variable with --api-key-env)",
                         code="usage")
    endpoint = Endpoint(model, base_url, key, timeout=timeout, backoff=backoff)
    options = AskOptions(instruction, files, root or ".", Format(format_), editor=editor, dry_run=dry_run, yes=yes,
                         retries=retries, git_commit=git_commit, git_hooks=git_hooks, max_file_bytes=max_file_bytes,
                         tools=tools, apply=options_from(given, root=root))
    if as_jsonl:
        from editblocks.report.events import run_started

        emit_event(run_started("ask", dry_run=dry_run))
    try:
        if serve:
            outcome = _ask_on_page(options, endpoint)
        else:
            view = _event_view(model) if as_jsonl else _view(as_json)
            outcome = ask(options, endpoint, view, _confirmer(as_json or as_jsonl))
    except AskInputError as error:
        raise InputError(str(error)) from None
    except WorkspaceError as error:
        raise InputError(str(error), code="workspace") from None
    if as_json:
        emit_json(_outcome_json(outcome, endpoint.model, endpoint.shown_url, options.format.value, dry_run))
    elif as_jsonl:
        from editblocks.report.events import event

        emit_event(event("run_finished", command="ask", exit_code=outcome.exit_code, ok=outcome.exit_code == 0,
                         files_written=list(outcome.written), stopped=None if outcome.stopped is None else
                         {"code": outcome.stopped[0], "message": outcome.stopped[1]}))
    elif outcome.run_folder and not serve:  # `_ask_on_page` named it before serving on
        console().print(f"run saved in {outcome.run_folder}", style="dim", markup=False)
    sys.exit(outcome.exit_code)


def _check_serve(*, dry_run: bool, tools: bool, as_json: bool) -> None:
    from editblocks.cli.serve import require_web

    for given, option, why in (
            (dry_run, "--dry-run", "it writes nothing, and the page is there to apply"),
            (tools, "--tools", "it edits through tool calls, and the page reviews edit blocks"),
            (as_json, "--json or --jsonl", "it prints JSON, and the page shows the run as it goes")):
        if given:
            raise click.UsageError(f"--serve cannot go with {option}: {why}")
    require_web()


def _ask_on_page(options: AskOptions, endpoint: Endpoint) -> AskOutcome:
    """Run the round trip with every answer streamed into the review page, whose Apply writes (as `apply --review`).

    The page stays up after the last round, for its Undo and a last look, until Ctrl-C.
    """
    import threading

    from editblocks.ask.rounds import ask, rounds_session
    from editblocks.cli.shared import workspace_error
    from editblocks.web import ReviewServer, ReviewState
    from editblocks.web.ask_page import PageView, apply_at_once, page_confirm
    from editblocks.workspace import WorkspaceError

    try:
        session = ReviewState(session=rounds_session(options))
    except WorkspaceError as error:
        raise workspace_error(error) from None
    try:
        server = ReviewServer(session)
    except OSError as error:
        raise InputError(f"cannot listen on 127.0.0.1: {error.strerror or error}", code="usage") from None
    with server:
        click.echo(f"review page: {server.url}")
        view = PageView(_view(False), session, options.format)
        interrupted = threading.Event()
        confirm = apply_at_once(session) if options.yes else page_confirm(session, view, interrupted)
        outcome = ask(replace(options, yes=False), endpoint, view, confirm, session=session.session)
        if outcome.run_folder:
            console().print(f"run saved in {outcome.run_folder}", style="dim", markup=False)
        if not interrupted.is_set() and (outcome.stopped is None or outcome.stopped[0] != "interrupted"):
            click.echo("the review page stays open (its Undo undoes the last apply); Ctrl-C stops the server",
                       err=True)
            try:
                server.wait()
            except KeyboardInterrupt:
                pass
        click.echo("stopped", err=True)
    return outcome


def _event_view(model: str) -> Any:
    from editblocks.ask.event_view import EventView

    return EventView(emit_event, model)


def _view(as_json: bool) -> Any:
    from editblocks.ask.display import LiveView, PlainView, QuietView

    if as_json:
        return QuietView()
    out = console()
    return LiveView(out) if out.is_terminal else PlainView(out)


NO_ANSWER = "no answer on standard input: nothing written; use --yes to write without asking"


def _confirmer(as_json: bool) -> Any:
    """The question before a round is written; files outside the given ones are named, and only a person at a
    terminal may say yes to them (a piped "y" was typed before anyone saw their names)."""
    from editblocks.ask.outcome import Unconfirmed, also_writes
    from editblocks.text.diff import printable

    def say(message: str) -> None:
        click.echo(printable(message), err=as_json)

    def confirm(preview: ApplyResult, outside: Sequence[str]) -> bool | Unconfirmed:
        from editblocks.report.diffs import render_diff

        if outside:
            if not _stdin_is_terminal():
                return Unconfirmed("not-given", f"nothing written: {also_writes(outside)}; such files are written "
                                                "only after a yes typed at a terminal, or with --yes")
            say(also_writes(outside))
        while True:
            try:
                answer = click.prompt("Apply these edits? [y]es, [n]o, [d]iff", type=click.Choice(["y", "n", "d"]),
                                      show_choices=False, err=as_json)
            except click.Abort:
                say("")  # ends the question's line
                return Unconfirmed("no-answer", NO_ANSWER)
            if answer != "d":
                return bool(answer == "y")
            out = console() if not as_json else None
            for diff in preview.diffs:
                if out is not None:
                    out.print(render_diff(diff.unified))
                else:
                    click.echo(diff.unified, err=True)

    return confirm


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except ValueError:  # closed
        return False


def _outcome_json(outcome: AskOutcome, model: str, base_url: str | None, fmt: str, dry_run: bool) -> dict[str, Any]:
    from editblocks.report.serialize import apply_json, versioned

    rounds = []
    for item in outcome.rounds:
        result = apply_json(item.result) if item.result is not None else None
        entry = {"round": item.number, "answer": item.answer, "result": result, "feedback": item.feedback}
        if item.tool_calls:
            entry["tool_calls"] = item.tool_calls
        rounds.append(entry)
    stopped = {"code": outcome.stopped[0], "message": outcome.stopped[1]} if outcome.stopped else None
    return versioned({
        "model": model, "base_url": base_url, "format": fmt, "dry_run": dry_run, "rounds": rounds,
        "files_written": list(outcome.written), "stopped": stopped, "commit": outcome.commit,
        "notes": list(outcome.notes), "run": outcome.run_folder, "exit_code": outcome.exit_code,
    })
