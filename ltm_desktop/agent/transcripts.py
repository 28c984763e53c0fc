"""Reading the conversation out of an agent's transcript: what the user and the assistant
wrote, in order. The hooks (the last exchange, the tail before compaction) and the
extractor (the conversation to propose memories from) read through this one module, so
both see the same conversation.

What the user "wrote" excludes what agents and our hooks wrap around it
(``agent.injected``: Gemini's ``<hook_context>``, Codex's ``<environment_context>``,
Claude Code's slash-command output); a user message of nothing else is no message.

Tolerant by design: a line that is not JSON (or nested too deep to decode) is skipped and
counted, a record of an unknown type (or one whose type or role is not a string) and a
content block of an unknown kind are skipped, never an error. Only the end of a long
file is read, and never more than that even from a file that grows meanwhile; anything
but a regular file (a FIFO, /dev/zero, a directory) is refused, without waiting.

Formats (JSON lines unless said):
- Claude Code: ``{"type": "user"|"assistant", "message": {"content": str | [blocks]}}``;
  text blocks are ``{"type": "text", "text": ...}``; ``isMeta`` records (command
  caveats, hook output), ``isSidechain`` ones (a subagent's work), ``isCompactSummary``
  ones (the summary that continues a compacted session) and ``isApiErrorMessage`` ones
  ("Not logged in", an API error shown as the assistant's answer) are not the
  conversation.
- Codex: ``{"type": ..., "payload": {...}}``; ``event_msg`` payloads ``user_message`` and
  ``agent_message`` (before 0.171), or ``item_completed`` with an item of type
  ``UserMessage`` / ``AgentMessage`` (0.171), carry what the user typed and what the
  agent answered;
  ``response_item`` payloads of type ``message`` carry ``role`` and ``content`` parts,
  but also the instructions and environment Codex injects as user messages, so they
  are read only when a rollout has no events.
- Gemini CLI: records ``{"type": "user"|"gemini", "content": str | [{"text": ...}]}``, one
  per line, or (older versions) one JSON object with those records under ``messages``;
  the API's ``{"role": "user"|"model", "parts": [...]}`` is read too.
- anything else (``generic``): ``{"role": "user"|"assistant", "content": ...}``, read
  leniently (``human``/``model``/``ai`` roles, a ``message`` or ``payload`` wrapper).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ltm_desktop.agent.hooks.events import CLAUDE_CODE, CODEX, GEMINI
from ltm_desktop.agent.injected import strip_injected
from ltm_desktop.core.files.regular_files import open_regular

TAIL_BYTES = 2 * 1024 * 1024  # enough for the last exchanges of any session
WHOLE_JSON_BYTES = 16 * 1024 * 1024  # an older Gemini session file is one JSON object
HEAD_BYTES = 256 * 1024  # where the agent and the working directory are recorded
USER = "user"
ASSISTANT = "assistant"
USER_ROLES = frozenset({USER, "human"})
ASSISTANT_ROLES = frozenset({ASSISTANT, "model", "gemini", "ai"})
TEXT_PARTS = frozenset({"text", "input_text", "output_text"})
CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
CLAUDE_NOT_CONVERSATION = ("isMeta", "isSidechain", "isCompactSummary", "isApiErrorMessage")
AGENT_NAMES = {  # the names hooks, the extract command and sniffing use for each format
    CLAUDE_CODE: CLAUDE_CODE,
    CODEX: CODEX,
    GEMINI: GEMINI,
    "gemini-cli": GEMINI,
}


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # "user" or "assistant"
    text: str


def _message(role: object, text: object) -> Message | None:
    """The message, without what was wrapped around a user's words; None when empty."""
    if not isinstance(role, str) or not isinstance(text, str):
        return None
    text = strip_injected(text) if role == USER else text.strip()
    return Message(role, text) if text else None


@dataclass(frozen=True, slots=True)
class Conversation:
    messages: tuple[Message, ...] = ()
    broken_lines: int = 0  # lines that were not JSON (a line being written, a cut file)


@dataclass(slots=True)
class _Lines:
    """A transcript's JSON-lines records, counting the lines that are not JSON."""

    text: str
    broken: int = field(default=0, init=False)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for line in self.text.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested too deep
                self.broken += 1
                continue
            if isinstance(record, dict):
                yield record


def _open(path: Path) -> BinaryIO:
    """``path`` to read, if it is a regular file (OSError otherwise)."""
    return os.fdopen(open_regular(path), "rb")


def _tail(path: Path, limit: int) -> str:
    """The last ``limit`` bytes of ``path`` as text, from the first whole line."""
    with _open(path) as file:
        return _end(file, limit)


def _end(file: BinaryIO, limit: int) -> str:
    """The last ``limit`` bytes of ``file`` as text, from the first whole line when cut.

    At most ``limit + 1`` bytes are read: a file that grew past its size at ``fstat``
    (or is endless) is cut like a long one.
    """
    size = os.fstat(file.fileno()).st_size
    if size > limit:
        file.seek(size - limit)
    data = file.read(limit + 1)
    if size > limit or len(data) > limit:
        data = data[len(data) - limit :]
        data = data[data.find(b"\n") + 1 :]
    return data.decode("utf-8", errors="replace")


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
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            kind = block.get("type", "text")
            if isinstance(kind, str) and kind in wanted:
                parts.append(block["text"])
    return "\n".join(p.strip() for p in parts if p.strip())


def _claude(records: Iterable[dict[str, Any]]) -> list[Message]:
    found = []
    for record in records:
        role = record.get("type")
        message = record.get("message")
        if role not in (USER, ASSISTANT) or not isinstance(message, dict):
            continue
        if any(record.get(flag) for flag in CLAUDE_NOT_CONVERSATION):
            continue
        said = _message(role, _block_text(message.get("content")))
        if said is not None:
            found.append(said)
    return found


def _codex(records: Iterable[dict[str, Any]]) -> list[Message]:
    events: list[Message] = []
    items: list[Message] = []
    for record in records:
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = payload.get("type")
        if record.get("type") == "event_msg" and kind == "item_completed":  # Codex 0.171+
            said = _completed_item(payload.get("item"))
            if said is not None:
                events.append(said)
        elif record.get("type") == "event_msg" and kind in ("user_message", "agent_message"):
            text = payload.get("message")
            said = _message(USER if kind == "user_message" else ASSISTANT, text)
            if said is not None:
                events.append(said)
        elif record.get("type") == "response_item" and kind == "message":
            role = payload.get("role")
            said = _message(role, _block_text(payload.get("content"), TEXT_PARTS))
            if role in (USER, ASSISTANT) and said is not None:
                items.append(said)
    return events or items  # the events are Codex's own view of the conversation


CODEX_ITEMS = {"UserMessage": USER, "AgentMessage": ASSISTANT}
CODEX_ITEM_TEXT = ("text", "Text")


def _completed_item(item: object) -> Message | None:
    """A Codex ``item_completed`` event's user or agent message (tool calls are not)."""
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        return None
    role = CODEX_ITEMS.get(item["type"])
    return _message(role, _block_text(item.get("content"), CODEX_ITEM_TEXT)) if role else None


def _lenient(record: object) -> Message | None:
    """A message from any record that says who spoke and what they said."""
    if not isinstance(record, dict):
        return None
    if record.get("type") == "response_item":  # a Codex item outside a Codex rollout
        record = record.get("payload")
        if not isinstance(record, dict):
            return None
    message = record.get("message")
    body = message if isinstance(message, dict) else record
    role = body.get("role") or record.get("type")
    if not isinstance(role, str):  # e.g. a list: not hashable, and no role anyway
        return None
    if role in USER_ROLES:
        role = USER
    elif role in ASSISTANT_ROLES:
        role = ASSISTANT
    else:
        return None  # summaries, system prompts, tool records, events
    return _message(
        role, _block_text(body.get("content", body.get("parts", body.get("text"))), TEXT_PARTS)
    )


def _generic(records: Iterable[object]) -> list[Message]:
    return [m for m in map(_lenient, records) if m is not None]


def _gemini(path: Path, limit: int) -> Conversation:
    with _open(path) as file:
        if os.fstat(file.fileno()).st_size > WHOLE_JSON_BYTES:
            text = _end(file, limit)
        else:
            text = _end(file, WHOLE_JSON_BYTES)
            whole = _json(text)
            if isinstance(whole, dict) and isinstance(whole.get("messages"), list):
                return Conversation(tuple(_generic(whole["messages"])))
    lines = _Lines(text)
    return Conversation(tuple(_generic(lines)), lines.broken)


def _json(text: str) -> object:
    """``text`` decoded, or None when it is not JSON (or nested too deep to decode)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


_JSON_LINES: dict[str, Callable[[Iterable[dict[str, Any]]], list[Message]]] = {
    CLAUDE_CODE: _claude,
    CODEX: _codex,
}


def read_conversation(
    path: Path, agent: str | None = None, *, tail_bytes: int = TAIL_BYTES
) -> Conversation:
    """The conversation in the transcript at ``path`` (its last ``tail_bytes``), read as
    ``agent`` writes it: ``claude-code``, ``codex``, ``gemini`` (or ``gemini-cli``), or
    anything else for the lenient reader. Without an agent, it is recognised by the
    file's first records (``sniff_agent``).

    Raises:
        OSError: the file cannot be read, or is not a regular file.
    """
    name = AGENT_NAMES.get(agent or "") or AGENT_NAMES.get(sniff_agent(path) or "")
    if name == GEMINI:
        return _gemini(path, tail_bytes)
    lines = _Lines(_tail(path, tail_bytes))
    messages = _JSON_LINES.get(name or "", _generic)(lines)
    return Conversation(tuple(messages), lines.broken)


def gemini_prompt_tokens(path: Path, tail_bytes: int = TAIL_BYTES) -> int | None:
    """The prompt size, in tokens, of the newest model answer a Gemini CLI session file
    records (``tokens.input`` of its last ``gemini`` record): what Gemini compares with its
    compression threshold. None when no answer records one.

    Raises:
        OSError: the file cannot be read, or is not a regular file.
    """
    lines = _Lines(_tail(path, tail_bytes))
    found: int | None = None
    for record in lines:
        tokens = record.get("tokens")
        if record.get("type") == "gemini" and isinstance(tokens, dict):
            count = tokens.get("input")
            if type(count) is int and count >= 0:
                found = count
    return found


def last_exchange(messages: Iterable[Message]) -> tuple[str | None, str | None]:
    """The last user message and the assistant's answer after it (None where missing)."""
    answer: list[str] = []
    for message in reversed(tuple(messages)):
        if message.role == USER:
            return message.text, "\n\n".join(reversed(answer)) or None
        answer.append(message.text)
    return None, "\n\n".join(reversed(answer)) or None


def tail_text(messages: Iterable[Message], limit: int) -> str:
    """The end of the conversation as ``role: text`` lines, at most ``limit`` characters."""
    lines: list[str] = []
    used = 0
    for message in reversed(tuple(messages)):
        line = f"{message.role}: {message.text}"
        if used + len(line) + 1 > limit:
            room = limit - used - 1
            if room > 40 or not lines:  # the most recent part of a long message
                lines.append(f"{message.role}: …{message.text[-max(room - 12, 1) :]}")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(reversed(lines))


def _head(path: Path) -> str:
    """The start of ``path`` (HEAD_BYTES); empty if it cannot be read."""
    try:
        with _open(path) as file:
            return file.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _first_records(head: str, lines: int) -> _Lines:
    return _Lines("\n".join(head.splitlines()[:lines]))


def sniff_cwd(path: Path, lines: int = 50) -> str | None:
    """The working directory the transcript records (Claude Code: ``cwd`` in each record;
    Codex: in its ``session_meta`` or ``turn_context``); None if it records none."""
    for record in _first_records(_head(path), lines):
        payload = record.get("payload")
        for holder in (record, payload if isinstance(payload, dict) else {}):
            cwd = holder.get("cwd")
            if isinstance(cwd, str) and (
                cwd.startswith(("/", "~")) or (len(cwd) > 2 and cwd[1] == ":")
            ):
                return cwd
    return None


def sniff_agent(path: Path, lines: int = 20) -> str | None:
    """Which agent wrote the transcript (``claude-code``, ``codex``, ``gemini-cli``),
    judging by its first records; None if unsure."""
    head = _head(path)
    if '"type": "gemini"' in head or '"type":"gemini"' in head:
        return "gemini-cli"
    for record in _first_records(head, lines):
        kind = record.get("type")
        if isinstance(kind, str) and kind in CODEX_TYPES:
            return CODEX
        if "userType" in record or ("sessionId" in record and "message" in record):
            return CLAUDE_CODE
    return None
