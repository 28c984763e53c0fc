"""The real PostgreSQL the engine is tested on: scripts/pg_cluster.py and tests/pg_server.py.

A server the fixtures give is reachable, each test's database is new and its own, the
contrib extensions the engine uses can be created, and the cluster's password shows
only where a developer asked for the URL.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts import pg_cluster
from tests import pg_server as postgres

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "pg_cluster.py"
KNOWN_PASSWORD = "a-known-password-4242"


def user_tables(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url, connect_timeout=10) as conn:
        rows = conn.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables"
            " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
        ).fetchall()
    return [str(row[0]) for row in rows]


def databases(server_url: str) -> set[str]:
    import psycopg

    with psycopg.connect(server_url, connect_timeout=10) as conn:
        return {str(row[0]) for row in conn.execute("SELECT datname FROM pg_database")}


@pytest.fixture
def cluster_dir() -> Iterator[Path]:
    """A directory for a cluster of the test's own, outside pytest's basetemp (which the
    server's user cannot reach when the tests run as root); its server is stopped after."""
    path = Path(tempfile.gettempdir()) / f"ltm-test-pgcli-{os.getpid()}-{os.urandom(4).hex()}"
    yield path
    if (path / pg_cluster.STATE_FILE).exists():
        pg_cluster.open_cluster(path).stop()
    shutil.rmtree(path, ignore_errors=True)


def run_script(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
    )


def test_the_server_is_reachable_as_a_superuser_on_postgresql_15_or_newer(
    pg_server_url: str,
) -> None:
    import psycopg

    with psycopg.connect(pg_server_url, connect_timeout=10) as conn:
        version, superuser = conn.execute(
            "SELECT current_setting('server_version_num')::int, current_setting('is_superuser')"
        ).fetchone() or (0, "")
    assert version >= 150000
    assert superuser == "on"


@pytest.mark.parametrize("turn", ["first", "second"])
def test_each_test_gets_a_new_empty_database(pg_url: str, turn: str) -> None:
    """Both turns create the same table: the second would fail on a database the first
    had used."""
    import psycopg

    assert user_tables(pg_url) == []
    with psycopg.connect(pg_url, connect_timeout=10) as conn:
        conn.execute("CREATE TABLE memories (id text PRIMARY KEY)")
        conn.execute("INSERT INTO memories VALUES (%s)", [turn])
    assert user_tables(pg_url) == ["public.memories"]


def test_a_fresh_database_is_separate_and_gone_after_its_block(
    pg_server_url: str, pg_url: str
) -> None:
    import psycopg

    with psycopg.connect(pg_url, connect_timeout=10) as conn:
        conn.execute("CREATE TABLE mine (n int)")
    with postgres.fresh_database(pg_server_url) as other:
        name = postgres.database_of(other)
        assert name != postgres.database_of(pg_url)
        assert user_tables(other) == []
        # A session left open in the block does not keep the database from being dropped.
        leftover = psycopg.connect(other, connect_timeout=10)
    try:
        assert name not in databases(pg_server_url)
        assert user_tables(pg_url) == ["public.mine"]
    finally:
        leftover.close()


def test_the_contrib_extensions_the_engine_uses_can_be_created(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, connect_timeout=10) as conn:
        conn.execute("CREATE EXTENSION pg_trgm")
        conn.execute("CREATE EXTENSION btree_gin")
        conn.execute("CREATE TABLE notes (scope text, body text)")
        conn.execute("CREATE INDEX notes_gin ON notes USING gin (scope, body gin_trgm_ops)")
        conn.execute(
            "INSERT INTO notes VALUES ('global', 'データベースの移行'), ('global', 'run make test')"
        )
        found = conn.execute(
            "SELECT body FROM notes WHERE scope = 'global' AND body LIKE '%ベースの%'"
        ).fetchall()
    assert found == [("データベースの移行",)]


@pytest.mark.slow
def test_the_script_shows_the_password_only_when_asked_for_the_url(cluster_dir: Path) -> None:
    import psycopg

    started = run_script("start", "--dir", str(cluster_dir))
    assert started.returncode == 0, started.stderr
    assert "127.0.0.1" in started.stdout
    url = run_script("url", "--dir", str(cluster_dir))
    assert url.returncode == 0
    password = pg_cluster.open_cluster(cluster_dir).password
    assert url.stdout.strip().startswith("postgresql://ltm:")
    assert password in url.stdout
    with psycopg.connect(url.stdout.strip(), connect_timeout=10) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)

    again = run_script("start", "--dir", str(cluster_dir))  # a cluster is already there
    stopped = run_script("stop", "--dir", str(cluster_dir))
    stopped_again = run_script("stop", "--dir", str(cluster_dir))

    assert again.returncode == 1
    assert stopped.returncode == 0
    assert stopped_again.returncode == 1
    for result in (started, again, stopped, stopped_again):
        assert password not in result.stdout + result.stderr
        assert "Traceback" not in result.stderr
    assert len(again.stderr.splitlines()) == 1
    assert not cluster_dir.exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url.stdout.strip(), connect_timeout=10).close()


@pytest.mark.slow
def test_a_server_that_fails_to_start_is_one_line_with_the_log_and_no_password(
    cluster_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(secrets, "token_urlsafe", lambda _n: KNOWN_PASSWORD)
    monkeypatch.setitem(pg_cluster.SETTINGS, "ltm_no_such_setting", "on")
    try:
        pg_cluster.find_bin_dir()
    except pg_cluster.NotInstalled as error:
        postgres.unavailable(str(error))

    code = pg_cluster.main(["start", "--dir", str(cluster_dir)])

    out, err = capsys.readouterr()
    assert code == 1
    assert len(err.splitlines()) == 1
    assert err.startswith("pg_cluster: PostgreSQL did not start")
    assert 'unrecognized configuration parameter "ltm_no_such_setting"' in err
    assert KNOWN_PASSWORD not in out + err
    assert not cluster_dir.exists()


def test_without_postgresql_the_script_says_so_in_one_line(
    cluster_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(pg_cluster, "INSTALL_ROOT", tmp_path)

    code = pg_cluster.main(["start", "--dir", str(cluster_dir)])

    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("pg_cluster: PostgreSQL is not installed")
    assert len(err.splitlines()) == 1
    assert not cluster_dir.exists()


@pytest.mark.parametrize(("required", "outcome"), [("1", "failed"), ("", "skipped")])
def test_a_missing_postgresql_skips_unless_it_is_required(
    monkeypatch: pytest.MonkeyPatch, required: str, outcome: str
) -> None:
    monkeypatch.setenv(postgres.ENV_REQUIRED, required)
    expected = pytest.fail.Exception if outcome == "failed" else pytest.skip.Exception
    with pytest.raises(expected, match="no initdb"):
        postgres.unavailable("no initdb")
