"""MemoryService: the one facade the API server, the CLI and the GUI all use.

It validates input, serializes writes (one writer at a time), keeps every
MEMORY.md in step after each committed write, and publishes change events.
Reads run concurrently on the calling thread (the store gives each thread its
own connection).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ltm_desktop.core import ranking, rules, writing
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.bulk.service import BulkWrites
from ltm_desktop.core.curation import Curation
from ltm_desktop.core.database_info import DatabaseInfo, MemoryMdStatus
from ltm_desktop.core.errors import Conflict, InvalidInput, ObservationOff
from ltm_desktop.core.events import EventHub
from ltm_desktop.core.history.reads import HistoryReads, ObservationReads
from ltm_desktop.core.inbox.service import InboxService
from ltm_desktop.core.listing import check_filters, check_list_query
from ltm_desktop.core.memory_backend import make_backend
from ltm_desktop.core.memory_md.precis import PrecisManager, prompt_section
from ltm_desktop.core.memory_md.sync import MemoryMdSync
from ltm_desktop.core.observations import build_observation
from ltm_desktop.core.privacy.service import PrivacyService
from ltm_desktop.core.records import (
    AddResult,
    AddStatus,
    ChangeEvent,
    ListQuery,
    Memory,
    MemoryDraft,
    Observation,
    PrecisInfo,
    Project,
    ScopeStats,
)
from ltm_desktop.core.seams import (
    Embedder,
    ExternalProvider,
    NoEmbedder,
    NoExternalProvider,
)
from ltm_desktop.core.search.backfill import Backfill
from ltm_desktop.core.search.cache import SearchCache
from ltm_desktop.core.search.searching import SearchReads
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.core.settings.switches import Switches
from ltm_desktop.core.stale.file_aware import FileAware
from ltm_desktop.core.stale.named_files import MissingFiles
from ltm_desktop.core.transfer.import_writes import TransferService
from ltm_desktop.core.uses import UseCounter
from ltm_desktop.core.versions import check_expected

log = logging.getLogger(__name__)
SYSTEM_ACTOR = "system"


class MemoryService(
    SearchReads,
    HistoryReads,
    ObservationReads,
    InboxService,
    TransferService,
    Curation,
    Switches,
    FileAware,
    PrivacyService,
    BulkWrites,
    DatabaseInfo,
    MemoryMdStatus,
):
    """Thread-safe access to one data directory's memories."""

    def __init__(
        self,
        store: MemoryStore,
        paths: DataPaths,
        settings: Settings | None = None,
        *,
        clock: Callable[[], float] = time.time,
        embedder: Embedder | None = None,
        provider: ExternalProvider | None = None,
        search_cache_size: int | None = None,
    ) -> None:
        """``search_cache_size`` overrides ``settings.search_cache_entries`` (0: no cache)."""
        self.store = store
        self.paths = paths
        self.settings = settings or Settings()
        self.events = EventHub()
        self._clock = clock
        self._embedder = embedder or NoEmbedder()
        self._provider = provider or NoExternalProvider()
        self._write_lock = threading.RLock()
        self._cache = SearchCache(
            self.settings.search_cache_entries if search_cache_size is None else search_cache_size
        )
        self._uses = UseCounter(self._write_uses)
        self.precis_manager = PrecisManager(
            store,
            paths.precis_path,
            budget=self.settings.precis_budget_bytes,
            top_n=self.settings.precis_top_n,
            clock=clock,
            include_flagged=self.settings.privacy_flagged_in_precis,
        )
        self.views = MemoryMdSync(store, self.precis_manager, paths.data_dir / ".lock", clock)
        self.backfill = Backfill(store, self._embedder, self._write_lock)
        self.backend = make_backend(self)  # [memory] backend (core.memory_backend)
        self._missing_files = MissingFiles(clock)  # stale: files that are gone (core.files)

    def start(self, *, backfill: bool = False) -> int:
        """Startup housekeeping: expire what is due and regenerate every MEMORY.md.

        A MEMORY.md that cannot be written is reported (``memory_md_problems``), not raised.

        Args:
            backfill: start the background backfill of vectors and token sets (for
                long-lived processes: it loads the embedding model).
        """
        self._uses.start()
        purged = self.purge_expired(None, SYSTEM_ACTOR)
        self.views.start()
        if backfill:
            self.backfill.start()
        return purged

    def close(self) -> None:
        """Stop the extraction queue, finish queued MEMORY.md work, write pending use
        counts (if the database lets us) and close the store."""
        steps = (
            ("stop the periodic consolidation", self.consolidation.close),
            ("stop the extraction queue", self.extraction.close),
            ("stop the vector backfill", self.backfill.close),
            ("write queued MEMORY.md files", self.views.close),
            ("write pending use counts", self._uses.close),
        )
        try:
            for doing, step in steps:
                try:  # one step failing must not leave the next ones running
                    step()
                except Exception as exc:
                    log.warning("could not %s at close: %s", doing, exc)
        finally:  # even on Ctrl+C
            with self._write_lock:
                self.store.close()

    def _write_uses(self, uses: dict[str, tuple[int, float]]) -> None:
        counted = {i: (count, at, ranking.heat(count, at)) for i, (count, at) in uses.items()}
        with self._write_lock:
            self.store.reinforce(counted)

    def now(self) -> float:
        return self._clock()

    # -- scopes -----------------------------------------------------------

    def resolve_cwd(self, cwd: object) -> Project:
        """The project of a working directory (known or not; nothing is written)."""
        path = rules.normalize_cwd(cwd)
        project_id = rules.project_id_for_cwd(path)
        try:
            known = self.store.get_project(project_id)
        except LookupError:
            return Project(project_id, path, rules.display_name_for_path(path), self.now())
        if known.path is None:  # created by a write whose caller has not registered it yet
            return replace(known, path=path, name=rules.display_name_for_path(path))
        return known

    def resolve_scope(
        self, *, cwd: object = None, project_id: object = None, register: bool = False
    ) -> str:
        """The project id for exactly one of ``cwd`` or ``project_id``.

        Args:
            register: record the project (path, name) so it is listed from now on.
        """
        if (cwd is None) == (project_id is None):
            raise InvalidInput("give exactly one of cwd or project_id", "cwd")
        if project_id is not None:
            return rules.check_project_id(project_id)
        path = rules.normalize_cwd(cwd)
        project_id = rules.project_id_for_cwd(path)
        if register:
            with self._write_lock:
                self.store.ensure_project(project_id, path, rules.display_name_for_path(path))
        return project_id

    def projects(self) -> list[tuple[Project, int]]:
        """Every scope (global first) with its number of active memories."""
        counts = self.store.active_counts(self.now())
        return [(p, counts.get(p.project_id, 0)) for p in self.store.list_projects()]

    # -- writes -----------------------------------------------------------

    def _after_write(self, changed: Sequence[Memory]) -> None:
        """Bring the affected MEMORY.md files up to date once the write is committed.

        Call it after releasing the write lock: it never raises (a file that cannot be
        written is reported and retried) and never holds up the next writer.
        """
        if changed:
            self.views.after_write(changed)
            self.backfill.wake()  # an edit, import or restore may have left it work

    def _event(self, memory: Memory, action: str, actor: str) -> ChangeEvent:
        return ChangeEvent(memory.id, memory.project_id, action, actor, self.now())

    def add(
        self, project_id: str, draft: MemoryDraft, actor: str, *, root: str | None = None
    ) -> AddResult:
        """``root``: the project's directory for ``draft.files`` (default: the scope's)."""
        actor = rules.check_actor(actor)
        project_id = rules.check_project_id(project_id)
        draft = self._relative_files(project_id, draft, root)
        draft = rules.validate_draft(draft, self.settings.default_importance)
        draft = self.screen.draft(draft)  # before its text goes to the embedder
        vector = self._embed(writing.embedding_text(draft))
        with self._write_lock:
            with self.store.write() as txn:
                result = writing.add_memory(
                    txn, project_id, draft, actor, self.now(), screen=self.screen, vector=vector
                )
            changed = [result.memory]
            if result.superseded_id:
                changed.append(self.store.get_memory(result.superseded_id))
            action = "deduplicated" if result.status is AddStatus.DEDUPLICATED else "created"
            events = [self._event(result.memory, action, actor)]
            events += [self._event(m, "superseded", actor) for m in changed[1:]]
        self._after_write(changed)
        self.events.publish(events)
        if vector is None and self._embedder.model:
            self.backfill.wake()
        return replace(result, memory=self._uses.overlay(result.memory))

    def import_memories(
        self, project_id: str, drafts: Sequence[MemoryDraft], actor: str
    ) -> list[Memory]:
        """Bulk insert in one transaction (audited as ``imported``); texts already present are
        skipped and no near-duplicate is superseded. Every draft is validated first, so a bad
        one imports nothing."""
        actor = rules.check_actor(actor)
        project_id = rules.check_project_id(project_id)
        default = self.settings.default_importance
        clean = [rules.validate_draft(draft, default) for draft in drafts]
        with self._write_lock, self.store.write() as txn:
            now, screen = self.now(), self.screen
            imported = writing.import_memories(txn, project_id, clean, actor, now, screen=screen)
        self._after_write(imported)
        self.events.publish([self._event(m, "imported", actor) for m in imported])
        if imported:
            self.backfill.wake()  # their token sets and vectors, in the background
        return imported

    def update(
        self,
        memory_id: str,
        changes: dict[str, Any],
        actor: str,
        *,
        expected_updated_at: float | None = None,
    ) -> Memory:
        """Partial update of an active memory (one in the trash: Conflict ``removed``).

        ``expected_updated_at``: the ``updated_at`` the caller saw; if the memory changed
        meanwhile, StaleEdit (carrying the current memory) and nothing is written.
        """
        actor = rules.check_actor(actor)
        clean = rules.validate_changes(self._relative_file_changes(memory_id, changes))
        expected = check_expected(expected_updated_at)
        with self._write_lock, self._current_on_conflict():
            with self.store.write() as txn:
                before, after = writing.update_memory(
                    txn,
                    memory_id,
                    clean,
                    actor,
                    self.now(),
                    expected_updated_at=expected,
                    embed=lambda m: self._embed(writing.embedding_text(m), now=True),
                    screen=self.screen,
                )
            events = [] if after == before else [self._event(after, "updated", actor)]
        if events:
            self._after_write([after])
        self.events.publish(events)
        return self._uses.overlay(after)

    def _set_disabled(
        self, memory_id: str, disabled: bool, actor: str, expected_updated_at: float | None
    ) -> Memory:
        actor = rules.check_actor(actor)
        expected = check_expected(expected_updated_at)
        with self._write_lock, self._current_on_conflict():
            with self.store.write() as txn:
                memory = writing.set_disabled(
                    txn, memory_id, disabled, actor, self.now(), expected_updated_at=expected
                )
            event = self._event(memory, "removed" if disabled else "restored", actor)
        self._after_write([memory])
        self.events.publish([event])
        return self._uses.overlay(memory)

    def remove(
        self, memory_id: str, actor: str, *, expected_updated_at: float | None = None
    ) -> Memory:
        """Soft delete: the memory goes to the trash and can be restored.
        ``expected_updated_at`` as in ``update``."""
        return self._set_disabled(memory_id, True, actor, expected_updated_at)

    def restore(
        self, memory_id: str, actor: str, *, expected_updated_at: float | None = None
    ) -> Memory:
        return self._set_disabled(memory_id, False, actor, expected_updated_at)

    @contextmanager
    def _current_on_conflict(self) -> Iterator[None]:
        """A conflict's current memory shows the use counts not yet written, like ``get``."""
        try:
            yield
        except Conflict as exc:
            if exc.current is not None:
                exc.current = self._uses.overlay(exc.current)
            raise

    def mark_reviewed(
        self, memory_id: str, actor: str, *, expected_updated_at: float | None = None
    ) -> Memory:
        """Keep a stale candidate: it leaves the stale list until it goes stale again.
        ``expected_updated_at`` as in ``update``."""
        actor = rules.check_actor(actor)
        expected = check_expected(expected_updated_at)
        with self._write_lock, self._current_on_conflict(), self.store.write() as txn:
            memory = writing.mark_reviewed(txn, memory_id, actor, self.now(), expected)
        self.events.publish([self._event(memory, "reviewed", actor)])
        return self._uses.overlay(memory)

    def purge_expired(self, project_id: str | None, actor: str = SYSTEM_ACTOR) -> int:
        """Soft-delete every memory whose TTL has run out; returns how many."""
        if project_id is not None:
            project_id = rules.check_project_id(project_id)
        with self._write_lock:
            with self.store.write() as txn:
                purged = writing.purge_expired(txn, project_id, actor, self.now())
            events = [self._event(m, "expired", actor) for m in purged]
        self._after_write(purged)
        self.events.publish(events)
        return len(purged)

    def observe(
        self,
        project_id: str,
        kind: object,
        session_id: object,
        actor: str,
        *,
        user_text: object = None,
        assistant_text: object = None,
        messages_text: object = None,
    ) -> Observation:
        """Record an agent lifecycle event (agent_end, pre_compact); ObservationOff when
        ``[observe]`` turns its kind off (bad input is refused first, all the same)."""
        actor = rules.check_actor(actor)
        project_id = rules.check_project_id(project_id)
        screen = self.screen.conversation  # before the texts are cut to size
        payload = build_observation(
            kind,
            session_id,
            user_text=screen(user_text),
            assistant_text=screen(assistant_text),
            messages_text=screen(messages_text),
        )
        if not self.settings.observes(payload.kind.value):
            raise ObservationOff(f"{payload.kind.value} observations are turned off in the config")
        with self._write_lock:
            return self.store.add_observation(project_id, payload, actor, self.now())

    # -- reads ------------------------------------------------------------

    def get(self, memory_id: str) -> Memory:
        return self._uses.overlay(self.store.get_memory(rules.check_text(memory_id, "id")))

    def list_memories(self, project_id: str, query: ListQuery | None = None) -> list[Memory]:
        checked = check_list_query(query or ListQuery())
        found = self.store.list_memories(project_id, checked, self.now())
        return [self._uses.overlay(m) for m in found]

    def count_memories(self, project_id: str, query: ListQuery | None = None) -> int:
        return self.store.count_memories(
            project_id, check_filters(query or ListQuery()), self.now()
        )

    def get_many(self, memory_ids: Sequence[str]) -> dict[str, Memory]:
        """The memories that exist among ``memory_ids`` (one query), by id."""
        return {m.id: self._uses.overlay(m) for m in self.store.get_memories(list(memory_ids))}

    def data_version(self) -> int:
        """Changes whenever another process commits: a cheap "is there news?" check."""
        return self.store.data_version()

    def stats(self, project_id: str) -> ScopeStats:
        counts = self.store.scope_counts(
            rules.check_project_id(project_id),
            self.settings.stale_max_importance,
            self._stale_cutoff(),
            self.now(),
        )
        return ScopeStats(project_id=project_id, **counts)

    def precis(self, project_id: str, include_global: bool = True) -> PrecisInfo:
        return self.precis_manager.compute(rules.check_project_id(project_id), include_global)

    def prompt_section(self, project_id: str, include_global: bool = True) -> str:
        text = self.precis(project_id, include_global).text
        return prompt_section(text, self.settings.nudge_text)

    # -- forgetting observations --------------------------------------------

    def get_observation(self, observation_id: str) -> Observation:
        """The observation, forgotten or not (``disabled``)."""
        return self.store.get_observation(rules.check_text(observation_id, "id"))

    def forget_observation(self, observation_id: str, actor: str) -> Observation:
        """Soft delete: the observation leaves recall and lists; its row is kept."""
        actor = rules.check_actor(actor)
        observation_id = rules.check_text(observation_id, "id")
        with self._write_lock:
            observation, forgotten = self.store.forget_observation(
                observation_id, actor, self.now()
            )
        if not forgotten:
            raise Conflict(f"observation {observation_id} is already forgotten")
        return observation
