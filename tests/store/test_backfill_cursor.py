"""What the backfill has left is found by index from its cursor: a batch reads the rows it
returns, not the rows done before it nor all those left after it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store.vectors import reads
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.sqlite_only


@contextmanager
def database(make_service: ServiceFactory, data: Path, count: int) -> Iterator[sqlite3.Connection]:
    """``count`` memories imported (token sets, no vectors), then the database alone."""
    service = make_service(data)
    project = service.resolve_scope(cwd="/srv/app", register=True)
    drafts = [MemoryDraft(f"fact {i} about module m{i}x") for i in range(count)]
    service.import_memories(project, drafts, "test")
    service.close()
    conn = sqlite3.connect(DataPaths(data).db_path, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


def pks(conn: sqlite3.Connection, model: str, after_id: str, limit: int) -> list[int]:
    """The pks of ``reads.unindexed``'s memories, in the order it gives them."""
    pk_of = dict(conn.execute("SELECT id, pk FROM memories"))
    return [pk_of[m.id] for m in reads.unindexed(conn, model, after_id, limit)]


def id_of(conn: sqlite3.Connection, pk: int) -> str:
    return str(conn.execute("SELECT id FROM memories WHERE pk = ?", (pk,)).fetchone()[0])


def test_each_kind_of_lack_is_found_after_the_cursor_and_done_rows_are_not(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    with database(make_service, tmp_path / "data", 40) as conn:
        conn.execute("UPDATE memory_index SET model = 'm', vector = x'00' WHERE memory_pk <= 30")
        conn.execute("UPDATE memory_index SET model = 'old', vector = x'00' WHERE memory_pk = 5")
        conn.execute("UPDATE memory_index SET token_bits = NULL WHERE memory_pk = 7")
        conn.execute("UPDATE memories SET disabled = 1 WHERE pk IN (8, 33)")
        lacking = [5, 7, 31, 32, 34, 35, 36, 37, 38, 39, 40]
        assert pks(conn, "m", "", 100) == lacking
        assert pks(conn, "m", "", 3) == lacking[:3]
        assert pks(conn, "m", id_of(conn, 7), 3) == [31, 32, 34]  # after it, the disabled not
        assert pks(conn, "m", id_of(conn, 40), 3) == []
        assert pks(conn, "", "", 100) == [7]  # no model: the token sets only
        conn.execute("DELETE FROM memories WHERE pk = 31")  # an erased cursor: from the start
        conn.execute("DELETE FROM memory_index WHERE memory_pk = 31")
        assert pks(conn, "m", "mem_gone", 2) == [5, 7]


def vm_steps(conn: sqlite3.Connection, model: str, limit: int) -> int:
    """SQLite's virtual machine steps (per hundred) of one batch: work, not time."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    conn.set_progress_handler(count, 100)
    try:
        assert len(reads.unindexed(conn, model, "", limit)) == limit
    finally:
        conn.set_progress_handler(None, 0)
    return steps[0]


def test_a_batch_costs_the_same_however_many_are_left_after_it(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    with database(make_service, tmp_path / "data", 1500) as conn:
        conn.execute("ANALYZE")  # whatever the statistics say, the plan stays
        all_left = vm_steps(conn, "m", 10)  # 1,500 without a vector
        conn.execute("UPDATE memory_index SET model = 'm', vector = x'00' WHERE memory_pk > 100")
        few_left = vm_steps(conn, "m", 10)  # the same 10 first, 100 without
        conn.execute("UPDATE memory_index SET model = 'old' WHERE memory_pk > 100")
        other_model = vm_steps(conn, "m", 10)  # 1,400 of another model after them
    assert all_left <= few_left + 2
    assert other_model <= few_left + 2


def test_each_range_seeks_its_index_from_the_cursor(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    with database(make_service, tmp_path / "data", 300) as conn:
        conn.execute("UPDATE memory_index SET model = 'm', vector = x'00' WHERE memory_pk <= 290")
        conn.execute("UPDATE memory_index SET model = 'old' WHERE memory_pk > 295")
        conn.execute("ANALYZE")
        sql: list[str] = []
        conn.set_trace_callback(sql.append)
        reads.unindexed(conn, "m", id_of(conn, 10), 10)
        conn.set_trace_callback(None)
        ranges = [s for s in sql if "INDEXED BY" in s]
        plans = [  # the statements as run, their parameters in them
            " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {s}")) for s in ranges
        ]
    assert len(plans) == 3  # no token set, no vector, the other model's
    assert "memory_index_without_tokens (memory_pk>?)" in plans[0]
    assert all("memory_index_by_model (model=? AND rowid>?)" in plan for plan in plans[1:])
    assert not any(plan.startswith("SCAN") for plan in plans)
