"""A fresh, empty PostgreSQL database per test, on the server the tests were given
(``LTM_TEST_DATABASE_URL``; ``.ci/run`` starts one). Without it these tests skip, saying
why, unless ``LTM_PG_REQUIRED=1`` (CI), where they fail."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.postgres.scopes import ScopeKeys


def server_url() -> str:
    url = os.environ.get("LTM_TEST_DATABASE_URL", "")
    if not url:
        message = "no PostgreSQL server for the tests: set LTM_TEST_DATABASE_URL"
        if os.environ.get("LTM_PG_REQUIRED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The URL of a new, empty database, dropped after the test."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    server = server_url()
    name = f"ltm_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    parts = conninfo_to_dict(server)
    parts["dbname"] = name
    yield make_conninfo(**parts)
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_db(pg_url: str) -> Iterator[PgDatabase]:
    """The database of ``pg_url`` with the schema made."""
    db = PgDatabase(pg_url)
    yield db
    db.close()


@pytest.fixture
def keys() -> ScopeKeys:
    return ScopeKeys()
