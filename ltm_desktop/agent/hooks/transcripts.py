"""Reading each agent's transcript file: the user's and the assistant's texts, in order.

Tolerant by design: a line that is not JSON, a record of an unknown type and a content
block of an unknown kind are skipped, never an error. Only the end of a long file is
read (the hooks want the last exchange or the tail before compaction).

Formats (JSON lines unless said):
- Claude Code: ``{"type": "user"|"assistant", "message": {"content": str | [blocks]}}``;
  text blocks are ``{"type": "text", "text": ...}``; ``isMeta`` and ``isSidechain``
  records are not the conversation.
- Codex: ``{"type": ..., "payload": {...}}``; ``event_msg`` payloads ``user_message`` and
  ``agent_message`` carry ``message``; ``response_item`` payloads of type ``message``
  carry ``role`` and ``content`` parts (``input_text``/``output_text``).
- Gemini CLI: records ``{"type": "user"|"gemini", "content": str | [{"text": ...}]}``, one
  per line, or (older versions) one JSON object with those records under ``messages``.
- generic: ``{"role": "user"|"assistant", "content": str | [blocks]}``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltm_desktop.agent.hooks.events import CLAUDE_CODE, CODEX, GEMINI

TAIL_BYTES = 2 * 1024 * 1024  # enough for the last exchanges of any session
WHOLE_JSON_BYTES = 16 * 1024 * 1024  # an older Gemini session file is one JSON object
USER = "user"
ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # "user" or "assistant"
    text: str


def _tail(path: Path) -> str:
    """The last TAIL_BYTES of ``path`` as text, from the first whole line."""
    limit = TAIL_BYTES
    with path.open("rb") as file:
        size = os.fstat(file.fileno()).st_size
        if size > limit:
            file.seek(size - limit)
            data = file.read()
            data = data[data.find(b"\n") + 1 :]
        else:
            data = file.read()
    return data.decode("utf-8", errors="replace")


def _records(text: str) -> Iterator[dict[str, Any]]:
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


def _block_text(content: object, kinds: Iterable[str] = ("text",)) -> str:
    """The text of a string, or of the text blocks of a list of content blocks."""
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    wanted = set(kinds)
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif (
            isinstance(block, dict)
            and isinstance(block.get("text"), str)
            and block.get("type", "text") in wanted
        ):
            parts.append(block["text"])
    return "\n".join(p.strip() for p in parts if p.strip())


def _claude(records: Iterable[dict[str, Any]]) -> list[Message]:
    found = []
    for record in records:
        role = record.get("type")
        message = record.get("message")
        if role not in (USER, ASSISTANT) or not isinstance(message, dict):
            continue
        if record.get("isMeta") or record.get("isSidechain"):
            continue
        text = _block_text(message.get("content"))
        if text:
            found.append(Message(role, text))
    return found


def _codex(records: Iterable[dict[str, Any]]) -> list[Message]:
    events: list[Message] = []
    items: list[Message] = []
    for record in records:
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = payload.get("type")
        if record.get("type") == "event_msg" and kind in ("user_message", "agent_message"):
            text = payload.get("message")
            if isinstance(text, str) and text.strip():
                events.append(Message(USER if kind == "user_message" else ASSISTANT, text.strip()))
        elif record.get("type") == "response_item" and kind == "message":
            role = payload.get("role")
            text = _block_text(payload.get("content"), ("input_text", "output_text", "text"))
            if role in (USER, ASSISTANT) and text:
                items.append(Message(role, text))
    return events or items  # the events are Codex's own view of the conversation


def _gemini_messages(records: Iterable[object]) -> list[Message]:
    found = []
    for record in records:
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if kind not in (USER, "gemini"):
            continue
        text = _block_text(record.get("content"))
        if text:
            found.append(Message(USER if kind == USER else ASSISTANT, text))
    return found


def _gemini(path: Path) -> list[Message]:
    if path.stat().st_size <= WHOLE_JSON_BYTES:
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None
        if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
            return _gemini_messages(whole["messages"])
        return _gemini_messages(_records(text))
    return _gemini_messages(_records(_tail(path)))


def _generic(records: Iterable[dict[str, Any]]) -> list[Message]:
    found = []
    for record in records:
        role = record.get("role")
        text = _block_text(record.get("content"))
        if role in (USER, ASSISTANT) and text:
            found.append(Message(role, text))
    return found


_JSON_LINES: dict[str, Callable[[Iterable[dict[str, Any]]], list[Message]]] = {
    CLAUDE_CODE: _claude,
    CODEX: _codex,
}


def read_messages(agent: str, path: Path) -> list[Message]:
    """The conversation in ``agent``'s transcript at ``path`` (its end, for long files).

    Raises:
        OSError: the file cannot be read.
    """
    if agent == GEMINI:
        return _gemini(path)
    reader = _JSON_LINES.get(agent, _generic)
    return reader(_records(_tail(path)))


def last_exchange(messages: list[Message]) -> tuple[str | None, str | None]:
    """The last user message and the assistant's answer after it (None where missing)."""
    answer: list[str] = []
    for message in reversed(messages):
        if message.role == USER:
            return message.text, "\n\n".join(reversed(answer)) or None
        answer.append(message.text)
    return None, "\n\n".join(reversed(answer)) or None


def tail_text(messages: list[Message], limit: int) -> str:
    """The end of the conversation as ``role: text`` lines, at most ``limit`` characters."""
    lines: list[str] = []
    used = 0
    for message in reversed(messages):
        line = f"{message.role}: {message.text}"
        if used + len(line) + 1 > limit:
            room = limit - used - 1
            if room > 40 or not lines:  # the most recent part of a long message
                lines.append(f"{message.role}: …{message.text[-max(room - 12, 1) :]}")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(reversed(lines))
