"""Reading the conversation out of an agent's transcript: Claude Code, Codex, Gemini CLI.

A minimal reader, tolerant of what a transcript being written may hold: broken or
partial lines are skipped (and counted), unknown record types ignored. Only the text
the user and the assistant wrote is kept; tool calls and tool results are left out.

TODO(merge): the hooks (``ltm_desktop.agent.hooks``) read transcripts too; the two
readers should become one when both branches are merged.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_READ_BYTES = 32 * 1024 * 1024  # the end of a longer transcript is what matters
USER_ROLES = frozenset({"user", "human"})
ASSISTANT_ROLES = frozenset({"assistant", "model", "gemini", "ai"})
TEXT_PARTS = frozenset({"text", "input_text", "output_text"})


class TranscriptError(Exception):
    """The transcript cannot be read at all (missing, unreadable, not text)."""


@dataclass(frozen=True, slots=True)
class Turn:
    role: str  # "user" or "assistant"
    text: str


@dataclass(frozen=True, slots=True)
class Transcript:
    turns: tuple[Turn, ...]
    broken_lines: int = 0


def read_transcript(path: Path) -> Transcript:
    """The turns of a JSONL transcript (or a JSON document holding ``messages``)."""
    try:
        with path.open("rb") as file:
            size = os.fstat(file.fileno()).st_size
            start = max(0, size - MAX_READ_BYTES)
            file.seek(start)
            raw = file.read()
    except OSError as exc:
        raise TranscriptError(f"cannot read the transcript {path}: {exc.strerror or exc}") from None
    text = raw.decode("utf-8", errors="replace")
    if start > 0:  # began mid-line
        text = text.partition("\n")[2]
    return parse_transcript(text)


def parse_transcript(text: str) -> Transcript:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            whole = json.loads(stripped)
        except ValueError:
            pass  # JSONL, or a document cut short: read it line by line
        else:
            listed = whole.get("messages") if isinstance(whole, dict) else whole
            if isinstance(listed, list):
                return Transcript(_turns(listed))
            if isinstance(whole, dict):
                return Transcript(_turns([whole]))
    records: list[Any] = []
    broken = 0
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            records.append(json.loads(line))
        except ValueError:
            broken += 1
    return Transcript(_turns(records), broken)


def _turns(records: list[Any]) -> tuple[Turn, ...]:
    turns = []
    for record in records:
        turn = _turn(record)
        if turn is not None:
            turns.append(turn)
    return tuple(turns)


def _turn(record: Any) -> Turn | None:
    if not isinstance(record, dict):
        return None
    if record.get("type") == "response_item":  # Codex rollouts wrap each item
        record = record.get("payload")
        if not isinstance(record, dict):
            return None
    message = record.get("message")
    body = message if isinstance(message, dict) else record
    role = body.get("role") or record.get("type")
    if role in USER_ROLES:
        role = "user"
    elif role in ASSISTANT_ROLES:
        role = "assistant"
    else:
        return None  # summaries, system prompts, tool records, events
    content = body.get("content", body.get("parts", body.get("text")))
    text = _text(content).strip()
    return Turn(role, text) if text else None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif (
            isinstance(part, dict)
            and isinstance(part.get("text"), str)
            and (part.get("type") in TEXT_PARTS or "type" not in part)
        ):
            parts.append(part["text"])
    return "\n".join(parts)


CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})


def _head(path: Path) -> str:
    try:
        with path.open("rb") as file:
            return file.read(256 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return ""


def sniff_cwd(path: Path, lines: int = 50) -> str | None:
    """The working directory the transcript records (Claude Code: ``cwd`` in each record;
    Codex: in its ``session_meta`` or ``turn_context``); None if it records none."""
    for line in _head(path).splitlines()[:lines]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        payload = record.get("payload")
        for holder in (record, payload if isinstance(payload, dict) else {}):
            cwd = holder.get("cwd")
            if (
                isinstance(cwd, str)
                and cwd.startswith(("/", "~"))
                or (isinstance(cwd, str) and len(cwd) > 2 and cwd[1] == ":")
            ):
                return str(cwd)
    return None


def sniff_agent(path: Path, lines: int = 20) -> str | None:
    """Which agent wrote the transcript, judging by its first records; None if unsure."""
    head = _head(path)
    if not head:
        return None
    if '"type": "gemini"' in head or '"type":"gemini"' in head:
        return "gemini-cli"
    for line in head.splitlines()[:lines]:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("type") in CODEX_TYPES:
            return "codex"
        if "userType" in record or ("sessionId" in record and "message" in record):
            return "claude-code"
    return None
