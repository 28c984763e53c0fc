"""The chain with people and machines on PostgreSQL: a database from before migration 3 is
migrated, its old events verify unchanged beside new ones that name their person and
machine, the trigger keeps both unchanged, and changing either behind its back is found
by ``ltm-desktop verify`` (the real console script)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ltm_desktop.core.actors import Identity, Machine, WhoAmI
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.postgres import open_postgres_store
from ltm_desktop.postgres.schema import MIGRATIONS, SCHEMA_VERSION
from tests.console import CONSOLE_SCRIPT
from tests.pg_server import fresh_database

ANA = WhoAmI.fixed(Identity("ana@laptop", Machine("a1b2c3", "laptop")))
TRIGGER_OFF = "ALTER TABLE audit DISABLE TRIGGER audit_is_append_only"
TRIGGER_ON = "ALTER TABLE audit ENABLE TRIGGER audit_is_append_only"


def _service(url: str, data: Path, who: WhoAmI | None = None) -> MemoryService:
    data.mkdir(parents=True, exist_ok=True)
    paths = DataPaths(data)
    return MemoryService(open_postgres_store(url, backup_dir=paths.backup_dir), paths, identity=who)


def _as_version_1(url: str) -> None:
    """What an ltm-desktop before migration 3 left: no person or machine columns, the
    trigger's first function, schema version 1 (2 is another change's)."""
    (first_function,) = [
        s for s in MIGRATIONS[0].statements if s.startswith("CREATE FUNCTION audit_is_append")
    ]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP INDEX audit_by_person")
        conn.execute(
            "ALTER TABLE audit DROP COLUMN person, DROP COLUMN machine, DROP COLUMN machine_id"
        )
        conn.execute(first_function.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"))
        conn.execute("DELETE FROM schema_migrations WHERE version = 3")


def _verify(url: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env[ENV_DATABASE_URL] = url
    return subprocess.run(
        [CONSOLE_SCRIPT, "verify", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        env=env,
    )


@pytest.fixture
def migrated(pg_server_url: str, tmp_path: Path) -> Iterator[str]:
    """A database written before migration 3 (three events), opened by this version as
    Ana (two more): its URL."""
    with fresh_database(pg_server_url) as url:
        old = _service(url, tmp_path / "data")
        first = old.add(GLOBAL_PROJECT_ID, MemoryDraft("Deploys go out on Fridays"), "codex")
        old.add(GLOBAL_PROJECT_ID, MemoryDraft("Use tabs in Makefiles"), "claude-code")
        old.update(first.memory.id, {"content": "Deploys go out on Thursdays"}, "gui")
        old.close()
        _as_version_1(url)
        new = _service(url, tmp_path / "data", ANA)
        try:
            assert new.database.schema_version == SCHEMA_VERSION
            new.add(GLOBAL_PROJECT_ID, MemoryDraft("Staging is vm-12"), "codex")
            new.update(first.memory.id, {"importance": 8}, "gui")
        finally:
            new.close()
        yield url


def test_an_old_history_migrated_forward_verifies_beside_new_events(
    migrated: str, tmp_path: Path
) -> None:
    with psycopg.connect(migrated) as conn:
        rows = conn.execute("SELECT seq, person, machine FROM audit ORDER BY seq").fetchall()
    assert rows == [
        (1, None, None),
        (2, None, None),
        (3, None, None),
        (4, "ana@laptop", "laptop"),
        (5, "ana@laptop", "laptop"),
    ]
    verified = _verify(migrated, tmp_path / "data")
    assert verified.returncode == 0, verified.stderr
    assert "0 problem(s); 5 audit events" in verified.stdout


def test_the_trigger_keeps_the_person_and_machine(migrated: str) -> None:
    with psycopg.connect(migrated, autocommit=True) as conn:
        for forgery in (
            "UPDATE audit SET person = 'mallory@laptop' WHERE seq = 4",
            "UPDATE audit SET machine = NULL WHERE seq = 5",
            "UPDATE audit SET machine_id = 'x' WHERE seq = 1",
        ):
            with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
                conn.execute(forgery)


@pytest.mark.parametrize(
    "forgery",
    [
        "UPDATE audit SET machine = 'elsewhere' WHERE seq = 4",
        "UPDATE audit SET person = 'mallory@laptop' WHERE seq = 5",
        "UPDATE audit SET person = 'ana@laptop' WHERE seq = 2",  # an old event given one
    ],
)
def test_changing_who_made_an_event_is_found(migrated: str, tmp_path: Path, forgery: str) -> None:
    with psycopg.connect(migrated, autocommit=True) as conn:
        conn.execute(TRIGGER_OFF)  # as the database's owner could
        conn.execute(forgery)
        conn.execute(TRIGGER_ON)
    verified = _verify(migrated, tmp_path / "data")
    assert verified.returncode != 0
    seq = forgery.rsplit("= ", 1)[1]
    said = verified.stdout + verified.stderr
    assert f"audit event #{seq} " in said
    assert "chain was rewritten here" in said
