"""`editblocks serve` (and `apply --review`): the review page for an answer, on 127.0.0.1, until Ctrl-C."""

from __future__ import annotations

from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

import click

from editblocks.cli.options import apply_options, options_from
from editblocks.cli.read import read_response
from editblocks.cli.shared import InputError, max_bytes_option, root_option, workspace_error

if TYPE_CHECKING:
    from editblocks.service.options import ApplyOptions

WEB_MODULES = ("starlette", "uvicorn", "jinja2")


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
    try:
        server = ReviewServer(session, port=port)
    except OSError as error:
        raise InputError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}", code="usage") from None
    with server:
        click.echo(f"review page: {server.url}")
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
def serve_command(response: str | None, root: str | None, port: int, max_bytes: int, **given: Any) -> None:
    """Serve the review page on 127.0.0.1 (for RESPONSE, a file or -, when given) and print its address."""
    require_web()
    options = options_from(given, root=root, response=response)
    text = read_response(response, max_bytes) if response is not None else None
    review(text, root or ".", port=port, options=options)
