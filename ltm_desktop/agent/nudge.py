"""The turn nudge: every few turns, remind the model to save what is worth keeping.

The reminder is added to what the model sees for that one turn only: it is never stored
as a memory, never written into a transcript by us, and never accumulates. The hooks
add it as the turn's additional context; a Python harness applies it to a copy of its
messages:

    from ltm_desktop.agent.nudge import Nudge

    nudge = Nudge(interval=10)
    reply = model(nudge.apply(messages, turn))   # ``messages`` itself is left as it was
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ltm_desktop.core.settings.config import DEFAULT_TURN_NUDGE, Settings

Message = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Nudge:
    """Every ``interval`` turns (1-based: turns 10, 20, ...), ``text``; 0 or "" disables it."""

    interval: int = 10
    text: str = DEFAULT_TURN_NUDGE

    @classmethod
    def from_settings(cls, settings: Settings) -> Nudge:
        """The ``[nudge] interval`` and ``text`` of the config."""
        return cls(settings.nudge_interval, settings.nudge_turn_text)

    @property
    def enabled(self) -> bool:
        return self.interval > 0 and bool(self.text.strip())

    def due(self, turn: int) -> bool:
        """Whether turn number ``turn`` (the first is 1) gets the reminder."""
        return self.enabled and turn > 0 and turn % self.interval == 0

    def apply(self, messages: Sequence[Message], turn: int) -> list[Message]:
        """A new list of ``messages``, with the reminder on a due turn; never mutates.

        The reminder joins the last user message (as a text block when its content is a
        list of blocks), so the roles still alternate as chat APIs require; after any
        other message it is a user message of its own. Only that one message is copied.
        """
        result = list(messages)
        if not self.due(turn):
            return result
        reminder = self.text.strip()
        last = result[-1] if result else None
        if last is None or last.get("role") != "user":
            result.append({"role": "user", "content": reminder})
            return result
        content = last.get("content")
        if isinstance(content, str):
            joined: Any = f"{content}\n\n{reminder}" if content else reminder
        elif isinstance(content, list):
            joined = [*content, {"type": "text", "text": reminder}]
        else:
            result.append({"role": "user", "content": reminder})
            return result
        result[-1] = {**last, "content": joined}
        return result
