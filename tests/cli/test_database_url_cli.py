"""Choosing PostgreSQL from the command line: the composition root's choice, the exit
codes of a bad URL, and a password that no output ever shows.

The choice opens the real engine on the test server (tests/pg_server.py); a missing
driver or engine is stood in for by a module that fails to import, as it would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.core.errors import NotADatabase, StorageError
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL, resolve_launch
from ltm_desktop.launching import open_launch_store
from tests.console import CONSOLE_SCRIPT, assert_one_error_line
from tests.pg_databases import PgDatabases, to_url
from tests.pg_server import fresh_database

PASSWORD = "s3cr3t-PW-xyz"
URL = f"postgresql://alice:{PASSWORD}@127.0.0.1:1/ltm"  # port 1: nothing listens


def test_a_url_opens_the_postgresql_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_databases: PgDatabases
) -> None:
    monkeypatch.delenv(ENV_DATABASE_URL, raising=False)
    url = pg_databases.take()
    try:
        launch = resolve_launch(tmp_path / "d", tmp_path / "c.toml", to_url(url))
        assert launch.database_url is not None
        store = open_launch_store(launch, create=True)
        try:
            assert type(store).__name__ == "PostgresStore"
            assert store.location == launch.database_url.display
            assert "password" not in store.location
        finally:
            store.close()
        assert not (tmp_path / "d" / "ltm.sqlite").exists()
    finally:
        pg_databases.release(url)


def test_an_empty_database_is_not_made_by_a_command_that_only_looks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pg_server_url: str
) -> None:
    monkeypatch.delenv(ENV_DATABASE_URL, raising=False)
    with fresh_database(pg_server_url) as url:
        launch = resolve_launch(tmp_path / "d", tmp_path / "c.toml", to_url(url))
        with pytest.raises(NotADatabase, match="no ltm-desktop database at PostgreSQL at"):
            open_launch_store(launch, create=False, busy_timeout_ms=300)


def test_without_a_url_sqlite_is_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_DATABASE_URL, raising=False)
    (tmp_path / "d").mkdir(mode=0o700)
    store = open_launch_store(resolve_launch(tmp_path / "d", tmp_path / "c.toml"), create=True)
    try:
        assert store.location == str(tmp_path / "d" / "ltm.sqlite")
    finally:
        store.close()


def test_a_missing_driver_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine imports psycopg when it opens (a fake engine raises as it would)."""
    module = types.ModuleType("ltm_desktop.postgres")

    def open_postgres_store(conninfo: str, **kwargs: Any) -> object:
        raise ModuleNotFoundError("No module named 'psycopg'", name="psycopg")

    module.open_postgres_store = open_postgres_store  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ltm_desktop.postgres", module)
    launch = resolve_launch(tmp_path / "d", tmp_path / "c.toml", URL)
    with pytest.raises(StorageError, match=r"not installed \(psycopg\)"):
        open_launch_store(launch, create=True)


def test_a_missing_engine_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ltm_desktop.postgres", None)  # import fails
    launch = resolve_launch(tmp_path / "d", tmp_path / "c.toml", URL)
    with pytest.raises(StorageError, match="PostgreSQL support is not installed") as raised:
        open_launch_store(launch, create=True)
    assert "PostgreSQL at 127.0.0.1:1/ltm" in str(raised.value)
    assert PASSWORD not in str(raised.value)


def run(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != ENV_DATABASE_URL}
    environment.update(
        {
            "LTM_DESKTOP_DATA_DIR": str(tmp_path / "data"),
            "LTM_DESKTOP_CONFIG": str(tmp_path / "config.toml"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "QT_QPA_PLATFORM": "offscreen",
            **(env or {}),
        }
    )
    return subprocess.run(
        [CONSOLE_SCRIPT, *args],
        capture_output=True,
        text=True,
        input=stdin,
        env=environment,
        check=False,
        timeout=60,
    )


def serve_briefly(
    tmp_path: Path, words: list[str], env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """``serve`` until it says it serves, then SIGTERM: what it printed."""
    environment = {k: v for k, v in os.environ.items() if k != ENV_DATABASE_URL}
    environment.update(
        {
            "LTM_DESKTOP_DATA_DIR": str(tmp_path / "data"),
            "LTM_DESKTOP_CONFIG": str(tmp_path / "config.toml"),
            "XDG_STATE_HOME": str(tmp_path / "state"),
            **env,
        }
    )
    process = subprocess.Popen(
        [CONSOLE_SCRIPT, *words, "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, first + out, err)


def assert_redacted(result: subprocess.CompletedProcess[str]) -> None:
    assert PASSWORD not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


WAYS = ["option", "environment", "config file"]


def given(way: str, tmp_path: Path, url: str) -> tuple[list[str], dict[str, str]]:
    """The command line's words and environment that set ``url`` the ``way`` named."""
    if way == "option":
        return ["--database-url", url], {}
    if way == "environment":
        return [], {ENV_DATABASE_URL: url}
    (tmp_path / "config.toml").write_text(f'[store]\nurl = "{url}"\n')
    return [], {}


@pytest.mark.slow
@pytest.mark.parametrize("way", WAYS)
def test_the_password_is_never_printed(way: str, tmp_path: Path) -> None:
    """Every surface that reaches the opening: it fails (no server listens on port 1, or
    the engine is not installed yet) and says so in one line, without the password."""
    words, env = given(way, tmp_path, URL)
    for command in (["status"], ["status", "--json"], ["export"], ["verify"]):
        result = run(tmp_path, *words, *command, env=env)
        assert result.returncode == 1, result.stderr
        assert_redacted(result)
        assert result.stderr.count("\n") == 1, result.stderr
    offline = serve_briefly(tmp_path, words, env)  # starts offline (issue #34), says why
    assert offline.returncode == 0, offline.stderr
    assert_redacted(offline)
    assert "serving offline" in offline.stderr
    assert not (tmp_path / "data" / "ltm.sqlite").exists()  # no SQLite behind its back
    result = run(tmp_path, *words, "--self-test", env=env)
    # Only the option points the self-test at a server; else it runs on its own SQLite.
    assert result.returncode == (1 if way == "option" else 0), result.stdout
    assert_redacted(result)
    result = run(tmp_path, *words, "config", env=env)
    assert_redacted(result)
    result = run(tmp_path, *words, "--help", env=env)
    assert result.returncode == 0
    assert_redacted(result)
    hook = run(tmp_path, *words, "hook", "claude-code", "session-start", env=env, stdin="{}")
    assert hook.returncode == 0  # a hook fails open
    assert_redacted(hook)
    log = "".join(p.read_text() for p in (tmp_path / "state").rglob("*.log"))
    assert PASSWORD not in log


@pytest.mark.parametrize("way", WAYS)
def test_a_bad_url_is_a_usage_error(way: str, tmp_path: Path) -> None:
    words, env = given(way, tmp_path, f"mysql://alice:{PASSWORD}@db/ltm")
    result = run(tmp_path, *words, "status", env=env)
    assert result.returncode == 2
    assert_redacted(result)
    assert_one_error_line(result, "must be a postgresql:// URL")
    hook = run(tmp_path, *words, "hook", "claude-code", "session-start", env=env, stdin="{}")
    assert hook.returncode == 0  # exit 2 would block the agent
    assert_redacted(hook)


def test_sqlite_url_says_sqlite_needs_none(tmp_path: Path) -> None:
    result = run(tmp_path, "--database-url", "sqlite:///tmp/x.db", "status")
    assert result.returncode == 2
    assert "SQLite needs no URL" in result.stderr
