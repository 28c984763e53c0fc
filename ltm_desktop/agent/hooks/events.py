"""The hook events, the agents that send them, and each agent's own name for each event."""

from __future__ import annotations

SESSION_START = "session-start"
USER_PROMPT = "user-prompt"
PRE_COMPACT = "pre-compact"
STOP = "stop"
SESSION_END = "session-end"
EVENTS = (SESSION_START, USER_PROMPT, PRE_COMPACT, STOP, SESSION_END)

CLAUDE_CODE = "claude-code"
CODEX = "codex"
GEMINI = "gemini"
GENERIC = "generic"
AGENTS = (CLAUDE_CODE, CODEX, GEMINI, GENERIC)

# Our event -> the agent's event (None: the agent has no such event).
NATIVE: dict[str, dict[str, str | None]] = {
    CLAUDE_CODE: {
        SESSION_START: "SessionStart",
        USER_PROMPT: "UserPromptSubmit",
        PRE_COMPACT: "PreCompact",
        STOP: "Stop",
        SESSION_END: "SessionEnd",
    },
    CODEX: {
        SESSION_START: "SessionStart",
        USER_PROMPT: "UserPromptSubmit",
        PRE_COMPACT: "PreCompact",
        STOP: "Stop",
        SESSION_END: "SessionEnd",  # since 0.171 (hooks/list: "sessionEnd")
    },
    GEMINI: {
        SESSION_START: "SessionStart",
        USER_PROMPT: "BeforeAgent",
        PRE_COMPACT: "PreCompress",
        STOP: "AfterAgent",
        SESSION_END: "SessionEnd",
    },
    GENERIC: {event: event for event in EVENTS},
}

# Who the hooks' writes are attributed to in the audit history and the window.
CLIENT_NAMES = {CLAUDE_CODE: "claude-code", CODEX: "codex", GEMINI: "gemini-cli", GENERIC: "agent"}
