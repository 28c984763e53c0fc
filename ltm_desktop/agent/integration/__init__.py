"""``ltm-desktop integrate``: registering the hooks and the MCP server in agents' own config files."""
