"""The text agents wrap around the user's words, taken out before a hook reads a prompt.

An agent hands its hooks and writes to its transcript more than the user typed: Gemini
CLI prepends the context our own session-start hook injected (``<hook_context>``) to
the prompt, and appends the user-prompt hook's; Codex sends its environment and the
project's instructions as user messages; Claude Code records slash-command output and
shell escapes as user records. Taken as the user's words, our own MEMORY.md became the
title of every observation, the input of the extractor and the words of the relevance
search, and with a long MEMORY.md the real prompt was cut away entirely.

Every agent's wrappers are removed for every agent: none of them is what a person typed.
But only whole blocks (opening and closing tag) that open or close the message: agents
put them before or after the user's words, never inside, so a person who quotes
``<system-reminder>`` in the middle of a question keeps every word of it.
"""

from __future__ import annotations

import re

WRAPPER_TAGS = (
    # Gemini CLI: context from hooks (ours), and its own session context
    "hook_context",
    "session_context",
    # Codex: the environment, the project's AGENTS.md and instructions sent as user turns
    "environment_context",
    "user_instructions",
    "user_shell_command",
    "turn_aborted",
    # Claude Code: slash commands and their output, shell escapes, system reminders
    "command-name",
    "command-message",
    "command-args",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "bash-exit-code",
    "system-reminder",
)
_TAGS = "|".join(re.escape(tag) for tag in WRAPPER_TAGS)
_LEADING = re.compile(rf"\s*<({_TAGS})(?:\s[^>\n]*)?>.*?</\1>\s*", re.S)
_TRAILING_CLOSE = re.compile(rf"</({_TAGS})>\s*\Z")


def strip_injected(text: str) -> str:
    """``text`` without the blocks agents and hooks put before and after the user's
    words; "" when nothing else is left."""
    if "<" not in text:
        return text.strip()
    while match := _LEADING.match(text):
        text = text[match.end() :]
    while closing := _TRAILING_CLOSE.search(text):
        start = _block_start(text, closing.group(1), closing.start())
        if start is None:
            break
        text = text[:start]
    return text.strip()


def _block_start(text: str, tag: str, before: int) -> int | None:
    """Where the block closed at ``before`` opens, if it opens at the start of a line."""
    opening = re.compile(rf"(?:^|(?<=\n))[ \t]*<{re.escape(tag)}(?:\s[^>\n]*)?>")
    found = [m.start() for m in opening.finditer(text, 0, before)]
    return found[-1] if found else None


def injected_only(text: str) -> bool:
    """Whether ``text`` holds nothing but wrapped blocks (not a message of the user)."""
    return bool(text.strip()) and not strip_injected(text)
