"""A use counter's batch being written is neither lost nor counted twice by a read made
meanwhile (issue #29's audit: a search read the memory before the batch committed, then
found nothing pending, and showed fewer uses than the answer before it)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ltm_desktop.core.records import Memory
from ltm_desktop.core.uses import UseCounter, Uses

STORED = Memory(
    id="m1",
    project_id="global",
    title="t",
    content="c",
    category="knowledge",  # type: ignore[arg-type]
    importance=5,
    tags=(),
    signature="",
    created_at=0,
    updated_at=0,
    last_used_at=1.0,
    use_count=4,
    ttl_days=None,
    disabled=False,
    source="a",
    superseded_by=None,
)


def test_a_read_while_the_batch_is_written_sees_it_once() -> None:
    seen: dict[str, tuple[int, float | None]] = {}
    counter: UseCounter

    def write(uses: Uses) -> None:
        before = counter.overlay(STORED)  # read before this write commits
        count, at = uses["m1"]
        committed = replace(STORED, use_count=STORED.use_count + count, last_used_at=at)
        after = counter.overlay(committed)  # read after it committed, before flush returns
        counter.add(["m1"], 7.0)  # a use counted meanwhile: the next batch's
        both = counter.overlay(STORED)
        seen.update(
            before=(before.use_count, before.last_used_at),
            after=(after.use_count, after.last_used_at),
            both=(both.use_count, both.last_used_at),
        )

    counter = UseCounter(write)
    counter.add(["m1", "m1"], 5.0)
    counter.flush()
    assert seen == {"before": (6, 5.0), "after": (6, 5.0), "both": (7, 7.0)}
    assert counter.overlay(STORED).use_count == 5  # only the use counted meanwhile is pending


def test_a_failed_batch_is_pending_again_and_counted_once() -> None:
    def write(uses: Uses) -> None:
        raise OSError("disk full")

    counter = UseCounter(write)
    counter.add(["m1"], 5.0)
    with pytest.raises(OSError, match="disk full"):
        counter.flush()
    assert counter.overlay(STORED).use_count == 5
