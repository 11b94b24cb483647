"""`editblocks ask`: send files and an instruction to a model, watch the answer's blocks land, apply them.

The command only gathers options and picks the view; the round trip lives in
`editblocks.ask`. The `openai` SDK is the `[ask]` extra: without it the
command says which package to install, in one line.
"""

from __future__ import annotations

import os
import sys
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

import click

from editblocks.ask.messages import DEFAULT_MAX_FILE_BYTES
from editblocks.cli.shared import JSON_HELP, InputError, JsonAwareCommand, console, emit_json, root_option
from editblocks.prompts import PROMPT_FORMATS

if TYPE_CHECKING:
    from editblocks.ask.session import AskOutcome
    from editblocks.model import ApplyResult


@click.command("ask", cls=JsonAwareCommand)
@click.argument("instruction")
@click.argument("files", nargs=-1)
@click.option("--model", default=None, help="The model to ask (also EDITBLOCKS_MODEL).")
@click.option("--base-url", default=None,
              help="An OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 for llama.cpp "
                   "(default: OPENAI_BASE_URL, else OpenAI's).")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="The environment variable holding the API key.")
@click.option("--format", "format_", type=click.Choice(PROMPT_FORMATS), default="diff", show_default=True,
              help="The edit format the model is asked to answer in.")
@click.option("--editor", is_flag=True, help="The editor variant of the prompt: edits only, no shell commands.")
@click.option("--tools", is_flag=True,
              help="Edit through tool calls (editblocks.tools, run by ToolHandler) instead of an edit format.")
@root_option()
@click.option("--dry-run", is_flag=True, help="Show what the answer would change; write nothing.")
@click.option("--yes", "-y", is_flag=True, help="Apply without asking for confirmation.")
@click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="Feedback rounds after failed blocks (a round that applies nothing new stops them).")
@click.option("--git-commit", is_flag=True, help="Commit the changed files, with the instruction as the message.")
@click.option("--timeout", type=click.FloatRange(min=0.001), default=120.0, show_default=True,
              help="Seconds to wait for the endpoint (to connect, and between pieces of the answer).")
@click.option("--backoff", type=click.FloatRange(min=0.0), default=1.0, show_default=True,
              help="Seconds before retrying a failed request, doubling each time (a retry-after header wins).")
@click.option("--max-file-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_FILE_BYTES, show_default=True,
              help="Refuse to send a file larger than this.")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
def ask_command(instruction: str, files: tuple[str, ...], model: str | None, base_url: str | None, api_key_env: str,
                format_: str, editor: bool, tools: bool, root: str | None, dry_run: bool, yes: bool, retries: int,
                git_commit: bool, timeout: float, backoff: float, max_file_bytes: int, as_json: bool) -> None:
    """Ask a model to edit FILES as INSTRUCTION says; its blocks are located live and applied after a yes."""
    from editblocks.ask.client import MISSING_EXTRA

    if find_spec("openai") is None:
        raise InputError(MISSING_EXTRA, code="missing-extra")
    if dry_run and yes:
        raise click.UsageError("--dry-run writes nothing, so --yes has nothing to confirm; give one of them")
    if not model:
        raise InputError("no model: give --model, or set EDITBLOCKS_MODEL or `model` in [tool.editblocks]",
                         code="usage")
    from editblocks.ask.client import Endpoint
    from editblocks.ask.session import AskInputError, AskOptions, ask
    from editblocks.model import Format
    from editblocks.workspace import WorkspaceError

    base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    key = os.environ.get(api_key_env)
    if not key:
        if base_url is None:
            raise InputError(f"no API key: set {api_key_env} (or name another variable with --api-key-env)",
                             code="usage")
        key = "no-key"  # local servers (llama.cpp, Ollama, vLLM) usually take any key
    endpoint = Endpoint(model, base_url, key, timeout=timeout, backoff=backoff)
    options = AskOptions(instruction, files, root or ".", Format(format_), editor=editor, dry_run=dry_run, yes=yes,
                         retries=retries, git_commit=git_commit, max_file_bytes=max_file_bytes, tools=tools)
    try:
        outcome = ask(options, endpoint, _view(as_json), _confirmer(as_json))
    except AskInputError as error:
        raise InputError(str(error)) from None
    except WorkspaceError as error:
        raise InputError(str(error), code="workspace") from None
    if as_json:
        emit_json(_outcome_json(outcome, endpoint.model, endpoint.base_url, options.format.value, dry_run))
    elif outcome.run_folder:
        console().print(f"run saved in {outcome.run_folder}", style="dim", markup=False)
    sys.exit(outcome.exit_code)


def _view(as_json: bool) -> Any:
    from editblocks.ask.display import LiveView, PlainView, QuietView

    if as_json:
        return QuietView()
    out = console()
    return LiveView(out) if out.is_terminal else PlainView(out)


def _confirmer(as_json: bool) -> Any:
    def confirm(preview: ApplyResult) -> bool:
        from editblocks.report.diffs import render_diff

        while True:
            try:
                answer = click.prompt("Apply these edits? [y]es, [n]o, [d]iff", type=click.Choice(["y", "n", "d"]),
                                      show_choices=False, err=as_json)
            except click.Abort:
                return False  # no answer (end of input): nothing is written
            if answer != "d":
                return bool(answer == "y")
            out = console() if not as_json else None
            for diff in preview.diffs:
                if out is not None:
                    out.print(render_diff(diff.unified))
                else:
                    click.echo(diff.unified, err=True)

    return confirm


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
