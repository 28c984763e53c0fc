"""Fixtures for tests of the PostgreSQL engine's parts: an empty ltm-desktop database per
test (tests/pg_databases.py), opened as a ``PgDatabase``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.scopes import ScopeKeys
from tests.pg_databases import PgDatabases


@pytest.fixture
def pg_url(pg_databases: PgDatabases) -> Iterator[str]:
    """The URL of an empty database with the schema made, emptied again after the test."""
    url = pg_databases.take()
    yield url
    pg_databases.release(url)


@pytest.fixture
def pg_db(pg_url: str) -> Iterator[PgDatabase]:
    db = PgDatabase(pg_url)
    yield db
    db.close()


@pytest.fixture
def keys() -> ScopeKeys:
    return ScopeKeys()
