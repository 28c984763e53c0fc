"""The memory's changes since the session was last told, as one turn's context.

Session start injects MEMORY.md and records the audit head; each user prompt then asks
``memory.changes`` for what was saved, edited or removed after it (by another agent, the
person in the app, or this agent's own tools), adds that compactly, and moves the head
on: each change is told once, and none is missed between two turns.
"""

from __future__ import annotations

import logging

from ltm_desktop.agent.hooks.session_state import SessionState
from ltm_desktop.api.calls import ApiCalls
from ltm_desktop.api.shapes import ChangeShape
from ltm_desktop.core.actors import host_name
from ltm_desktop.core.memory_md.safe_markdown import escape_inline
from ltm_desktop.core.observations import clip

log = logging.getLogger("ltm_desktop.hooks")

HEADER = "Long-term memory changed since it was last shown to you:"
BUDGET = 2_000  # characters of context for the changes, at most
CONTENT_CHARS = 300  # of each new or edited memory's content
ASKED = 20  # changes asked for; the rest are counted


def head(memory: ApiCalls, cwd: str) -> int:
    """The audit head now: the point the session has been told up to."""
    return memory.memory_changes(cwd=cwd)["head"]


def since_last_time(memory: ApiCalls, cwd: str, state: SessionState) -> str | None:
    """The context telling the changes after ``state.seen_seq`` (None: none), moving
    ``state.seen_seq`` to the head; the caller saves the state only once the context has
    reached the agent. A session never told (no session start seen) only starts
    counting."""
    found = memory.memory_changes(cwd=cwd, since=state.seen_seq, limit=ASKED)
    told = state.seen_seq is not None
    state.seen_seq = found["head"]
    more, truncated = found["more"], found["truncated"]
    if not told or not (found["changes"] or more or truncated):
        return None
    log.info(
        "memory changes: %d told, %d more%s",
        len(found["changes"]),
        more,
        ", older ones not read" if truncated else "",
    )
    return render(found["changes"], more, truncated, here=host_name())


def _line(change: ChangeShape, here: str | None) -> str:
    memory = change["memory"]
    ident = escape_inline(change["id"] or (memory["id"] if memory is not None else ""))
    where = f"{ident}, by {escape_inline(change['actor'])}"
    machine = change["machine"]
    if machine and (here is None or machine.casefold() != here.casefold()):
        where += f" on {escape_inline(machine)}"  # made on another machine
    if memory is None:  # erased, or its text withheld: nothing of it is told
        why = (
            "withheld: it reads like an instruction and awaits review"
            if change["withheld"]
            else "erased"
        )
        return f"- {change['kind']}: ({why}) ({where})"
    title = escape_inline(memory["title"])
    if change["kind"] == "removed":
        return f"- removed: {title} ({where})"
    content = clip(memory["content"], CONTENT_CHARS).replace("\n", " ")
    return f"- {change['kind']}: {title} ({where}): {escape_inline(content)}"


def render(
    changes: list[ChangeShape], more: int, truncated: bool = False, here: str | None = None
) -> str:
    """The changes, newest first, within BUDGET; what does not fit is counted. A change
    made on another machine than ``here`` (this one) says which."""
    lines = [HEADER]
    used = len(HEADER)
    left = more
    for index, change in enumerate(changes):
        line = _line(change, here)
        if used + len(line) + 1 > BUDGET - 80:  # room for the "more" line
            left += len(changes) - index
            break
        lines.append(line)
        used += len(line) + 1
    if truncated:
        lines.append("- …and more changes than can be listed: use memory_search.")
    elif left:
        lines.append(f"- …and {left} more change{'s' if left != 1 else ''}: use memory_search.")
    return "\n".join(lines)
