"""The pre-compaction extractor: what a model finds worth remembering in a conversation.

``ltm_desktop.agent.transcripts`` reads an agent's transcript (as the hooks do), ``prompt``
bounds and redacts the text and words the request, ``generator`` sends it to an OpenAI-compatible chat endpoint (httpx2,
the client the MCP SDK brings in; no vendor SDK), ``reply`` finds the JSON array in the
answer, ``runner`` runs one extraction and records it (never raising), and ``worker``
runs them in the background of the app or ``serve``. Entries are judged by the core
(``core.extraction``): nothing here decides what is stored. No Qt, no MCP SDK.
"""
