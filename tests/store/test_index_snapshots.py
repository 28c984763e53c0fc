"""A scope's vectors are searched through immutable versions (issue #29): a search keeps
the version it started with whatever is added, replaced or erased meanwhile, and a
version is whole (its rows, flags and sum agree) at every size."""

from __future__ import annotations

import itertools
import struct
import threading
from typing import Any

import numpy as np
import pytest

from ltm_desktop.engine.vectors.scope_vectors import MIN_DEAD, ScopeVectors, quantize
from ltm_desktop.engine.vectors.snapshot import VectorSnapshot

DIM = 32
Row = tuple[Any, ...]  # (pk, model, vector, seq, erased), as store.scope_index.changed_rows


class Changes:
    """Index rows in ``seq`` order, as a scope's writers would leave them."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.seq = itertools.count(1)

    def vector(self) -> bytes:
        values = self.rng.standard_normal(DIM).astype(np.float32)
        return quantize((values / np.linalg.norm(values)).astype("<f4").tobytes())

    def stored(self, pks: range | list[int]) -> list[Row]:
        return [(pk, "m", self.vector(), next(self.seq), 0) for pk in pks]

    def without_vector(self, pks: range | list[int]) -> list[Row]:
        return [(pk, None, None, next(self.seq), 0) for pk in pks]

    def erased(self, pks: range | list[int]) -> list[Row]:
        return [(pk, None, None, next(self.seq), 1) for pk in pks]


def query(seed: int) -> bytes:
    values = np.random.default_rng(1000 + seed).standard_normal(DIM).astype(np.float32)
    return (values / np.linalg.norm(values)).astype("<f4").tobytes()


def live_pks(snapshot: VectorSnapshot) -> set[int]:
    return {int(pk) for pk in snapshot.pks[: snapshot.size][snapshot.live[: snapshot.size]]}


def test_memories_still_without_a_vector_past_the_arrays_capacity() -> None:
    """The issue's crash: 1,024 vectors, then memories the backfill has not reached yet
    (a shape mismatch in the sign-bit preselection, ValueError)."""
    changes, scope = Changes(), ScopeVectors("m")
    scope.update(changes.stored(range(1, 1025)))
    snapshot = scope.update(changes.without_vector(range(1025, 1033)))
    hits = snapshot.nearest(query(0), 5)
    assert len(hits) == 5
    assert {pk for pk, _, _ in hits} <= set(range(1, 1025))


def test_a_version_is_unchanged_by_every_later_change() -> None:
    changes, scope = Changes(), ScopeVectors("m")
    old = scope.update(changes.stored(range(1, 301)))
    before = [old.nearest(query(n), 10) for n in range(5)]
    arrays = [a[: old.size].copy() for a in (old.pks, old.live, old.scales)]
    assert old.codes is not None
    codes = old.codes[: old.size].copy()
    total = None if old.total is None else old.total.copy()

    scope.update(changes.stored(range(301, 3001)))  # regrows twice
    scope.update(changes.stored(range(1, 51)))  # new vectors for 50 of the first
    new = scope.update(changes.erased(range(51, 101)) + changes.without_vector([101]))

    assert [old.nearest(query(n), 10) for n in range(5)] == before
    for kept, now in zip(arrays, (old.pks, old.live, old.scales), strict=True):
        assert np.array_equal(now[: old.size], kept)
    assert np.array_equal(old.codes[: old.size], codes)
    assert old.total is not None
    assert total is not None
    assert np.array_equal(old.total, total)
    assert live_pks(old) == set(range(1, 301))
    assert live_pks(new) == set(range(1, 51)) | set(range(102, 3001))
    assert new.count == len(live_pks(new))


def test_replaced_rows_are_compacted_and_the_sum_follows() -> None:
    changes, scope = Changes(), ScopeVectors("m")
    scope.update(changes.stored(range(1, 201)))
    for _ in range(3 * MIN_DEAD // 200):  # every vector replaced, again and again
        snapshot = scope.update(changes.stored(range(1, 201)))
    assert snapshot.count == 200
    assert snapshot.size - snapshot.count <= max(snapshot.count, MIN_DEAD)
    assert live_pks(snapshot) == set(range(1, 201))
    assert snapshot.codes is not None
    assert snapshot.total is not None
    live = snapshot.live[: snapshot.size]
    rows = snapshot.codes[: snapshot.size][live].astype(np.float64)
    expected = (rows * snapshot.scales[: snapshot.size][live][:, None]).sum(axis=0)
    assert snapshot.total == pytest.approx(expected, abs=1e-3)


def test_rows_already_applied_by_another_reader_are_skipped() -> None:
    """Two readers may read the same changes; the second finds them applied."""
    changes, scope = Changes(), ScopeVectors("m")
    rows = changes.stored(range(1, 11))
    first = scope.update(rows)
    assert scope.update(rows) is first
    assert scope.update(rows[:5] + changes.stored([11])).count == 11


def test_searches_beside_a_writer_see_whole_versions() -> None:
    """Readers search whatever version is latest while one thread adds, replaces and
    erases: every answer comes from its version's live rows and is the same when asked
    of that version again, and no search raises."""
    changes, scope = Changes(), ScopeVectors("m")
    scope.update(changes.stored(range(1, 257)))
    done = threading.Event()
    errors: list[BaseException] = []
    searched = [0, 0, 0]

    def write() -> None:
        try:
            for step in range(1, 120):
                start = 256 + step * 20
                batch = changes.stored(range(start, start + 20)) + changes.without_vector(
                    range(start + 20, start + 23)
                )
                batch += changes.stored(range(step, step + 5))  # replaced
                batch += changes.erased([start - 7])
                scope.update(batch)
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    def read(n: int) -> None:
        try:
            while not done.is_set() or searched[n] < 20:
                snapshot = scope.snapshot
                hits = snapshot.nearest(query(searched[n] % 7), 10, order=query(n))
                assert {pk for pk, _, _ in hits} <= live_pks(snapshot)
                assert snapshot.nearest(query(searched[n] % 7), 10, order=query(n)) == hits
                searched[n] += 1
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(n,)) for n in range(3)]
    threads.append(threading.Thread(target=write))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert min(searched) >= 20


def test_vectors_of_another_size_or_model_are_not_held() -> None:
    changes, scope = Changes(), ScopeVectors("m")
    scope.update(changes.stored([1]))
    odd = quantize(struct.pack("<4f", 0.5, 0.5, 0.5, 0.5))
    snapshot = scope.update([(2, "m", odd, 10, 0), (3, "other", changes.vector(), 11, 0)])
    assert live_pks(snapshot) == {1}
    assert snapshot.nearest(struct.pack("<4f", 0.5, 0.5, 0.5, 0.5), 5) == []
