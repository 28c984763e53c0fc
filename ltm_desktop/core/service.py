"""MemoryService: what the API server, the CLI, the agents and the GUI are given.

It is composed, not inherited: the memory writes and reads of one data directory live
here, and every other feature is a service object built at construction from the store
and the write kernel (``core.kernel``), reached as an attribute: ``service.search``,
``service.history``, ``service.inbox``, ``service.importer``, ``service.transfers``,
``service.files``, ``service.stale``, ``service.reviews``, ``service.eraser``,
``service.integrity``, ``service.bulk``, ``service.observations``, ``service.switches``,
``service.database``, ``service.scopes`` (projects: identity, paths, merging),
``service.ambient`` (the global scopes every search and MEMORY.md includes: the shared
one, or the person's own and the team's) and ``service.memory_md``. Writes are serialized by the
kernel (one writer at a time); reads run concurrently on the calling thread (the store
gives each thread its own connection).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ltm_desktop.core import ranking, rules, writing
from ltm_desktop.core.actors import WhoAmI, clean_name, path_machine
from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.bulk.service import BulkWrites
from ltm_desktop.core.change_feed import LazyChangeFeed
from ltm_desktop.core.database_info import DatabaseInfo
from ltm_desktop.core.errors import InvalidInput, LtmError
from ltm_desktop.core.events import EventHub
from ltm_desktop.core.history.observations import ObservationLog
from ltm_desktop.core.history.reads import HistoryReads
from ltm_desktop.core.history.verifying import Verifier
from ltm_desktop.core.inbox.service import InboxService
from ltm_desktop.core.kernel import AfterWrite, WriteKernel
from ltm_desktop.core.listing import check_filters, check_list_query
from ltm_desktop.core.memory_md.precis import PrecisManager, prompt_section
from ltm_desktop.core.memory_md.status import MemoryMdStatus
from ltm_desktop.core.memory_md.sync import MemoryMdSync
from ltm_desktop.core.offline import NoOffline, Offline
from ltm_desktop.core.privacy.erasing_service import Eraser
from ltm_desktop.core.privacy.screening import Screen, SecretsMode
from ltm_desktop.core.projects.ambient import AmbientScopes, global_mode, personal_scope_name
from ltm_desktop.core.projects.scopes import ProjectScopes, identity_mode
from ltm_desktop.core.records import (
    AddResult,
    AddStatus,
    Category,
    ListQuery,
    Memory,
    MemoryDraft,
    PrecisInfo,
    Project,
    ScopeStats,
)
from ltm_desktop.core.seams import (
    BackgroundTask,
    Embedder,
    ExternalProvider,
    ExtractionQueue,
    NoBackgroundTask,
    NoEmbedder,
    NoExternalProvider,
    NoExtraction,
)
from ltm_desktop.core.search.backfill import Backfill
from ltm_desktop.core.search.cache import SearchCache
from ltm_desktop.core.search.searching import SearchService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.core.settings.switches import Switches
from ltm_desktop.core.stale.file_aware import FileAware, StaleList
from ltm_desktop.core.stale.review import Reviews
from ltm_desktop.core.transfer.between_scopes import ScopeTransfers
from ltm_desktop.core.transfer.import_writes import Importer
from ltm_desktop.core.uses import UseCounter
from ltm_desktop.core.versions import check_expected

log = logging.getLogger(__name__)
SYSTEM_ACTOR = "system"


class MemoryService:
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
        config_path: Path | None = None,
        config_problems: tuple[str, ...] = (),
        extraction: Callable[[MemoryService], ExtractionQueue] | None = None,
        identity: WhoAmI | None = None,
    ) -> None:
        """``search_cache_size`` overrides ``settings.search_cache_entries`` (0: no cache);
        ``extraction`` builds the queue that runs extractions for this service;
        ``identity``: the person and machine this process writes as (``core.actors``)."""
        settings = settings or Settings()
        self.store = store
        self.paths = paths
        self.database = DatabaseInfo(store)
        on_server = self.database.server_version is not None
        who = identity or WhoAmI.of(settings.people_name, paths.machine_path)
        # the scopes every search and MEMORY.md includes besides the project (docs/teams.md)
        self.ambient = AmbientScopes(
            global_mode(settings.people_global, on_server),
            lambda: clean_name(settings.people_name) or who.identity.person,
        )
        self.events = EventHub()  # this process's commits
        # others' commits (other processes, other machines): opened on its first subscriber
        self.changes = LazyChangeFeed(store.change_feed)
        self._clock = clock
        self._embedder = embedder or NoEmbedder()
        self.switches = Switches(settings, config_path=config_path, config_problems=config_problems)
        self.screen = Screen(SecretsMode(settings.privacy_secrets))  # [privacy] secrets
        lock = threading.RLock()  # the single writer's: held by the kernel and the backfill
        self._uses = UseCounter(self._write_uses)
        self.precis_manager = PrecisManager(
            store,
            paths.precis_path,
            budget=settings.precis_budget_bytes,
            top_n=settings.precis_top_n,
            clock=clock,
            include_flagged=settings.privacy_flagged_in_precis,
            ambient=self.ambient,
        )
        self.views = MemoryMdSync(store, self.precis_manager, paths.data_dir / ".lock", clock)
        self.memory_md = MemoryMdStatus(self.views)
        self.backfill = Backfill(store, self._embedder, lock)
        self.kernel = WriteKernel(
            store,
            lock=lock,
            clock=clock,
            events=self.events,
            uses=self._uses,
            after_write=AfterWrite(self.views, self.backfill),
            identity=identity,
        )
        cache = SearchCache(
            settings.search_cache_entries if search_cache_size is None else search_cache_size
        )
        self.search = SearchService(
            store,
            clock=clock,
            cache=cache,
            uses=self._uses,
            embedder=self._embedder,
            provider=provider or NoExternalProvider(),
            backfill=self.backfill,
            ambient=self.ambient,
        )
        self.files = FileAware(store, clock)
        self.stale = StaleList(store, settings, clock, self._uses, self.files)
        self.reviews = Reviews(store, self.kernel)
        self.history = HistoryReads(store)
        self.observations = ObservationLog(store, self.kernel, settings, self.screen)
        self.inbox = InboxService(store, self.kernel, self.screen)
        self.importer = Importer(store, self.kernel, self.screen)
        self.transfers = ScopeTransfers(store, self.kernel, self.screen)
        self.eraser = Eraser(store, self.kernel)
        self.integrity = Verifier(store)
        self.bulk = BulkWrites(
            self.kernel, screen=self.screen, vector_for=self.search.vector_for, files=self.files
        )
        self.scopes = ProjectScopes(
            store,
            self.kernel,
            self.screen,
            mode=identity_mode(settings.projects_identity, on_server),
            remote=settings.projects_remote,
            machine=path_machine(),
            clock=clock,
            known_unreachable=lambda: self.offline.is_offline(),
        )
        self.extraction: ExtractionQueue = extraction(self) if extraction else NoExtraction()
        self.consolidation: BackgroundTask = NoBackgroundTask()  # the periodic run, if any
        self._started: set[str] = set()  # the steps of ``start`` done
        self.offline: Offline = NoOffline()  # the outbox, when the database may be away

    @property
    def settings(self) -> Settings:
        """The settings as this process runs them (``switches`` may turn memory off)."""
        return self.switches.settings

    def start(self, *, backfill: bool = False, follow: bool = False) -> int:
        """Startup housekeeping: expire what is due and regenerate every MEMORY.md.

        A MEMORY.md that cannot be written is reported (``views.problems``), not raised.

        Args:
            backfill: start the background backfill of vectors and token sets (for
                long-lived processes: it loads the embedding model).
            follow: keep this data dir's MEMORY.md files in step with other processes'
                and machines' writes too (long-lived processes: it opens the change feed).
        """
        self._once("uses", self._uses.start)
        purged = self.purge_expired(None, SYSTEM_ACTOR)
        if follow:  # before the files are written: a change made meanwhile is caught up
            self._once("follow", lambda: self.views.follow(self.changes))
        self._once("views", self.views.start)
        if backfill:
            self._once("backfill", self.backfill.start)
        return purged

    def _once(self, step: str, start: Callable[[], None]) -> None:
        """A step of ``start`` that starts a thread: done once, so that a start cut short
        (the database server lost meanwhile) can be run again when it answers."""
        if step not in self._started:
            start()
            self._started.add(step)

    def close(self) -> None:
        """Stop the extraction queue, finish queued MEMORY.md work, write pending use
        counts (if the database lets us) and close the store."""
        steps = (
            ("stop the outbox's replay", self.offline.close),
            ("stop listening for others' changes", self.changes.close),
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
            with self.kernel.locked():
                self.store.close()

    def _write_uses(self, uses: dict[str, tuple[int, float]]) -> None:
        counted = {i: (count, at, ranking.heat(count, at)) for i, (count, at) in uses.items()}
        with self.kernel.locked():
            self.store.reinforce(counted)

    def now(self) -> float:
        return self._clock()

    # -- scopes -----------------------------------------------------------

    def resolve_cwd(self, cwd: object) -> Project:
        """The project of a working directory (known or not; nothing is written)."""
        return self.scopes.project(cwd)

    def resolve_scope(
        self, *, cwd: object = None, project_id: object = None, register: bool = False
    ) -> str:
        """The project id for exactly one of ``cwd`` or ``project_id``.

        Args:
            register: record the project (path, name) so it is listed from now on.
        """
        if (cwd is None) == (project_id is None):
            raise InvalidInput("give exactly one of cwd or project_id", "cwd")
        if project_id is not None:  # "global": this person's; "team": the shared one
            return rules.check_project_id(
                self.ambient.alias(rules.check_text(project_id, "project_id"))
            )
        return self.scopes.resolve(cwd, register=register)  # [projects] identity

    def ensure_scope(self, project_id: str) -> None:
        """Before a write to it: this person's global scope's row, named for them (any
        other scope's row is made by its first write, or when its path is registered)."""
        if project_id != self.ambient.personal or not self.ambient.personal_mode:
            return
        try:
            self.store.get_project(project_id)
        except LookupError:
            with self.kernel.locked():
                self.store.ensure_project(
                    project_id, None, personal_scope_name(self.ambient.person)
                )

    def projects(self) -> list[tuple[Project, int]]:
        """Every scope (global first) with its number of active memories, and its path on
        this machine: a repository's project has a path per machine (``project_paths``),
        and one never opened here has none (another machine's path would not open)."""
        counts = self.store.active_counts(self.now())
        projects = self.scopes.as_seen_here(self.store.list_projects())
        return [(p, counts.get(p.project_id, 0)) for p in projects]

    def project(self, project_id: str) -> Project:
        """One scope's row (NotFound when there is none)."""
        return self.store.get_project(rules.check_project_id(project_id))

    def project_name(self, project_id: str) -> str:
        """The scope's name, or its id when it cannot be read (one indexed row)."""
        try:
            return self.store.get_project(project_id).name
        except LtmError:
            return project_id

    # -- writes -----------------------------------------------------------

    def add(
        self,
        project_id: str,
        draft: MemoryDraft,
        actor: str,
        *,
        root: str | None = None,
        memory_id: str | None = None,
    ) -> AddResult:
        """``root``: the project's directory for ``draft.files`` (default: the scope's).
        ``memory_id``: the id a new memory gets, minted earlier by ``writing.new_memory_id``
        (a write replayed from the offline outbox keeps the id its writer was given)."""
        actor = rules.check_actor(actor)
        if memory_id is not None:
            memory_id = rules.check_text(memory_id, "id")
        project_id = rules.check_project_id(project_id)
        draft = self.files.checked_draft(project_id, draft, root)
        draft = rules.validate_draft(draft, self.settings.default_importance)
        draft = self.screen.draft(draft)  # before its text goes to the embedder
        vector = self.search.vector_for(writing.embedding_text(draft))
        self.ensure_scope(project_id)
        with self.kernel.write() as write:
            result = writing.add_memory(
                write.txn,
                project_id,
                draft,
                actor,
                write.now,
                screen=self.screen,
                vector=vector,
                memory_id=memory_id,
            )
            deduplicated = result.status is AddStatus.DEDUPLICATED
            write.record(result.memory, "deduplicated" if deduplicated else "created", actor)
            if result.superseded_id:
                write.record(write.txn.get_memory(result.superseded_id), "superseded", actor)
            write.wake_backfill = vector is None and bool(self._embedder.model)
        return replace(result, memory=self._uses.overlay(result.memory))

    def remember(
        self,
        cwd: object,
        content: object,
        *,
        actor: str = "agent",
        category: Category | str | None = None,
        tags: Sequence[str] = (),
        files: Sequence[str] | None = None,
        title: str | None = None,
    ) -> AddResult:
        """Add a memory for the agent working in ``cwd`` (the HTTP API's ``remember``:
        ``type`` is ``category``, any of ``rules.MEMORY_TYPES`` such as "decision" or
        "todo"; ``concepts`` are ``tags``). ``files`` may be relative to ``cwd`` or
        absolute inside it; they are stored relative to it.

        Raises:
            MemoryDisabled, BackendNotImplemented: see ``Switches.require_memory``.
            InvalidInput: bad content, category, tags or files (named in ``field``; a
                file outside ``cwd`` is refused).
        """
        self.switches.require_memory()
        root = rules.normalize_cwd(cwd)
        project_id = self.resolve_scope(cwd=root, register=False)
        if isinstance(category, str) and category in rules.MEMORY_TYPES:
            category = rules.MEMORY_TYPES[category]  # "decision" -> knowledge, "todo" -> task
        draft = MemoryDraft(
            content=content,  # type: ignore[arg-type] # checked by the rules
            title=title,
            category=category or Category.KNOWLEDGE,
            tags=tuple(tags),
            files=tuple(files or ()),
        )
        result = self.add(project_id, draft, rules.check_actor(actor), root=root)
        self.resolve_scope(cwd=root, register=True)
        return result

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
        self.ensure_scope(project_id)
        with self.kernel.write() as write:
            imported = writing.import_memories(
                write.txn, project_id, clean, actor, write.now, screen=self.screen
            )
            write.record_all(imported, "imported", actor)  # vectors: the backfill's
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
        clean = rules.validate_changes(self.files.checked_changes(memory_id, changes))
        expected = check_expected(expected_updated_at)
        with self.kernel.write() as write:
            before, after = writing.update_memory(
                write.txn,
                memory_id,
                clean,
                actor,
                write.now,
                expected_updated_at=expected,
                embed=lambda m: self.search.vector_for(writing.embedding_text(m), now=True),
                screen=self.screen,
            )
            if after != before:
                write.record(after, "updated", actor)
        return self._uses.overlay(after)

    def _set_disabled(
        self, memory_id: str, disabled: bool, actor: str, expected_updated_at: float | None
    ) -> Memory:
        actor = rules.check_actor(actor)
        expected = check_expected(expected_updated_at)
        with self.kernel.write() as write:
            memory = writing.set_disabled(
                write.txn, memory_id, disabled, actor, write.now, expected_updated_at=expected
            )
            write.record(memory, "removed" if disabled else "restored", actor)
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

    def purge_expired(self, project_id: str | None, actor: str = SYSTEM_ACTOR) -> int:
        """Soft-delete every memory whose TTL has run out; returns how many."""
        if project_id is not None:
            project_id = rules.check_project_id(project_id)
        with self.kernel.write() as write:
            purged = writing.purge_expired(write.txn, project_id, actor, write.now)
            write.record_all(purged, "expired", actor)
        return len(purged)

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
            self.stale.cutoff(),
            self.now(),
        )
        return ScopeStats(project_id=project_id, **counts)

    def precis(self, project_id: str, include_global: bool = True) -> PrecisInfo:
        return self.precis_manager.compute(rules.check_project_id(project_id), include_global)

    def prompt_section(self, project_id: str, include_global: bool = True) -> str:
        text = self.precis(project_id, include_global).text
        return prompt_section(text, self.settings.nudge_text)
