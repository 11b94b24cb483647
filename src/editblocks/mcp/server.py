"""The MCP server: the tools of `editblocks.tools` over the Model Context Protocol, for one fixed root.

The root is chosen by whoever starts the server, never by the model: no tool
takes a root, and every path a tool receives is resolved inside it (or
refused). Each tool runs through `ToolHandler`, so a result is the text a model
can act on; a failed one is marked as an error and carries the feedback
message, and every result also carries structured content (`results`). The
tools are listed with editblocks' own schemas, titles and hints (`tools.hints`);
the prompts are the system prompts of every format; the resource lists the
formats.

Over HTTP the server listens on 127.0.0.1 only, behind `SecretGate` (a
request without the server's token is refused before any tool runs) and the
SDK's Host and Origin checks (a web page that rebinds its own name to
127.0.0.1 gets nothing).
"""

from __future__ import annotations

import json
import os
import socket
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Final, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations

from editblocks.mcp.gate import SecretGate
from editblocks.mcp.results import OUTPUT_SCHEMA, structured
from editblocks.parsing.catalog import CATALOG
from editblocks.prompts import PROMPT_FORMATS, system_prompt
from editblocks.service.options import ApplyOptions
from editblocks.service.tool_handler import ToolHandler
from editblocks.tools.definitions import ToolSpec, tool_specs
from editblocks.tools.hints import tool_hints

SERVER_NAME = "editblocks"
HOST = "127.0.0.1"
ENDPOINT_PATH = "/mcp"
FORMATS_URI = "editblocks://formats"
LOG_LEVEL: Final[Literal["WARNING"]] = "WARNING"
"""The SDK's INFO lines (one per request) would bury editblocks' own messages on stderr."""


DOOR = "this MCP server"
UNDO_HINT = "start the server with --undo-any-run to let it take back any run"


class EditblocksServer(MCPServer):
    """An MCP server whose tools are `ToolHandler`'s, described by editblocks' own definitions.

    The SDK would build each tool's input schema from a Python signature and
    validate the arguments itself, answering a mistyped one with its own
    validation dump; here the schemas are the tools' definitions (the same the
    vendors' APIs get: `command` an enum, no `anyOf`) and every argument goes
    to `ToolHandler`, whose one-line errors say what to send instead.
    """

    def __init__(self, handler: ToolHandler, **settings: Any) -> None:
        super().__init__(**settings)
        self.handler = handler
        self._listed = [_listing(spec) for spec in tool_specs()]

    async def list_tools(self) -> list[Tool]:
        return list(self._listed)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        reply = await anyio.to_thread.run_sync(self.handler.call, name, arguments)
        return CallToolResult(content=[TextContent(type="text", text=reply.text)], structured_content=structured(reply),
                              is_error=not reply.ok)


def build_server(root: str | os.PathLike[str], *, options: ApplyOptions | None = None, fuzzy: bool | None = None,
                 git_add: bool | None = None, undo_any_run: bool = False, stale_reads: bool = True) -> MCPServer:
    """An MCP server whose tools edit files under ``root`` only, applying as ``options`` say (``fuzzy`` and
    ``git_add`` are the older spelling of two of them); its `undo` takes back only its own edits unless
    ``undo_any_run``; with ``stale_reads`` (the default) an edit of a file changed since the model viewed it is
    refused (see `ToolHandler`)."""
    handler = ToolHandler(root, options=options, fuzzy=fuzzy, git_add=git_add, undo_any_run=undo_any_run, door=DOOR,
                          undo_hint=UNDO_HINT, stale_reads=stale_reads)
    server = EditblocksServer(handler, name=SERVER_NAME, title="editblocks", version=package_version(),
                              log_level=LOG_LEVEL, instructions=(
        f"Edits files of one project (its root is fixed: {handler.root}). Paths are relative to that root. "
        "Use view to read files, edit (or multi_edit, several edits to one file at once) to replace text, "
        "str_replace_based_edit_tool for Anthropic's text editor commands, apply_patch for V4A patches, "
        "apply_edits for edit blocks in any format, check_edits to try them without writing, and undo to take "
        "back the last edit made through this server. An edit of a file that changed since you last viewed it is "
        "refused with its current lines: view it again."))

    for fmt in PROMPT_FORMATS:
        _add_prompt(server, fmt)

    @server.resource(FORMATS_URI, name="formats", description="The edit formats editblocks reads, with an example "
                     "of each.", mime_type="application/json")
    def formats() -> str:
        return json.dumps([{"format": info.format.value, "summary": info.summary, "example": info.example}
                           for info in CATALOG], indent=2)

    return server


def package_version() -> str:
    """The installed editblocks' version, as the server reports it to clients."""
    try:
        return version("editblocks")
    except PackageNotFoundError:
        return "unknown"


def _listing(spec: ToolSpec) -> Tool:
    hints = tool_hints(spec.name)
    return Tool(name=spec.name, title=hints.title, description=spec.description, input_schema=spec.parameters,
                output_schema=OUTPUT_SCHEMA, annotations=ToolAnnotations(
                    title=hints.title, read_only_hint=hints.read_only, destructive_hint=hints.destructive,
                    idempotent_hint=hints.idempotent, open_world_hint=False))


def _add_prompt(server: MCPServer, fmt: str) -> None:
    def prompt() -> str:
        return system_prompt(fmt)

    server.prompt(name=fmt, description=f"The system prompt that teaches a model the `{fmt}` edit format.")(prompt)


def listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port``; `OSError` now if it cannot be had, before anything is printed.
    Bound with address reuse on, as uvicorn binds, so a port left in TIME_WAIT is not refused."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def http_app(server: MCPServer, token: str) -> SecretGate:
    """The streamable HTTP application of ``server`` behind the token gate, with DNS-rebinding protection on."""
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{HOST}:*", "localhost:*"],
        allowed_origins=[f"http://{HOST}:*", "http://localhost:*"],
    )
    return SecretGate(server.streamable_http_app(streamable_http_path=ENDPOINT_PATH, transport_security=security,
                                                 host=HOST), token)


def serve_stdio(root: str | os.PathLike[str], *, options: ApplyOptions | None = None, undo_any_run: bool = False,
                stale_reads: bool = True) -> None:
    """Run the server over stdio until the client closes it."""
    build_server(root, options=options, undo_any_run=undo_any_run, stale_reads=stale_reads).run("stdio")


def serve_http(server: MCPServer, sock: socket.socket, token: str) -> None:
    """Serve ``server`` over streamable HTTP on the listening ``sock``, behind ``token``, until stopped."""
    import uvicorn

    config = uvicorn.Config(http_app(server, token), log_level=LOG_LEVEL.lower(), access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
