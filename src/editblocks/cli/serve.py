"""`editblocks serve` (and `apply --review`): the review page for an answer, or, with none, the workbench.

With an answer the page reviews it; without one it is the workbench, which
asks the model itself, with the same model settings (options, config keys,
variables) as `editblocks ask`. Either serves on 127.0.0.1 until Ctrl-C.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

import click

from editblocks.cli.model_options import api_key, model_options
from editblocks.cli.options import apply_options, options_from
from editblocks.cli.read import read_response
from editblocks.cli.shared import InputError, max_bytes_option, root_option, workspace_error

if TYPE_CHECKING:
    from editblocks.service.options import ApplyOptions
    from editblocks.web.chat import ModelSettings
    from editblocks.web.server import LocalServer

WEB_MODULES = ("starlette", "uvicorn", "jinja2", "markdown_it", "pathspec")


def require_web() -> None:
    """Stop with one line naming the extra when the page's libraries are not installed."""
    missing = [name for name in WEB_MODULES if find_spec(name) is None]
    if missing:
        from editblocks.extras import install_command

        raise InputError(f"the review page needs {', '.join(missing)}: {install_command('web')}", code="usage")


def review(text: str | None, root: str, *, port: int, options: ApplyOptions) -> None:
    """Serve the page (on ``text`` when given) and print its address; return when Ctrl-C stops it."""
    require_web()
    from editblocks.web import ReviewServer, ReviewState
    from editblocks.workspace import WorkspaceError

    try:
        session = ReviewState(root, options=options)
    except WorkspaceError as error:
        raise workspace_error(error) from None
    if text is not None:
        session.load(text)
    _serve(lambda: ReviewServer(session, port=port), "review page", port)


def workbench(root: str, settings: ModelSettings, *, port: int, options: ApplyOptions) -> None:
    """Serve the workbench for the project under ``root``, applying as ``options`` say (their format is the one
    it asks for, `diff` for `auto`); return when Ctrl-C stops it."""
    require_web()
    from editblocks.web.workbench import Workbench
    from editblocks.web.workbench_app import WorkbenchServer
    from editblocks.workspace import WorkspaceError

    try:
        bench = Workbench(root, settings, options=options)
    except WorkspaceError as error:
        raise workspace_error(error) from None
    if settings.problem:
        click.echo(f"note: {settings.problem}; the workbench opens, but cannot ask until then", err=True)
    _serve(lambda: WorkbenchServer(bench, port=port), "workbench", port)


def _serve(make: Any, what: str, port: int) -> None:
    try:
        server: LocalServer = make()
    except OSError as error:
        raise InputError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}", code="usage") from None
    with server:
        click.echo(f"{what}: {server.url}")
        click.echo("(open it in a browser; Ctrl-C stops the server)", err=True)
        try:
            server.wait()
        except KeyboardInterrupt:
            click.echo("stopped", err=True)


@click.command("serve")
@click.argument("response", required=False)
@root_option()
@apply_options()
@click.option("--port", type=click.IntRange(min=0, max=65535), default=0, show_default=True,
              help="Port on 127.0.0.1 (0: any free port).")
@max_bytes_option()
@model_options("The workbench: feedback rounds it asks for on its own after failed blocks.")
@click.option("--editor", is_flag=True, help="The workbench: the editor variant of the prompt (edits only).")
def serve_command(response: str | None, root: str | None, port: int, max_bytes: int, model: str | None,
                  base_url: str | None, api_key_env: str, retries: int, timeout: float, backoff: float,
                  max_file_bytes: int, editor: bool, **given: Any) -> None:
    """Serve the review page for RESPONSE (a file or -) on 127.0.0.1, or with none the workbench, which asks the
    model itself (--model, --base-url and the key as for `editblocks ask`); print its address."""
    require_web()
    options = options_from(given, root=root, response=response)
    if response is not None:
        review(read_response(response, max_bytes), root or ".", port=port, options=options)
        return
    from editblocks.prompts import PROMPT_FORMATS
    from editblocks.web.chat import ModelSettings

    if options.format.value != "auto" and options.format.value not in PROMPT_FORMATS:
        raise InputError(f"the workbench asks the model for one of {', '.join(PROMPT_FORMATS)}, not "
                         f"{options.format.value}", code="usage")
    base_url = base_url or None
    settings = ModelSettings(model or None, base_url, api_key(api_key_env, base_url), timeout=timeout,
                             backoff=backoff, retries=retries, max_file_bytes=max_file_bytes, editor=editor)
    workbench(root or ".", settings, port=port, options=options)
