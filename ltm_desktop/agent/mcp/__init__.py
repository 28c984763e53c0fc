"""The memory tools as an MCP server: the SDK server, its stdin, the warm start through a
running app, and the cold start's memory opened by a forked process (``forked``)."""
