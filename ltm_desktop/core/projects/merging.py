"""Merging one project scope into another: ``projects merge SRC INTO DST``, and what adopting
a remote does to the path project a directory was before (docs/projects.md).

Every active memory of the source goes the way ``transfer.between_scopes`` moves one: added
to the target as any add is (an identical memory there is refreshed, not duplicated; a
near-duplicate there is superseded), the original sent to the source's trash as ``moved``,
superseded by its copy, so nothing is lost and each step is in the audit history. Then the
source's observations move, and its paths are recorded as the target's. What stays with the
source: its trash, its expired memories, its history (each moved memory's events, under its
old id), its proposals and extraction runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ltm_desktop.core import rules
from ltm_desktop.core.backend import MAX_PAGE, MemoryStore
from ltm_desktop.core.errors import InvalidInput
from ltm_desktop.core.kernel import WriteKernel
from ltm_desktop.core.privacy.screening import Screen
from ltm_desktop.core.projects.ambient import PERSON_PREFIX
from ltm_desktop.core.projects.identity import REMOTE_PREFIX
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AddStatus, ListQuery
from ltm_desktop.core.transfer.between_scopes import transfer


@dataclass(frozen=True, slots=True)
class Merged:
    """What a merge did: memories moved (``created`` anew in the target, ``deduplicated``
    onto an identical one there, or ``superseded`` a near-duplicate there), observations
    and paths moved."""

    source: str
    target: str
    memories: int
    outcomes: dict[str, int]
    observations: int
    paths: int


def pins_paths(source: str, target: str) -> bool:
    """Whether the source's paths are pinned to the target when they move: not when a path
    project goes into a repository's (the path resolves to it anyway), else yes (the
    path's own identity would name another project)."""
    return not (target.startswith(REMOTE_PREFIX) and not source.startswith(REMOTE_PREFIX))


def merge_projects(
    store: MemoryStore,
    kernel: WriteKernel,
    screen: Screen,
    source: object,
    target: object,
    actor: str,
    clock: Callable[[], float],
) -> Merged:
    """Merge scope ``source`` into ``target`` (both must exist; neither the global scope).

    Raises:
        InvalidInput: a scope id is malformed, global, or both are one.
        NotFound: a scope does not exist.
    """
    actor = rules.check_actor(actor)
    source, target = rules.check_project_id(source), rules.check_project_id(target)
    if any(s == GLOBAL_PROJECT_ID or s.startswith(PERSON_PREFIX) for s in (source, target)):
        raise InvalidInput(
            "a global scope (the team's or a person's) cannot be merged; move memories instead",
            "project_id",
        )
    if source == target:
        raise InvalidInput("a project cannot be merged into itself", "project_id")
    store.get_project(source)  # NotFound
    store.get_project(target)
    outcomes: Counter[str] = Counter()
    while True:  # a page at a time; a memory written meanwhile is in the next page
        page = store.list_memories(
            source, ListQuery(limit=MAX_PAGE, order_by="created_at"), clock()
        )
        if not page:
            break
        moved = _move_page(kernel, screen, [m.id for m in page], source, target, actor)
        if not moved:
            break
        outcomes.update(moved)
    observations = store.move_observations(source, target)
    pinned = pins_paths(source, target)
    paths = store.project_paths(source)
    for path in paths:
        store.record_path(target, path.machine, path.path, clock(), pinned=pinned)
    return Merged(source, target, sum(outcomes.values()), dict(outcomes), observations, len(paths))


def _move_page(
    kernel: WriteKernel, screen: Screen, ids: list[str], source: str, target: str, actor: str
) -> Counter[str]:
    """Move the memories of ``ids`` still active in ``source`` (another process may have
    moved them meanwhile), in one transaction; how each add in the target went."""
    outcomes: Counter[str] = Counter()
    with kernel.write() as write:
        txn = write.txn
        live = [i for i in ids if not (m := txn.get_memory(i)).disabled and m.project_id == source]
        done = transfer(
            txn, dict.fromkeys(live), target, actor, write.now, copy=False, screen=screen
        )
        for t in done:
            added = t.result.status is AddStatus.DEDUPLICATED
            write.record(t.result.memory, "deduplicated" if added else "created", actor)
            write.record(t.source, "removed", actor)
            outcomes[t.result.status.value] += 1
        write.touch(txn.get_memory(i) for t in done if (i := t.result.superseded_id))
        write.wake_backfill = True
    return outcomes
