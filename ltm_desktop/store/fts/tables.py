"""One FTS5 table per scope, so a search only walks its own scope's posting lists.

With a single shared index, every query also iterated the other projects' rows
(or a scope token's huge posting list): 3-10x slower at 100,000 memories. A
scope's table is created with the scope's first memory and never dropped.

Since schema version 12 the tables are contentless (``content=''``): they keep the index
and no second copy of the text (a tenth of the file at 100,000 memories, and one copy
fewer of a text to erase). Nothing reads their columns: searches take the rowid and the
rank, snippets are made from the memory's own text. A row is taken out with FTS5's
``delete`` command and the text it was indexed with (``indexing.unindex_memory``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from ltm_desktop.store.fts.text import TOKENIZER

RANK = "bm25(4.0, 1.0, 2.0)"  # title weighs 4x, tags 2x, content 1x
OBSERVATION_TABLE = "observation_fts"  # the one table of every scope's observations
OBSERVATION_RANK = "bm25(2.0, 1.0, 0.0)"  # as migration 1 set it: title 2x, the scope tag 0
CONTENTLESS_SINCE = 12  # the schema version whose scope tables keep no copy of the text
CONTENTLESS = re.compile(r"\bcontent\s*=\s*''")  # in a table's declaration


def memory_table(project_pk: int) -> str:
    return f"memory_fts_{int(project_pk)}"


def create_memory_table(
    conn: sqlite3.Connection, project_pk: int, *, contentless: bool = True
) -> str:
    """Create the scope's table unless it exists (configuring it again would make every
    other connection reload the table's configuration). ``contentless``: as schema
    version 12 and later declare it (a check of an older file's schema says False)."""
    name = memory_table(project_pk)
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    if exists is None:
        options = "content = '', " if contentless else ""
        conn.execute(
            f"CREATE VIRTUAL TABLE {name} USING fts5(title, content, tags, "
            f"{options}tokenize = '{TOKENIZER}')"
        )
        conn.execute(f"INSERT INTO {name} ({name}, rank) VALUES ('rank', '{RANK}')")
    return name


class MemoryTables:
    """Remembers which scopes have a table (tables are never dropped, so a yes is final).

    Only what a reader saw committed is remembered: a table created in a write
    transaction may still be rolled back, and readers share this cache.
    """

    def __init__(self) -> None:
        self._known: set[int] = set()

    def ensure(self, conn: sqlite3.Connection, project_pk: int) -> str:
        """In a write transaction: create the scope's table if it does not exist yet."""
        if project_pk not in self._known:
            create_memory_table(conn, project_pk)
        return memory_table(project_pk)

    def existing(
        self, conn: sqlite3.Connection, project_pks: Iterable[int]
    ) -> list[tuple[int, str]]:
        """(pk, table) for the scopes that have a table, in the order given."""
        wanted = list(project_pks)
        unknown = [pk for pk in wanted if pk not in self._known]
        if unknown:
            names = {memory_table(pk): pk for pk in unknown}
            marks = ",".join("?" * len(names))
            rows = conn.execute(
                f"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({marks})",
                list(names),
            ).fetchall()
            self._known.update(names[row[0]] for row in rows)
        return [(pk, memory_table(pk)) for pk in wanted if pk in self._known]
