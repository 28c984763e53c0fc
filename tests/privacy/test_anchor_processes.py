"""The audit anchor covers every process's writes: a short-lived process (an agent hook,
``ltm-desktop mcp``, a command) that writes while the app holds the database leaves its
events anchored by whichever process checkpoints next, so deleting them later is
reported; and the anchor never moves back to an older head, whichever process writes it
last."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ltm_desktop.core.backend import AuditEntry
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, AuditAction, MemoryDraft
from ltm_desktop.launching import open_service
from ltm_desktop.store.audit import anchor as chain_anchor
from ltm_desktop.store.audit import chain as audit_chain
from ltm_desktop.store.audit.log import record_audits
from ltm_desktop.store.connection import connect
from tests.console import ltm

B_WRITES = ("redis runs on port 6380 here", "we deploy on tuesdays only", "CI uses ubuntu 22.04")
OPENERS = {
    "service": "open_service(data)",
    "hook": "open_service_briefly(data, None, busy_timeout_ms=2000)",  # as agent hooks do
}


def _second_process(data: Path, opener: str) -> None:
    """Another process opens the data dir, adds B_WRITES and closes."""
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from ltm_desktop.launching import open_service, open_service_briefly
        from ltm_desktop.core.records import GLOBAL_PROJECT_ID, MemoryDraft
        data = Path(sys.argv[1])
        service = {opener}.service
        for text in {B_WRITES!r}:
            service.add(GLOBAL_PROJECT_ID, MemoryDraft(text), "B")
        service.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(data)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def _delete_newest_offline(db: Path, n: int) -> None:
    """Delete the newest ``n`` events and the memories they created, as a tool that knows
    no anchor would (triggers dropped and put back; rows, tags, search rows and index)."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        triggers = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger'"))
        for name in triggers:
            conn.execute(f"DROP TRIGGER {name}")
        (top,) = conn.execute("SELECT max(seq) FROM audit").fetchone()
        ids = [
            row[0]
            for row in conn.execute(
                "SELECT memory_id FROM audit WHERE seq > ? AND action = 'created'", (top - n,)
            )
        ]
        conn.execute("DELETE FROM audit WHERE seq > ?", (top - n,))
        for memory_id in ids:
            pk, scope, title, content = conn.execute(
                "SELECT pk, project_pk, title, content FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
            table = f"memory_fts_{scope}"  # contentless: told the words to take out
            conn.execute(
                f"INSERT INTO {table} ({table}, rowid, title, content, tags) "
                "VALUES ('delete', ?, ?, ?, '')",
                (pk, title, content),
            )
            for table in ("memory_index", "memory_tags", "memory_files"):
                conn.execute(f"DELETE FROM {table} WHERE memory_pk = ?", (pk,))
            conn.execute("DELETE FROM memories WHERE pk = ?", (pk,))
        for sql in triggers.values():
            conn.execute(sql)
    finally:
        conn.close()


def _anchored(data: Path) -> chain_anchor.Head | None:
    return chain_anchor.read_anchor(chain_anchor.anchor_path(data / "ltm.sqlite"))


def _head(db: Path) -> chain_anchor.Head:
    conn = sqlite3.connect(db)
    try:
        return chain_anchor.Head(*audit_chain.head(conn))
    finally:
        conn.close()


@pytest.mark.slow
@pytest.mark.parametrize("opener", OPENERS.values(), ids=OPENERS.keys())
def test_writes_of_a_second_process_are_anchored_and_their_deletion_reported(
    tmp_path: Path, opener: str
) -> None:
    data = tmp_path / "data"
    a = open_service(data).service  # the app: holds the database throughout
    try:
        a.add(GLOBAL_PROJECT_ID, MemoryDraft("A's first fact about the build cache"), "A")
        _second_process(data, opener)
    finally:
        a.close()
    db = data / "ltm.sqlite"
    assert _anchored(data) == _head(db)  # B's events are covered
    assert ltm(data, "verify").returncode == 0
    _delete_newest_offline(db, len(B_WRITES))
    done = ltm(data, "verify")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "events were deleted" in done.stdout or "event(s) were deleted" in done.stdout


def _events(db: Path, n: int) -> None:
    """``n`` more chained events, written as the store writes them."""
    conn = connect(db)
    try:
        for _ in range(n):
            conn.execute("BEGIN IMMEDIATE")
            entry = AuditEntry(1.0, "prop_x", "global", "t", AuditAction.CREATED, None, {})
            record_audits(conn, [(1, entry)])
            conn.execute("COMMIT")
    finally:
        conn.close()


def test_an_anchor_written_by_another_process_is_never_moved_back(tmp_path: Path) -> None:
    """Process X reads the head before its checkpoint; meanwhile Y, later, anchors a newer
    head; X's anchoring once its checkpoint completes keeps Y's."""
    data = tmp_path / "data"
    open_service(data).service.close()
    db = data / "ltm.sqlite"
    path = chain_anchor.anchor_path(db)
    x_conn, y_conn = connect(db), connect(db)
    try:
        x = chain_anchor.ChainAnchor(db, lambda: True)
        y = chain_anchor.ChainAnchor(db, lambda: True)
        _events(db, 2)
        x_then = x.before_checkpoint(x_conn)  # X read the head: 2 events
        _events(db, 3)
        y.before_checkpoint(y_conn)()  # Y anchors 5
        assert chain_anchor.read_anchor(path) == _head(db)
        x_then()
        assert chain_anchor.read_anchor(path) == _head(db)  # still 5, not 2
        assert x.problem is None
    finally:
        x_conn.close()
        y_conn.close()


def test_an_anchor_not_in_the_history_is_kept_and_reported(tmp_path: Path) -> None:
    """A history rewritten while the store runs: the anchor is evidence, not overwritten."""
    data = tmp_path / "data"
    open_service(data).service.close()
    db = data / "ltm.sqlite"
    _events(db, 3)
    path = chain_anchor.anchor_path(db)
    forged = chain_anchor.Head(2, "ab" * 32)
    chain_anchor.write_anchor(path, forged)
    conn = connect(db)
    try:
        anchor = chain_anchor.ChainAnchor(db, lambda: True)
        anchor.before_checkpoint(conn)()
    finally:
        conn.close()
    assert chain_anchor.read_anchor(path) == forged
    assert anchor.problem is not None
    assert "another hash" in anchor.problem
    assert json.loads(path.read_text())["seq"] == 2


def test_closing_raises_no_false_alarm_when_the_wal_comes_back_as_another_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The last connection's close removes the WAL; the closing checkpoint's connection
    makes a new one. Compared with the WAL opened, that read as "the database was removed
    or replaced" (logged as an error, about 1 close in 5 under load, whenever the new file
    did not reuse the old inode). A second link keeps the old inode alive here, so the new
    WAL always gets another."""
    data = tmp_path / "data"
    service = open_service(data).service
    service.add(GLOBAL_PROJECT_ID, MemoryDraft("the cache is redis"), "test")
    wal = data / "ltm.sqlite-wal"
    (tmp_path / "held-wal").hardlink_to(wal)
    service.close()
    assert "removed or replaced" not in caplog.text
    conn = sqlite3.connect(data / "ltm.sqlite")
    try:
        head = audit_chain.head(conn)
    finally:
        conn.close()
    anchored = json.loads((data / "ltm.sqlite.audit-head.json").read_text())
    assert anchored["seq"] == head[0]  # what the closing checkpoint made durable
