"""What the person's writes did, in words: the line the status bar shows after each."""

from __future__ import annotations

from ltm_desktop.core.records import AddResult, AddStatus, Memory
from ltm_desktop.gui import ops
from ltm_desktop.gui.errors import describe
from ltm_desktop.gui.formatting import count_label


def titled(memories: list[Memory]) -> str:
    """One memory by its title, more by their number."""
    return (
        f"“{memories[0].title}”"
        if len(memories) == 1
        else count_label(len(memories), "memory", "memories")
    )


QUEUED_NOTE = (
    "Queued on this machine: the database cannot be reached; it is written when it answers."
)
QUEUED_SAVE = "Queued “{title}”: the database cannot be reached; it is written when it answers. Ctrl+Z undoes it."


def bulk_text(outcome: ops.BulkOutcome, said: str, hint: str) -> str:
    """``said``, ``{what}`` naming what was done, then ``hint`` (the key that takes it
    back; empty when nothing can be), then what was left undone and why."""
    text = said.replace("{what}", titled(outcome.done)) if outcome.done else ""
    text += hint
    if outcome.queued:
        text += f" {QUEUED_NOTE}"
    if outcome.cancelled:
        left = count_label(outcome.cancelled, "memory", "memories")
        text += f" Cancelled: {left} left as they were."
    if outcome.conflicts:
        text += (
            f" {count_label(len(outcome.conflicts), 'memory', 'memories')} changed meanwhile: "
            "nothing was written to them."
        )
    if outcome.failed:
        _memory_id, exc = outcome.failed[0]
        text += f" {len(outcome.failed)} could not be changed: {describe(exc)[1]}"
    return text.strip()


def transfer_text(result: ops.TransferOutcome, copy: bool, scope_name: str) -> str:
    """A move or copy to ``scope_name``: what went, what was there already, what stayed."""
    titles = titled([t.source for t in result.done])
    same = sum(1 for t in result.done if t.result.status == AddStatus.DEDUPLICATED)
    note = f" {same} already there (refreshed, not duplicated)." if same else ""
    if result.not_done:
        left = count_label(result.not_done, "memory", "memories")
        why = "Cancelled" if result.cancelled else "Stopped"
        note += f" {why}: {left} left where they were."
    return f"{'Copied' if copy else 'Moved'} {titles} to {scope_name}.{note} Ctrl+Z undoes it."


def add_result_text(result: AddResult) -> str:
    """What the core did with a new memory, in words."""
    title = result.memory.title
    if result.status == AddStatus.DEDUPLICATED:
        return (
            f"Already known: this text matches “{title}”. Nothing new was added; "
            "that memory was refreshed instead."
        )
    if result.status == AddStatus.QUEUED:
        return (
            f"Queued “{title}”: the database cannot be reached; it is written when it "
            "answers (the status bar counts the changes waiting)."
        )
    if result.status == AddStatus.SUPERSEDED:
        return (
            f"Created “{title}”. It replaced a near-duplicate memory, which moved to the "
            "Trash (restore it from there if you need both)."
        )
    return f"Created “{title}”."
