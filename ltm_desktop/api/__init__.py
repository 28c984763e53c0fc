"""The agent API: a local JSON-RPC 2.0 socket server, its protocol, and a client (no Qt)."""

PROTOCOL_VERSION = 1
