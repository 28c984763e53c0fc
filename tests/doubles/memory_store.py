"""InMemoryStore: a second backend for ``core.backend.MemoryStore``, storage only.

It shows what a backend has to implement: dicts and lists, a lock, a copy to roll back
to, and naive scans for queries. It decides nothing; every rule of the memory model
(dedup, supersede, conflicts, versions, TTL renewal, list checks) comes from the core,
so the service's rule tests pass against it unchanged (``backend`` in tests/conftest.py).

Stores opened on the same ``location`` share one ``Files`` (like two connections to one
database file), so a test can reopen a data dir or run two services on it.
"""

from __future__ import annotations

import json
import math
import struct
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ltm_desktop.core.backend import (
    MAX_PAGE,
    AuditEntry,
    MemoryHit,
    ObservationHit,
    SearchRepair,
    StoreHealth,
    Verification,
)
from ltm_desktop.core.change_feed import ChangeFeed, PollingChangeFeed
from ltm_desktop.core.errors import NotFound, StorageError, echoed
from ltm_desktop.core.inbox.proposals import ExtractionRun, Proposal
from ltm_desktop.core.observations import ObservationPayload
from ltm_desktop.core.projects.paths import ProjectPath
from ltm_desktop.core.records import (
    GLOBAL_PROJECT_ID,
    AuditEvent,
    ListQuery,
    Memory,
    Observation,
    Project,
    SearchFilter,
)
from ltm_desktop.core.search.query import ParsedQuery
from tests.doubles.inbox_store import InboxReads, InboxTxn
from tests.doubles.overview_store import OverviewScans
from tests.doubles.queries import is_live, ordered, score, stale

SCHEMA_VERSION = 1


@dataclass
class Tables:
    """Everything stored; copied whole at the start of a write to roll back to."""

    projects: dict[str, Project] = field(default_factory=dict)
    memories: dict[str, Memory] = field(default_factory=dict)  # in insertion order
    token_counts: dict[str, int] = field(default_factory=dict)
    vectors: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # id -> (model, vector)
    observations: list[Observation] = field(default_factory=list)
    audit: list[AuditEvent] = field(default_factory=list)
    proposals: dict[str, Proposal] = field(default_factory=dict)
    runs: list[ExtractionRun] = field(default_factory=list)
    index_writes: int = 0  # token sets and vectors written (the index version)
    paths: dict[tuple[str, str], ProjectPath] = field(default_factory=dict)  # (machine, path)

    def copy(self) -> Tables:
        return Tables(
            dict(self.projects),
            dict(self.memories),
            dict(self.token_counts),
            dict(self.vectors),
            list(self.observations),
            list(self.audit),
            dict(self.proposals),
            list(self.runs),
            self.index_writes,
            dict(self.paths),
        )


@dataclass
class Files:
    """What a data dir holds for this backend: the tables, one lock, a commit counter."""

    tables: Tables
    lock: threading.RLock = field(default_factory=threading.RLock)
    commits: int = 0

    @classmethod
    def new(cls) -> Files:
        tables = Tables()
        tables.projects[GLOBAL_PROJECT_ID] = Project(GLOBAL_PROJECT_ID, None, "Global", time.time())
        return cls(tables)


def _stored(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """A value as a JSON column gives it back."""
    return None if value is None else dict(json.loads(json.dumps(value, ensure_ascii=False)))


def _no_memory(memory_id: str) -> NotFound:
    return NotFound(f"no memory has the id {echoed(memory_id)}")


class MemoryTxn(InboxTxn):
    """``core.backend.WriteTxn`` on the tables, valid inside one ``InMemoryStore.write``."""

    def __init__(self, tables: Tables) -> None:
        self._t = tables

    def _check_unique(self, memory: Memory) -> None:
        """The storage constraint SQLite's unique index enforces (a safety net, no rule)."""
        twin = self.find_active(memory.project_id, memory.signature)
        if not memory.disabled and twin is not None and twin.id != memory.id:
            raise StorageError("UNIQUE constraint failed: memories.project_pk, signature")

    def get_memory(self, memory_id: str) -> Memory:
        memory = self._t.memories.get(memory_id)
        if memory is None:
            raise _no_memory(memory_id)
        return memory

    def find_active(self, project_id: str, signature: str) -> Memory | None:
        return next(
            (
                m
                for m in self._t.memories.values()
                if m.project_id == project_id and m.signature == signature and not m.disabled
            ),
            None,
        )

    def active_signatures(self, project_id: str, signatures: Collection[str]) -> set[str]:
        return {sig for sig in signatures if self.find_active(project_id, sig) is not None}

    def insert_memories(self, batch: Sequence[tuple[Memory, Collection[str]]]) -> None:
        for memory, tokens in batch:
            self.insert_memory(memory, tokens)

    def near_duplicates(
        self,
        project_id: str,
        tokens: Collection[str],
        at_least: int,
        min_tokens: float,
        max_tokens: float,
    ) -> list[tuple[str, str]]:
        return [  # every memory of the band: a superset of those holding ``at_least`` tokens
            (m.id, m.content)
            for m in self._t.memories.values()
            if m.project_id == project_id
            and not m.disabled
            and min_tokens < self._t.token_counts[m.id] < max_tokens
        ]

    def insert_memory(
        self, memory: Memory, tokens: Collection[str], vector: tuple[str, bytes] | None = None
    ) -> None:
        if memory.id in self._t.memories:
            raise StorageError(f"UNIQUE constraint failed: memories.id ({memory.id})")
        self._check_unique(memory)
        if memory.project_id not in self._t.projects:
            name = memory.project_id
            self._t.projects[name] = Project(name, None, name, memory.created_at)
        self._t.memories[memory.id] = memory
        self._t.token_counts[memory.id] = len(tokens)
        if vector is not None:
            self._t.vectors[memory.id] = vector

    def save_memory(
        self, before: Memory, after: Memory, tokens: Collection[str] | None = None
    ) -> None:
        if self.get_memory(before.id).project_id != after.project_id or before.id != after.id:
            raise ValueError(f"a memory keeps its id and scope ({before.id})")
        self._check_unique(after)
        self._t.memories[after.id] = after
        if tokens is not None:
            self._t.token_counts[after.id] = len(tokens)
        if any(getattr(before, f) != getattr(after, f) for f in ("title", "content", "tags")):
            self._t.vectors.pop(after.id, None)  # made from the old text

    def set_vector(self, memory_id: str, model: str, vector: bytes) -> None:
        self.get_memory(memory_id)
        self._t.vectors[memory_id] = (model, vector)
        self._t.index_writes += 1

    def set_tokens(self, memory_id: str, tokens: Collection[str]) -> None:
        self.get_memory(memory_id)
        self._t.token_counts[memory_id] = len(tokens)
        self._t.index_writes += 1

    def record_all(self, entries: Sequence[AuditEntry]) -> None:
        for entry in entries:
            self.record(entry)

    def record(self, entry: AuditEntry) -> None:
        seq = len(self._t.audit) + 1
        self._t.audit.append(
            AuditEvent(
                seq,
                entry.at,
                entry.memory_id,
                entry.project_id,
                entry.actor,
                entry.action,
                _stored(entry.before),
                _stored(entry.after),
                entry.person,
                entry.machine,
                entry.machine_id,
            )
        )

    def trashed_ids(self, project_id: str) -> list[str]:
        return [
            m.id for m in self._t.memories.values() if m.project_id == project_id and m.disabled
        ]

    def erase_memory(self, memory_id: str) -> None:
        self.get_memory(memory_id)
        for table in (self._t.memories, self._t.token_counts, self._t.vectors):
            table.pop(memory_id, None)

    def approved_into(self, memory_id: str) -> list[str]:
        return [p.id for p in self._t.proposals.values() if p.memory_id == memory_id]

    def erase_proposal(self, proposal_id: str) -> None:
        del self._t.proposals[proposal_id]

    def tombstone_history(self, memory_id: str, tombstone: dict[str, Any]) -> int:
        events = self._t.audit
        hits = [i for i, e in enumerate(events) if e.memory_id == memory_id]
        for i in hits:
            events[i] = replace(events[i], before=None, after=_stored(tombstone))
        return len(hits)

    def expired_ids(self, project_id: str | None, now: float) -> list[str]:
        return [
            m.id
            for m in self._t.memories.values()
            if not m.disabled
            and m.is_expired(now)
            and (project_id is None or m.project_id == project_id)
        ]


class InMemoryStore(InboxReads, OverviewScans):
    """Memories, observations and their history in dicts (see the module docstring)."""

    def __init__(self, location: Path, files: Files) -> None:
        self._location = location
        self._files = files
        self._own_commits = 0
        self._closed = False

    @classmethod
    def open(cls, location: Path, opened: dict[Path, Files]) -> InMemoryStore:
        """A store on ``location``; ``opened`` holds the data dirs of this test run."""
        location.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        files = opened.setdefault(location, Files.new())
        return cls(location, files)

    @property
    def _t(self) -> Tables:  # type: ignore[override]  # read-only here, set per write
        return self._files.tables

    @property
    def _lock(self) -> threading.RLock:  # type: ignore[override]
        return self._files.lock

    # -- plumbing ---------------------------------------------------------

    @property
    def location(self) -> str:
        return str(self._location)

    @property
    def schema_version(self) -> int:
        return SCHEMA_VERSION

    def close(self) -> None:
        self._closed = True

    def health(self) -> StoreHealth:
        return StoreHealth()

    def data_version(self) -> int:
        with self._files.lock:
            return self._files.commits - self._own_commits  # other stores' commits

    def change_feed(self) -> ChangeFeed:
        return PollingChangeFeed(self.data_version)

    @contextmanager
    def write(self) -> Iterator[MemoryTxn]:
        with self._files.lock:
            if self._closed:
                raise StorageError("the store is closed")
            saved = self._t.copy()
            try:
                yield MemoryTxn(self._t)
            except BaseException:
                self._files.tables = saved
                raise
            self._files.commits += 1
            self._own_commits += 1

    def scrub(self) -> str | None:
        return None  # nothing lingers in dicts

    def verify(self, quick: bool) -> Verification:
        return Verification(events=len(self._t.audit), quick=quick)  # no files to check

    def repair_search(self) -> SearchRepair:
        return SearchRepair()  # no search index of its own to damage

    def reinforce(self, uses: dict[str, tuple[int, float, float]]) -> None:
        if not uses:
            return
        with self.write() as txn:
            for memory_id, (count, at, heat) in uses.items():
                memory = self._t.memories.get(memory_id)
                if memory is not None:
                    last = max(memory.last_used_at or 0, at)
                    used = replace(
                        memory,
                        use_count=memory.use_count + count,
                        last_used_at=last,
                        use_heat=memory.use_heat + heat,
                    )
                    txn.save_memory(memory, used)

    # -- projects ---------------------------------------------------------

    def ensure_project(self, project_id: str, path: str | None, name: str) -> Project:
        with self._files.lock:
            known = self._t.projects.get(project_id)
            if known is None or (path is not None and known.path != path):
                with self.write():
                    created = time.time() if known is None else known.created_at
                    self._t.projects[project_id] = Project(project_id, path, name, created)
            return self._t.projects[project_id]

    # -- projects' paths (core.projects.paths) ----------------------------

    def path_owner(self, machine: str, path: str) -> ProjectPath | None:
        with self._files.lock:
            return self._t.paths.get((machine, path))

    def record_path(
        self, project_id: str, machine: str, path: str, now: float, *, pinned: bool = False
    ) -> None:
        with self._files.lock:
            self.get_project(project_id)  # NotFound, as the engines' foreign key
            with self.write():
                known = self._t.paths.get((machine, path))
                same = known is not None and known.project_id == project_id
                first = known.first_seen if same and known is not None else now
                self._t.paths[(machine, path)] = ProjectPath(
                    project_id, machine, path, first, now, pinned
                )

    def project_paths(self, project_id: str) -> list[ProjectPath]:
        with self._files.lock:
            found = [p for p in self._t.paths.values() if p.project_id == project_id]
        return sorted(found, key=lambda p: (p.machine, p.path))

    def machine_paths(self, machine: str) -> list[ProjectPath]:
        with self._files.lock:
            found = [p for p in self._t.paths.values() if p.machine == machine]
        return sorted(found, key=lambda p: (p.project_id, -p.last_seen, p.path))

    def move_observations(self, source: str, target: str) -> int:
        with self._files.lock:
            self.get_project(source)
            self.get_project(target)
            with self.write():
                moved = 0
                for i, observation in enumerate(self._t.observations):
                    if observation.project_id == source:
                        self._t.observations[i] = replace(observation, project_id=target)
                        moved += 1
                return moved

    def get_project(self, project_id: str) -> Project:
        with self._files.lock:
            project = self._t.projects.get(project_id)
        if project is None:
            raise NotFound(f"no project has the id {echoed(project_id)}")
        return project

    def list_projects(self) -> list[Project]:
        with self._files.lock:
            projects = list(self._t.projects.values())
        return sorted(projects, key=lambda p: (p.project_id != GLOBAL_PROJECT_ID, p.name.lower()))

    def active_counts(self, now: float) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in self._memories():
            if is_live(m, now):
                counts[m.project_id] = counts.get(m.project_id, 0) + 1
        return counts

    def new_counts(self, since: float, now: float) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in self._memories():
            if is_live(m, now) and m.created_at > since and m.source != "gui":
                counts[m.project_id] = counts.get(m.project_id, 0) + 1
        return counts

    def stale_counts(self, max_importance: int, cutoff: float, now: float) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in self._memories():
            if stale(m, max_importance, cutoff, now):
                counts[m.project_id] = counts.get(m.project_id, 0) + 1
        return counts

    # -- memory reads -----------------------------------------------------

    def _memories(self, project_id: str | None = None) -> list[Memory]:
        with self._files.lock:
            found = list(self._t.memories.values())
        return [m for m in found if project_id is None or m.project_id == project_id]

    def get_memory(self, memory_id: str) -> Memory:
        with self._files.lock:
            return MemoryTxn(self._t).get_memory(memory_id)

    def get_memories(self, memory_ids: Sequence[str]) -> list[Memory]:
        with self._files.lock:
            return [self._t.memories[i] for i in dict.fromkeys(memory_ids) if i in self._t.memories]

    def _listed(self, project_id: str, query: ListQuery, now: float) -> list[Memory]:
        return [
            m
            for m in self._memories(project_id)
            if (m.disabled if query.only_disabled else query.include_disabled or not m.disabled)
            and (query.include_expired or not m.is_expired(now))
            and (query.category is None or m.category == query.category)
            and (query.tag is None or query.tag in m.tags)
            and (query.new_since is None or (m.created_at > query.new_since and m.source != "gui"))
        ]

    def list_memories(self, project_id: str, query: ListQuery, now: float) -> list[Memory]:
        found = ordered(self._listed(project_id, query, now), query.order_by, query.descending)
        return found[query.offset : query.offset + query.limit]

    def count_memories(self, project_id: str, query: ListQuery, now: float) -> int:
        return len(self._listed(project_id, query, now))

    def top_memories(
        self, project_ids: Sequence[str], importances: Sequence[int], n: int, now: float
    ) -> list[Memory]:
        found: list[Memory] = []
        for project_id in project_ids:
            live = [m for m in self._memories(project_id) if is_live(m, now)]
            for importance in importances:
                level = [m for m in live if m.importance == importance]
                found += sorted(level, key=lambda m: (-m.use_heat, -m.updated_at))[:n]
        return found

    def stale_memories(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> list[Memory]:
        found = [m for m in self._memories(project_id) if stale(m, max_importance, cutoff, now)]
        return sorted(found, key=lambda m: m.updated_at)[:MAX_PAGE]

    def memories_naming(
        self, project_ids: Sequence[str], path: str | None, limit: int, now: float
    ) -> list[Memory]:
        found = [
            m
            for m in self._memories()
            if m.project_id in project_ids
            and is_live(m, now)
            and (path in m.files if path is not None else bool(m.files))
        ]
        return sorted(found, key=lambda m: (-m.importance, -m.updated_at))[:limit]

    def search_memories(
        self,
        project_ids: Sequence[str],
        query: ParsedQuery,
        limit: int,
        now: float,
        where: SearchFilter | None = None,
    ) -> list[MemoryHit]:
        if query.is_empty or limit <= 0:
            return []
        admits = where.admits if where is not None else is_live
        scored = [
            (m, score(query, m.title, m.content, " ".join(m.tags)))
            for m in self._memories()
            if m.project_id in project_ids and admits(m, now)
        ]
        hits = sorted(((m, s) for m, s in scored if s > 0), key=lambda hit: -hit[1])
        every = len(query.positive)  # stage 0: every term; else "some" (2)
        found: list[MemoryHit] = []
        for project_id in project_ids:  # the best ``limit`` of each scope
            mine = [(m, s) for m, s in hits if m.project_id == project_id][:limit]
            found += [(m, s, m.content[:200], 0 if s >= every else 2) for m, s in mine]
        return found

    def search_vectors(
        self,
        project_ids: Sequence[str],
        model: str,
        vector: bytes,
        limit: int,
        now: float,
        min_score: float = -1.0,
        where: SearchFilter | None = None,
        centre: float | None = None,
    ) -> list[tuple[Memory, float]]:
        admits = where.admits if where is not None else is_live
        query = struct.unpack(f"<{len(vector) // 4}f", vector)
        mine = []  # every vector of the scopes, removed memories' too (as SQLite keeps them)
        for memory_id, (made_by, stored) in self._t.vectors.items():
            memory = self._t.memories[memory_id]
            if made_by == model and memory.project_id in project_ids and len(stored) == len(vector):
                mine.append((memory, struct.unpack(f"<{len(stored) // 4}f", stored)))
        order = query
        if centre is not None and mine:
            share = 1.0 / (len(mine) + max(centre, 0.0))
            shifted = [q - share * sum(v[i] for _, v in mine) for i, q in enumerate(query)]
            norm = math.sqrt(sum(x * x for x in shifted))
            order = tuple(x / norm for x in shifted) if norm > 0 else query
        scored = [(m, _dot(query, v), _dot(order, v)) for m, v in mine if admits(m, now)]
        close = [hit for hit in scored if hit[1] >= min_score]
        return [(m, score) for m, score, _ in sorted(close, key=lambda hit: -hit[2])[:limit]]

    def unindexed(self, model: str, after_id: str, limit: int) -> list[Memory]:
        missing = [
            m
            for m in self._t.memories.values()
            if not m.disabled
            and m.id > after_id
            and (bool(model) and self._t.vectors.get(m.id, ("", b""))[0] != model)
        ]
        return sorted(missing, key=lambda m: m.id)[:limit]

    def index_progress(self, model: str) -> tuple[int, int]:
        active = [m for m in self._t.memories.values() if not m.disabled]
        done = sum(1 for m in active if self._t.vectors.get(m.id, ("", b""))[0] == model)
        return done, len(active)

    def scope_counts(
        self, project_id: str, max_importance: int, cutoff: float, now: float
    ) -> dict[str, int]:
        memories = self._memories(project_id)
        return {
            "active": sum(is_live(m, now) for m in memories),
            "disabled": sum(m.disabled for m in memories),
            "expired": sum(not m.disabled and m.is_expired(now) for m in memories),
            "stale": sum(stale(m, max_importance, cutoff, now) for m in memories),
            "observations": len(self._observations([project_id])),
        }

    # -- observations -----------------------------------------------------

    def _observations(self, project_ids: Sequence[str]) -> list[Observation]:
        with self._files.lock:
            return [
                o for o in self._t.observations if o.project_id in project_ids and not o.disabled
            ]

    def add_observation(
        self, project_id: str, payload: ObservationPayload, actor: str, now: float
    ) -> Observation:
        with self.write():
            if project_id not in self._t.projects:
                self._t.projects[project_id] = Project(project_id, None, project_id, now)
            observation = Observation(
                id=f"obs_{int(now * 1000):011x}{len(self._t.observations):010x}",
                project_id=project_id,
                session_id=payload.session_id,
                kind=payload.kind,
                title=payload.title,
                narrative=payload.narrative,
                created_at=now,
                source=actor,
            )
            self._t.observations.append(observation)
        return observation

    def get_observation(self, observation_id: str) -> Observation:
        with self._files.lock:
            for observation in self._t.observations:
                if observation.id == observation_id:
                    return observation
        raise NotFound(f"no observation has the id {echoed(observation_id)}")

    def forget_observation(
        self, observation_id: str, actor: str, now: float
    ) -> tuple[Observation, bool]:
        with self.write():
            before = self.get_observation(observation_id)
            if before.disabled:
                return before, False
            after = replace(before, disabled=True)
            index = self._t.observations.index(before)
            self._t.observations[index] = after
        return after, True

    def _listed_observations(self, project_id: str, session: str | None) -> list[Observation]:
        found = [
            o
            for o in self._observations([project_id])[::-1]
            if session is None or o.session_id == session
        ]
        found.sort(key=lambda o: -o.created_at)
        return found

    def list_observations(
        self, project_id: str, limit: int, offset: int, session: str | None
    ) -> list[Observation]:
        return self._listed_observations(project_id, session)[offset : offset + limit]

    def count_observations(self, project_id: str, session: str | None) -> int:
        return len(self._listed_observations(project_id, session))

    def observation_sessions(self, project_id: str, limit: int) -> list[str]:
        newest: dict[str, float] = {}
        for o in self._listed_observations(project_id, None):
            newest[o.session_id] = max(newest.get(o.session_id, o.created_at), o.created_at)
        return sorted(newest, key=lambda s: (-newest[s], s))[:limit]

    def search_observations(
        self, project_ids: Sequence[str], query: ParsedQuery, limit: int
    ) -> list[ObservationHit]:
        if query.is_empty or limit <= 0:
            return []
        scored = [(o, score(query, o.title, o.narrative)) for o in self._observations(project_ids)]
        hits = sorted(((o, s) for o, s in scored if s > 0), key=lambda hit: -hit[1])
        return [(o, s, o.narrative[:200]) for o, s in hits[:limit]]

    # -- audit history ----------------------------------------------------

    def _events(self) -> list[AuditEvent]:
        with self._files.lock:
            return list(self._t.audit)

    def memory_history(self, memory_id: str) -> list[AuditEvent]:
        events = [e for e in self._events() if e.memory_id == memory_id]
        if not events:
            self.get_memory(memory_id)  # NotFound for unknown ids
        return events

    def project_history(
        self,
        project_id: str,
        limit: int,
        before_seq: int | None,
        actor: str | None,
        offset: int,
        person: str | None = None,
    ) -> list[AuditEvent]:
        found = [
            e
            for e in reversed(self._events())
            if e.project_id == project_id
            and (before_seq is None or e.seq < before_seq)
            and (actor is None or e.actor == actor)
            and (person is None or e.person == person)
        ]
        return found[offset : offset + limit]

    def count_history(self, project_id: str, actor: str | None, person: str | None = None) -> int:
        events = self.project_history(project_id, len(self._events()), None, actor, 0, person)
        return len(events)

    def history_actors(self, project_id: str) -> list[str]:
        return sorted({e.actor for e in self._events() if e.project_id == project_id})

    def history_people(self, project_id: str) -> list[str]:
        return sorted({e.person for e in self._events() if e.project_id == project_id and e.person})

    def events_after(self, seq: int, limit: int) -> list[AuditEvent]:
        return [e for e in self._events() if e.seq > seq][:limit]

    def last_events(self, memory_ids: Sequence[str], actions: Sequence[str]) -> list[AuditEvent]:
        wanted, newest = set(memory_ids), {}
        for event in self._events():
            if event.memory_id in wanted and event.action.value in actions:
                newest[event.memory_id] = event
        return list(newest.values())

    def index_version(self, project_ids: Sequence[str]) -> int:
        return self._t.index_writes  # of every scope: a coarser version, as good for a cache

    def last_event_seq(self) -> int:
        events = self._events()
        return events[-1].seq if events else 0


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))
