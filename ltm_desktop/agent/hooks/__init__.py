"""``ltm-desktop hook AGENT EVENT``: the agents' command hooks.

One module per job: ``events`` (names), ``payload`` (each agent's stdin), ``output`` (each
agent's stdout), ``session_state`` (turn
counts in the runtime dir), ``hook_log`` (the log file), ``handlers`` (what each event
does with the memory, shared by every agent) and ``runner`` (the edge that never fails).
Transcript files are read by ``ltm_desktop.agent.transcripts``, as the extractor reads them.
Nothing here imports Qt, the MCP SDK or pydantic: an agent starts a hook per event.
"""
