"""This machine's outbox at work: the ``Offline`` a service holds when its database is
PostgreSQL, and the background thread that watches the server and replays.

Online, writes go to the database as always and the thread refreshes the read cache of
the scopes used here. When a call finds the server unreachable (or it was unreachable at
start), writes are queued (``queueing``) until the outbox is empty again: a new write
never overtakes a waiting one. The thread asks the server every ``interval`` seconds
(``probe``: a fresh connection, so a broken pool cannot hide a server that is back, nor
a live pool one that is gone), and once it answers, replays the outbox in order, one
write at a time, each removed only after the database committed it. One process of the
data dir replays at a time (a lock file beside the outbox).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from ltm_desktop.core.backend import MAX_PAGE
from ltm_desktop.core.errors import DatabaseUnreachable, LtmError, NotFound, StorageError
from ltm_desktop.core.offline import OfflineStatus, QueuedWrite
from ltm_desktop.core.records import ListQuery, Memory, Project
from ltm_desktop.core.service import MemoryService
from ltm_desktop.outbox.replay import Outcome, Replayed, replay
from ltm_desktop.store.outbox.journal import Journal
from ltm_desktop.store.outbox.mirror import Mirror

log = logging.getLogger(__name__)
INTERVAL_S = 1.0  # how often an unreachable server is asked again
ONLINE_PROBE_S = 3.0  # how often a reachable one is (an outage noticed before a write)
REFRESH_S = 300.0  # each mirrored scope is read again at least this often
DIRTY_REFRESH_S = 5.0  # scopes used lately are read again at most this often
MIRROR_LIMIT = 5_000  # memories mirrored per scope (the most important first)
LOCK_FILE = "outbox.lock"

Probe = Callable[[], str | None]  # None: the server answers; else why not (no password)


class LocalOutbox:
    """The outbox, the read cache and the replaying thread of one data dir."""

    def __init__(
        self,
        data_dir: Path,
        probe: Probe,
        *,
        offline: str | None = None,
        on_reachable: Callable[[], None] | None = None,
        interval: float = INTERVAL_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``offline``: why the database could not be reached at start (None: it was).
        ``on_reachable``: called (on the thread) the first time the server answers, before
        replaying: the composition root connects a store opened offline there."""
        self.journal = Journal(data_dir)
        self.mirror = Mirror(data_dir)
        self._lock_path = data_dir / LOCK_FILE
        self._probe = probe
        self._on_reachable = on_reachable
        self._interval = interval
        self._clock = clock
        self._problem = offline
        self._state = threading.Lock()
        self._dirty: set[str] = set()  # used since the last refresh
        self._known: set[str] = set()  # recorded in the mirror's scopes
        self._refreshed = float("-inf")  # time.monotonic() of the last refresh
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._service: MemoryService | None = None
        self._thread: threading.Thread | None = None
        self.replayed = 0  # writes this process replayed (for tests and the bench)

    available = True

    # -- the Offline protocol ---------------------------------------------------------

    def status(self) -> OfflineStatus:
        waiting, oldest = self.journal.count()
        with self._state:
            problem = self._problem
        return OfflineStatus(
            offline=problem is not None,
            waiting=waiting,
            oldest_at=oldest,
            conflicts=self.journal.kept_count(),
            problem=problem,
        )

    def is_offline(self) -> bool:
        with self._state:
            return self._problem is not None

    def queueing(self) -> bool:
        return self.is_offline() or self.journal.has_waiting()

    def unreachable(self, reason: str) -> None:
        with self._state:
            if self._problem is None:
                log.warning("the database is unreachable; writes are queued: %s", reason)
            self._problem = reason
        self._wake.set()

    def queue(self, write: QueuedWrite) -> QueuedWrite:
        queued = self.journal.append(write)
        self._wake.set()  # online with a backlog: replay it now
        return queued

    def queued(self, project_id: str | None = None) -> list[QueuedWrite]:
        return self.journal.pending(project_id)

    def cached(self, project_id: str) -> list[Memory]:
        return self.mirror.memories(project_id)

    def cached_projects(self) -> list[Project]:
        return self.mirror.projects()

    def cached_memory(self, memory_id: str) -> Memory | None:
        return self.mirror.memory(memory_id)

    def seen(self, project_id: str) -> None:
        with self._state:
            self._dirty.add(project_id)
            if project_id in self._known:
                return
            self._known.add(project_id)
        with contextlib.suppress(StorageError):
            self.mirror.add_scope(project_id)

    # -- the thread ---------------------------------------------------------------

    def set_on_reachable(self, callback: Callable[[], None]) -> None:
        self._on_reachable = callback

    def start(self, service: MemoryService) -> None:
        """Watch the server and replay for ``service`` (a long-lived process only)."""
        self._service = service
        for scope in service.ambient.ids:  # every search includes them
            self.seen(scope)
        self._thread = threading.Thread(target=self._run, name="ltm-outbox", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(30)
        self.journal.close()
        self.mirror.close()

    def _run(self) -> None:
        reached = self._problem is None
        # online: the pool has just connected; the first probe is due one period later
        last_probe = time.monotonic() if reached else float("-inf")
        while not self._stop.is_set():
            try:
                now = time.monotonic()
                due = self._interval if self.is_offline() else ONLINE_PROBE_S
                if now - last_probe >= due or self.is_offline():
                    last_probe = now
                    problem = self._probe()
                    self._set_problem(problem)
                if not self.is_offline():
                    if not reached:
                        if self._on_reachable is not None:
                            self._on_reachable()
                        reached = True
                    self.replay_all()
                    self._refresh()
            except DatabaseUnreachable as exc:
                self.unreachable(str(exc))
            except StorageError as exc:  # busy, or the outbox's own file: tried again
                log.warning("the outbox could not replay now: %s", exc)
            except Exception:  # the thread must go on: a bug is logged, then tried again
                log.exception("the outbox's replay failed; trying again")
            self._wake.wait(self._interval)
            self._wake.clear()

    def _set_problem(self, problem: str | None) -> None:
        with self._state:
            was = self._problem
            self._problem = problem
        if was is not None and problem is None:
            log.info("the database answers again; replaying the outbox")
        elif was is None and problem is not None:
            log.warning("the database is unreachable; writes are queued: %s", problem)

    @contextlib.contextmanager
    def _replaying(self) -> Iterator[bool]:
        """True while this process holds the replay lock (another may hold it)."""
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)

    def replay_all(self) -> int:
        """Replay every waiting write in order; how many were replayed. Stops at the first
        that finds the database unreachable (raised: it stays first in the outbox)."""
        service = self._service
        if service is None:
            return 0
        done = 0
        with self._replaying() as mine:
            if not mine:
                return 0
            while not self._stop.is_set():
                write = self.journal.first()
                if write is None:
                    break
                try:
                    result = replay(service, write)
                except StorageError:
                    raise  # the database (unreachable, busy): the write stays first
                except LtmError as exc:  # refused in a way replay does not know: kept
                    result = Replayed(Outcome.KEPT, None, f"refused: {exc}")
                except Exception as exc:  # a bug: logged, and the write kept, not retried
                    log.exception("replaying offline change %d failed", write.seq)
                    result = Replayed(Outcome.KEPT, None, f"failed: {exc}")
                if result.outcome is Outcome.KEPT:
                    self.journal.keep(write, result.reason, self._clock())
                else:
                    self.journal.done(write, result.version)
                self.seen(write.project_id)
                done += 1
                self.replayed += 1
        return done

    def _refresh(self) -> None:
        """Mirror the scopes used since the last refresh, and any not refreshed lately."""
        service = self._service
        if service is None or time.monotonic() - self._refreshed < DIRTY_REFRESH_S:
            return
        self._refreshed = time.monotonic()
        now = self._clock()
        with self._state:
            dirty, self._dirty = self._dirty, set()
        due = {p for p, at in self.mirror.scopes() if at is None or now - at > REFRESH_S}
        for project_id in sorted(dirty | due):
            try:
                memories = _all_active(service, project_id)
                self.mirror.replace(project_id, memories, now, _project(service, project_id))
            except DatabaseUnreachable:
                with self._state:
                    self._dirty.add(project_id)
                raise
            except LtmError as exc:
                log.info("could not mirror %s: %s", project_id, exc)


def _project(service: MemoryService, project_id: str) -> Project | None:
    try:
        return service.project(project_id)
    except NotFound:  # a scope with memories and no row yet
        return None


def _all_active(service: MemoryService, project_id: str) -> list[Memory]:
    found: list[Memory] = []
    page = min(MAX_PAGE, 500)
    while len(found) < MIRROR_LIMIT:
        batch = service.list_memories(project_id, ListQuery(limit=page, offset=len(found)))
        found.extend(batch)
        if len(batch) < page:
            break
    return found
