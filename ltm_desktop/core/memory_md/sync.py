"""Keeps every scope's MEMORY.md in step with the store, and never lets it fail a write.

MEMORY.md is a view. A write is committed first; its files are regenerated
afterwards by a background thread, outside the service's write lock. The thread
coalesces bursts (a hundred adds in a row rewrite a file a few times, not a
hundred), regenerates the written scopes before fanning a global write out to
every project's file, and lets a caller wait for the written scopes (``settle``):
a write costs the same however many projects exist.

Other processes and machines write to the store too (a shared PostgreSQL database):
once ``follow`` is given the process's change feed, a wake makes the worker read the
audit history after the last event it saw and regenerate the scopes those events
touched (``_catch_up``), so this data dir's files show others' writes as well.

A file that cannot be written (permissions, a full disk, a directory in its
place) marks its scope *dirty*: the problem is logged, reported through
``problems()`` and to subscribers, and the scope is regenerated again on the next
write and periodically, with back-off, until it succeeds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.change_feed import ChangeFeed
from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.files.filelock import FileLock
from ltm_desktop.core.memory_md.files import write_atomically
from ltm_desktop.core.memory_md.precis import PrecisManager
from ltm_desktop.core.ranking import precis_key
from ltm_desktop.core.records import Memory, MemoryMdProblem, PrecisInfo

log = logging.getLogger(__name__)
FIRST_RETRY_SECONDS = 1.0
MAX_CHANGES_KEPT = 1_000  # past this many queued changes for a scope, just render it
MAX_RETRY_SECONDS = 60.0
EVENTS_PAGE = 1_000  # audit events read at a time when catching up with others' writes
ProblemsListener = Callable[[list[MemoryMdProblem]], None]


@dataclass(frozen=True, slots=True)
class _Window:
    """The top-N a scope's file was last rendered from."""

    ids: frozenset[str]
    last: Memory | None  # the N-th memory; None if fewer
    next_expiry: float | None  # after this, a member has silently left the top-N

    @classmethod
    def of(cls, info: PrecisInfo, top_n: int) -> _Window:
        full = len(info.candidate_ids) >= top_n
        return cls(frozenset(info.candidate_ids), info.last if full else None, info.next_expiry)

    def touched_by(self, changed: Sequence[Memory], now: float) -> bool:
        """Could these changed memories (or the passing of time) alter the top-N?"""
        if self.next_expiry is not None and now >= self.next_expiry:
            return True
        for memory in changed:
            if memory.id in self.ids:
                return True
            if not memory.disabled and (
                self.last is None or precis_key(memory, now) < precis_key(self.last, now)
            ):
                return True
        return False


@dataclass(slots=True)
class _Dirty:
    problem: MemoryMdProblem
    retry_at: float  # time.monotonic()


def _reason(exc: BaseException, path: Path) -> str:
    """What went wrong, naming the file only when it is not MEMORY.md itself."""
    if isinstance(exc, OSError) and exc.strerror:
        other = exc.filename and str(exc.filename) != str(path)
        return f"{exc.strerror} ({exc.filename})" if other else exc.strerror
    return str(exc) or type(exc).__name__


class MemoryMdSync:
    """Regenerates MEMORY.md files after writes, in the caller's thread or in the background.

    Regenerations of one data dir are serialized per file under a lock shared with
    other processes, and each renders what the store holds at that moment, so the
    file ends up showing the newest state whichever process wrote last.
    """

    def __init__(
        self,
        store: MemoryStore,
        manager: PrecisManager,
        lock_path: Path,
        clock: Callable[[], float],
    ) -> None:
        self._store = store
        self._manager = manager
        self._ambient = manager.ambient  # the scopes whose writes reach every file
        self._lock_path = lock_path
        self._clock = clock
        self._render_lock = threading.Lock()  # one regeneration at a time in this process
        self._windows: dict[str, _Window] = {}
        self._seen_version: int | None = None
        self._dirty: dict[str, _Dirty] = {}
        self._listeners: list[ProblemsListener] = []
        # background work: scope -> memories that changed (None: regenerate regardless)
        self._cond = threading.Condition()
        self._pending: dict[str, list[Memory] | None] = {}
        self._fanout: list[Memory] | None = None  # a global write's changes, not yet fanned out
        self._fanout_due = False
        self._queued = 0  # writes queued so far
        self._settled = 0  # writes whose own scopes have been regenerated
        self._busy = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        # others' commits (``follow``): the last audit event seen, and whether to look
        self._cursor: int | None = None
        self._others_wrote = False
        self._unfollow: Callable[[], None] | None = None

    # -- lifecycle ----------------------------------------------------------

    def start(self) -> None:
        """Regenerate every scope's file (reporting, not raising, failures); start the worker."""
        for project in self._store.list_projects():
            self.regenerate(project.project_id)
        self._thread = threading.Thread(target=self._run, name="ltm-memory-md", daemon=True)
        self._thread.start()

    def follow(self, feed: ChangeFeed) -> None:
        """Also regenerate the files of scopes that other processes or machines change,
        whenever ``feed`` wakes (from the audit event that is the newest now)."""
        cursor = self._store.last_event_seq()
        with self._cond:
            self._cursor = cursor
        self._unfollow = feed.subscribe(self._others_committed)

    def _others_committed(self) -> None:
        with self._cond:
            self._others_wrote = True
            self._cond.notify_all()

    def close(self, timeout: float = 10.0) -> None:
        """Finish what is queued (for at most ``timeout`` seconds) and stop the worker."""
        if self._unfollow is not None:
            self._unfollow()
            self._unfollow = None
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("MEMORY.md regeneration did not finish within %.0f s", timeout)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every queued regeneration, fan-outs included, has run; False on timeout."""
        return self._wait(lambda: not (self._pending or self._fanout_due or self._busy), timeout)

    def settle(self, timeout: float) -> bool:
        """Wait until the scopes written so far have been regenerated (not the fan-out of a
        global write to every project); False on timeout."""
        with self._cond:
            ticket = self._queued
        return self._wait(lambda: self._settled >= ticket, timeout)

    def _wait(self, done: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not done():
                left = deadline - time.monotonic()
                if left <= 0 or self._thread is None or not self._thread.is_alive():
                    return False
                self._cond.wait(left)
        return True

    # -- after a write ------------------------------------------------------

    def after_write(self, changed: Sequence[Memory]) -> None:
        """Queue the files these committed changes affect (never raises, never waits).

        The written scopes come first; a change to ``global`` then reaches every
        project's file; scopes left out of date by an earlier failure are retried too.
        """
        with self._cond:
            for memory in changed:
                self._queue(memory.project_id, [memory])
            if any(self._ambient.is_ambient(m.project_id) for m in changed):
                self._fanout = [*(self._fanout or []), *changed]
                self._fanout_due = True
            for scope in self._dirty:
                self._queue(scope, None)
            self._queued += 1
            self._cond.notify_all()

    def _queue(self, scope: str, changed: list[Memory] | None) -> None:
        """Add a scope to the next batch (call with the condition held); None: render it
        whatever changed."""
        if scope not in self._pending:
            self._pending[scope] = changed
        elif (known := self._pending[scope]) is not None:
            if changed is None or len(known) > MAX_CHANGES_KEPT:
                self._pending[scope] = None  # too much to tell: render it
            else:
                known.extend(changed)

    def regenerate(self, project_id: str, changed: Sequence[Memory] | None = None) -> bool:
        """Re-render one scope and rewrite its file if its text changed; False if it failed.

        Args:
            changed: the memories a write touched; the scope is skipped when none of
                them is, or could enter, its current top-N (None: always render).

        Another person's global scope has no file here (True: nothing to do).
        """
        if self._ambient.is_foreign(project_id):
            return True
        try:
            with self._render_lock:
                if not self._needs_render(project_id, changed):
                    return True
                info = self._write_file(project_id)
                self._windows[project_id] = _Window.of(info, self._manager.top_n)
        except Exception as exc:  # noqa: BLE001 - a view must never fail the write behind it
            self._mark_dirty(project_id, exc)
            return False
        self._mark_clean(project_id)
        return True

    def _forget_if_others_wrote(self) -> None:
        """Drop what is known of the top-Ns if another process committed since: once per
        batch, not per scope (the check takes the store's write lock)."""
        try:
            version: int | None = self._store.data_version()
        except Exception:  # noqa: BLE001 - unknown: assume they did (renders, never skips)
            version = None
        with self._render_lock:
            if version is None or version != self._seen_version:
                self._windows.clear()
                self._seen_version = version

    def _needs_render(self, project_id: str, changed: Sequence[Memory] | None) -> bool:
        if changed is None or project_id in self._dirty:
            return True
        window = self._windows.get(project_id)
        return window is None or window.touched_by(changed, self._clock())

    def _write_file(self, project_id: str) -> PrecisInfo:
        self._windows.pop(project_id, None)  # until this write succeeds, nothing is known
        with FileLock(self._lock_path, within=self._lock_path.parent):
            info = self._manager.compute(project_id)
            path = Path(info.path)
            if not path.exists() or self._manager.read_file(project_id) != info.text:
                write_atomically(path, info.text)
        return info

    # -- problems -------------------------------------------------------------

    def problems(self) -> list[MemoryMdProblem]:
        """The scopes whose file is out of date now, by project id."""
        with self._cond:
            return [self._dirty[k].problem for k in sorted(self._dirty)]

    def subscribe(self, listener: ProblemsListener) -> Callable[[], None]:
        """Call ``listener(problems)`` (from any thread) whenever the set of problems changes."""
        with self._cond:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._cond:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def _mark_dirty(self, project_id: str, exc: Exception) -> None:
        expected = isinstance(exc, OSError | LtmError)
        path = self._manager.path_for(project_id)
        reason = _reason(exc, path)
        log.log(
            logging.WARNING if expected else logging.ERROR,
            "MEMORY.md of %s (%s) not written; will retry: %s",
            project_id,
            path,
            reason,
            exc_info=not expected,
        )
        with self._cond:
            old = self._dirty.get(project_id)
            attempts = 1 if old is None else old.problem.attempts + 1
            delay = min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (attempts - 1))
            problem = MemoryMdProblem(
                project_id=project_id,
                path=str(path),
                reason=reason,
                since=self._clock() if old is None else old.problem.since,
                attempts=attempts,
            )
            self._dirty[project_id] = _Dirty(problem, time.monotonic() + delay)
            changed = old is None or old.problem.reason != problem.reason
            self._cond.notify_all()  # the worker recomputes when to retry
        if changed:
            self._notify()

    def _mark_clean(self, project_id: str) -> None:
        with self._cond:
            if self._dirty.pop(project_id, None) is None:
                return
        log.info("MEMORY.md of %s is up to date again", project_id)
        self._notify()

    def _notify(self) -> None:
        problems = self.problems()
        with self._cond:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(problems)
            except Exception:  # noqa: BLE001 - a listener never breaks regeneration
                log.exception("a MEMORY.md problem listener failed")

    # -- the background worker ------------------------------------------------

    def _next_batch(
        self,
    ) -> tuple[dict[str, list[Memory] | None], int, bool, list[Memory], bool] | None:
        """Wait for work: queued scopes, a fan-out, a dirty scope due for a retry, or
        others' commits to catch up with.

        Returns (scopes to regenerate, the writes they settle, whether to fan out, the
        fanned-out changes, whether to catch up with others' commits first).
        """
        with self._cond:
            while True:
                now = time.monotonic()
                for scope, dirty in self._dirty.items():
                    if dirty.retry_at <= now:
                        self._queue(scope, None)
                if self._others_wrote and not self._stopping:
                    self._others_wrote = False
                    self._busy = True
                    return {}, self._settled, False, [], True
                if self._pending or self._fanout_due or self._settled < self._queued:
                    batch, self._pending = self._pending, {}
                    fanout, changed = self._fanout_due, self._fanout or []
                    self._fanout, self._fanout_due = None, False
                    self._busy = True
                    return batch, self._queued, fanout, changed, False
                if self._stopping:
                    return None
                retry_at = min((d.retry_at for d in self._dirty.values()), default=None)
                self._cond.wait(None if retry_at is None else max(0.0, retry_at - now))

    def _fan_out(self, changed: list[Memory]) -> None:
        """Regenerate every project's file for a global write's ``changed`` memories,
        serving writes that arrive meanwhile first (a fan-out may take a while)."""
        self._forget_if_others_wrote()
        try:
            projects = [p.project_id for p in self._store.list_projects()]
        except Exception as exc:  # noqa: BLE001 - the scopes stay as they are until the next write
            log.warning("cannot list projects to refresh their MEMORY.md: %s", exc)
            return
        written = {m.project_id for m in changed}  # regenerated before the fan-out
        for scope in projects:
            if (direct := self._take_direct()) is not None:
                self._regenerate_batch(*direct)
            if scope not in written:
                self.regenerate(scope, changed)

    def _take_direct(self) -> tuple[dict[str, list[Memory] | None], int] | None:
        """The scopes written since the last batch, if any, and the writes they settle."""
        with self._cond:
            if not self._pending and self._settled >= self._queued:
                return None
            batch, self._pending = self._pending, {}
            return batch, self._queued

    def _regenerate_batch(self, batch: dict[str, list[Memory] | None], settles: int) -> None:
        self._forget_if_others_wrote()
        for scope, touched in batch.items():
            self.regenerate(scope, touched)
        with self._cond:
            self._settled = max(self._settled, settles)
            self._cond.notify_all()

    def _run(self) -> None:
        while (work := self._next_batch()) is not None:
            batch, settles, fanout, changed, others = work
            try:
                if others:
                    self._catch_up()
                    continue
                self._regenerate_batch(batch, settles)
                if fanout:
                    self._fan_out(changed)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _catch_up(self) -> None:
        """Queue the scopes of the audit events after the last one seen (others' writes,
        and this process's own since the last catch-up: rendering one of those again
        changes no file). A memory that no longer exists (erased) or an event on a
        proposal or run re-renders its scope whatever it held."""
        with self._cond:
            cursor = self._cursor
        if cursor is None:
            return
        try:
            while True:
                events = self._store.events_after(cursor, EVENTS_PAGE)
                if not events:
                    break
                cursor = events[-1].seq
                ids = list(dict.fromkeys(e.memory_id for e in events))
                found = {m.id: m for m in self._store.get_memories(ids)}
                unknown = {  # erased, a proposal or run, or moved out of the event's scope
                    e.project_id
                    for e in events
                    if e.memory_id not in found or found[e.memory_id].project_id != e.project_id
                }
                if any(self._ambient.is_ambient(scope) for scope in unknown):
                    unknown |= {p.project_id for p in self._store.list_projects()}
                if found:
                    self.after_write(list(found.values()))
                with self._cond:
                    self._cursor = cursor
                    for scope in unknown:
                        self._queue(scope, None)
                    self._cond.notify_all()
                if len(events) < EVENTS_PAGE:
                    break
        except Exception as exc:  # noqa: BLE001 - the next wake tries again from the cursor
            log.warning("cannot read others' changes to refresh MEMORY.md: %s", exc)

    def retry_now(self) -> list[MemoryMdProblem]:
        """Regenerate every out-of-date scope now, in the calling thread; the problems left."""
        for problem in self.problems():
            self.regenerate(problem.project_id)
        return self.problems()
