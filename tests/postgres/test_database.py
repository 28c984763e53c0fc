"""One PostgreSQL database as the engine opens it: the schema made once under a lock, a
foreign or newer database refused untouched, an unreachable server named without its
password, and ``data_version`` moving for other processes' commits only."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn

import psycopg
import pytest

from ltm_desktop.core.errors import (
    DatabaseTooNew,
    DatabaseUnreachable,
    NotADatabase,
    StorageError,
)
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.schema import MIGRATIONS, SCHEMA_VERSION, PgMigration
from tests.pg_server import fresh_database


@pytest.fixture
def empty_url(pg_server_url: str) -> Iterator[str]:
    """A database with nothing in it (not even the schema)."""
    with fresh_database(pg_server_url) as url:
        yield url


def test_the_schema_is_made_once_by_whoever_connects_first(empty_url: str) -> None:
    opened: list[PgDatabase] = []
    failures: list[BaseException] = []
    start = threading.Barrier(4)

    def connect() -> None:
        try:
            start.wait()
            opened.append(PgDatabase(empty_url))
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=connect) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert failures == []
        assert {db.schema_version for db in opened} == {SCHEMA_VERSION}
        with psycopg.connect(empty_url) as conn:
            rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
            projects = conn.execute("SELECT project_id FROM projects").fetchall()
        assert rows == [(m.version,) for m in MIGRATIONS]
        assert projects == [("global",)]
    finally:
        for db in opened:
            db.close()


def test_a_command_that_only_looks_makes_no_schema(empty_url: str) -> None:
    with pytest.raises(NotADatabase, match="no ltm-desktop database at PostgreSQL at"):
        PgDatabase(empty_url, create=False)
    with psycopg.connect(empty_url) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        assert tables.fetchone() == (0,)


def test_a_database_of_other_tables_is_left_untouched(empty_url: str) -> None:
    with psycopg.connect(empty_url) as conn:
        conn.execute("CREATE TABLE invoices (id integer)")
    with pytest.raises(NotADatabase, match="holds other tables"):
        PgDatabase(empty_url)
    with psycopg.connect(empty_url) as conn:
        names = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        assert names.fetchall() == [("invoices",)]


def test_a_database_from_a_newer_version_is_refused(pg_url: str) -> None:
    newer = (*MIGRATIONS, PgMigration(SCHEMA_VERSION + 1, "from the future", ("SELECT 1",)))
    PgDatabase(pg_url, newer).close()
    with pytest.raises(DatabaseTooNew, match="upgrade ltm-desktop"):
        PgDatabase(pg_url)


def test_an_unreachable_server_is_named_without_its_password() -> None:
    url = "postgresql://alice:pw-s3cr3t-99@127.0.0.1:1/ltm"  # nothing listens on port 1
    with pytest.raises(DatabaseUnreachable) as raised:
        PgDatabase(url, connect_timeout=2)
    assert "PostgreSQL at 127.0.0.1:1/ltm" in str(raised.value)
    assert "pw-s3cr3t-99" not in str(raised.value)


def test_data_version_moves_for_other_processes_commits_only(pg_url: str) -> None:
    mine, theirs = PgDatabase(pg_url), PgDatabase(pg_url)
    try:
        seen = mine.data_version()
        with mine.transaction() as conn:
            conn.execute("UPDATE projects SET name = 'Global' WHERE project_id = 'global'")
        assert mine.data_version() == seen  # its own commit
        with theirs.transaction() as conn:
            conn.execute("UPDATE projects SET name = 'Global' WHERE project_id = 'global'")
        assert mine.data_version() != seen  # another's
        seen = mine.data_version()
        with pytest.raises(RuntimeError), mine.transaction():
            raise RuntimeError("rolled back")
        assert mine.data_version() == seen
    finally:
        mine.close()
        theirs.close()


def test_data_version_follows_a_listening_feed_without_asking_the_server(pg_url: str) -> None:
    """While a change feed listens, the version comes from this process's commits and the
    feed's news of others' (the MEMORY.md worker asks after every write): no query, and
    still moved by another process's commit once the feed has woken its subscribers."""
    mine, theirs = PgDatabase(pg_url), PgDatabase(pg_url)
    feed = mine.change_feed()
    woken = threading.Event()
    feed.subscribe(woken.set)

    def asked(work: object) -> NoReturn:
        raise AssertionError("data_version asked the server")

    try:
        assert feed.connected.wait(10)
        assert woken.wait(10)  # the wake of its first connection
        woken.clear()
        with mine.transaction() as conn:
            conn.execute("UPDATE projects SET name = 'Global' WHERE project_id = 'global'")
        seen = mine.data_version()
        mine.read = asked  # type: ignore[method-assign]
        assert mine.data_version() == seen
        with theirs.transaction() as conn:
            conn.execute("UPDATE projects SET name = 'Global' WHERE project_id = 'global'")
        assert woken.wait(10)
        assert mine.data_version() == seen + 1
        with mine.transaction() as conn:
            conn.execute("UPDATE projects SET name = 'Global' WHERE project_id = 'global'")
        assert mine.data_version() == seen + 1  # its own commit
    finally:
        vars(mine).pop("read", None)
        feed.close()
        mine.close()
        theirs.close()


def test_a_statement_failing_beside_the_commit_undoes_the_whole_write(pg_db: PgDatabase) -> None:
    """A write's statements whose results nobody reads go to the server with the COMMIT
    (pipeline mode): when one of them fails, the server skips the COMMIT, the write is
    refused, nothing of it is kept, and the next write goes through."""
    named = "SELECT name FROM projects WHERE project_id = 'global'"
    before = pg_db.read(lambda c: c.execute(named).fetchone())

    def write() -> None:
        with pg_db.transaction() as conn:
            conn.execute("UPDATE projects SET name = 'Changed' WHERE project_id = 'global'")
            conn.execute(  # the global scope's row is there: a unique violation, unread
                "INSERT INTO projects (project_id, path, name, created_at) "
                "VALUES ('global', NULL, 'Again', 0)"
            )

    with pytest.raises(StorageError, match="duplicate key"):
        write()
    assert pg_db.read(lambda c: c.execute(named).fetchone()) == before
    with pg_db.transaction() as conn:
        conn.execute("UPDATE projects SET name = 'Changed' WHERE project_id = 'global'")
    assert pg_db.read(lambda c: c.execute(named).fetchone()) == ("Changed",)


def test_a_failure_swallowed_in_a_write_still_refuses_it(pg_db: PgDatabase) -> None:
    """A failed statement whose error the block caught leaves the transaction failed: the
    write is refused, not reported committed, and nothing of it is kept."""
    named = "SELECT name FROM projects WHERE project_id = 'global'"
    before = pg_db.read(lambda c: c.execute(named).fetchone())

    def write() -> None:
        with pg_db.transaction() as conn:
            conn.execute("UPDATE projects SET name = 'Changed' WHERE project_id = 'global'")
            with contextlib.suppress(psycopg.Error):
                conn.execute("SELECT 1 / 0").fetchone()

    with pytest.raises(StorageError):
        write()
    assert pg_db.read(lambda c: c.execute(named).fetchone()) == before


def test_a_stuck_server_fails_a_brief_opening_instead_of_hanging_it(pg_url: str) -> None:
    """Another session holds the memories table (as a long migration or a manual LOCK
    would): a hook's store gives up after its statement timeout, saying so."""
    from ltm_desktop.core.errors import DatabaseBusy
    from ltm_desktop.postgres import open_postgres_store
    from tests.hang import finishes

    store = open_postgres_store(pg_url, backup_dir=Path("/nonexistent"), lock_timeout_ms=300)
    try:
        with psycopg.connect(pg_url) as holder:
            holder.execute("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE")
            with pytest.raises(DatabaseBusy, match="took too long to answer"):
                finishes(lambda: store.get_memory("mem_nothing"))
    finally:
        store.close()


def test_health_says_how_durable_the_server_makes_a_write(pg_url: str) -> None:
    """Read from the server, not assumed: the tests' clusters run with fsync off."""
    with psycopg.connect(pg_url) as conn:
        fsync = conn.execute("SHOW fsync").fetchone()
        commit = conn.execute("SHOW synchronous_commit").fetchone()
    assert fsync is not None
    assert commit is not None
    expected = "off" if fsync[0] != "on" else ("normal" if commit[0] == "off" else "full")
    db = PgDatabase(pg_url)
    try:
        assert db.health().synchronous == expected
    finally:
        db.close()
