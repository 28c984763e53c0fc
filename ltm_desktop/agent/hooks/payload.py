"""Each agent's hook input (JSON on stdin), read into one shape the handlers share.

Documented fields used (anything else is ignored, so new fields never break a hook):

| agent | every event | user-prompt | stop |
|---|---|---|---|
| Claude Code | ``session_id``, ``cwd``, ``transcript_path`` | ``prompt`` | ``last_assistant_message`` |
| Codex | the same; ``transcript_path`` may be null | ``prompt`` | ``last_assistant_message`` (may be null) |
| Gemini CLI | ``session_id``, ``cwd``, ``transcript_path`` | ``prompt`` | ``prompt``, ``prompt_response`` |
| generic | ``session_id``, ``cwd``, ``transcript_path`` (optional) | ``prompt`` | ``user_text``, ``assistant_text`` |

The prompt is read without what agents wrap around the user's words (``agent.injected``):
Gemini CLI hands back the context our own hooks injected as part of it.

The generic shape is for custom harnesses: a JSON object with those keys, all optional;
its transcript, if any, is JSON lines of ``{"role": ..., "content": ...}``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltm_desktop.agent.hooks.events import GEMINI, GENERIC
from ltm_desktop.core.errors import LtmError

DEFAULT_SESSION = "default"
MAX_PAYLOAD = 16 * 1024 * 1024  # bytes of stdin read; an agent's payload is far smaller


class BadPayload(LtmError):
    """The hook's stdin is not the JSON object the agent documents."""


@dataclass(frozen=True, slots=True)
class HookInput:
    agent: str
    event: str
    session_id: str
    cwd: str
    transcript: Path | None = None
    prompt: str | None = None  # the user's message of this turn, when the payload has it
    assistant_text: str | None = None  # the assistant's answer, when the payload has it
    trigger: str | None = None  # pre-compact: "manual" or "auto" (Claude Code, Gemini CLI)


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def parse(agent: str, event: str, raw: bytes) -> HookInput:
    """The payload of ``agent``'s ``event``; raises BadPayload when it is not a JSON object
    (or more than ``MAX_PAYLOAD`` bytes: stdin was not read further)."""
    if len(raw) > MAX_PAYLOAD:
        raise BadPayload(f"stdin holds more than {MAX_PAYLOAD:,} bytes; not read further")
    try:
        data = json.loads(raw.decode("utf-8", errors="replace")) if raw.strip() else None
    except ValueError as exc:
        raise BadPayload(f"stdin is not JSON ({exc}); {len(raw)} bytes") from None
    except RecursionError:
        raise BadPayload(f"stdin is JSON nested too deep to read; {len(raw)} bytes") from None
    if not isinstance(data, dict):
        raise BadPayload(f"stdin is not a JSON object but {type(data).__name__}")
    cwd = _text(data, "cwd") or os.getcwd()
    if not os.path.isabs(cwd):
        raise BadPayload(f"cwd must be an absolute path; got {cwd!r}")
    transcript = _text(data, "transcript_path")
    prompt = _text(data, "prompt")
    if agent == GEMINI:
        answer = _text(data, "prompt_response")
    elif agent == GENERIC:
        answer = _text(data, "assistant_text")
        prompt = prompt or _text(data, "user_text")
    else:
        answer = _text(data, "last_assistant_message")
    if prompt is not None:
        from ltm_desktop.agent.injected import strip_injected  # its patterns: prompts only

        prompt = strip_injected(prompt) or None
    return HookInput(
        agent=agent,
        event=event,
        session_id=(_text(data, "session_id") or "").strip() or DEFAULT_SESSION,
        cwd=cwd,
        transcript=Path(transcript).expanduser() if transcript else None,
        prompt=prompt,
        assistant_text=answer,
        trigger=_text(data, "trigger"),
    )
