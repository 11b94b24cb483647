"""`editblocks mcp`: serve editblocks' tools to an MCP client, inside one root fixed at launch."""

from __future__ import annotations

from typing import Any

import click

from editblocks.cli.options import apply_options, options_from
from editblocks.cli.shared import InputError, root_option, workspace_error

MISSING_EXTRA = "the MCP server needs the mcp package: pip install 'editblocks[mcp]'"


@click.command("mcp")
@root_option()
@click.option("--http", is_flag=True, help="Serve streamable HTTP on 127.0.0.1 instead of stdio.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="Port for --http.")
@apply_options()
def mcp_command(root: str | None, http: bool, port: int, **given: Any) -> None:
    """Run an MCP server whose tools edit files under --root (stdio, or --http on 127.0.0.1); the apply options
    hold for every tool call (--format is the default of apply_edits)."""
    try:
        from editblocks.mcp.server import check_port, serve
    except ImportError as error:
        if (error.name or "").split(".")[0] in ("mcp", "mcp_types", "anyio", "pydantic"):
            raise InputError(MISSING_EXTRA, code="missing-extra") from None
        raise
    from editblocks.workspace import WorkspaceError

    if given.get("known_files") == "-" and not http:
        raise InputError("--known-files - would read standard input, which the MCP server speaks over; give a file "
                         "or git", code="usage")
    options = options_from(given, root=root)
    if http:
        try:
            check_port(port)
        except OSError as error:
            raise InputError(f"cannot listen on 127.0.0.1:{port}: {error.strerror or error}", code="usage") from None
    try:
        serve(root or ".", http=http, port=port, options=options)
    except WorkspaceError as error:
        raise workspace_error(error) from None
