"""The MCP server (`editblocks mcp`): editblocks' tools, prompts and formats for any MCP client.

Needs the `[mcp]` extra (the official `mcp` SDK); `editblocks.mcp.server` imports it.
"""
