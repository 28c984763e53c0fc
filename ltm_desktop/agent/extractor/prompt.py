"""What the model is asked: the extraction prompt, and the conversation, bounded and redacted.

Credentials are redacted before anything is cut, turn by turn, so that a cut never
leaves half a key where detection cannot see it; then the text is bounded to
``max_input_chars`` from the end (the part about to be compacted away is the newest).
"""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.agent.transcripts import Message
from ltm_desktop.core.inbox.extraction import MAX_ENTRIES
from ltm_desktop.core.privacy.secrets import redact

SYSTEM_PROMPT = (
    """\
You extract long-term memories from a conversation between a user and an AI coding agent, \
just before the older part of it is summarised away. Keep only what will still be true and \
useful in later sessions:
- the user's preferences (how they like things done: tools, style, workflow);
- stable knowledge about the project (architecture, conventions, where things live, \
commands that work);
- decisions, with their reasons;
- reusable how-tos (steps that solved a problem that will come back).
Leave out: transient state (what is being done right now, errors already fixed, the plan \
for the next minutes), anything obvious from reading the code, guesses, and every secret \
or credential (keys, tokens, passwords): never repeat one.
Reply with a JSON array and nothing else. Each element is an object: {"title": a short \
title (at most 80 characters), "content": the memory in one to three self-contained \
sentences, "category": one of "preference", "knowledge", "skill", "task", "importance": \
an integer from 0 (trivia) to 10 (essential), "tags": up to 5 lower-case keywords}. \
Reply [] when nothing is worth keeping. Write at most """
    + f"{MAX_ENTRIES} memories."
)

ROLE_LABELS = {"user": "User", "assistant": "Assistant"}


def bounded_conversation(turns: Sequence[Message], max_chars: int) -> str:
    """The newest turns as ``User: ...`` / ``Assistant: ...`` text, credentials redacted,
    at most ``max_chars`` characters (a cut falls on a line boundary when one is near)."""
    chosen: list[str] = []
    size = 0
    for turn in reversed(turns):  # whole turns, newest first, until there is enough
        chosen.append(f"{ROLE_LABELS.get(turn.role, turn.role)}: {redact(turn.text)}")
        size += len(chosen[-1]) + 2
        if size >= max_chars:
            break
    text = "\n\n".join(reversed(chosen))
    if len(text) <= max_chars:
        return text
    text = text[-max_chars:]
    newline = text.find("\n", 0, max_chars // 10)
    return text[newline + 1 :] if newline != -1 else text


def build_messages(conversation: str, max_chars: int) -> list[dict[str, str]]:
    """Chat messages for an OpenAI-compatible endpoint."""
    user = (
        f"The conversation (its most recent part, at most {max_chars:,} characters; text "
        "that looked like a credential shows as [redacted ...]):\n\n"
        f"<conversation>\n{conversation}\n</conversation>\n\n"
        "Reply with the JSON array of memories worth keeping."
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
