"""The Inbox badge is counted on every write the app hears: by the partial index of the
unreviewed memories, never by reading every active memory of every scope."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store import inbox
from tests.conftest import ServiceFactory


@pytest.mark.sqlite_only
def test_the_inbox_count_reads_the_unreviewed_index_alone(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service(tmp_path / "data")
    project = service.resolve_scope(cwd="/srv/app", register=True)
    drafts = [MemoryDraft(f"fact {i} about module m{i}x") for i in range(300)]
    service.import_memories(project, drafts, "test")
    db = DataPaths(tmp_path / "data").db_path
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE memories SET review_state = 'unreviewed' WHERE pk IN "
            "(SELECT pk FROM memories ORDER BY pk LIMIT 2)"
        )
        conn.execute("ANALYZE")  # whatever the statistics say, the plan stays
        sql: list[str] = []
        conn.set_trace_callback(sql.append)
        counts = inbox.inbox_counts(conn, time.time())
        conn.set_trace_callback(None)
        plan = " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql[-1]}"))
    assert counts == {project: 2}
    assert "SEARCH m USING INDEX memories_unreviewed" in plan
    assert "memories_by_source_desc" not in plan
