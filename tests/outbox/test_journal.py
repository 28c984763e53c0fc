"""The outbox file: order, durability settings, the base version a following write gets,
writes kept aside, and a read-only peek that creates nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ltm_desktop.core.offline import QueuedKind, QueuedWrite
from ltm_desktop.store.outbox.journal import Journal, peek


def _write(kind: QueuedKind, memory_id: str, base: float | None = None) -> QueuedWrite:
    return QueuedWrite(
        0, kind, memory_id, "global", "agent", 1_700_000_000.0, {"content": "x"}, None, base
    )


def test_writes_come_back_in_order_with_what_their_writer_saw(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    try:
        first = journal.append(_write(QueuedKind.ADD, "mem_a"))
        second = journal.append(_write(QueuedKind.UPDATE, "mem_b", base=12.5))
        assert [w.seq for w in journal.pending()] == [first.seq, second.seq]
        assert journal.pending()[1].base_version == 12.5
        assert journal.pending()[1].actor == "agent"
        assert journal.count() == (2, 1_700_000_000.0)
    finally:
        journal.close()


def test_the_file_is_private_in_wal_with_full_sync(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    try:
        assert journal.path.stat().st_mode & 0o077 == 0
        db = sqlite3.connect(journal.path)
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        db.close()
        assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        journal.close()


def test_a_write_after_another_on_its_memory_gets_the_version_that_one_left(
    tmp_path: Path,
) -> None:
    journal = Journal(tmp_path)
    try:
        added = journal.append(_write(QueuedKind.ADD, "mem_a"))
        edited = journal.append(_write(QueuedKind.UPDATE, "mem_a", base=99.0))
        assert edited.follows
        assert edited.base_version is None
        journal.done(added, 42.0)
        (waiting,) = journal.pending()
        assert waiting.seq == edited.seq
        assert waiting.base_version == 42.0
    finally:
        journal.close()


def test_a_kept_write_leaves_the_queue_and_is_counted(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    try:
        write = journal.append(_write(QueuedKind.REMOVE, "mem_a", base=1.0))
        journal.keep(write, "changed elsewhere", 5.0)
        assert journal.pending() == []
        assert journal.kept_count() == 1
        assert journal.kept()[0].reason == "changed elsewhere"
        assert peek(tmp_path) == (0, None, 1)
    finally:
        journal.close()


def test_peek_creates_no_outbox(tmp_path: Path) -> None:
    assert peek(tmp_path) is None
    assert not (tmp_path / "outbox.db").exists()
