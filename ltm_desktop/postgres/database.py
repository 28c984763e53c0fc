"""One PostgreSQL database: its connection pool, its transactions, its schema's version.

Every read and write borrows a connection from a ``psycopg_pool`` pool, which checks a
connection idle for more than ``RECHECK_AFTER_S`` before lending it (a server restarted
meanwhile costs one reconnect, not a failed call; within those seconds, one failed call).
Every network step has a deadline: connecting (``connect_timeout``),
waiting for a pooled connection, and waiting for the writer's lock, so an unreachable
or stuck server makes a call fail quickly with ``DatabaseUnreachable`` or
``DatabaseBusy`` (agents then go on without memory) instead of hanging it.

Writes are serialized across every process and machine by one advisory lock taken first
in each write transaction (``WRITER_LOCK``): the audit history is one hash chain, so its
events are appended one writer at a time anyway, and the core's read-decide-write
(dedup, supersede, compare-and-swap) then sees every earlier commit, as on SQLite.
Reads never wait for it. Schema migrations run under another advisory lock, by whoever
connects first, never by two at once.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import TypeVar

import psycopg
import psycopg.errors
from psycopg import sql
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool, PoolTimeout

from ltm_desktop.core.backend import StoreHealth
from ltm_desktop.core.errors import (
    DatabaseBusy,
    DatabaseTooNew,
    DatabaseUnreachable,
    NotADatabase,
    StorageError,
)
from ltm_desktop.engine.rows import Row
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.listen import PgChangeFeed, new_origin, notify_call
from ltm_desktop.postgres.schema import MIGRATIONS, PgMigration
from ltm_desktop.postgres.url import describe, scrubbed

T = TypeVar("T")
log = logging.getLogger(__name__)

WRITER_LOCK = 0x4C544D_01  # pg_advisory_xact_lock key: one writer at a time ("LTM" 1)
MIGRATION_LOCK = 0x4C544D_02  # pg_advisory_lock key: one migrating process at a time
CONNECT_TIMEOUT = 5.0  # seconds to reach the server (an agent's hook passes less)
WRITE_LOCK_TIMEOUT_MS = 10_000  # how long a write waits for another writer, as on SQLite
POOL_SIZE = 4  # connections kept: the app's reading threads and its writer
RECHECK_AFTER_S = 2.0  # a pooled connection idle longer is checked before it is lent
STATEMENT_TIMEOUT_MS = 60_000  # a statement the server has not answered by then fails
# TCP keepalives: a server that vanished mid-call (a cable, a VPN, a suspended laptop) is
# noticed within about 5 + 3 * 2 s instead of the system's two hours.
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}


def _durability(conn: Conn) -> str:
    """When the server makes an acknowledged write durable, in ``StoreHealth``'s words:
    "full" (on disk at COMMIT), "normal" (``synchronous_commit = off``: the last writes may
    be lost, never the database), "off" (``fsync = off``: the database itself is at risk)."""
    fsync = conn.execute("SHOW fsync").fetchone()
    commit = conn.execute("SHOW synchronous_commit").fetchone()
    if fsync is None or str(fsync[0]) != "on":
        return "off"
    return "normal" if commit is not None and str(commit[0]) == "off" else "full"


def _limit_statements(conn: Conn, timeout_ms: int) -> None:
    """A pooled connection's statements end after ``timeout_ms`` (set once per connection,
    as its session's default, so the URL's own ``options`` stay as given)."""
    conn.execute(f"SET statement_timeout = {int(timeout_ms)}")
    conn.commit()


def _roll_back(conn: Conn) -> None:
    """End a failed write transaction; a connection that is gone has nothing to undo (the
    server rolled it back) and the pool discards it."""
    if conn.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
        with suppress(psycopg.Error):
            conn.execute("ROLLBACK")


def _roll_back_pipelined(conn: Conn, pipeline: psycopg.Pipeline) -> None:
    """``_roll_back`` in pipeline mode: the results still to come are read first (a
    failure among them makes the server skip what follows until then, a ROLLBACK too)."""
    with suppress(psycopg.Error):
        pipeline.sync()
    _roll_back(conn)


class _Opened:
    """What a write transaction's first statements answer: the audit head and the store's
    version after this commit, read when first asked (they arrive with the first read)."""

    def __init__(self, cursor: psycopg.Cursor[Row]) -> None:
        self._cursor = cursor
        self._row: Row | None = None

    def _read(self) -> Row:
        if self._row is None:
            self._row = self._cursor.fetchone()
            assert self._row is not None  # store_state has its one row
        return self._row

    def head(self) -> Row | None:
        """The newest audit event's (seq, hash) as the lock found it; None: no event yet."""
        row = self._read()
        return None if row[0] is None else (row[0], row[1])

    def version(self) -> int:
        """The store's version once this transaction commits (every commit counts one)."""
        return int(self._read()[2])


def _begin(conn: Conn, lock_timeout_ms: int, origin: str) -> _Opened:
    """Send what opens a write transaction without waiting for it: BEGIN; the writer's
    lock, waited for at most ``lock_timeout_ms`` (``set_config`` as ``SET LOCAL``, before
    and after it in the same statement); then the commit count, the ``NOTIFY`` and the
    audit head in one statement (trusted integers and this process's hex origin: no
    parameters), whose answer arrives with the transaction's first read."""
    conn.execute("BEGIN")
    conn.execute(
        f"SELECT set_config('lock_timeout', '{int(lock_timeout_ms)}', true), "
        f"pg_advisory_xact_lock({int(WRITER_LOCK)}), set_config('lock_timeout', '0', true)"
    )
    return _Opened(
        conn.execute(
            "WITH counted AS (UPDATE store_state SET version = version + 1 WHERE id = 1 "
            "RETURNING version) "
            "SELECT head.seq, head.hash, counted.version, "
            f"{notify_call(origin, 'counted.version')} FROM counted "
            "LEFT JOIN (SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1) AS head ON true"
        )
    )


def _leave_autocommit(conn: Conn) -> None:
    """Hand the connection back as the pool lent it (a broken one is discarded anyway)."""
    with suppress(psycopg.Error):
        conn.autocommit = False


class PgDatabase:
    """The pool and the schema of one database named by a libpq connection string."""

    def __init__(
        self,
        conninfo: str,
        migrations: tuple[PgMigration, ...] = MIGRATIONS,
        *,
        create: bool = True,
        connect_timeout: float = CONNECT_TIMEOUT,
        lock_timeout_ms: int = WRITE_LOCK_TIMEOUT_MS,
        statement_timeout_ms: int = STATEMENT_TIMEOUT_MS,
        pool_size: int = POOL_SIZE,
    ) -> None:
        """``statement_timeout_ms``: how long any one statement may take on the server (an
        agent's hook passes little: it must never hang on a stuck server)."""
        self._conninfo = conninfo
        self.display = describe(conninfo)
        self._timeout = connect_timeout
        self._lock_timeout_ms = lock_timeout_ms
        self._statement_timeout_ms = statement_timeout_ms
        seconds = max(1, round(connect_timeout))  # libpq takes whole seconds
        self._connect_seconds = seconds
        self.schema_version, self.server_version = self._migrate(migrations, create, seconds)
        self._returned: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()
        self._pool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=pool_size,
            kwargs={"connect_timeout": seconds, "application_name": "ltm-desktop", **KEEPALIVES},
            timeout=connect_timeout,
            check=self._check,
            configure=lambda conn: _limit_statements(conn, statement_timeout_ms),
            open=False,
            name="ltm-desktop",
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout)
        except PoolTimeout as exc:
            self._pool.close()
            raise DatabaseUnreachable(f"{self.display} did not answer in time") from exc
        self._closed = False
        self._last_problem: str | None = None
        self._lock = threading.Lock()
        self._own_commits = 0  # write transactions this process committed
        # The store's version as known exactly (this process's last commit, a query, and
        # the change feeds' news of later ones), trusted while a feed listens; None: ask.
        self._latest: int | None = None
        self._feeds: weakref.WeakSet[PgChangeFeed] = weakref.WeakSet()
        self.origin = new_origin()  # names this process's commits in their NOTIFY

    # -- opening -------------------------------------------------------------

    def _connect(self, seconds: int) -> Conn:
        try:
            return psycopg.connect(
                self._conninfo,
                connect_timeout=seconds,
                application_name="ltm-desktop",
                **KEEPALIVES,  # type: ignore[arg-type]
            )
        except psycopg.Error as exc:
            raise DatabaseUnreachable(
                f"cannot reach {self.display}: {scrubbed(str(exc), self._conninfo)}"
            ) from exc

    def _migrate(
        self, migrations: tuple[PgMigration, ...], create: bool, seconds: int
    ) -> tuple[int, int]:
        """Bring the schema up to date under the migration lock; (schema, server) versions.
        A server lost meanwhile (shut down between the connection and the statements) is
        DatabaseUnreachable, as a server that never answered: agents queue, never crash."""
        try:
            with self._connect(seconds) as conn:
                return self._migrate_on(conn, migrations, create)
        except psycopg.OperationalError as exc:
            message = scrubbed(str(exc), self._conninfo)
            raise DatabaseUnreachable(f"lost {self.display}: {message}") from exc
        except psycopg.Error as exc:
            raise StorageError(
                f"cannot prepare {self.display}: {scrubbed(str(exc), self._conninfo)}"
            ) from exc

    def _migrate_on(
        self, conn: Conn, migrations: tuple[PgMigration, ...], create: bool
    ) -> tuple[int, int]:
        conn.autocommit = True
        server = int(conn.info.server_version)
        if server < 150000:
            raise StorageError(
                f"{self.display} runs PostgreSQL {server // 10000}; "
                "ltm-desktop needs PostgreSQL 15 or newer"
            )
        self._synchronous = _durability(conn)
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        try:
            applied = self._applied(conn, create)
            version = max(applied, default=0)
            newest = max(migration.version for migration in migrations)
            if version > newest:
                raise DatabaseTooNew(
                    f"{self.display} has schema version {version}, newer than this "
                    f"ltm-desktop knows ({newest}); it is left untouched: upgrade ltm-desktop"
                )
            # By version, each one not yet applied: a gap left by a change made
            # beside this one is filled when that change's migration arrives.
            for migration in sorted(migrations, key=lambda m: m.version):
                if migration.version not in applied:
                    self._apply(conn, migration)
                    version = max(version, migration.version)
            return version, server
        finally:
            if not conn.closed:  # a lost session's lock went with it
                with suppress(psycopg.OperationalError):
                    conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))

    def _applied(self, conn: Conn, create: bool) -> set[int]:
        """The migrations the database records (none: a new, empty one)."""
        exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
        if exists is not None and exists[0]:
            rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
            return {int(row[0]) for row in rows}
        tables = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
        ).fetchone()
        if tables is not None and tables[0]:
            raise NotADatabase(
                f"{self.display} holds other tables and no ltm-desktop schema; "
                "it is left untouched: name an empty database"
            )
        if not create:
            raise NotADatabase(f"there is no ltm-desktop database at {self.display} yet")
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, "
            "name text NOT NULL, applied_at double precision NOT NULL)"
        )
        return set()

    @staticmethod
    def _apply(conn: Conn, migration: PgMigration) -> None:
        with conn.transaction():
            for statement in migration.statements:
                conn.execute(statement.encode("utf-8"))
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (%s, %s, %s)",
                (migration.version, migration.name, time.time()),
            )
        log.info(
            "%s: applied schema migration %d (%s)", "database", migration.version, migration.name
        )

    # -- using it ------------------------------------------------------------------

    def _check(self, conn: Conn) -> None:
        """Before a connection is lent: ask the server whether it is still there (one round
        trip; a broken one is replaced), unless it came back less than RECHECK_AFTER_S ago.
        A search is three reads: checking each cost three round trips of its 10-14; a
        server restarted within those seconds costs the call after it, not a hang."""
        returned = self._returned.get(conn)
        if returned is None or time.monotonic() - returned > RECHECK_AFTER_S:
            ConnectionPool.check_connection(conn)

    @contextmanager
    def _connection(self) -> Iterator[Conn]:
        try:
            with self._pool.connection(timeout=self._timeout) as conn:
                try:
                    yield conn
                finally:
                    self._returned[conn] = time.monotonic()
        except PoolTimeout as exc:
            raise self._failed(
                DatabaseUnreachable(f"{self.display} did not answer in time")
            ) from exc
        except psycopg.errors.LockNotAvailable as exc:
            raise self._failed(
                DatabaseBusy(f"another writer held {self.display} past the wait; try again")
            ) from exc
        except psycopg.errors.QueryCanceled as exc:
            raise self._failed(
                DatabaseBusy(f"{self.display} took too long to answer; try again")
            ) from exc
        except psycopg.OperationalError as exc:
            message = scrubbed(str(exc), self._conninfo)
            raise self._failed(DatabaseUnreachable(f"lost {self.display}: {message}")) from exc
        except psycopg.Error as exc:
            message = scrubbed(str(exc), self._conninfo)
            raise self._failed(StorageError(f"{self.display}: {message}")) from exc
        else:
            self._last_problem = None

    def _failed(self, error: StorageError) -> StorageError:
        self._last_problem = str(error)
        return error

    def read(self, work: Callable[[Conn], T]) -> T:
        """``work`` on a pooled connection in autocommit: each statement sees what was
        committed when it began, as in a READ COMMITTED transaction, but without the
        BEGIN and ROLLBACK round trips (a search or MEMORY.md's read is one statement;
        a transaction around it would triple what it costs on a network)."""
        with self._connection() as conn:
            conn.autocommit = True
            try:
                return work(conn)
            finally:
                conn.autocommit = False

    def read_snapshot(self, work: Callable[[Conn], T]) -> T:
        """``work`` in one REPEATABLE READ transaction that is rolled back: every statement
        sees the same snapshot, and server-side cursors (which need a transaction) work.
        For the reads that walk a whole table in batches (``verify``)."""
        with self._connection() as conn:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            try:
                return work(conn)
            finally:
                conn.rollback()
                conn.isolation_level = None

    @contextmanager
    def transaction(self) -> Iterator[Conn]:
        """One write transaction holding the writer's lock (``writing`` without the audit
        head, for the writes that record no event)."""
        with self.writing() as (conn, _):
            yield conn

    @contextmanager
    def writing(self) -> Iterator[tuple[Conn, Callable[[], Row | None]]]:
        """One write transaction holding the writer's lock, and the audit chain's newest
        (seq, hash) row as the lock found it (None: no event yet; read when first asked):
        committed when the block ends normally (and so durable: ``synchronous_commit`` is
        the server's, on by default), rolled back when it raises. No other writer can
        append an event while the lock is held, so the head stays the head until this
        transaction appends one.

        The transaction runs in psycopg's pipeline mode: a statement is sent without
        waiting for the one before it, and the client waits only when it needs a result.
        BEGIN, the lock (and its wait), the commit count, the commit's ``NOTIFY`` (sent by
        the server only if it commits: ``postgres.listen``) and the head go with the
        transaction's first read; the statements whose results nobody reads (the new
        memory's rows, its audit event) go with the COMMIT. A single add is two round
        trips. A statement that fails makes the server skip every one after it, the
        COMMIT included, and is raised here: nothing of the transaction is kept. The
        connection is in autocommit and the transaction is opened and ended by hand."""
        with self._connection() as conn:
            conn.autocommit = True
            committing = False
            try:
                with conn.pipeline() as pipeline:
                    opened = _begin(conn, self._lock_timeout_ms, self.origin)
                    try:
                        yield conn, opened.head
                    except BaseException:
                        _roll_back_pipelined(conn, pipeline)
                        raise
                    commit = conn.execute("COMMIT")
                    committing = True  # the pipeline's end sends it and reads every result
                if commit.statusmessage != "COMMIT":  # a failure swallowed in the block
                    raise StorageError(f"{self.display}: the write failed and was undone")
            except BaseException:
                if committing:  # a statement sent with the COMMIT failed: it was skipped
                    _roll_back(conn)
                raise
            finally:
                _leave_autocommit(conn)
        with self._lock:
            self._own_commits += 1
            self._latest = max(self._latest or 0, opened.version())

    def vacuum(self, tables: Sequence[str]) -> tuple[str, ...]:
        """VACUUM the tables (outside a transaction, as PostgreSQL requires): the space of
        deleted rows becomes reusable; VACUUM does not overwrite it. No statement deadline:
        a large table takes as long as it takes, after the erase has committed.

        Returns the server's warnings, one per table it did not vacuum. PostgreSQL skips a
        table its role may not vacuum (not its owner, nor the database's; PostgreSQL 17:
        without MAINTAIN) with a WARNING, not an error: a team member whose role was only
        granted the rows (docs/teams.md) would otherwise be told it was vacuumed."""
        warnings: list[str] = []

        def heard(notice: psycopg.errors.Diagnostic) -> None:
            if notice.severity_nonlocalized == "WARNING" and notice.message_primary:
                warnings.append(notice.message_primary)

        with self._connection() as conn:
            conn.autocommit = True
            conn.add_notice_handler(heard)
            try:
                conn.execute("SET statement_timeout = 0")
                for table in tables:
                    conn.execute(sql.SQL("VACUUM {}").format(sql.Identifier(table)))
            finally:
                conn.remove_notice_handler(heard)
                conn.execute(f"SET statement_timeout = {int(self._statement_timeout_ms)}")
                conn.autocommit = False
        return tuple(warnings)

    def data_version(self) -> int:
        """Changes when another process commits, not when this one does (as SQLite's
        ``PRAGMA data_version``): the count of every commit less this process's own.

        While a change feed of this database listens, no query: every commit's
        ``NOTIFY`` carries the store's version after it, and this process's own commits
        return theirs, so the newest version is known here (the MEMORY.md worker asks
        after every write). A commit whose ``NOTIFY`` is still on its way is seen when it
        arrives, and the feed then wakes its subscribers, who ask again. Without a
        listening feed (or since it reconnected, when news may have been missed), one
        query. A read racing this process's commit may see one change that is not there
        (a reader then looks again, never misses one)."""
        with self._lock:
            latest, own = self._latest, self._own_commits
            listening = any(feed.connected.is_set() for feed in self._feeds)
        if latest is not None and listening:
            return latest - own
        row = self.read(lambda c: c.execute("SELECT version FROM store_state").fetchone())
        version = int(row[0]) if row is not None else 0
        with self._lock:
            own = self._own_commits
            if listening:
                self._latest = max(self._latest or 0, version)
        return version - own

    def _heard(self, version: int | None) -> None:
        """A feed's news: the store's version after a commit, or None when it (re)connected
        or lost its connection (what was committed meanwhile is not known)."""
        with self._lock:
            if version is None:
                self._latest = None
            elif self._latest is not None:
                self._latest = max(self._latest, version)

    def change_feed(self) -> PgChangeFeed:
        """A listener for other processes' commits on a connection of its own (not the
        pool's: it is held for as long as the feed lives)."""
        seconds = self._connect_seconds
        feed = PgChangeFeed(
            lambda: self._connect(seconds), self.origin, self.display, heard=self._heard
        )
        with self._lock:
            self._feeds.add(feed)
        return feed

    def health(self) -> StoreHealth:
        """What the last call found (no query: health is asked often)."""
        problem = self._last_problem
        return StoreHealth(
            problems=() if problem is None else (problem,), synchronous=self._synchronous
        )

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._pool.close()
