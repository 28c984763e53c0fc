"""What agents see of their memory: tools, the access behind them, and an MCP server.

One catalogue (``catalogue``) defines the tools; ``toolbox`` runs them for Python
harnesses, ``formats`` exports them for agent frameworks, ``mcp_server`` serves them
over MCP (the only module that imports the MCP SDK). Nothing here imports Qt.
"""
