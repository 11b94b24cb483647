"""The MCP server: the tools of `editblocks.tools` over the Model Context Protocol, for one fixed root.

The root is chosen by whoever starts the server, never by the model: no tool
takes a root, and every path a tool receives is resolved inside it (or
refused). Each tool runs through `ToolHandler`, so a result is the text a model
can act on; a failed one is marked as an error and carries the feedback
message. The prompts are the system prompts of every format; the resource
lists the formats.

Over HTTP the server listens on 127.0.0.1 only, behind `SecretGate` (a
request without the server's token is refused before any tool runs) and the
SDK's Host and Origin checks (a web page that rebinds its own name to
127.0.0.1 gets nothing).
"""

from __future__ import annotations

import json
import os
import socket
from typing import Annotated, Any, Final, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent
from pydantic import Field

from editblocks.mcp.gate import SecretGate
from editblocks.parsing.catalog import CATALOG
from editblocks.prompts import PROMPT_FORMATS, system_prompt
from editblocks.service.options import ApplyOptions
from editblocks.service.tool_handler import ToolHandler
from editblocks.tools.definitions import APPLY_EDITS, APPLY_PATCH, CHECK_EDITS, TEXT_EDITOR, UNDO, tool_specs

SERVER_NAME = "editblocks"
HOST = "127.0.0.1"
ENDPOINT_PATH = "/mcp"
FORMATS_URI = "editblocks://formats"
LOG_LEVEL: Final[Literal["WARNING"]] = "WARNING"
"""The SDK's INFO lines (one per request) would bury editblocks' own messages on stderr."""


DOOR = "this MCP server"
UNDO_HINT = "start the server with --undo-any-run to let it take back any run"


def build_server(root: str | os.PathLike[str], *, options: ApplyOptions | None = None, fuzzy: bool | None = None,
                 git_add: bool | None = None, undo_any_run: bool = False) -> MCPServer:
    """An MCP server whose tools edit files under ``root`` only, applying as ``options`` say (``fuzzy`` and
    ``git_add`` are the older spelling of two of them); its `undo` takes back only its own edits unless
    ``undo_any_run``."""
    handler = ToolHandler(root, options=options, fuzzy=fuzzy, git_add=git_add, undo_any_run=undo_any_run, door=DOOR,
                          undo_hint=UNDO_HINT)
    descriptions = {spec.name: spec.description for spec in tool_specs()}
    server: MCPServer = MCPServer(SERVER_NAME, log_level=LOG_LEVEL, instructions=(
        f"Edits files of one project (its root is fixed: {handler.root}). Paths are relative to that root. "
        "Use str_replace_based_edit_tool to view and edit files, apply_patch for V4A patches, apply_edits for "
        "edit blocks in any format, check_edits to try them without writing, and undo to take back the last edit "
        "made through this server."))

    async def run(name: str, arguments: dict[str, Any]) -> CallToolResult:
        given = {key: value for key, value in arguments.items() if value is not None}
        reply = await anyio.to_thread.run_sync(handler.call, name, given)
        return CallToolResult(content=[TextContent(type="text", text=reply.text)], is_error=not reply.ok)

    @server.tool(name=TEXT_EDITOR, description=descriptions[TEXT_EDITOR])
    async def text_editor(
        command: Annotated[str, _about(TEXT_EDITOR, "command")],
        path: Annotated[str, _about(TEXT_EDITOR, "path")],
        view_range: Annotated[list[int] | None, _about(TEXT_EDITOR, "view_range")] = None,
        file_text: Annotated[str | None, _about(TEXT_EDITOR, "file_text")] = None,
        old_str: Annotated[str | None, _about(TEXT_EDITOR, "old_str")] = None,
        new_str: Annotated[str | None, _about(TEXT_EDITOR, "new_str")] = None,
        insert_line: Annotated[int | None, _about(TEXT_EDITOR, "insert_line")] = None,
    ) -> CallToolResult:
        return await run(TEXT_EDITOR, {"command": command, "path": path, "view_range": view_range,
                                       "file_text": file_text, "old_str": old_str, "new_str": new_str,
                                       "insert_line": insert_line})

    @server.tool(name=APPLY_PATCH, description=descriptions[APPLY_PATCH])
    async def apply_patch(input: Annotated[str, _about(APPLY_PATCH, "input")]) -> CallToolResult:
        return await run(APPLY_PATCH, {"input": input})

    @server.tool(name=APPLY_EDITS, description=descriptions[APPLY_EDITS])
    async def apply_edits(edits: Annotated[str, _about(APPLY_EDITS, "edits")],
                          format: Annotated[str, _about(APPLY_EDITS, "format")] = "auto") -> CallToolResult:
        return await run(APPLY_EDITS, {"edits": edits, "format": format})

    @server.tool(name=CHECK_EDITS, description=descriptions[CHECK_EDITS])
    async def check_edits(edits: Annotated[str, _about(CHECK_EDITS, "edits")],
                          format: Annotated[str, _about(CHECK_EDITS, "format")] = "auto") -> CallToolResult:
        return await run(CHECK_EDITS, {"edits": edits, "format": format})

    @server.tool(name=UNDO, description=descriptions[UNDO])
    async def undo() -> CallToolResult:
        return await run(UNDO, {})

    for fmt in PROMPT_FORMATS:
        _add_prompt(server, fmt)

    @server.resource(FORMATS_URI, name="formats", description="The edit formats editblocks reads, with an example "
                     "of each.", mime_type="application/json")
    def formats() -> str:
        return json.dumps([{"format": info.format.value, "summary": info.summary, "example": info.example}
                           for info in CATALOG], indent=2)

    return server


def _about(tool: str, argument: str) -> Any:
    """The argument's description (and allowed values) from the tool's own definition, for the MCP schema."""
    schema = next(spec for spec in tool_specs([tool])).parameters["properties"][argument]
    allowed = schema.get("enum")
    text = schema.get("description", "")
    if allowed:
        text = (text + " " if text else "") + "One of: " + ", ".join(allowed) + "."
    return Field(description=text)


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


def serve_stdio(root: str | os.PathLike[str], *, options: ApplyOptions | None = None,
                undo_any_run: bool = False) -> None:
    """Run the server over stdio until the client closes it."""
    build_server(root, options=options, undo_any_run=undo_any_run).run("stdio")


def serve_http(server: MCPServer, sock: socket.socket, token: str) -> None:
    """Serve ``server`` over streamable HTTP on the listening ``sock``, behind ``token``, until stopped."""
    import uvicorn

    config = uvicorn.Config(http_app(server, token), log_level=LOG_LEVEL.lower(), access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
