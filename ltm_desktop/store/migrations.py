"""Versioned schema migrations, tracked with ``PRAGMA user_version``.

Each migration runs in its own transaction and is recorded by name. Before any
migration touches an existing database, the file is copied to ``backups/``.
A database newer than this code is refused and left untouched.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.backend import USE_HEAT_EPOCH, USE_HEAT_HALF_LIFE
from ltm_desktop.core.errors import DatabaseTooNew, StorageError
from ltm_desktop.store.audit import chain as audit_chain
from ltm_desktop.store.connection import copy_failure
from ltm_desktop.store.fts.indexing import reindex_scope
from ltm_desktop.store.fts.integrity import drop_search_table
from ltm_desktop.store.fts.tables import create_memory_table, memory_table
from ltm_desktop.store.fts.text import TOKENIZER


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]
    then: Callable[[sqlite3.Connection], object] | None = None  # after the statements


V1_STATEMENTS = (
    """CREATE TABLE schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at REAL NOT NULL
    )""",
    """CREATE TABLE projects (
        pk INTEGER PRIMARY KEY,
        project_id TEXT NOT NULL UNIQUE,
        path TEXT,
        name TEXT NOT NULL,
        created_at REAL NOT NULL
    )""",
    """CREATE TABLE memories (
        pk INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        project_pk INTEGER NOT NULL REFERENCES projects(pk),
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        category TEXT NOT NULL
            CHECK (category IN ('knowledge', 'preference', 'task', 'skill')),
        importance INTEGER NOT NULL CHECK (importance BETWEEN 0 AND 10),
        tags TEXT NOT NULL DEFAULT '[]',
        signature TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_used_at REAL,
        use_count INTEGER NOT NULL DEFAULT 0,
        ttl_days INTEGER,
        expires_at REAL,
        disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
        disabled_at REAL,
        source TEXT NOT NULL,
        superseded_by TEXT,
        reviewed_at REAL,
        token_count INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE UNIQUE INDEX memories_active_signature
        ON memories(project_pk, signature) WHERE disabled = 0""",
    # expires_at rides along so that skipping rows for OFFSET never reads the table
    """CREATE INDEX memories_by_rank
        ON memories(project_pk, disabled, importance DESC, updated_at DESC, expires_at)""",
    """CREATE INDEX memories_by_updated
        ON memories(project_pk, disabled, updated_at DESC, expires_at)""",
    """CREATE INDEX memories_expiring ON memories(expires_at)
        WHERE expires_at IS NOT NULL AND disabled = 0""",
    """CREATE TABLE memory_tags (
        tag TEXT NOT NULL,
        memory_pk INTEGER NOT NULL REFERENCES memories(pk) ON DELETE CASCADE,
        PRIMARY KEY (tag, memory_pk)
    ) WITHOUT ROWID""",
    "CREATE INDEX memory_tags_by_memory ON memory_tags(memory_pk)",
    # memory_fts_<project pk>: one FTS5 table per scope, created on demand (fts_tables.py)
    """CREATE TABLE observations (
        pk INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        project_pk INTEGER NOT NULL REFERENCES projects(pk),
        session_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('agent_end', 'pre_compact')),
        title TEXT NOT NULL,
        narrative TEXT NOT NULL,
        created_at REAL NOT NULL,
        source TEXT NOT NULL
    )""",
    "CREATE INDEX observations_by_project ON observations(project_pk, created_at DESC)",
    f"""CREATE VIRTUAL TABLE observation_fts USING fts5(
        title, narrative, scope, tokenize = '{TOKENIZER}'
    )""",
    "INSERT INTO observation_fts(observation_fts, rank) VALUES ('rank', 'bm25(2.0, 1.0, 0.0)')",
    """CREATE TABLE audit (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at REAL NOT NULL,
        memory_id TEXT NOT NULL,
        project_pk INTEGER NOT NULL REFERENCES projects(pk),
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        before TEXT,
        after TEXT
    )""",
    "CREATE INDEX audit_by_memory ON audit(memory_id, seq)",
    "CREATE INDEX audit_by_project ON audit(project_pk, seq)",
    """CREATE TRIGGER audit_is_append_only_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
    """CREATE TRIGGER audit_is_append_only_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
    """INSERT INTO projects (project_id, path, name, created_at)
        VALUES ('global', NULL, 'Global', strftime('%s', 'now'))""",
)

# Observations gain a soft delete, like memories: a forgotten one leaves search and lists
# (its index row is deleted) but its row stays, with when and by whom it was forgotten.
V2_STATEMENTS = (
    """ALTER TABLE observations
        ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))""",
    "ALTER TABLE observations ADD COLUMN disabled_at REAL",
    "ALTER TABLE observations ADD COLUMN disabled_by TEXT",
)

# The review inbox and the extractor: a memory the extractor stored without review is
# 'unreviewed' until a person looks; where an extracted memory came from (JSON); proposals
# held apart from memories until approved (never deleted: a rejected one stays); and the
# record of every extraction run, failed ones with the reason.
V3_STATEMENTS = (
    """ALTER TABLE memories ADD COLUMN review_state TEXT
        CHECK (review_state IS NULL OR review_state = 'unreviewed')""",
    "ALTER TABLE memories ADD COLUMN provenance TEXT",
    """CREATE INDEX memories_unreviewed ON memories(project_pk, created_at)
        WHERE review_state IS NOT NULL""",
    """CREATE TABLE proposals (
        pk INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        project_pk INTEGER NOT NULL REFERENCES projects(pk),
        title TEXT NOT NULL,
        content TEXT NOT NULL,
        category TEXT NOT NULL
            CHECK (category IN ('knowledge', 'preference', 'task', 'skill')),
        importance INTEGER NOT NULL CHECK (importance BETWEEN 0 AND 10),
        tags TEXT NOT NULL DEFAULT '[]',
        ttl_days INTEGER,
        signature TEXT NOT NULL,
        source TEXT NOT NULL,
        provenance TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('proposed', 'approved', 'rejected')),
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        decided_at REAL,
        decided_by TEXT,
        memory_id TEXT,
        outcome TEXT,
        memory_version REAL,
        superseded_id TEXT
    )""",
    "CREATE INDEX proposals_by_state ON proposals(state, project_pk, created_at)",
    "CREATE INDEX proposals_by_signature ON proposals(project_pk, signature)",
    """CREATE TABLE extraction_runs (
        pk INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        project_pk INTEGER NOT NULL REFERENCES projects(pk),
        started_at REAL NOT NULL,
        finished_at REAL NOT NULL,
        agent TEXT NOT NULL,
        session_id TEXT NOT NULL,
        source TEXT NOT NULL,
        model TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
        reason TEXT,
        added INTEGER NOT NULL DEFAULT 0,
        proposed INTEGER NOT NULL DEFAULT 0,
        duplicates INTEGER NOT NULL DEFAULT 0,
        invalid INTEGER NOT NULL DEFAULT 0,
        refused INTEGER NOT NULL DEFAULT 0,
        item_ids TEXT NOT NULL DEFAULT '[]'
    )""",
    "CREATE INDEX extraction_runs_by_project ON extraction_runs(project_pk, started_at)",
)

# Retrieval: each memory's decayed uses (``use_heat``, core.backend.USE_HEAT) ordered by
# an index, so the precis ranks by importance and use; ``memory_index`` holds what the
# in-memory scope arrays are loaded from (store/vectors/scope_index.py): a 256-bit set of the
# memory's tokens for near-duplicate candidates and its vector for semantic search, with
# ``seq`` bumped on every change so that each process picks up the others' writes.
# Existing memories get an index row with neither (a backfill fills them in), and a
# ``ttl_days`` of 0 means "never", stored as none.
V4_STATEMENTS = (
    "ALTER TABLE memories ADD COLUMN use_heat REAL NOT NULL DEFAULT 0",
    f"""UPDATE memories SET use_heat = use_count * ltm_exp2(
        (coalesce(last_used_at, updated_at) - {USE_HEAT_EPOCH}) / {USE_HEAT_HALF_LIFE})
        WHERE use_count > 0""",
    """CREATE INDEX memories_by_heat ON memories(
        project_pk, disabled, importance, use_heat DESC, updated_at DESC, expires_at)""",
    "UPDATE memories SET ttl_days = NULL, expires_at = NULL WHERE ttl_days = 0",
    """CREATE TABLE memory_index (
        memory_pk INTEGER PRIMARY KEY REFERENCES memories(pk),
        project_pk INTEGER NOT NULL REFERENCES projects(pk),
        seq INTEGER NOT NULL,
        token_bits BLOB,
        model TEXT,
        vector BLOB
    )""",
    "CREATE INDEX memory_index_by_scope ON memory_index(project_pk, seq)",
    """INSERT INTO memory_index (memory_pk, project_pk, seq)
        SELECT pk, project_pk, 1 FROM memories""",
)

# Tamper evidence and real erasure: every audit event gets a nonce, a hash of its content
# and a hash linking it to the event before (store/audit/chain.py), computed here for the
# existing history in order; the append-only triggers come back allowing one update only,
# the tombstone of an erased memory's events.
V5_STATEMENTS = (
    "ALTER TABLE audit ADD COLUMN nonce TEXT",
    "ALTER TABLE audit ADD COLUMN content_hash TEXT",
    "ALTER TABLE audit ADD COLUMN hash TEXT",
    "DROP TRIGGER audit_is_append_only_update",
    "DROP TRIGGER audit_is_append_only_delete",
)


# The triggers as migration 5 made them (migration 14 remade the update one, keeping the
# person and machine too; ``audit_chain.TRIGGERS`` is the newest).
V5_TRIGGERS = (
    """CREATE TRIGGER audit_is_append_only_update
        BEFORE UPDATE ON audit
        WHEN NOT (NEW.seq = OLD.seq AND NEW.at = OLD.at AND NEW.memory_id = OLD.memory_id
            AND NEW.project_pk = OLD.project_pk AND NEW.actor = OLD.actor
            AND NEW.action = OLD.action AND NEW.content_hash IS OLD.content_hash
            AND NEW.hash IS OLD.hash AND NEW.nonce IS NULL AND NEW.before IS NULL
            AND json_valid(NEW.after) AND json_type(NEW.after, '$.erased_at') = 'real'
            AND json_type(NEW.after, '$.erased_by') = 'text'
            AND (SELECT count(*) FROM json_each(NEW.after)) = 2)
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
    """CREATE TRIGGER audit_is_append_only_delete
        BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit history is append-only'); END""",
)


def _chain_the_history(conn: sqlite3.Connection) -> None:
    audit_chain.rechain(conn)
    for statement in V5_TRIGGERS:
        conn.execute(statement)


# Memories that name their files (core.files): the paths as JSON on the row, and one row
# per (path, memory) so that a search filtered by ``file:PATH`` and the stale check find
# them by index. (Version 6.)
V6_STATEMENTS = (
    "ALTER TABLE memories ADD COLUMN files TEXT NOT NULL DEFAULT '[]'",
    """CREATE TABLE memory_files (
        path TEXT NOT NULL,
        memory_pk INTEGER NOT NULL REFERENCES memories(pk) ON DELETE CASCADE,
        PRIMARY KEY (path, memory_pk)
    ) WITHOUT ROWID""",
    "CREATE INDEX memory_files_by_memory ON memory_files(memory_pk)",
)

# The memory list pages by position in each order it offers (the GUI reads row 99,800 as
# soon as End is pressed): an index per order and direction, ending in expires_at as the
# others do, so ORDER BY ... LIMIT/OFFSET walks an index instead of sorting the scope for
# every page (1-2 s at 100,000 memories). memory_reads.PAGE_INDEXES names them. (Version 7.)
V7_STATEMENTS = (
    """CREATE INDEX memories_by_title
        ON memories(project_pk, disabled, title COLLATE NOCASE, expires_at)""",
    *(
        f"""CREATE INDEX memories_by_{column}_{direction.lower()}
        ON memories(project_pk, disabled, {column} {direction}, {then}expires_at)"""
        for column, then in (
            ("category", "importance DESC, updated_at DESC, "),
            ("use_count", "updated_at DESC, "),
            ("source", "updated_at DESC, "),
        )
        for direction in ("ASC", "DESC")
    ),
)

# The Activity and Observations tabs read a page at any depth too, and count their rows
# up front: the scope's events of one actor, and its observations not forgotten (of one
# session), each in an index in the tab's order, so that skipping to a far page and the
# count read index entries, not rows (at 100,000 memories, 400,000 events and 100,000
# observations: an actor's page 60,000 events down 300 -> 6 ms, the last observations
# 330 -> 15 ms, their counts 175 -> 5-10 ms). The filter's actors are read off the actor
# index, one step per actor. (Version 8.)
V8_STATEMENTS = (
    "CREATE INDEX audit_by_actor ON audit(project_pk, actor, seq)",
    "DROP INDEX observations_by_project",
    "CREATE INDEX observations_listed ON observations(project_pk, disabled, created_at)",
    """CREATE INDEX observations_by_session
        ON observations(project_pk, disabled, session_id, created_at)""",
)

# An erased memory's ``memory_index`` row goes, and a row of its pk and scope with the
# next ``seq`` comes here (nothing of its content), so that every process's in-memory
# token sets and vectors drop it: without it they kept the erased pk, and a new memory
# that SQLite gave the same pk (in any scope) was taken for it. ``seq`` never goes back
# either: the next one counts these rows too. (Version 9.)
V9_STATEMENTS = (
    """CREATE TABLE memory_index_erased (
        memory_pk INTEGER NOT NULL,
        project_pk INTEGER NOT NULL,
        seq INTEGER NOT NULL
    )""",
    "CREATE INDEX memory_index_erased_by_scope ON memory_index_erased(project_pk, seq)",
)

# What the backfill has left to do is found by index, not by reading every memory (0.4 -
# 0.9 s at 100,000, on every burst of writes): the rows without a token set, and the rows
# by model (without a vector, or of another model). (Version 10.)
V10_STATEMENTS = (
    "CREATE INDEX memory_index_without_tokens ON memory_index(memory_pk) WHERE token_bits IS NULL",
    "CREATE INDEX memory_index_by_model ON memory_index(model)",
)

# A proposal can merge memories (core.consolidation): the members it would supersede,
# as [[memory id, version], ...], and their files for the merged memory. Plain proposals
# keep empty lists. (Version 11.)
V11_STATEMENTS = (
    "ALTER TABLE proposals ADD COLUMN merges TEXT NOT NULL DEFAULT '[]'",
    "ALTER TABLE proposals ADD COLUMN files TEXT NOT NULL DEFAULT '[]'",
)


# A scope's search table kept a second copy of every text it indexes (FTS5's ``content``
# table, 10 % of the file at 100,000 memories): searches never read it, so the tables are
# declared again contentless and refilled. A long step on a large file (it reads every
# memory once), after the backup every migration makes. (Version 12.)
def _contentless_search_tables(conn: sqlite3.Connection) -> None:
    """Each scope's search table declared again without a copy of the text
    (``fts.tables``) and refilled from the memories it indexes."""
    declared = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"))
    for (project_pk,) in conn.execute("SELECT pk FROM projects ORDER BY pk").fetchall():
        name = memory_table(project_pk)
        if name in declared:  # a damaged one too: it was to be rebuilt from the rows anyway
            drop_search_table(conn, name, declared[name])
            create_memory_table(conn, project_pk)
            reindex_scope(conn, project_pk)


# A project has many paths (core.projects.paths): where each machine has it, since a
# repository's project (by its remote) is cloned at a different path on each. One row per
# (machine, path), recorded as directories are resolved; none is made up for the past.
# (Version 13.)
V13_STATEMENTS = (
    """CREATE TABLE project_paths (
        pk INTEGER PRIMARY KEY,
        project_pk INTEGER NOT NULL REFERENCES projects(pk),
        machine TEXT NOT NULL,
        path TEXT NOT NULL,
        first_seen REAL NOT NULL,
        last_seen REAL NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
        UNIQUE (machine, path)
    )""",
    "CREATE INDEX project_paths_by_project ON project_paths(project_pk)",
)

# Actors across machines (core.actors): every new audit event records the person
# (user@host) and the machine (its name, and the stable id of the data dir's
# machine.json) beside its agent (``actor``), hashed into the chain when present (older
# events keep NULLs and their hashes, engine.chain). The update trigger is remade to keep
# them unchanged in an erasure's tombstone too. (Version 14.)
V14_STATEMENTS = (
    "ALTER TABLE audit ADD COLUMN person TEXT",
    "ALTER TABLE audit ADD COLUMN machine TEXT",
    "ALTER TABLE audit ADD COLUMN machine_id TEXT",
    "CREATE INDEX audit_by_person ON audit(project_pk, person, seq)",
    "DROP TRIGGER audit_is_append_only_update",
    audit_chain.TRIGGERS["audit_is_append_only_update"],
)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", V1_STATEMENTS),
    Migration(2, "observations can be forgotten", V2_STATEMENTS),
    Migration(3, "review inbox and extraction runs", V3_STATEMENTS),
    Migration(4, "retrieval: use heat, token sets and vectors", V4_STATEMENTS),
    Migration(5, "chained audit history, erasure", V5_STATEMENTS, _chain_the_history),
    Migration(6, "memories name their files", V6_STATEMENTS),
    Migration(7, "the memory list pages fast in every order", V7_STATEMENTS),
    Migration(8, "the activity and observations page fast at any depth", V8_STATEMENTS),
    Migration(9, "every process forgets an erased memory's vector", V9_STATEMENTS),
    Migration(10, "the backfill finds what it has left by index", V10_STATEMENTS),
    Migration(11, "proposals can merge memories", V11_STATEMENTS),
    Migration(12, "search tables keep no copy of the text", (), _contentless_search_tables),
    Migration(13, "a project has many paths", V13_STATEMENTS),
    Migration(14, "audit events name the person and the machine", V14_STATEMENTS),
)


def latest_version(migrations: Sequence[Migration] = MIGRATIONS) -> int:
    return max((m.version for m in migrations), default=0)


def applied_versions(conn: sqlite3.Connection) -> set[int]:
    """The versions recorded in ``schema_migrations`` (none before the first migration)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if exists is None:
        return set()
    return {int(row[0]) for row in conn.execute("SELECT version FROM schema_migrations")}


def check_not_too_new(version: int, path: Path, migrations: Sequence[Migration]) -> None:
    newest = latest_version(migrations)
    if version > newest:
        raise DatabaseTooNew(
            f"{path} has schema version {version}, but this ltm-desktop only knows up to "
            f"version {newest}. It was written by a newer ltm-desktop and was left untouched; "
            "upgrade ltm-desktop to open it."
        )


def backup_database(conn: sqlite3.Connection, backup_dir: Path, version: int) -> Path:
    """The copy a migration from ``version`` takes first: ``backups/ltm-v<version>-<time>``."""
    return copy_aside(conn, backup_dir, f"v{version}")


def copy_aside(conn: sqlite3.Connection, backup_dir: Path, label: str) -> Path:
    """A consistent copy of the live database, ``backups/ltm-<label>-<time>.sqlite``
    (SQLite's online backup, so the database file is only ever read by SQLite). The copy
    is a brand-new file (O_EXCL) that no connection has open yet, so creating it with
    os.open/os.close cannot drop any SQLite lock."""
    backup_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = backup_dir / f"ltm-{label}-{stamp}.sqlite"
    backup_dir.chmod(0o700)
    counter = 1
    while target.exists():
        target = backup_dir / f"ltm-{label}-{stamp}-{counter}.sqlite"
        counter += 1
    try:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # private
        dest = sqlite3.connect(str(target))
        try:
            conn.backup(dest)
        finally:
            dest.close()
    except (sqlite3.Error, OSError) as exc:
        target.unlink(missing_ok=True)  # a partial copy is no backup
        failure = copy_failure(exc, target)
        if failure is None:
            raise
        raise failure from None
    return target


def migrate(
    conn: sqlite3.Connection,
    path: Path,
    backup_dir: Path,
    migrations: Sequence[Migration] = MIGRATIONS,
) -> Path | None:
    """Bring the database up to the newest version; returns the backup made, if any.

    A migration runs when it is not recorded as applied, in version order, so versions
    may be skipped (a gap) and a lower one added later still runs on a database that
    already has a higher one; ``user_version`` is the highest applied.
    """
    current = int(conn.execute("PRAGMA user_version").fetchone()[0])
    check_not_too_new(current, path, migrations)
    applied = applied_versions(conn)
    pending = sorted(
        (m for m in migrations if m.version not in applied and (applied or m.version > current)),
        key=lambda m: m.version,
    )
    if not pending:
        return None
    backup = backup_database(conn, backup_dir, current) if current > 0 else None
    # Statements may need a power of two (SQLite's math functions are optional at build time).
    conn.create_function("ltm_exp2", 1, lambda x: 2.0**x, deterministic=True)
    for migration in pending:
        try:
            conn.execute("BEGIN IMMEDIATE")
            # Another process may have migrated while we waited for the lock.
            if migration.version in applied_versions(conn):
                conn.execute("COMMIT")
                continue
            for statement in migration.statements:
                conn.execute(statement)
            if migration.then is not None:
                migration.then(conn)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, time.time()),
            )
            # the highest applied, whatever order they came in (one applied before a lower
            # one it did not need still counts)
            version = max(
                applied_versions(conn) | {int(conn.execute("PRAGMA user_version").fetchone()[0])}
            )
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StorageError(
                f"migration {migration.version} ({migration.name}) failed on {path}: {exc}; "
                f"the database was rolled back"
                + (f" and a backup is at {backup}" if backup else "")
            ) from exc
    return backup
