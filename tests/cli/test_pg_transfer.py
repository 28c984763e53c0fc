"""``export``, ``import``, ``verify`` and ``erase`` with a database URL: the real console
script on a real PostgreSQL database (tests/pg_databases.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.pg_console import exported, ltm, ok, seed_file, sql, to_url, write_config
from tests.pg_databases import PgDatabases

TOMBSTONE_KEYS = {"erased_at", "erased_by"}


@pytest.mark.slow
def test_an_export_from_postgresql_imports_into_sqlite_and_back_with_the_same_memories(
    tmp_path: Path, pg_databases: PgDatabases
) -> None:
    config = write_config(tmp_path)
    first, second = pg_databases.take(), pg_databases.take()
    try:
        url, url_again = to_url(first), to_url(second)
        seed = seed_file(tmp_path, trashed="Quokka")
        ok(ltm(tmp_path / "pg-dir", config, "import", str(seed), url=url))
        in_postgres = exported(tmp_path / "pg-dir", config, url)
        assert len(in_postgres) == 4
        assert in_postgres["mem_000000000000000000004"]["disabled"] is True
        assert in_postgres["mem_000000000000000000001"]["files"] == ["src/app.py"]

        out = tmp_path / "from-postgres.jsonl"
        said = ok(
            ltm(tmp_path / "pg-dir", config, "export", "--include-removed", "-o", str(out), url=url)
        )
        assert "exported 4 memories of 2 scopes" in said
        ok(ltm(tmp_path / "sqlite", config, "import", str(out)))
        in_sqlite = exported(tmp_path / "sqlite", config)
        assert in_sqlite == in_postgres

        back = tmp_path / "from-sqlite.jsonl"
        ok(ltm(tmp_path / "sqlite", config, "export", "--include-removed", "-o", str(back)))
        ok(ltm(tmp_path / "pg-dir", config, "import", str(back), url=url_again))
        assert exported(tmp_path / "pg-dir", config, url_again) == in_postgres

        again = ok(ltm(tmp_path / "pg-dir", config, "import", str(back), url=url_again))
        assert "0 created" in again  # the same file twice changes nothing
        for where in (url, url_again):
            assert "0 problem(s)" in ok(ltm(tmp_path / "pg-dir", config, "verify", url=where))
    finally:
        pg_databases.release(first)
        pg_databases.release(second)


@pytest.mark.slow
def test_verify_is_clean_on_a_fresh_database_and_names_a_damaged_audit_event(
    tmp_path: Path, pg_databases: PgDatabases
) -> None:
    config = write_config(tmp_path)
    conninfo = pg_databases.take()
    try:
        url = to_url(conninfo)
        fresh = ltm(tmp_path / "d", config, "verify", url=url)
        assert "0 problem(s); 0 audit events" in ok(fresh)
        ok(ltm(tmp_path / "d", config, "import", str(seed_file(tmp_path)), url=url))
        assert "0 problem(s); 3 audit events" in ok(ltm(tmp_path / "d", config, "verify", url=url))

        sql(conninfo, "ALTER TABLE audit DISABLE TRIGGER audit_is_append_only")
        sql(conninfo, "UPDATE audit SET actor = 'mallory' WHERE seq = 2")
        sql(conninfo, "ALTER TABLE audit ENABLE TRIGGER audit_is_append_only")
        damaged = ltm(tmp_path / "d", config, "verify", url=url)
        assert damaged.returncode == 1, damaged.stderr
        assert "problem: audit event #2" in damaged.stdout
        assert "1 problem(s)" in damaged.stdout
    finally:
        pg_databases.release(conninfo)


def _tables(conninfo: str) -> list[str]:
    rows = sql(
        conninfo,
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
    return [str(row[0]) for row in rows]


def _rows_holding(conninfo: str, word: str) -> dict[str, int]:
    """Per table, how many rows hold ``word`` anywhere (any column, as text, any case)."""
    found = {}
    for table in _tables(conninfo):
        (count,) = sql(
            conninfo, f'SELECT count(*) FROM "{table}" AS t WHERE t::text ILIKE %s', (f"%{word}%",)
        )[0]
        if count:
            found[table] = int(count)
    return found


SCRUBBED = ("audit", "memories", "memory_files", "memory_index", "memory_tags", "proposals")


def _vacuums(conninfo: str) -> dict[str, int]:
    """How many times each table the erase's scrub vacuums has been vacuumed by hand."""
    rows = sql(
        conninfo,
        "SELECT relname, vacuum_count FROM pg_stat_user_tables WHERE relname = ANY(%s)",
        (list(SCRUBBED),),
    )
    assert len(rows) == len(SCRUBBED)
    return {str(name): int(count) for name, count in rows}


@pytest.mark.slow
def test_erase_leaves_nothing_of_the_memory_in_any_table_and_tombstones_its_history(
    tmp_path: Path, pg_databases: PgDatabases
) -> None:
    config = write_config(tmp_path)
    conninfo = pg_databases.take()
    word = "Quokka"
    erased_id = "mem_000000000000000000004"
    try:
        url = to_url(conninfo)
        ok(ltm(tmp_path / "d", config, "import", str(seed_file(tmp_path, trashed=word)), url=url))
        (pk,) = sql(conninfo, "SELECT pk FROM memories WHERE id = %s", (erased_id,))[0]
        (model,) = sql(conninfo, "INSERT INTO vector_models (name) VALUES ('m') RETURNING pk")[0]
        sql(  # a vector, as the backfill stores one
            conninfo,
            "UPDATE memory_index SET model_pk = %s, vector = %s WHERE memory_pk = %s",
            (model, b"\x00\x00\x80?" + bytes(range(8)), pk),
        )
        held = _rows_holding(conninfo, word)
        assert {"memories", "memory_tags", "memory_files", "audit"} <= set(held)
        assert sql(conninfo, "SELECT count(*) FROM memory_index WHERE memory_pk = %s", (pk,)) == [
            (1,)
        ]

        before = _vacuums(conninfo)
        erased = ok(ltm(tmp_path / "d", config, "erase", erased_id, url=url))
        assert f"erased {erased_id}" in erased
        assert "VACUUM" in erased  # what is not guaranteed, said
        assert "WAL" in erased

        assert _rows_holding(conninfo, word) == {}
        assert all(after > before[table] for table, after in _vacuums(conninfo).items())
        assert _rows_holding(conninfo, erased_id) == {"audit": 2}  # the events' memory_id
        for table in ("memory_tags", "memory_files", "memory_index"):
            assert sql(conninfo, f"SELECT count(*) FROM {table} WHERE memory_pk = %s", (pk,)) == [
                (0,)
            ]
        assert sql(
            conninfo, "SELECT count(*) FROM memory_index_erased WHERE memory_pk = %s", (pk,)
        ) == [(1,)]
        events = sql(
            conninfo,
            "SELECT action, before, after, nonce FROM audit WHERE memory_id = %s ORDER BY seq",
            (erased_id,),
        )
        assert [e[0] for e in events] == ["imported", "erased"]
        for _, before, after, _ in events:
            assert before is None
            assert set(json.loads(after)) == TOMBSTONE_KEYS
        assert events[0][3] is None  # the salt of what it held: gone
        assert "0 problem(s)" in ok(ltm(tmp_path / "d", config, "verify", url=url))
        gone = ltm(tmp_path / "d", config, "export", "--include-removed", url=url)
        assert word not in ok(gone)
        assert erased_id not in gone.stdout
    finally:
        pg_databases.release(conninfo)
