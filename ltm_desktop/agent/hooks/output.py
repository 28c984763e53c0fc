"""What each agent expects on stdout, with context to add or without.

- Claude Code: ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}``
  for SessionStart and UserPromptSubmit; nothing at all otherwise (exit 0 with an empty
  stdout is success for every event).
- Codex: validates every stdout strictly against the event's schema (no unknown keys):
  the same object where context is added, otherwise ``{}``, which is valid for every event.
- Gemini CLI: parses stdout as JSON: ``hookSpecificOutput.additionalContext`` for
  SessionStart and BeforeAgent, otherwise ``{}``.
- generic: ``{"additionalContext": ...}`` or ``{}``.
"""

from __future__ import annotations

import json

from ltm_desktop.agent.hooks.events import CLAUDE_CODE, GENERIC, NATIVE, SESSION_START, USER_PROMPT

CONTEXT_EVENTS = (SESSION_START, USER_PROMPT)


def render(agent: str, event: str, context: str | None = None) -> str:
    """The stdout text for ``agent``'s ``event`` ("" when the agent wants nothing)."""
    if context and event in CONTEXT_EVENTS:
        if agent == GENERIC:
            return json.dumps({"additionalContext": context}, ensure_ascii=False)
        native = NATIVE.get(agent, {}).get(event)
        if native is not None:
            output = {"hookEventName": native, "additionalContext": context}
            return json.dumps({"hookSpecificOutput": output}, ensure_ascii=False)
    return empty(agent)


def empty(agent: str) -> str:
    """The valid "nothing to add" result: nothing for Claude Code, ``{}`` for the others."""
    return "" if agent == CLAUDE_CODE else "{}"
