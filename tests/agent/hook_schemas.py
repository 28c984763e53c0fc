"""Each agent's hook output schema, written from its documentation, to check our stdout.

- Claude Code: https://code.claude.com/docs/en/hooks ("JSON output": continue, stopReason,
  suppressOutput, systemMessage; decision/reason; hookSpecificOutput with hookEventName and,
  for SessionStart and UserPromptSubmit, additionalContext). An empty stdout is success.
- Codex: https://developers.openai.com/codex/hooks and its generated output schemas
  (https://github.com/openai/codex/tree/main/codex-rs/hooks/schema/generated): strict, no
  unknown keys at any level; an empty stdout is not a result.
- Gemini CLI: https://geminicli.com/docs/hooks/reference ("stdout is parsed as JSON";
  common output fields; hookSpecificOutput.additionalContext for SessionStart, BeforeAgent).
- generic: ltm-desktop's own (README): ``{"additionalContext": string}`` or ``{}``.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

UNIVERSAL = {
    "continue": {"type": "boolean"},
    "stopReason": {"type": ["string", "null"]},
    "suppressOutput": {"type": "boolean"},
    "systemMessage": {"type": ["string", "null"]},
}
DECISION = {
    "decision": {"anyOf": [{"enum": ["block"]}, {"type": "null"}]},
    "reason": {"type": ["string", "null"]},
}
CODEX_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "pre-compact": "PreCompact",
    "stop": "Stop",
}
CONTEXT_EVENTS = {"session-start", "user-prompt"}


def _specific(event_name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["hookEventName"],
        "properties": {
            "hookEventName": {"const": event_name},
            "additionalContext": {"type": ["string", "null"]},
        },
    }


def codex_schema(event: str) -> dict[str, Any]:
    properties: dict[str, Any] = dict(UNIVERSAL)
    if event in ("user-prompt", "stop"):
        properties.update(DECISION)
    if event in CONTEXT_EVENTS:
        properties["hookSpecificOutput"] = _specific(CODEX_EVENTS[event])
    return {"type": "object", "additionalProperties": False, "properties": properties}


CLAUDE_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "UserPromptSubmit",
    "pre-compact": "PreCompact",
    "stop": "Stop",
    "session-end": "SessionEnd",
}
GEMINI_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt": "BeforeAgent",
    "pre-compact": "PreCompress",
    "stop": "AfterAgent",
    "session-end": "SessionEnd",
}


def _open_schema(event_name: str, event: str) -> dict[str, Any]:
    properties: dict[str, Any] = {**UNIVERSAL, "decision": {"type": "string"}}
    properties["reason"] = {"type": "string"}
    if event in CONTEXT_EVENTS:
        properties["hookSpecificOutput"] = _specific(event_name)
    return {"type": "object", "properties": properties}


def check_output(agent: str, event: str, stdout: str) -> dict[str, Any]:
    """The parsed result (``{}`` for an empty stdout where the agent accepts one); raises
    AssertionError or jsonschema.ValidationError when the agent would reject it."""
    assert stdout.count("\n") <= 1, f"more than one line on stdout: {stdout!r}"
    if agent == "claude-code" and not stdout.strip():
        return {}
    assert stdout.strip(), f"{agent} needs a JSON object on stdout, got nothing"
    result = json.loads(stdout)
    assert isinstance(result, dict)
    if agent == "codex":
        schema = codex_schema(event)
    elif agent == "claude-code":
        schema = _open_schema(CLAUDE_EVENTS[event], event)
    elif agent == "gemini":
        schema = _open_schema(GEMINI_EVENTS[event], event)
    else:
        schema = {
            "type": "object",
            "additionalProperties": False,
            "properties": {"additionalContext": {"type": "string"}},
        }
    jsonschema.validate(result, schema)
    return result


def context_of(agent: str, result: dict[str, Any]) -> str | None:
    if agent == "generic":
        return result.get("additionalContext")
    specific = result.get("hookSpecificOutput") or {}
    return specific.get("additionalContext")
