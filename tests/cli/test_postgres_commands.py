"""``status`` and ``--self-test`` against a real PostgreSQL database, through the console
script: the store is named with the server's major version, host, port and database, and
never with the password."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.core.settings.launch import ENV_DATABASE_URL
from tests.console import CONSOLE_SCRIPT
from tests.pg_databases import PgDatabases, to_url


@pytest.fixture
def database(pg_databases: PgDatabases) -> Iterator[str]:
    """A ``postgresql://`` URL (with its password) of an empty ltm-desktop database."""
    conninfo = pg_databases.take()
    yield to_url(conninfo)
    pg_databases.release(conninfo)


def server_major(url: str) -> int:
    import psycopg

    with psycopg.connect(url, connect_timeout=10) as conn:
        return int(conn.info.server_version) // 10000


def leaks(url: str, text: str) -> bool:
    """Whether ``text`` shows the URL's password (as a URL or a libpq string would hold it;
    the test server's password may be a short word such as "dev")."""
    from urllib.parse import unquote, urlsplit

    password = unquote(urlsplit(url).password or "")
    assert password, "the test server's URL has a password"
    shapes = (f":{password}@", f"password={password}", f"password='{password}'")
    return any(shape in text for shape in shapes) or (len(password) >= 12 and password in text)


def ltm(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != ENV_DATABASE_URL}
    environment.update({"QT_QPA_PLATFORM": "offscreen", **(env or {})})
    return subprocess.run(
        [CONSOLE_SCRIPT, "--data-dir", str(tmp_path / "data"), *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_status_names_the_server_with_its_major_version_and_no_password(
    database: str, tmp_path: Path
) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(database)
    major = server_major(database)
    expected = f"PostgreSQL {major} at {parts.hostname}:{parts.port}{parts.path}"
    assert major >= 15

    shown = ltm(tmp_path, "status", env={ENV_DATABASE_URL: database})
    assert shown.returncode == 0, shown.stderr
    assert f"store:     {expected} (schema v" in shown.stdout
    report = json.loads(
        ltm(tmp_path, "--database-url", database, "status", "--json").stdout  # the option too
    )
    assert report["store"] == "postgresql"
    assert report["described"] == expected
    assert report["server_version"] // 10000 == major
    assert not leaks(database, shown.stdout + shown.stderr + json.dumps(report))


def test_status_of_sqlite_names_its_file_and_no_server(tmp_path: Path) -> None:
    from ltm_desktop.launching import open_service

    open_service(tmp_path / "data", tmp_path / "config.toml").service.close()
    report = json.loads(ltm(tmp_path, "status", "--json").stdout)
    assert report["store"] == "sqlite"
    assert report["server_version"] is None
    assert report["described"] == str(tmp_path / "data" / "ltm.sqlite")


@pytest.mark.slow
def test_the_self_test_passes_against_a_real_database(database: str, tmp_path: Path) -> None:
    done = ltm(tmp_path, "--self-test", "--database-url", database)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "self-test passed" in done.stdout
    assert f"ok   data    PostgreSQL {server_major(database)} at " in done.stdout
    assert not leaks(database, done.stdout + done.stderr)
