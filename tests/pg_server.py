"""A real PostgreSQL server for the tests, and a new empty database for each test.

Registered as a pytest plugin by tests/conftest.py, it gives two fixtures:

- ``pg_server_url`` (session): the URL of a running server, as a superuser. It is
  ``LTM_TEST_DATABASE_URL`` where that is set (CI starts a cluster and sets it), else a
  throwaway cluster that scripts/pg_cluster.py starts the first time a test asks (one
  per pytest-xdist worker) and stops when the session ends.
- ``pg_url`` (function): the URL of a new, empty database on that server, dropped after
  the test (``WITH (FORCE)``: connections the test left open are ended).

Where PostgreSQL is not installed (or psycopg cannot load libpq) a test that asks for
either is skipped, saying why, unless ``LTM_PG_REQUIRED=1`` (CI), which makes it a
failure: a CI that silently skipped the PostgreSQL engine would prove nothing.

A new database from ``template0`` costs about 35 ms here (66 ms with three busy loops on
two cores), creation and drop together, so every test gets a database of its own rather
than a schema in a shared one (a schema is under a millisecond, but an extension such as
pg_trgm exists once per database, so schemas would not be independent).

psycopg is imported inside the functions: collecting the suite never loads it.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit, urlunsplit

import pytest

from scripts import pg_cluster

ENV_URL = "LTM_TEST_DATABASE_URL"
ENV_REQUIRED = "LTM_PG_REQUIRED"
CONNECT_TIMEOUT = 10  # seconds; a server that does not answer fails the test, never hangs it
DATABASE_PREFIX = "ltm_test_"


def unavailable(reason: str) -> NoReturn:
    """Skips the test for ``reason``, or fails it where ``LTM_PG_REQUIRED=1``."""
    if os.environ.get(ENV_REQUIRED) == "1":
        pytest.fail(f"PostgreSQL is required here ({ENV_REQUIRED}=1): {reason}", pytrace=False)
    pytest.skip(f"no PostgreSQL: {reason} (set {ENV_REQUIRED}=1 to fail instead)")


def _check_driver() -> None:
    try:
        import psycopg  # noqa: F401 - only whether it loads (it needs libpq)
    except ImportError as error:
        unavailable(f"psycopg cannot be imported ({error})")


@contextmanager
def running_server() -> Iterator[str]:
    """The URL of a running server for as long as the block runs: ``LTM_TEST_DATABASE_URL``,
    or a cluster started for the block and removed after it."""
    _check_driver()
    given = os.environ.get(ENV_URL)
    if given:
        if urlsplit(given).scheme not in ("postgres", "postgresql"):
            pytest.fail(f"{ENV_URL} must be a postgresql:// URL", pytrace=False)
        yield given
        return
    # Not under pytest's basetemp: the server's user must be able to reach the directory.
    directory = Path(tempfile.gettempdir()) / f"ltm-test-pg-{os.getpid()}-{secrets.token_hex(4)}"
    cluster = _start_cluster(directory)
    if isinstance(cluster, pg_cluster.NotInstalled):
        unavailable(str(cluster))
    if isinstance(cluster, pg_cluster.ClusterError):
        pytest.fail(f"the test cluster did not start: {cluster}", pytrace=False)
    try:
        yield cluster.url
    finally:
        cluster.stop()


def _start_cluster(directory: Path) -> pg_cluster.Cluster | pg_cluster.ClusterError:
    """The cluster, or why not (returned, so that the skip or failure is not reported
    as raised while handling it)."""
    try:
        return pg_cluster.start_cluster(directory)
    except pg_cluster.ClusterError as error:
        return error


def with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` (user, password, host and query kept)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def database_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/") or "postgres"


def create_database(server_url: str) -> str:
    """The URL of a new, empty database (from ``template0``, UTF8) on the server."""
    import psycopg
    from psycopg import sql

    name = DATABASE_PREFIX + secrets.token_hex(6)
    with psycopg.connect(server_url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as admin:
        admin.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE template0 ENCODING 'UTF8'").format(
                sql.Identifier(name)
            )
        )
    return with_database(server_url, name)


def drop_database(server_url: str, url: str) -> None:
    """Drops the database of ``url``, ending the sessions still connected to it."""
    import psycopg
    from psycopg import sql

    name = database_of(url)
    with psycopg.connect(server_url, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """The URL of a new, empty database for the block, dropped after it."""
    url = create_database(server_url)
    try:
        yield url
    finally:
        drop_database(server_url, url)


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """A running PostgreSQL server (superuser URL), one per session and worker."""
    with running_server() as url:
        yield url


@pytest.fixture
def pg_url(pg_server_url: str) -> Iterator[str]:
    """A new, empty database for this test alone (a URL with the password in it: never
    put it in an assertion message)."""
    with fresh_database(pg_server_url) as url:
        yield url
