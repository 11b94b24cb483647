"""`editblocks mcp`: serve editblocks' tools to an MCP client, inside one root fixed at launch."""

from __future__ import annotations

import click

from editblocks.cli.shared import InputError, root_option, workspace_error


@click.command("mcp")
@root_option()
@click.option("--http", is_flag=True, help="Serve streamable HTTP on 127.0.0.1 instead of stdio.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="Port for --http.")
@click.option("--fuzzy", is_flag=True, help="Let apply_edits and apply_patch use the fuzzy rung.")
@click.option("--git-add", is_flag=True, help="Stage every file a tool writes.")
def mcp_command(root: str | None, http: bool, port: int, fuzzy: bool, git_add: bool) -> None:
    """Run an MCP server whose tools edit files under --root (stdio, or --http on 127.0.0.1)."""
    try:
        from editblocks.mcp.server import check_port, serve
    except ImportError as error:
        if (error.name or "").split(".")[0] in ("mcp", "mcp_types", "anyio", "pydantic"):
            from editblocks.extras import install_command

            raise InputError(f"the MCP server needs the mcp package: {install_command('mcp')}",
                             code="missing-extra") from None
        raise
    from editblocks.workspace import WorkspaceError

    if http:
        try:
            check_port(port)
        except OSError as error:
            raise InputError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}", code="usage") from None
    try:
        serve(root or ".", http=http, port=port, fuzzy=fuzzy, git_add=git_add)
    except WorkspaceError as error:
        raise workspace_error(error) from None
