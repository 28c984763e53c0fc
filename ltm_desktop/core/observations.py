"""Payload builders: turn raw agent lifecycle input into an observation's title and narrative.

The limits are fixed (not configurable) so every client sees the same shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltm_desktop.core.clean_text import clean_text
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.records import ObservationKind
from ltm_desktop.core.rules import check_text, derive_title, shown

TITLE_LIMIT = 80
USER_TEXT_LIMIT = 500
ASSISTANT_TEXT_LIMIT = 4_000
PRE_COMPACT_LIMIT = 6_000
EMPTY = "(empty)"
ELLIPSIS = "…"
MAX_SESSION_ID_CHARS = 200


@dataclass(frozen=True, slots=True)
class ObservationPayload:
    kind: ObservationKind
    session_id: str
    title: str
    narrative: str


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marking the cut with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS


def _part(value: object, field: str, limit: int) -> str:
    if value is None:
        return EMPTY
    text = clean_text(check_text(value, field, allow_empty=True))
    return clip(text, limit) or EMPTY


def _title(*candidates: str) -> str:
    for text in candidates:
        if text and text != EMPTY:
            return derive_title(text, TITLE_LIMIT)
    return EMPTY


def build_agent_end(
    session_id: str, user_text: object, assistant_text: object
) -> ObservationPayload:
    user = _part(user_text, "user_text", USER_TEXT_LIMIT)
    assistant = _part(assistant_text, "assistant_text", ASSISTANT_TEXT_LIMIT)
    narrative = f"User: {user}\n\nAssistant: {assistant}"
    return ObservationPayload(
        ObservationKind.AGENT_END, session_id, _title(user, assistant), narrative
    )


def build_pre_compact(session_id: str, messages_text: object) -> ObservationPayload:
    body = _part(messages_text, "messages_text", PRE_COMPACT_LIMIT)
    title = _title(body)
    if title != EMPTY:
        title = clip(f"Before compaction: {title}", TITLE_LIMIT)
    return ObservationPayload(ObservationKind.PRE_COMPACT, session_id, title, body)


def build_observation(
    kind: object,
    session_id: object,
    *,
    user_text: object = None,
    assistant_text: object = None,
    messages_text: object = None,
) -> ObservationPayload:
    """Validate the raw input of one lifecycle event and shape it."""
    try:
        obs_kind = ObservationKind(kind if isinstance(kind, str) else "")
    except ValueError:
        allowed = ", ".join(k.value for k in ObservationKind)
        raise InvalidInput(f"kind must be one of {allowed}; got {shown(kind)}", "kind") from None
    session = check_text(session_id, "session_id").strip()
    if len(session) > MAX_SESSION_ID_CHARS:
        raise InvalidInput(
            f"session_id may have at most {MAX_SESSION_ID_CHARS} characters", "session_id"
        )
    if obs_kind is ObservationKind.AGENT_END:
        if messages_text is not None:
            raise InvalidInput(
                "messages_text belongs to pre_compact, not agent_end", "messages_text"
            )
        return build_agent_end(session, user_text, assistant_text)
    if user_text is not None or assistant_text is not None:
        field = "user_text" if user_text is not None else "assistant_text"
        raise InvalidInput(f"{field} belongs to agent_end, not pre_compact", field)
    return build_pre_compact(session, messages_text)
