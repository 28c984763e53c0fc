"""Checking and rebuilding the search (FTS5) tables: each scope's memory table and the
observation table shared by every scope.

SQLite's ``integrity_check`` (before 3.44) does not look inside an FTS5 index: a damaged
index passes it while every search of its scope fails with "database disk image is
malformed". FTS5's own ``integrity-check`` looks. It is a write statement, so it runs on
the writer, each table in its own statement: it holds the write lock while it reads the
table (about 1.5 s for 100,000 memories of 50 words), so only the full ``verify`` runs it
(and a search that failed, to say why).

A search table holds nothing of its own (the rows are the truth), so a damaged one is
rebuilt from them: dropped, declared again as it was (and its ranking), and refilled.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass

from ltm_desktop.store.fts.indexing import reindex_scope
from ltm_desktop.store.fts.tables import (
    OBSERVATION_RANK,
    OBSERVATION_TABLE,
    RANK,
    create_memory_table,
    memory_table,
)
from ltm_desktop.store.observations import reindex_observations

REPAIR_COMMAND = "ltm-desktop verify --repair"
SHADOWS = ("data", "idx", "content", "docsize", "config")  # FTS5's tables behind a table
FRESH = "ltm_fresh_fts"  # a temporary table, for the shadow tables of an empty index


@dataclass(frozen=True, slots=True)
class SearchTable:
    """One FTS5 table; ``project_pk`` None: the observation table."""

    name: str
    label: str  # for people: "the search index of proj_…"
    rows: str  # what it indexes: "memories" or "observations"
    project_pk: int | None
    exists: bool = True


@dataclass(frozen=True, slots=True)
class Damage:
    table: SearchTable
    reason: str  # follows the label: "is damaged (...)", "is out of step ..."
    breaks_search: bool = False  # searches of it fail (not only miss or add rows)

    def describe(self) -> str:
        return f"{self.table.label} {self.reason}; `{REPAIR_COMMAND}` rebuilds it"


def search_tables(conn: sqlite3.Connection) -> list[SearchTable]:
    """Every scope's memory table (one not created yet too: a scope with memories must
    have one), then the observation table."""
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    tables = [
        SearchTable(
            memory_table(pk),
            f"the search index of {project_id}",
            "memories",
            pk,
            memory_table(pk) in names,
        )
        for pk, project_id in conn.execute("SELECT pk, project_id FROM projects ORDER BY pk")
    ]
    if OBSERVATION_TABLE in names:
        tables.append(
            SearchTable(OBSERVATION_TABLE, "the observation search index", "observations", None)
        )
    return tables


def _is_busy(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def integrity_error(conn: sqlite3.Connection, table: SearchTable) -> str | None:
    """What FTS5's integrity-check says is wrong with ``table`` (None: nothing). A lock
    held by another process is raised, not reported as damage."""
    try:
        conn.execute(f"INSERT INTO {table.name} ({table.name}) VALUES ('integrity-check')")
    except sqlite3.DatabaseError as exc:
        if _is_busy(exc):
            raise
        return str(exc)
    return None


def _expected(conn: sqlite3.Connection, table: SearchTable) -> set[int]:
    if table.project_pk is None:
        query = conn.execute("SELECT pk FROM observations WHERE disabled = 0")
    else:
        query = conn.execute(
            "SELECT pk FROM memories WHERE project_pk = ? AND disabled = 0", (table.project_pk,)
        )
    return {pk for (pk,) in query}


def out_of_step(conn: sqlite3.Connection, table: SearchTable) -> str | None:
    """How ``table``'s rows differ from what it should index (None: they do not)."""
    rows = _expected(conn, table)
    indexed = (
        {rowid for (rowid,) in conn.execute(f"SELECT rowid FROM {table.name}")}
        if table.exists
        else set()
    )
    if rows == indexed:
        return None
    missing, extra = len(rows - indexed), len(indexed - rows)
    return (
        f"is out of step with its {table.rows} "
        f"({missing} missing, {extra} that should not be there)"
    )


def find_damage(conn: sqlite3.Connection, names: Collection[str] | None = None) -> list[Damage]:
    """Every search table (or those of ``names``: FTS5's check only, to tell why a search
    failed) that is damaged, or does not index what its rows say."""
    found = []
    for table in search_tables(conn):
        if names is not None and table.name not in names:
            continue
        error = integrity_error(conn, table) if table.exists else None
        if error is not None:
            damaged = f"is damaged ({error}): searches in it fail"
            found.append(Damage(table, damaged, breaks_search=True))
        elif names is None and (reason := _step_problem(conn, table)) is not None:
            found.append(Damage(table, reason))
    return found


def _step_problem(conn: sqlite3.Connection, table: SearchTable) -> str | None:
    try:
        return out_of_step(conn, table)
    except sqlite3.DatabaseError as exc:
        if _is_busy(exc):
            raise
        return f"cannot be read ({exc})"


def _rank(conn: sqlite3.Connection, table: SearchTable) -> str:
    """The table's ranking setting, or the one it was created with if it cannot be read."""
    try:
        row = conn.execute(f"SELECT v FROM {table.name}_config WHERE k = 'rank'").fetchone()
    except sqlite3.DatabaseError:
        row = None
    if row is not None and isinstance(row[0], str):
        return row[0]
    return RANK if table.project_pk is not None else OBSERVATION_RANK


def _make_openable(conn: sqlite3.Connection, name: str, declared: str) -> None:
    """Give a table FTS5 cannot open (a shadow table or its settings lost) the shadow
    tables of an empty one declared alike: FTS5 must open a table to drop it."""
    using = re.split(r"\bUSING\b", declared, maxsplit=1, flags=re.IGNORECASE)[1]
    conn.execute(f"CREATE VIRTUAL TABLE temp.{FRESH} USING {using}")
    try:
        for shadow in SHADOWS:
            row = conn.execute(
                "SELECT sql FROM sqlite_temp_master WHERE name = ?", (f"{FRESH}_{shadow}",)
            ).fetchone()
            if row is None:
                continue
            conn.execute(f"DROP TABLE IF EXISTS main.{name}_{shadow}")
            conn.execute(row[0].replace(f"'{FRESH}_{shadow}'", f"main.'{name}_{shadow}'", 1))
            conn.execute(f"INSERT INTO main.{name}_{shadow} SELECT * FROM temp.{FRESH}_{shadow}")
    finally:
        conn.execute(f"DROP TABLE temp.{FRESH}")


def drop_search_table(conn: sqlite3.Connection, name: str, declared: str) -> None:
    """Drop an FTS5 table, damaged or not (``declared``: its CREATE statement)."""
    try:
        conn.execute(f"DROP TABLE {name}")
    except sqlite3.DatabaseError as exc:
        if _is_busy(exc):
            raise
        _make_openable(conn, name, declared)
        conn.execute(f"DROP TABLE {name}")


def rebuild(conn: sqlite3.Connection, table: SearchTable) -> int:
    """In a write transaction: ``table`` dropped, declared again and refilled from its rows;
    returns how many rows it indexes."""
    if table.project_pk is not None and not table.exists:
        create_memory_table(conn, table.project_pk)
        return reindex_scope(conn, table.project_pk)
    (declared,) = conn.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table.name,)
    ).fetchone()
    rank = _rank(conn, table)
    drop_search_table(conn, table.name, declared)
    conn.execute(declared)
    conn.execute(f"INSERT INTO {table.name} ({table.name}, rank) VALUES ('rank', ?)", (rank,))
    if table.project_pk is None:
        return reindex_observations(conn)
    return reindex_scope(conn, table.project_pk)
