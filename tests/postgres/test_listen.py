"""The change feed on PostgreSQL: a write transaction's NOTIFY reaches another process's
listener on commit only, carrying the writer's origin and the store's version; a listener
whose connection the server ends reconnects by itself and wakes its subscribers again
(their catch-up read); a closed feed leaves no connection behind."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import psycopg
import pytest

from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.listen import CHANNEL, LISTENER_NAME, PgChangeFeed, foreign
from tests.api.conftest import wait_until

TIMEOUT = 60.0


class Wakes:
    """Counts a feed's wakes (from its thread)."""

    def __init__(self) -> None:
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self) -> None:
        with self._lock:
            self.count += 1

    def now(self) -> int:
        with self._lock:
            return self.count


@pytest.fixture
def two(pg_url: str) -> Iterator[tuple[PgDatabase, PgDatabase]]:
    """Two processes' databases (each its own pool and origin) on one database."""
    a, b = PgDatabase(pg_url), PgDatabase(pg_url)
    yield a, b
    a.close()
    b.close()


def _listeners(url: str) -> list[int]:
    with psycopg.connect(url, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name = %s",
            (LISTENER_NAME,),
        ).fetchall()
    return [int(row[0]) for row in rows]


def test_a_commit_by_another_process_wakes_the_feed(two: tuple[PgDatabase, PgDatabase]) -> None:
    a, b = two
    feed = b.change_feed()
    wakes = Wakes()
    feed.subscribe(wakes)
    try:
        assert feed.connected.wait(TIMEOUT)
        wait_until(lambda: wakes.now() >= 1, TIMEOUT)  # the wake on connecting (catch-up)
        before = wakes.now()
        with a.transaction() as conn:
            conn.execute("SELECT 1")
        wait_until(lambda: wakes.now() > before, TIMEOUT)
    finally:
        feed.close()


def test_the_notify_is_sent_on_commit_only_naming_its_origin_and_version(
    pg_url: str, two: tuple[PgDatabase, PgDatabase]
) -> None:
    a, _ = two
    with psycopg.connect(pg_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        with pytest.raises(RuntimeError), a.transaction():
            raise RuntimeError("rolled back: nothing is sent")
        with a.transaction():
            pass
        with psycopg.connect(pg_url, autocommit=True) as reader:
            version = reader.execute("SELECT version FROM store_state").fetchone()
        assert version is not None
        received = next(listener.notifies(timeout=TIMEOUT, stop_after=1))
    assert received.channel == CHANNEL
    assert received.payload == f"{a.origin} {version[0]}"  # the commit's, not the rollback's
    assert not foreign(received.payload, a.origin)
    assert foreign(received.payload, "0" * 16)


def test_a_terminated_listener_reconnects_and_wakes_its_subscribers_again(
    pg_url: str, two: tuple[PgDatabase, PgDatabase]
) -> None:
    a, b = two
    feed = b.change_feed()
    wakes = Wakes()
    feed.subscribe(wakes)
    try:
        assert feed.connected.wait(TIMEOUT)
        wait_until(lambda: len(_listeners(pg_url)) == 1, TIMEOUT)
        [first] = _listeners(pg_url)
        wait_until(lambda: wakes.now() >= 1, TIMEOUT)
        before = wakes.now()
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        # a new backend listens, and the subscribers were woken for what nobody heard
        wait_until(lambda: _listeners(pg_url) not in ([], [first]), TIMEOUT)
        wait_until(lambda: wakes.now() > before, TIMEOUT)
        after = wakes.now()
        wait_until(feed.connected.is_set, TIMEOUT)
        with a.transaction():  # and it hears commits again
            pass
        wait_until(lambda: wakes.now() > after, TIMEOUT)
    finally:
        feed.close()


def test_a_closed_feed_leaves_no_listener_behind(
    pg_url: str, two: tuple[PgDatabase, PgDatabase]
) -> None:
    _, b = two
    feed = b.change_feed()
    assert feed.connected.wait(TIMEOUT)
    feed.close()
    wait_until(lambda: not _listeners(pg_url), TIMEOUT)


def test_an_unreachable_server_is_retried_quietly_and_close_ends_it() -> None:
    """A listener that cannot connect keeps trying with back-off, on its own thread; close
    stops it (the connect is bounded by its timeout)."""
    from ltm_desktop.core.errors import DatabaseUnreachable

    attempts = Wakes()

    def connect() -> psycopg.Connection[tuple[object, ...]]:
        attempts()
        raise DatabaseUnreachable("cannot reach the server (test)")

    feed = PgChangeFeed(connect, "0" * 16, "a test server")
    wait_until(lambda: attempts.now() >= 2, TIMEOUT)  # retried, not given up
    feed.close()
    assert not feed.connected.is_set()
