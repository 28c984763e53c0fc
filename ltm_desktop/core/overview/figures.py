"""The Overview in numbers: how a scope's (or every scope's) memories grew, who wrote them,
what agents read, what went stale or was removed, and what MEMORY.md spends its budget on.

Days and weeks are local (the computer's time zone unless ``tz`` is given): a day runs
from one local midnight to the next, a week from Monday's; a change at 23:30 counts on
its own day however far that is from UTC, and a day with a daylight-saving change is 23
or 25 hours long. The store does the counting (``core.overview_reads``: one pass over the
memories for the timeline, one for the uses, one over the window's audit events; the
three run side by side); only the few hundred groups it returns are
handled here.

What the rows can tell: the timeline is rebuilt from each memory's creation, its removal
(if it is in the Trash now) and its last update, so a memory removed and restored counts
as never removed, one edited since counts as stale only from its last edit, and an
erased memory is gone from every week (its removal event still counts as a removal).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import Protocol

from ltm_desktop.core.memory_md.block import render_block
from ltm_desktop.core.memory_md.precis import BLOCK_SEPARATOR, TRUNCATION_MARK
from ltm_desktop.core.overview.reads import EventRow, OverviewReads, TimelineRow
from ltm_desktop.core.records import SECONDS_PER_DAY, AuditAction, Category, Memory, PrecisInfo
from ltm_desktop.core.rules import MAX_IMPORTANCE, check_project_id
from ltm_desktop.core.settings.config import Settings

WEEKS = 26  # the longest history drawn, in weeks (fewer when the first memory is newer)
MIN_WEEKS = 4  # a scope younger than this still gets a few weeks of axis
DAYS = 30  # the writes per day
MAX_ACTORS = 6  # in the writes per day; more are folded into OTHERS
OTHERS = "others"
USE_EDGES = (1, 2, 5, 20, 100)  # use_count buckets: 0 | 1 | 2-4 | 5-19 | 20-99 | 100+
USE_LABELS = ("never", "1", "2–4", "5–19", "20–99", "100+")
REMOVALS = (AuditAction.REMOVED.value, AuditAction.EXPIRED.value)  # to the Trash
CATEGORIES = tuple(c.value for c in Category)


class OverviewSource(Protocol):
    """What the Overview reads (MemoryService is one)."""

    @property
    def store(self) -> OverviewReads: ...
    @property
    def settings(self) -> Settings: ...
    def precis(self, project_id: str, include_global: bool = True) -> PrecisInfo: ...
    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]: ...


@dataclass(frozen=True, slots=True)
class CategoryWeeks:
    """Memories not in the Trash at the end of each week (this week: now), by category."""

    weeks: tuple[float, ...]  # the local midnight each week starts at (a Monday)
    categories: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]  # [week][category]


@dataclass(frozen=True, slots=True)
class ActorDays:
    """Changes in the audit history per local day, by who made them (the GUI's actor is
    the person)."""

    days: tuple[float, ...]  # local midnights, today last
    actors: tuple[str, ...]  # most changes first; OTHERS last when there were more
    counts: tuple[tuple[int, ...], ...]  # [day][actor]


@dataclass(frozen=True, slots=True)
class UseGrid:
    """Memories not in the Trash by importance and by how often agents used them."""

    buckets: tuple[str, ...]  # USE_LABELS
    counts: tuple[tuple[int, ...], ...]  # [importance 0..10][bucket]
    last_used: tuple[tuple[float | None, ...], ...]  # the newest use in each cell


@dataclass(frozen=True, slots=True)
class StaleRemovedWeeks:
    weeks: tuple[float, ...]  # as CategoryWeeks.weeks
    stale: tuple[int, ...]  # stale candidates at the end of the week (this week: now)
    removed: tuple[int, ...]  # removals (or purges of expired memories) during the week


@dataclass(frozen=True, slots=True)
class BudgetShare:
    """What MEMORY.md spends its budget on: its UTF-8 bytes per category."""

    budget: int
    categories: tuple[str, ...]
    bytes: tuple[int, ...]
    memories: tuple[int, ...]
    truncated: bool

    @property
    def used(self) -> int:
        return sum(self.bytes)


@dataclass(frozen=True, slots=True)
class Overview:
    scope: str | None  # None: every scope
    head: int  # the audit history's last seq it was computed at
    now: float
    memories: CategoryWeeks
    writes: ActorDays
    uses: UseGrid
    stale_removed: StaleRemovedWeeks
    budget: BudgetShare | None  # None for every scope: each project has its own MEMORY.md

    @property
    def is_empty(self) -> bool:
        """No memory now, none removed lately, no change in the window."""
        return not (
            any(map(any, self.memories.counts))
            or any(self.stale_removed.removed)
            or any(map(any, self.writes.counts))
        )


def local_day(ts: float, tz: tzinfo | None) -> date:
    return datetime.fromtimestamp(ts, tz).date()


def local_midnight(day: date, tz: tzinfo | None) -> float:
    """The POSIX time at which ``day`` starts in ``tz`` (None: the computer's zone)."""
    return datetime(day.year, day.month, day.day, tzinfo=tz).timestamp()


def overview(
    source: OverviewSource,
    scope: str | None,
    now: float,
    tz: tzinfo | None = None,
    head: int | None = None,
) -> Overview:
    """Every series of the Overview of ``scope`` (None: every scope) as of ``now``."""
    scope = None if scope is None else check_project_id(scope)
    store = source.store
    head = store.last_event_seq() if head is None else head
    today = local_day(now, tz)
    first = today - timedelta(days=today.weekday(), weeks=WEEKS - 1)
    weeks = [local_midnight(first + timedelta(weeks=i), tz) for i in range(WEEKS)]
    days = [local_midnight(first + timedelta(days=i), tz) for i in range((today - first).days + 1)]
    after_now = math.nextafter(now, math.inf)  # so that "now" itself still counts
    settings = source.settings
    # The three scans run side by side: SQLite lets go of the GIL while it steps and each
    # thread reads on its own connection, so on two cores they take about the longest
    # one's time instead of their sum. Leaving the block waits for both threads.
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="overview") as pool:
        events_read = pool.submit(store.event_counts, scope, [*days, after_now], REMOVALS)
        uses_read = pool.submit(store.use_grid, scope, USE_EDGES)
        timeline = store.memory_timeline(
            scope,
            [*weeks, after_now],
            settings.stale_max_importance,
            settings.stale_age_days * SECONDS_PER_DAY,
        )
        events, use_rows = events_read.result(), uses_read.result()
    active, stale = _fold_timeline(timeline, len(weeks))
    removed = _weekly_removals(events, len(days), len(weeks))
    skip = _leading_quiet_weeks(active, stale, removed)
    return Overview(
        scope=scope,
        head=head,
        now=now,
        memories=CategoryWeeks(tuple(weeks[skip:]), CATEGORIES, tuple(active[skip:])),
        writes=_actor_days(events, days),
        uses=_use_grid(use_rows),
        stale_removed=StaleRemovedWeeks(
            tuple(weeks[skip:]), tuple(stale[skip:]), tuple(removed[skip:])
        ),
        budget=None if scope is None else budget_share(source, scope),
    )


def _fold_timeline(
    rows: Sequence[TimelineRow], weeks: int
) -> tuple[list[tuple[int, ...]], list[int]]:
    """Per week: memories not removed, by category, and stale candidates. A memory counts
    at the end of week k (bucket k + 1) from the bucket it was created in until the one
    before its removal: a range added to a difference array, summed once."""
    index = {c: i for i, c in enumerate(CATEGORIES)}
    alive = [[0] * (weeks + 2) for _ in CATEGORIES]
    stale = [0] * (weeks + 2)
    for category, created, removed, stale_from, n in rows:
        start = max(created, 1)
        end = weeks if removed is None else min(removed - 1, weeks)
        if start <= end:
            alive[index[category]][start] += n
            alive[index[category]][end + 1] -= n
        if stale_from is not None and max(start, stale_from) <= end:
            stale[max(start, stale_from)] += n
            stale[end + 1] -= n
    sums = [_running(column)[1 : weeks + 1] for column in alive]
    return [tuple(s[w] for s in sums) for w in range(weeks)], _running(stale)[1 : weeks + 1]


def _running(diffs: list[int]) -> list[int]:
    out, total = [], 0
    for d in diffs:
        total += d
        out.append(total)
    return out


def _weekly_removals(rows: Sequence[EventRow], days: int, weeks: int) -> list[int]:
    """Removal events per week: day buckets 1..days, Monday first, seven to a week."""
    removed = [0] * weeks
    for _actor, bucket, removal, n in rows:
        if removal and 1 <= bucket <= days:
            removed[(bucket - 1) // 7] += n
    return removed


def _leading_quiet_weeks(
    active: Sequence[tuple[int, ...]], stale: Sequence[int], removed: Sequence[int]
) -> int:
    """How many of the first weeks had nothing to show, leaving at least MIN_WEEKS."""
    quiet = 0
    for counts, s, r in zip(active, stale, removed, strict=True):
        if any(counts) or s or r:
            break
        quiet += 1
    return min(quiet, len(active) - MIN_WEEKS)


def _actor_days(rows: Sequence[EventRow], days: Sequence[float]) -> ActorDays:
    first = len(days) - DAYS  # day buckets are 1-based: bucket b is days[b - 1]
    per_day: list[Counter[str]] = [Counter() for _ in range(DAYS)]
    for actor, bucket, _removal, n in rows:
        if first < bucket <= len(days):
            per_day[bucket - 1 - first][actor] += n
    totals: Counter[str] = sum(per_day, Counter())
    ranked = sorted(totals, key=lambda a: (-totals[a], a))
    shown = ranked if len(ranked) <= MAX_ACTORS else [*ranked[: MAX_ACTORS - 1], OTHERS]
    counts = []
    for day in per_day:
        row = [day[a] for a in shown if a != OTHERS]
        if OTHERS in shown:
            row.append(sum(n for a, n in day.items() if a not in shown))
        counts.append(tuple(row))
    return ActorDays(tuple(days[first:]), tuple(shown), tuple(counts))


def _use_grid(rows: Sequence[tuple[int, int, int, float | None]]) -> UseGrid:
    counts = [[0] * len(USE_LABELS) for _ in range(MAX_IMPORTANCE + 1)]
    last: list[list[float | None]] = [[None] * len(USE_LABELS) for _ in range(MAX_IMPORTANCE + 1)]
    for importance, bucket, n, used in rows:
        counts[importance][bucket] += n
        last[importance][bucket] = used
    return UseGrid(USE_LABELS, tuple(map(tuple, counts)), tuple(map(tuple, last)))


def budget_share(source: OverviewSource, scope: str) -> BudgetShare:
    """The scope's MEMORY.md (global's memories included, as the file has them) in bytes
    per category: each block with the blank line before it, the last one as far as the
    budget let it in; the truncation mark counts for no category."""
    info = source.precis(scope)
    found = source.get_many(info.memory_ids)
    room = info.bytes - (len(TRUNCATION_MARK.encode()) if info.truncated else 0)
    spent = dict.fromkeys(CATEGORIES, 0)
    memories = dict.fromkeys(CATEGORIES, 0)
    separator = len(BLOCK_SEPARATOR.encode())
    for i, memory_id in enumerate(info.memory_ids):
        memory = found.get(memory_id)
        if memory is None or room <= 0:
            continue  # erased since the precis was rendered
        size = min(len(render_block(memory).encode()) + (separator if i else 0), room)
        room -= size
        spent[memory.category.value] += size
        memories[memory.category.value] += 1
    return BudgetShare(
        info.budget,
        CATEGORIES,
        tuple(spent.values()),
        tuple(memories.values()),
        info.truncated,
    )
