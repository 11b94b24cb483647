"""`editblocks mcp`: serve editblocks' tools to an MCP client, inside one root fixed at launch."""

from __future__ import annotations

import os
from typing import Any

import click

from editblocks.cli.options import apply_options, options_from
from editblocks.cli.shared import InputError, root_option, workspace_error


@click.command("mcp")
@root_option()
@click.option("--http", is_flag=True,
              help="Serve streamable HTTP on 127.0.0.1 instead of stdio, behind a token printed at start (or the "
                   "one in EDITBLOCKS_MCP_TOKEN): clients send `Authorization: Bearer <token>`.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="Port for --http.")
@apply_options()
@click.option("--undo-any-run", is_flag=True,
              help="Let the undo tool take back the newest run whoever made it (by default it undoes only the "
                   "edits made through this server, never your own `editblocks apply`).")
@click.option("--stale-reads/--no-stale-reads", default=True, show_default=True,
              help="Refuse an edit of a file that changed on disk since the model last viewed or edited it, "
                   "showing the file's current lines where the edit aims (view replies give each file's version).")
def mcp_command(root: str | None, http: bool, port: int, undo_any_run: bool, stale_reads: bool,
                **given: Any) -> None:
    """Run an MCP server whose tools edit files under --root (stdio, or --http on 127.0.0.1 behind a token); the
    apply options hold for every tool call (--format is the default of apply_edits)."""
    if root is None:
        _refuse_a_root_nobody_chose()
    try:
        from editblocks.mcp.gate import TOKEN_ENV, BadToken, checked_token, new_token
        from editblocks.mcp.server import build_server, listen, serve_http, serve_stdio
    except ImportError as error:
        if (error.name or "").split(".")[0] in ("mcp", "mcp_types", "anyio", "pydantic", "starlette", "uvicorn"):
            from editblocks.extras import install_command

            raise InputError(f"the MCP server needs the mcp package: {install_command('mcp')}",
                             code="missing-extra") from None
        raise
    from editblocks.workspace import WorkspaceError

    if given.get("known_files") == "-" and not http:
        raise InputError("--known-files - would read standard input, which the MCP server speaks over; give a file "
                         "or git", code="usage")
    options: dict[str, Any] = {"options": options_from(given, root=root), "undo_any_run": undo_any_run,
                               "stale_reads": stale_reads}
    try:
        if not http:
            serve_stdio(root or ".", **options)
            return
        own = os.environ.get(TOKEN_ENV)
        try:
            token = checked_token(own) if own is not None else new_token()
        except BadToken as error:
            raise InputError(str(error), code="usage") from None
        server = build_server(root or ".", **options)
    except WorkspaceError as error:
        raise workspace_error(error) from None
    try:
        sock = listen(port)
    except OSError as error:
        raise InputError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}", code="usage") from None
    address = f"http://127.0.0.1:{port}"
    click.echo(f"MCP endpoint: {address}/mcp")
    click.echo(f"MCP token: {token} (send it as `Authorization: Bearer {token}`, or use {address}/{token}/mcp)")
    click.echo("(Ctrl-C stops the server)", err=True)
    try:
        serve_http(server, sock, token)
    finally:
        sock.close()


def _refuse_a_root_nobody_chose() -> None:
    """Without --root the server edits the folder it was started in; a client that starts it from `/` or the home
    folder (as desktop apps do) would hand the model the whole disk or every project at once."""
    here = os.path.realpath(os.getcwd())
    if here in (os.path.realpath(os.sep), os.path.realpath(os.path.expanduser("~"))):
        raise InputError(f"no --root, and the server was started in {here}, which is no project: pass --root with "
                         "the project's folder (an absolute path in the client's configuration)", code="usage")
