"""Bulk actions on "every memory this list shows": the memories matching a scope's filters
(less those the person left out) are found by the core, not by a view, and written in
chunks a caller can stop between.

A ``FilterSelection`` is a query, not a list of rows: Select all over 100,000 memories
costs nothing until an action runs. Then ``resolve`` reads the (id, version) of every
memory it matches, a page at a time in creation order (new memories land at the end, so
the pages do not shift under an agent's adds), re-reading when the count moved while it
read. ``write_chunked`` makes the changes ``CHUNK`` to a transaction
(``MemoryService.write_many``: each memory still checked against its version and audited
alone) and asks ``cancelled()`` between chunks; ``transfer_chunked`` does the same for a
move or copy to another scope.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ltm_desktop.core.backend import MAX_PAGE
from ltm_desktop.core.bulk.rules import BATCH_SIZE, BulkResult, Change, Progress
from ltm_desktop.core.errors import LtmError, StorageError
from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.transfer.between_scopes import Transferred

CHUNK = BATCH_SIZE  # memories per transaction (and between two looks at ``cancelled``)
READ_ATTEMPTS = 3  # reads of a list that keeps changing before the last one is taken
Cancelled = Callable[[], bool]
Versions = dict[str, float]  # memory id -> the version (updated_at) it was read at


@dataclass(frozen=True, slots=True)
class FilterSelection:
    """Every memory of ``project_id`` that ``query``'s filters admit (category, tag, new
    since, removed and expired ones or not), except the ``excluded`` ids. The query's
    order, limit and offset play no part."""

    project_id: str
    query: ListQuery = field(default_factory=ListQuery)
    excluded: frozenset[str] = frozenset()

    def narrowed(self, **filters: object) -> FilterSelection:
        """The same selection with some filters set (e.g. only those in the Trash)."""
        return replace(self, query=replace(self.query, **filters))  # type: ignore[arg-type]


def ids_matching(
    service: MemoryService, project_id: str, query: ListQuery, start: int, limit: int
) -> tuple[list[tuple[str, float]], int | None]:
    """One page of the (id, version) of the memories ``query``'s filters admit, in creation
    order from position ``start``; and where the next page starts (None: that was all)."""
    page = replace(query, order_by="created_at", descending=False, limit=limit, offset=start)
    found = service.list_memories(project_id, page)
    pairs = [(m.id, float(m.updated_at)) for m in found]
    return pairs, (start + len(found) if len(found) == limit else None)


def count_matching(service: MemoryService, selection: FilterSelection) -> int:
    return service.count_memories(selection.project_id, selection.query)


def resolve(
    service: MemoryService, selection: FilterSelection, *, page: int = MAX_PAGE
) -> Versions:
    """Every memory of ``selection`` with its version as stored now, oldest first. A list
    that changed while it was read (its count moved) is read again, up to READ_ATTEMPTS
    times; the last read is taken (the writes check each version anyway)."""
    versions: Versions = {}
    for _ in range(READ_ATTEMPTS):
        before = count_matching(service, selection)
        versions = {}
        start: int | None = 0
        while start is not None:
            pairs, start = ids_matching(service, selection.project_id, selection.query, start, page)
            versions.update(pairs)
        if count_matching(service, selection) == before == len(versions):
            break
    for memory_id in selection.excluded:
        versions.pop(memory_id, None)
    return versions


@dataclass(slots=True)
class Chunked:
    """What ``write_chunked`` did: the merged result of its chunks, and the changes not
    attempted because the caller cancelled."""

    result: BulkResult = field(default_factory=BulkResult)
    cancelled: list[Change] = field(default_factory=list)


def write_chunked(
    service: MemoryService,
    changes: Sequence[Change],
    actor: str,
    *,
    chunk: int = CHUNK,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> Chunked:
    """Make ``changes``, ``chunk`` to a transaction, looking at ``cancelled`` before each
    chunk but the first. A storage error once something is written ends the work
    (``result.stopped``, ``result.not_done``); one before is raised."""
    out, total, chunk = Chunked(), len(changes), max(1, chunk)
    merged = out.result
    for start in range(0, total, chunk):
        if start and cancelled is not None and cancelled():
            out.cancelled = list(changes[start:])
            break
        part = changes[start : start + chunk]
        try:
            result = service.bulk.write_many(part, actor, batch_size=chunk)
        except StorageError as exc:
            if not merged.done:
                raise
            merged.stopped, merged.not_done = exc, list(changes[start:])
            break
        merged.done += result.done
        merged.changes += result.changes
        merged.refused += result.refused
        if result.stopped is not None:
            merged.stopped = result.stopped
            merged.not_done = result.not_done + list(changes[start + chunk :])
            break
        if progress is not None:
            progress(merged.settled, total)
    return out


@dataclass(slots=True)
class ChunkedTransfer:
    """What ``transfer_chunked`` did: the memories moved or copied, the error that stopped
    it (a chunk is all or nothing: a memory that changed meanwhile fails its chunk), and
    how many were left because of it or a cancel."""

    done: list[Transferred] = field(default_factory=list)
    stopped: LtmError | None = None
    not_done: int = 0
    cancelled: bool = False


def transfer_chunked(
    service: MemoryService,
    versions: Mapping[str, float | None],
    target: str,
    actor: str,
    *,
    copy: bool,
    chunk: int = CHUNK,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> ChunkedTransfer:
    """Move or copy to ``target``, ``chunk`` memories to a transaction. An error in the
    first chunk is raised (nothing was done); a later one ends the work."""
    out, items, chunk = ChunkedTransfer(), list(versions.items()), max(1, chunk)
    service.ensure_scope(target)  # the person's global scope: named for them on first use
    for start in range(0, len(items), chunk):
        if start and cancelled is not None and cancelled():
            out.cancelled, out.not_done = True, len(items) - start
            break
        part = dict(items[start : start + chunk])
        try:
            out.done += service.transfers.transfer_memories(part, target, actor, copy=copy)
        except LtmError as exc:
            if not out.done:
                raise
            out.stopped, out.not_done = exc, len(items) - start
            break
        if progress is not None:
            progress(min(len(items), start + chunk), len(items))
    return out
