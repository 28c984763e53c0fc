"""Whether a database holds exactly the schema this ltm-desktop's migrations make.

A backup is a file anyone may have handed over or edited: SQLite runs whatever a file's
schema says (a trigger rewriting every memory as it is added, a CHECK that refuses
some, a view shadowing a name), and none of that is data the audit chain covers. So
before a file is restored, every table, index, trigger and view in its ``sqlite_master``
is compared (type, name, table, whitespace-normalized SQL) with what a fresh database
gets from the same migrations: nothing extra, nothing missing, nothing changed.

The comparison is with the fresh schema *of the file's own version* (the migrations its
``schema_migrations`` records), not with the newest one: an older backup is restored and
migrated when it is next opened, and nothing in it runs before it has been vetted
(migrating a copy first would run the file's triggers during the migration's updates).
The parts of a sound database that are not made by migrations are allowed exactly: each
scope's FTS5 table (``fts_tables.create_memory_table``) for a scope the file has, and
SQLite's own statistics tables that ``ANALYZE``/``PRAGMA optimize`` create.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.store.fts.tables import CONTENTLESS_SINCE, create_memory_table
from ltm_desktop.store.migrations import MIGRATIONS, applied_versions, migrate

SCOPE_TABLE = re.compile(r"memory_fts_(\d+)")
SHOWN_SQL = 160  # characters of an unexpected statement quoted in a message
# Made by SQLite itself (ANALYZE, PRAGMA optimize), with this text whatever the schema.
STATISTICS = {
    "sqlite_stat1": "CREATE TABLE sqlite_stat1(tbl,idx,stat)",
    "sqlite_stat4": "CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)",
}


@dataclass(frozen=True, slots=True)
class SchemaObject:
    """One row of ``sqlite_master``, its SQL with whitespace runs made single spaces."""

    kind: str
    name: str
    table: str
    sql: str | None

    def describe(self) -> str:
        return f"{self.kind} {self.name}"


Schema = dict[tuple[str, str], SchemaObject]


def _normal(sql: str | None) -> str | None:
    return None if sql is None else re.sub(r"\s+", " ", sql).strip()


def schema_of(conn: sqlite3.Connection) -> Schema:
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    return {
        (kind, name): SchemaObject(kind, name, table, _normal(sql))
        for kind, name, table, sql in rows
    }


def _scope_pks(conn: sqlite3.Connection, schema: Schema) -> list[int]:
    """The scopes (rows of ``projects``) that have a search table in ``schema``."""
    named = {
        int(match.group(1))
        for kind, name in schema
        if kind == "table" and (match := SCOPE_TABLE.fullmatch(name))
    }
    known = {int(row[0]) for row in conn.execute("SELECT pk FROM projects")}
    return sorted(named & known)


def expected_schema(versions: set[int], scope_pks: list[int]) -> Schema:
    """The schema a fresh database gets from the migrations ``versions``, with the search
    tables of ``scope_pks``; built in memory with the store's own code."""
    fresh = sqlite3.connect(":memory:", isolation_level=None)
    try:
        migrations = [m for m in MIGRATIONS if m.version in versions]
        migrate(fresh, Path(":memory:"), Path("unused"), migrations)  # version 0: no backup
        contentless = CONTENTLESS_SINCE in versions  # its migration remade them (gaps: by version)
        for pk in scope_pks:
            create_memory_table(fresh, pk, contentless=contentless)
        return schema_of(fresh)
    finally:
        fresh.close()


def schema_problems(conn: sqlite3.Connection) -> list[str]:
    """What in the database behind ``conn`` differs from this ltm-desktop's schema of its
    version: extra, missing and changed objects, each named; empty when it is exact."""
    applied = applied_versions(conn)
    known = {m.version for m in MIGRATIONS}
    unknown = sorted(applied - known)
    if unknown:
        versions = ", ".join(map(str, unknown))
        return [f"it records migrations this ltm-desktop does not know ({versions})"]
    if not applied:
        return ["it records no migrations (schema_migrations is missing or empty)"]
    found = schema_of(conn)
    expected = expected_schema(applied, _scope_pks(conn, found))
    for name, sql in STATISTICS.items():
        if ("table", name) in found:
            expected["table", name] = SchemaObject("table", name, name, sql)
    problems = []
    for key, thing in sorted(found.items()):
        wanted = expected.get(key)
        if wanted is None:
            problems.append(f"an extra {thing.describe()} on {thing.table}: {_shown(thing.sql)}")
        elif wanted != thing:
            problems.append(f"the {thing.describe()} was changed: {_shown(thing.sql)}")
    for key, thing in sorted(expected.items()):
        if key not in found:
            problems.append(f"the {thing.describe()} is missing")
    return problems


def _shown(sql: str | None) -> str:
    if sql is None:
        return "(no SQL)"
    return sql if len(sql) <= SHOWN_SQL else sql[: SHOWN_SQL - 1] + "…"
