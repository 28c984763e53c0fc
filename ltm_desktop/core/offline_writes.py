"""Writes kept in the outbox while the shared database cannot be reached.

Every surface that writes while offline goes through here: the API's offline answers
(``api.offline``: agents, ``serve``) and the app's own edits (``gui.ops``). A write is
checked as the online one would be (the draft's rules and secret screening, the changes'
rules) before it is queued, so the replay meets only what the online path would have
accepted; compare-and-swap is the replay's, against the version this machine saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ltm_desktop.core import rules, writing
from ltm_desktop.core.offline import QueuedKind, QueuedWrite
from ltm_desktop.core.offline_view import applied, queued_memory, visible_memory
from ltm_desktop.core.records import Memory, MemoryDraft
from ltm_desktop.core.service import MemoryService


def queue_add(
    service: MemoryService,
    project_id: str,
    draft: MemoryDraft,
    actor: str,
    *,
    files: Sequence[str] = (),
    cwd: str | None = None,
) -> Memory:
    """Queue a new memory, checked as ``MemoryService.add`` checks it; its id is minted now
    and stays its id. ``files`` are made relative to the project when replayed (``cwd``:
    the writer's directory, for that)."""
    actor = rules.check_actor(actor)
    project_id = rules.check_project_id(project_id)
    draft = replace(draft, files=())
    draft = service.screen.draft(rules.validate_draft(draft, service.settings.default_importance))
    now = service.now()
    write = QueuedWrite(
        seq=0,
        kind=QueuedKind.ADD,
        memory_id=writing.new_memory_id(now),
        project_id=project_id,
        actor=actor,
        queued_at=now,
        fields={
            "content": draft.content,
            "title": draft.title,
            "category": rules.check_category(draft.category).value,
            "importance": draft.importance,
            "tags": list(draft.tags),
            "ttl_days": draft.ttl_days,
            "files": list(files),
        },
        cwd=cwd,
    )
    return queued_memory(service.offline.queue(write))


def queue_change(
    service: MemoryService,
    memory_id: str,
    kind: QueuedKind,
    changes: dict[str, Any],
    actor: str,
    expected_updated_at: float | None,
) -> tuple[Memory, Memory]:
    """Queue an update (``changes``), a remove or a restore of a memory this machine knows;
    (before, after) as this machine sees it. The replay's compare-and-swap is against
    ``expected_updated_at``, else the version seen here (none for a memory itself still
    queued: that write is replayed first).

    Raises:
        NotFound: the memory is neither in the read cache nor in the outbox.
        InvalidInput: the changes break the rules (refused now, not at the replay).
    """
    actor = rules.check_actor(actor)
    if kind is QueuedKind.UPDATE:
        rules.validate_changes(dict(changes))
    offline = service.offline
    current, queued_add = visible_memory(offline, rules.check_text(memory_id, "id"))
    base = expected_updated_at
    if base is None and not queued_add:
        base = current.updated_at
    write = QueuedWrite(
        seq=0,
        kind=kind,
        memory_id=current.id,
        project_id=current.project_id,
        actor=actor,
        queued_at=service.now(),
        fields=dict(changes),
        base_version=base,
    )
    queued = offline.queue(write)
    return current, applied(current, queued) or current
