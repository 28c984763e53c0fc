"""The memory tools as an MCP server: the SDK server, its stdin, and the warm start through a running app."""
