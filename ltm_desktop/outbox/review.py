"""A person's look at a data dir's outbox (``ltm-desktop outbox``): what waits, what the
replay kept aside and why, and the two decisions on a kept write: queue it again (over
the change made elsewhere, if they say so) or set it aside for good. Works with the
database down, and beside a running app or ``serve`` (SQLite serializes the processes).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ltm_desktop.core.errors import NotFound
from ltm_desktop.core.offline import QueuedWrite
from ltm_desktop.store.outbox.journal import FILE_NAME, Journal, KeptWrite

__all__ = ["KeptWrite", "OutboxListing", "dismiss_kept", "read_outbox", "retry_kept"]


@dataclass(frozen=True, slots=True)
class OutboxListing:
    waiting: list[QueuedWrite]
    kept: list[KeptWrite]
    dismissed: list[KeptWrite]


@contextmanager
def _journal(data_dir: Path) -> Iterator[Journal]:
    """The data dir's outbox; none is made where nothing was ever queued."""
    if not (data_dir / FILE_NAME).exists():
        raise NotFound(f"no outbox in {data_dir}: nothing was ever queued there")
    journal = Journal(data_dir)
    try:
        yield journal
    finally:
        journal.close()


def read_outbox(data_dir: Path) -> OutboxListing | None:
    """Everything in the outbox; None when there is none."""
    if not (data_dir / FILE_NAME).exists():
        return None
    with _journal(data_dir) as journal:
        return OutboxListing(journal.pending(), journal.kept(), journal.dismissed())


def retry_kept(data_dir: Path, seq: int, *, over_changes: bool) -> QueuedWrite:
    """Queue kept write ``seq`` again (``Journal.retry``); the app or ``serve`` of the
    data dir replays it once the database answers."""
    with _journal(data_dir) as journal:
        return journal.retry(seq, over_changes=over_changes)


def dismiss_kept(data_dir: Path, seq: int, now: float) -> KeptWrite:
    """Set kept write ``seq`` aside for good (``Journal.dismiss``: kept on file)."""
    with _journal(data_dir) as journal:
        return journal.dismiss(seq, now)
