"""A whole database as a stream of rows that any engine reads out and any engine writes in.

``ltm-desktop migrate`` moves a data dir between SQLite and PostgreSQL through this
stream: each table of ``TABLES``, in dependency order (a row only ever refers to rows of
tables before it), as its column names and its rows in batches. The stream is the
engines' common ground, not either schema: its columns are the stored values both
engines keep alike (``engine.rows``' encodings: times as seconds, JSON text, 0/1), with
every key kept, projects' and memories' pks included (the audit chain hashes
``project_pk``, vectors are keyed by ``memory_pk``), and each audit event's seq, nonce,
content hash and hash as they are, so the history still verifies on the target.

What an engine derives from the rows is not in it and is rebuilt by the target:
SQLite's search tables per scope, PostgreSQL's ``search`` documents, and the similarity
token sets, which the target leaves empty for the backfill (``MemoryStore.unindexed``)
to recompute. Vectors are in it, as the stored quantized bytes (a float32 scale and int8
codes: both engines store the same) with their model's name and their index ``seq``.

A reader (``CopySource``) and a writer (``CopyTarget``) per engine do SQL only; the
command (``commands/migrate.py``) decides what may be copied where.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from ltm_desktop.engine.inbox_rows import PROPOSAL_FIELDS, RUN_FIELDS

Row = tuple[Any, ...]
Rows = Sequence[Row]
BATCH_ROWS = 2_000  # rows read and written at a time


@dataclass(frozen=True, slots=True)
class Table:
    """One table of the stream: its name, its columns and the order rows are read in."""

    name: str
    columns: tuple[str, ...]
    order: str  # the columns a reader sorts by (a stable, repeatable stream)
    # the trailing columns a later version added: a dump from before them lacks them,
    # and its rows read them as NULL
    added: tuple[str, ...] = ()

    @property
    def column_list(self) -> str:
        return ", ".join(self.columns)


PROJECTS = Table("projects", ("pk", "project_id", "path", "name", "created_at"), "pk")
# Where each machine has each project (core.projects.paths); their own pks are not kept.
PROJECT_PATHS = Table(
    "project_paths",
    ("project_pk", "machine", "path", "first_seen", "last_seen", "pinned"),
    "project_pk, machine, path",
)
MEMORIES = Table(
    "memories",
    (
        "pk",
        "id",
        "project_pk",
        "title",
        "content",
        "category",
        "importance",
        "tags",
        "signature",
        "created_at",
        "updated_at",
        "last_used_at",
        "use_count",
        "ttl_days",
        "expires_at",
        "disabled",
        "disabled_at",
        "source",
        "superseded_by",
        "reviewed_at",
        "token_count",
        "review_state",
        "provenance",
        "use_heat",
        "files",
    ),
    "pk",
)
MEMORY_TAGS = Table("memory_tags", ("tag", "memory_pk"), "memory_pk, tag")
MEMORY_FILES = Table("memory_files", ("path", "memory_pk"), "memory_pk, path")
# A memory's row of the vector index: its stored vector (NULL: none yet) and the model
# that made it, and the ``seq`` the index was last changed at (targets move their
# counters past the copied ones, so every process's snapshot reloads what changes next).
MEMORY_VECTORS = Table("memory_vectors", ("memory_pk", "seq", "model", "vector"), "memory_pk")
OBSERVATIONS = Table(
    "observations",
    (
        "pk",
        "id",
        "project_pk",
        "session_id",
        "kind",
        "title",
        "narrative",
        "created_at",
        "source",
        "disabled",
        "disabled_at",
        "disabled_by",
    ),
    "pk",
)
AUDIT = Table(
    "audit",
    (
        "seq",
        "at",
        "memory_id",
        "project_pk",
        "actor",
        "action",
        "before",
        "after",
        "nonce",
        "content_hash",
        "hash",
        "person",
        "machine",
        "machine_id",
    ),
    "seq",
    added=("person", "machine", "machine_id"),
)
PROPOSALS = Table("proposals", ("pk", "id", "project_pk", *PROPOSAL_FIELDS), "pk")
EXTRACTION_RUNS = Table("extraction_runs", ("pk", "id", "project_pk", *RUN_FIELDS), "pk")

TABLES: tuple[Table, ...] = (
    PROJECTS,
    PROJECT_PATHS,
    MEMORIES,
    MEMORY_TAGS,
    MEMORY_FILES,
    MEMORY_VECTORS,
    OBSERVATIONS,
    AUDIT,
    PROPOSALS,
    EXTRACTION_RUNS,
)
# What makes a database not empty: a target holding any of these is refused. Projects
# alone (a scope's row is made when an agent first connects) are replaced by the copy's,
# and so are their paths.
CONTENT_TABLES = (MEMORIES, OBSERVATIONS, AUDIT, PROPOSALS, EXTRACTION_RUNS)


class CopySource(Protocol):
    """One database's rows as they were when it was opened (one read snapshot)."""

    @property
    def location(self) -> str:
        """Where the rows come from, for a person (never a password)."""
        ...

    def count(self, table: Table) -> int:
        """How many rows ``batches(table)`` yields."""
        ...

    def batches(self, table: Table) -> Iterator[Rows]:
        """The table's rows in ``table.order``, ``BATCH_ROWS`` at a time, with the values
        of ``table.columns`` in that order."""
        ...

    def close(self) -> None: ...


class TableWriter(Protocol):
    def __call__(self, rows: Rows) -> None: ...


class Loading(Protocol):
    """A copy being written into a target, inside one transaction."""

    def existing(self) -> dict[str, int]:
        """Rows the target already holds in ``CONTENT_TABLES`` (table name -> count), as
        seen under the target's writer lock: nobody else writes until the copy ends."""
        ...

    def table(self, table: Table) -> AbstractContextManager[TableWriter]:
        """A writer of the table's rows (batches of ``table.columns``), finished when the
        block ends; tables come in ``TABLES`` order."""
        ...

    def finish(self) -> None:
        """After the last table: rebuild what the engine derives from the rows and move
        its counters (identities, index seqs) past the copied keys."""
        ...


class CopyTarget(Protocol):
    """A database a copy is written into."""

    @property
    def location(self) -> str: ...

    def loading(self) -> AbstractContextManager[Loading]:
        """One write transaction holding the target's writer lock: committed when the
        block ends normally, rolled back (nothing copied) when it raises."""
        ...

    def discard(self) -> None:
        """After a copy that failed: take away what opening the target made (a new
        database file), so that the copy can be tried again."""
        ...

    def close(self) -> None: ...


Progress = Callable[[Table, int, int], None]  # (table, rows copied so far, rows in all)


def copy_tables(source: CopySource, loading: Loading, progress: Progress) -> dict[str, int]:
    """Every table of the stream from ``source`` into ``loading``, in order; returns how
    many rows each held. ``progress`` hears of each batch written."""
    copied: dict[str, int] = {}
    for table in TABLES:
        total = source.count(table)
        done = 0
        progress(table, done, total)
        with loading.table(table) as write:
            for batch in source.batches(table):
                write(batch)
                done += len(batch)
                progress(table, done, total)
        copied[table.name] = done
    loading.finish()
    return copied
