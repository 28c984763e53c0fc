"""The same rows in a SQLite store and in a PostgreSQL database, so that a test asks
both engines the same question and compares their answers.

Rows are written with SQL into both (the two schemas have the same tables and columns),
primary keys included, so ties broken by pk break the same way. ``world`` makes a
seeded mix of the awkward cases: times exactly on an edge, removed memories without
``disabled_at``, expired and unreviewed ones, equal times, actors and sessions whose
order depends on case and on characters beyond ASCII.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ltm_desktop.core.records import AuditAction, Category
from ltm_desktop.postgres.database import PgDatabase
from ltm_desktop.store import SqliteStore, open_store
from ltm_desktop.store.write_txn import SqliteWriteTxn

DAY = 86_400.0
T0 = 1_760_000_000.0  # a midnight-aligned origin is not needed: edges are T0 + k days
PROJECTS = ("global", "proj_alpha", "proj_beta")
ACTORS = ("gui", "claude-code", "Codex", "agent-b", "Ω-bot", "codex")
SESSIONS = ("s1", "S1", "s2", "ß", "Zed", "a")

Rows = dict[str, list[dict[str, Any]]]


@dataclass
class Twins:
    """A SQLite store and a PostgreSQL database holding the same rows."""

    sqlite: SqliteStore
    pg: PgDatabase
    tables: Rows = field(default_factory=dict)

    def insert(self, table: str, rows: Sequence[dict[str, Any]]) -> None:
        """Write ``rows`` (column -> value, the same columns in each) into both."""
        if not rows:
            return
        names = list(rows[0])
        values = [[row[name] for name in names] for row in rows]
        columns = ", ".join(names)
        with self.sqlite.write() as txn:  # the store's own writer, in its unit of work
            assert isinstance(txn, SqliteWriteTxn)
            marks = ", ".join("?" * len(names))
            txn._conn.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)
        with self.pg.transaction() as conn:
            marks = ", ".join(["%s"] * len(names))
            with conn.cursor() as cursor:
                cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", values)
            if "pk" in names:  # rows added later (by the engine) take the next keys
                conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'pk'), max(pk)) FROM {table}"
                )
        self.tables.setdefault(table, []).extend(rows)

    def insert_world(self, rows: Rows) -> None:
        for table in ("projects", "memories", "observations", "audit", "proposals"):
            self.insert(table, rows.get(table, []))
        self.insert("extraction_runs", rows.get("extraction_runs", []))

    def close(self) -> None:
        self.sqlite.close()


def make_twins(pg_db: PgDatabase, tmp_path: Path) -> Iterator[Twins]:
    """For a fixture: a new SQLite store beside the test's PostgreSQL database."""
    twins = Twins(open_store(tmp_path / "twin.db", tmp_path / "backups"), pg_db)
    with twins.sqlite.write() as txn:  # the scopes SQLite starts with (global)
        assert isinstance(txn, SqliteWriteTxn)
        start = txn._conn.execute(
            "SELECT pk, project_id, path, name, created_at FROM projects"
        ).fetchall()
    with pg_db.transaction() as pg:
        for row in start:
            pg.execute(
                "INSERT INTO projects (pk, project_id, path, name, created_at) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (pk) DO UPDATE SET "
                "project_id = excluded.project_id, path = excluded.path, "
                "name = excluded.name, created_at = excluded.created_at",
                tuple(row),
            )
        pg.execute("SELECT setval(pg_get_serial_sequence('projects', 'pk'), max(pk)) FROM projects")
    try:
        yield twins
    finally:
        twins.close()


def english_database(server: str) -> Iterator[PgDatabase]:
    """For a fixture: a new database whose text sorts by English rules (ICU's ``en-US``:
    ``a < B < s1 < S1``), where SQLite's BINARY order must be asked for by name."""
    import uuid

    import psycopg
    from psycopg.conninfo import make_conninfo

    name = f"ltm_test_en_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(
            f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' "
            "LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
        )
    db = PgDatabase(make_conninfo(server, dbname=name))
    try:
        yield db
    finally:
        db.close()
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def day_edges(days: int, now: float) -> list[float]:
    """Midnights from T0 on, then just after ``now`` (as the Overview cuts them)."""
    return [T0 + k * DAY for k in range(days)] + [math.nextafter(now, math.inf)]


def _time(rng: random.Random, days: int) -> float:
    """A time around the window, often exactly on an edge (a midnight)."""
    if rng.random() < 0.2:
        return T0 + rng.randrange(-1, days + 1) * DAY
    return T0 + rng.uniform(-3, days + 1) * DAY


def world(seed: int, days: int = 21, memories: int = 240) -> Rows:
    """Seeded rows of every table the inbox, the counts and the Overview read."""
    rng = random.Random(seed)
    projects = [  # global (pk 1) is there from the start
        {"pk": pk, "project_id": pid, "path": None, "name": pid, "created_at": T0}
        for pk, pid in enumerate(PROJECTS, start=1)
        if pid != "global"
    ]
    memory_rows = []
    for pk in range(1, memories + 1):
        created = _time(rng, days)
        updated = created if rng.random() < 0.3 else created + rng.uniform(0, 6) * DAY
        disabled = int(rng.random() < 0.25)
        used = 0 if rng.random() < 0.6 else rng.randrange(1, 30)
        memory_rows.append(
            {
                "pk": pk,
                "id": f"mem_{pk:06d}",
                "project_pk": rng.randrange(1, len(PROJECTS) + 1),
                "title": f"title {pk}",
                "content": f"content of memory {pk}",
                "category": rng.choice(tuple(Category)).value,
                "importance": rng.randrange(0, 11),
                "tags": json.dumps(["t"] if pk % 3 else []),
                "signature": f"sig{pk}",
                "created_at": created,
                "updated_at": updated,
                "last_used_at": None if not used else updated + rng.uniform(0, 3) * DAY,
                "use_count": used,
                "ttl_days": None,
                "expires_at": None if rng.random() < 0.7 else _time(rng, days),
                "disabled": disabled,
                "disabled_at": (
                    None
                    if not disabled or rng.random() < 0.3
                    else updated + rng.uniform(0, 2) * DAY
                ),
                "source": rng.choice(("gui", "claude-code", "codex")),
                "superseded_by": None,
                "reviewed_at": None if rng.random() < 0.7 else _time(rng, days),
                "review_state": "unreviewed" if rng.random() < 0.3 else None,
                "provenance": None,
                "use_heat": float(used),
                "files": "[]",
            }
        )
    observations = []
    for pk in range(1, 61):
        disabled = int(rng.random() < 0.2)
        observations.append(
            {
                "pk": pk,
                "id": f"obs_{pk:06d}",
                "project_pk": rng.randrange(1, len(PROJECTS) + 1),
                "session_id": rng.choice(SESSIONS),
                "kind": rng.choice(("agent_end", "pre_compact")),
                "title": f"observation {pk}",
                "narrative": f"narrative {pk}",
                "created_at": T0 + rng.randrange(0, 8) * DAY,  # many equal times
                "source": "claude-code",
                "disabled": disabled,
                "disabled_at": T0 if disabled else None,
                "disabled_by": "gui" if disabled else None,
            }
        )
    audit = []
    at = T0 - 3 * DAY
    for seq in range(1, 401):
        at += rng.uniform(0, (days + 4) * DAY / 400)
        # a tenth on the midnight before: out of seq order, never by a day or more
        # (SQLite's scan starts at a seq found by time, within a day)
        midnight = T0 + math.floor((at - T0) / DAY) * DAY
        audit.append(
            {
                "seq": seq,
                "at": midnight if rng.random() < 0.1 else at,
                "memory_id": f"mem_{rng.randrange(1, memories + 2):06d}",
                "project_pk": rng.randrange(1, len(PROJECTS) + 1),
                "actor": rng.choice(ACTORS),
                "action": rng.choice(tuple(AuditAction)).value,
                "before": None,
                "after": "{}",
            }
        )
    proposals = []
    for pk in range(1, 41):
        state = rng.choice(("proposed", "proposed", "approved", "rejected"))
        merges = [] if rng.random() < 0.6 else [[f"mem_{pk:06d}", 1.5], ["mem_000002", 2.0]]
        proposals.append(
            {
                "pk": pk,
                "id": f"prop_{pk:06d}",
                "project_pk": rng.randrange(1, len(PROJECTS) + 1),
                "title": f"proposal {pk}",
                "content": f"proposed content {pk}",
                "category": rng.choice(tuple(Category)).value,
                "importance": rng.randrange(0, 11),
                "tags": json.dumps(["x", "y"][: pk % 3]),
                "ttl_days": None if pk % 4 else 30,
                "signature": f"psig{pk % 7}",
                "source": "extractor",
                "provenance": json.dumps(
                    {
                        "run_id": "run_1",
                        "agent": "codex",
                        "session_id": "s1",
                        "source": "text",
                        "model": "m",
                        "extracted_at": T0,
                    }
                ),
                "state": state,
                "created_at": T0 + rng.randrange(0, 5) * DAY,  # ties: newest pk first
                "updated_at": T0 + 6 * DAY,
                "decided_at": None if state == "proposed" else T0 + 7 * DAY,
                "decided_by": None if state == "proposed" else "gui",
                "memory_id": f"mem_{pk:06d}" if state == "approved" else None,
                "outcome": "added" if state == "approved" else None,
                "memory_version": T0 + 7 * DAY if state == "approved" else None,
                "superseded_id": None,
                "merges": json.dumps(merges),
                "files": json.dumps(["src/app.py"] if pk % 5 == 0 else []),
            }
        )
    runs = [
        {
            "pk": pk,
            "id": f"run_{pk:06d}",
            "project_pk": rng.randrange(1, len(PROJECTS) + 1),
            "started_at": T0 + rng.randrange(0, 4) * DAY,
            "finished_at": T0 + 5 * DAY,
            "agent": "codex",
            "session_id": rng.choice(SESSIONS),
            "source": "text",
            "model": "m",
            "status": "ok" if pk % 3 else "failed",
            "reason": None if pk % 3 else "timed out",
            "added": pk % 2,
            "proposed": pk % 3,
            "duplicates": 0,
            "invalid": 1,
            "refused": 0,
            "item_ids": json.dumps([f"prop_{pk:06d}"]),
        }
        for pk in range(1, 21)
    ]
    return {
        "projects": projects,
        "memories": memory_rows,
        "observations": observations,
        "audit": audit,
        "proposals": proposals,
        "extraction_runs": runs,
    }
