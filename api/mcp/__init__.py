"""Vintage as an MCP server (the official MCP Python SDK): ``server`` builds it for one key,
``tools`` holds its tools. ``vintage mcp`` runs it (``vintage.cli.mcp``)."""
