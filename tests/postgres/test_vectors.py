"""Vectors on PostgreSQL (postgres/vectors.py): stored per memory in ``memory_index``,
searched in numpy per scope through the engines' shared snapshots, and kept in step
with what other connections (other processes, other machines) write and erase."""

from __future__ import annotations

import struct
import threading
from collections.abc import Sequence

import numpy as np
import pytest

from ltm_desktop.core.records import Memory, SearchFilter
from ltm_desktop.engine.vectors.scope_vectors import quantize
from ltm_desktop.postgres import vectors
from ltm_desktop.postgres.conn import Conn
from ltm_desktop.postgres.database import PgDatabase

DIM = 32
NOW = 1_000_000.0


def unit(*values: float) -> bytes:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[: len(values)] = values
    return (vector / np.linalg.norm(vector)).astype("<f4").tobytes()


def random_unit(rng: np.random.Generator) -> bytes:
    values = rng.standard_normal(DIM).astype(np.float32)
    return (values / np.linalg.norm(values)).astype("<f4").tobytes()


def cosine(a: bytes, b: bytes) -> float:
    return float(np.frombuffer(a, "<f4") @ np.frombuffer(b, "<f4"))


def scope(conn: Conn, project_id: str) -> int:
    row = conn.execute(
        "INSERT INTO projects (project_id, name, created_at) VALUES (%s, %s, 0) RETURNING pk",
        (project_id, project_id),
    ).fetchone()
    assert row is not None
    return int(row[0])


def memory(
    conn: Conn, project_pk: int, memory_id: str, *, disabled: int = 0, expires: float | None = None
) -> int:
    row = conn.execute(
        "INSERT INTO memories (id, project_pk, title, content, category, importance, "
        "signature, created_at, updated_at, source, disabled, expires_at) "
        "VALUES (%s, %s, %s, 'content', 'knowledge', 5, %s, 1, 1, 'test', %s, %s) RETURNING pk",
        (memory_id, project_pk, f"title of {memory_id}", memory_id, disabled, expires),
    ).fetchone()
    assert row is not None
    return int(row[0])


def ids(hits: Sequence[tuple[Memory, float]]) -> list[str]:
    return [m.id for m, _ in hits]


def search(
    db: PgDatabase,
    index: vectors.PgVectorIndex,
    pks: list[int],
    query: bytes,
    limit: int = 10,
    *,
    model: str = "m",
    min_score: float = -1.0,
    where: SearchFilter | None = None,
) -> list[tuple[Memory, float]]:
    nearest = vectors.Nearest(model, query, limit, min_score, None)
    return db.read(lambda c: vectors.search_vectors(c, index, pks, nearest, NOW, where))


def version(db: PgDatabase, pks: list[int]) -> int:
    return db.read(lambda c: vectors.index_version(c, pks))


@pytest.fixture
def two_scopes(pg_db: PgDatabase) -> tuple[int, int, dict[str, int]]:
    """Scope A: mem_a1 (x), mem_a2 (y), mem_a3 (x and y); scope B: mem_b1 (x)."""
    with pg_db.transaction() as conn:
        a, b = scope(conn, "proj_a"), scope(conn, "proj_b")
        pks = {
            "mem_a1": memory(conn, a, "mem_a1"),
            "mem_a2": memory(conn, a, "mem_a2"),
            "mem_a3": memory(conn, a, "mem_a3"),
            "mem_b1": memory(conn, b, "mem_b1"),
        }
        for name, vector in (
            ("mem_a1", unit(1)),
            ("mem_a2", unit(0, 1)),
            ("mem_a3", unit(1, 1)),
            ("mem_b1", unit(1)),
        ):
            project = b if name.startswith("mem_b") else a
            vectors.set_index(
                conn, pks[name], project, tokens=["z", "a", "z"], vector=("m", vector)
            )
    return a, b, pks


def test_set_index_stores_sorted_tokens_a_quantized_vector_and_the_model_once(
    pg_db: PgDatabase, two_scopes: tuple[int, int, dict[str, int]]
) -> None:
    _, _, pks = two_scopes
    rows = pg_db.read(
        lambda c: c.execute(
            "SELECT i.memory_pk, i.tokens, v.name, i.vector, i.seq FROM memory_index AS i "
            "JOIN vector_models AS v ON v.pk = i.model_pk ORDER BY i.memory_pk"
        ).fetchall()
    )
    assert [row[0] for row in rows] == sorted(pks.values())
    assert all(row[1] == ["a", "z"] for row in rows)
    assert all(row[2] == "m" for row in rows)
    assert bytes(rows[0][3]) == quantize(unit(1))  # SQLite's encoding: a scale, int8 codes
    assert len(bytes(rows[0][3])) == 4 + DIM
    assert len({row[4] for row in rows}) == 4  # every change its own seq
    models = pg_db.read(lambda c: c.execute("SELECT name FROM vector_models").fetchall())
    assert models == [("m",)]


def test_the_nearest_memories_of_the_scopes_asked_best_first(
    pg_db: PgDatabase, two_scopes: tuple[int, int, dict[str, int]]
) -> None:
    a, b, _ = two_scopes
    index = vectors.PgVectorIndex()
    hits = search(pg_db, index, [a], unit(1, 0.2))
    assert ids(hits) == ["mem_a1", "mem_a3", "mem_a2"]
    assert hits[0][1] == pytest.approx(cosine(unit(1), unit(1, 0.2)), abs=0.01)
    assert ids(search(pg_db, index, [b], unit(1))) == ["mem_b1"]
    both = search(pg_db, index, [a, b], unit(1), limit=2)
    assert sorted(ids(both)) == ["mem_a1", "mem_b1"]
    assert ids(search(pg_db, index, [a], unit(0, 1), min_score=0.5)) == ["mem_a2", "mem_a3"]
    assert search(pg_db, index, [a], unit(1), model="other") == []
    assert search(pg_db, index, [], unit(1)) == []
    assert search(pg_db, index, [a], unit(1), limit=0) == []


def test_removed_and_expired_memories_are_left_out_unless_the_filter_admits_them(
    pg_db: PgDatabase, two_scopes: tuple[int, int, dict[str, int]]
) -> None:
    a, _, _ = two_scopes
    with pg_db.transaction() as conn:
        removed = memory(conn, a, "mem_removed", disabled=1)
        expired = memory(conn, a, "mem_expired", expires=NOW - 1)
        vectors.set_index(conn, removed, a, tokens=["x"], vector=("m", unit(1, 0.01)))
        vectors.set_index(conn, expired, a, tokens=["x"], vector=("m", unit(1, 0.02)))
    index = vectors.PgVectorIndex()
    assert ids(search(pg_db, index, [a], unit(1), limit=1)) == ["mem_a1"]
    admitted = SearchFilter(include_disabled=True, include_expired=True)
    found = ids(search(pg_db, index, [a], unit(1), limit=3, where=admitted))
    assert sorted(found) == ["mem_a1", "mem_expired", "mem_removed"]


def test_another_connection_changes_a_vector_index_version_moves_and_the_search_follows(
    pg_url: str, pg_db: PgDatabase, two_scopes: tuple[int, int, dict[str, int]]
) -> None:
    """The reader's cache (this process) is brought up to date from what another
    process wrote: its own pool, its own connection."""
    a, b, pks = two_scopes
    index = vectors.PgVectorIndex()
    assert ids(search(pg_db, index, [a], unit(0, 1), limit=1)) == ["mem_a2"]
    before, before_b = version(pg_db, [a]), version(pg_db, [b])
    other = PgDatabase(pg_url)
    try:
        with other.transaction() as conn:  # mem_a1 now points along y, past mem_a2
            vectors.set_index(conn, pks["mem_a1"], a, vector=("m", unit(0.01, 1)))
    finally:
        other.close()
    assert version(pg_db, [a]) > before
    assert version(pg_db, [b]) == before_b  # another scope's change is not this one's
    assert version(pg_db, [a, b]) > before + before_b
    hits = search(pg_db, index, [a], unit(0.01, 1), limit=1)
    assert ids(hits) == ["mem_a1"]
    assert ids(search(pg_db, index, [a], unit(1), limit=1)) == ["mem_a3"]


def test_tokens_alone_and_a_dropped_vector_move_the_version_too(
    pg_db: PgDatabase, two_scopes: tuple[int, int, dict[str, int]]
) -> None:
    a, _, pks = two_scopes
    index = vectors.PgVectorIndex()
    assert "mem_a1" in ids(search(pg_db, index, [a], unit(1)))
    start = version(pg_db, [a])
    with pg_db.transaction() as conn:
        vectors.set_index(conn, pks["mem_a2"], a, tokens=["new"])
    tokens_moved = version(pg_db, [a])
    assert tokens_moved > start
    with pg_db.transaction() as conn:
        vectors.set_index(conn, pks["mem_a1"], a, drop_vector=True)
    assert version(pg_db, [a]) > tokens_moved
    assert ids(search(pg_db, index, [a], unit(1))) == ["mem_a3", "mem_a2"]
    row = pg_db.read(
        lambda c: c.execute(
            "SELECT tokens, model_pk, vector FROM memory_index WHERE memory_pk = %s",
            (pks["mem_a1"],),
        ).fetchone()
    )
    assert row == (["a", "z"], None, None)  # the tokens stay: only the vector went


def test_an_erased_memory_leaves_every_process_index_and_moves_the_version(
    pg_url: str, pg_db: PgDatabase, two_scopes: tuple[int, int, dict[str, int]]
) -> None:
    a, _, pks = two_scopes
    index = vectors.PgVectorIndex()
    assert ids(search(pg_db, index, [a], unit(1), limit=1)) == ["mem_a1"]
    before = version(pg_db, [a])
    other = PgDatabase(pg_url)
    try:
        with other.transaction() as conn:
            vectors.record_erased(conn, pks["mem_a1"], a)
            conn.execute("DELETE FROM memories WHERE pk = %s", (pks["mem_a1"],))
    finally:
        other.close()
    assert version(pg_db, [a]) > before
    assert ids(search(pg_db, index, [a], unit(1))) == ["mem_a3", "mem_a2"]
    snapshot = pg_db.read(lambda c: index.snapshot(c, a, "m"))
    assert snapshot.count == 2  # the row is gone from the arrays, not only filtered
    left = pg_db.read(
        lambda c: c.execute(
            "SELECT count(*) FROM memory_index WHERE memory_pk = %s", (pks["mem_a1"],)
        ).fetchone()
    )
    assert left == (0,)


def test_a_rolled_back_write_changes_nothing_a_reader_sees(
    pg_db: PgDatabase, two_scopes: tuple[int, int, dict[str, int]]
) -> None:
    a, _, pks = two_scopes
    index = vectors.PgVectorIndex()
    before = version(pg_db, [a])

    def rolled_back() -> None:
        with pg_db.transaction() as conn:
            vectors.set_index(conn, pks["mem_a2"], a, vector=("m", unit(1)))
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        rolled_back()
    assert version(pg_db, [a]) == before
    assert ids(search(pg_db, index, [a], unit(1), limit=1)) == ["mem_a1"]
    with pg_db.transaction() as conn:  # the next write after the gap in the sequence
        vectors.set_index(conn, pks["mem_a2"], a, vector=("m", unit(1, -0.3)))
    assert ids(search(pg_db, index, [a], unit(1, -0.3), limit=1)) == ["mem_a2"]


def test_unindexed_and_index_progress_find_what_lacks_tokens_or_a_vector_of_the_model(
    pg_db: PgDatabase,
) -> None:
    with pg_db.transaction() as conn:
        a = scope(conn, "proj_a")
        done = memory(conn, a, "mem_1_done")
        no_vector = memory(conn, a, "mem_2_no_vector")
        other_model = memory(conn, a, "mem_3_other_model")
        no_tokens = memory(conn, a, "mem_4_no_tokens")
        removed = memory(conn, a, "mem_5_removed", disabled=1)
        vectors.set_index(conn, done, a, tokens=["t"], vector=("m", unit(1)))
        vectors.set_index(conn, no_vector, a, tokens=["t"])
        vectors.set_index(conn, other_model, a, tokens=["t"], vector=("old", unit(1)))
        vectors.set_index(conn, no_tokens, a, vector=("m", unit(1)))
        vectors.set_index(conn, removed, a, tokens=["t"])

    def lacking(model: str, after: str = "", limit: int = 10) -> list[str]:
        return [m.id for m in pg_db.read(lambda c: vectors.unindexed(c, model, after, limit))]

    assert lacking("m") == ["mem_2_no_vector", "mem_3_other_model", "mem_4_no_tokens"]
    assert lacking("old") == ["mem_1_done", "mem_2_no_vector", "mem_4_no_tokens"]
    assert lacking("new") == [
        "mem_1_done",
        "mem_2_no_vector",
        "mem_3_other_model",
        "mem_4_no_tokens",
    ]
    assert lacking("") == ["mem_4_no_tokens"]  # no model: only the token sets
    assert lacking("m", after="mem_2_no_vector") == ["mem_3_other_model", "mem_4_no_tokens"]
    assert lacking("m", limit=1) == ["mem_2_no_vector"]
    assert lacking("m", after="mem_gone") == lacking("m")  # an erased cursor: from the start
    progress = pg_db.read(lambda c: vectors.index_progress(c, "m"))
    assert progress == (2, 4)
    assert pg_db.read(lambda c: vectors.index_progress(c, "new")) == (0, 4)
    assert pg_db.read(lambda c: vectors.index_progress(c, "")) == (0, 4)
    with pg_db.transaction() as conn:
        vectors.set_index(conn, other_model, a, vector=("m", unit(0, 1)))
    assert pg_db.read(lambda c: vectors.index_progress(c, "m")) == (3, 4)
    assert lacking("m") == ["mem_2_no_vector", "mem_4_no_tokens"]


def test_searches_on_many_threads_while_another_connection_writes(pg_db: PgDatabase) -> None:
    """The snapshot cache is shared by the reading threads: each search sees a whole
    version of the scope while the writer replaces vectors."""
    rng = np.random.default_rng(7)
    with pg_db.transaction() as conn:
        a = scope(conn, "proj_a")
        pks = [memory(conn, a, f"mem_{i:03d}") for i in range(300)]
        for pk in pks:
            vectors.set_index(conn, pk, a, tokens=["t"], vector=("m", random_unit(rng)))
    index = vectors.PgVectorIndex()
    failures: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                hits = search(pg_db, index, [a], random_unit(np.random.default_rng()), 5)
                assert len(hits) == 5
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        for pk in pks[:60]:
            with pg_db.transaction() as conn:
                vectors.set_index(conn, pk, a, vector=("m", random_unit(rng)))
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert failures == []
    assert pg_db.read(lambda c: index.snapshot(c, a, "m")).count == 300


def test_the_vectors_are_those_sqlite_would_store(pg_db: PgDatabase) -> None:
    """The same float32 bytes give the same stored bytes (one quantizer, engine/)."""
    vector = struct.pack("<4f", 0.5, -0.5, 0.5, -0.5)
    with pg_db.transaction() as conn:
        a = scope(conn, "proj_a")
        pk = memory(conn, a, "mem_1")
        vectors.set_index(conn, pk, a, vector=("m", vector))
    stored = pg_db.read(lambda c: c.execute("SELECT vector FROM memory_index").fetchone())
    assert stored is not None
    assert bytes(stored[0]) == quantize(vector)
