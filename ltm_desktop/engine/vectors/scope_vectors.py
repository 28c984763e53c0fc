"""Vectors: stored as int8 with a scale, searched in memory per scope (numpy, lazily), by
every engine alike (SQLite's ``store.vectors``, PostgreSQL's ``postgres.vectors``).

A vector arrives as float32 unit vector bytes (``core.seams.Embedder``) and is kept as a
float32 scale and one signed byte per dimension (a quarter of the size; cosine
similarities move by about 0.002, measured in bench/retrieval_bench.py). A scope's
vectors of one model are held as three arrays: the int8 codes, their scales, and one
sign bit per dimension. A search ranks every row by the Hamming distance of its sign
bits to the query's (256 bits: four popcounts per row), then scores the best
``RESCORED`` rows exactly; below that many rows it scores them all.

A scope also keeps the sum of its vectors, so that a search can be *centred* when the
core asks (``centre``): the query less the scope's mean vector, shrunk toward zero for
a scope of few rows. What every memory of a scope shares (they are all about software)
then counts for none of them, and a memory near that mean stops being near every query.
The rows are ordered by that centred similarity (one mean for all the scopes searched,
so their orders compare); the floor still applies to the plain cosine, which is the
score returned.

Searches run side by side on the reading threads while any of them brings a scope up to
date, so a scope is searched through immutable versions (``VectorSnapshot``): rows are
only appended, a stored vector that changes gets a new row (its old one stops being
live in a copy of the flags), and full arrays regrow into new ones. Each search keeps
the version it started with; an append costs O(1) amortized, a batch that replaces or
removes vectors one copy of the live flags (a byte per row).
"""

from __future__ import annotations

import struct
import threading
from typing import TYPE_CHECKING, Any

from ltm_desktop.engine.vectors.snapshot import RESCORED, VectorSnapshot, empty_snapshot, sign_rows

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["RESCORED", "ScopeVectors", "VectorSnapshot", "quantize"]
MIN_CAPACITY = 64
MIN_DEAD = 1024  # replaced rows tolerated before the arrays are compacted (and more than live)


def quantize(vector: bytes) -> bytes:
    """float32 little-endian bytes -> scale (float32) + int8 codes."""
    import numpy as np

    values = np.frombuffer(vector, dtype="<f4")
    peak = float(np.abs(values).max()) if values.size else 0.0
    scale = peak / 127 if peak > 0 else 1.0
    codes = np.clip(np.rint(values / scale), -127, 127).astype(np.int8)
    return struct.pack("<f", scale) + codes.tobytes()


class ScopeVectors:
    """One scope's vectors of one model: the latest version (``snapshot``, for searches)
    and the making of the next (``update``, one thread at a time)."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.snapshot = empty_snapshot()
        self._rows: dict[int, int] = {}  # memory pk -> its live row
        self._lock = threading.Lock()  # making a version
        self.loading = threading.Lock()  # held by the thread reading the whole scope first

    @property
    def seq(self) -> int:
        return self.snapshot.seq

    @property
    def count(self) -> int:
        return self.snapshot.count

    @property
    def total(self) -> NDArray[Any] | None:
        return self.snapshot.total

    def nearest(
        self, query: bytes, limit: int, min_score: float = -1.0, order: bytes | None = None
    ) -> list[tuple[int, float, float]]:
        return self.snapshot.nearest(query, limit, min_score, order)

    def update(self, rows: list[tuple[Any, ...]]) -> VectorSnapshot:
        """Publish the version with the scope's changed index rows (memory_pk, model,
        vector, seq, erased), in ``seq`` order (an erased memory's has no vector), applied,
        and return it. Rows a
        published version already holds (read by another thread first) are skipped."""
        with self._lock:
            latest = self.snapshot
            fresh = [row for row in rows if row[3] > latest.seq]
            if fresh:
                try:
                    self.snapshot = _Builder(latest, self.model, self._rows).apply(fresh)
                except BaseException:  # rows half applied: the next search reads all again
                    self._rows.clear()
                    self.snapshot = empty_snapshot()
                    raise
            return self.snapshot


class _Builder:
    """The next version of a scope's vectors, made from the latest without writing a row
    it can see (``ScopeVectors.update``, under its lock)."""

    def __init__(self, base: VectorSnapshot, model: str, rows: dict[int, int]) -> None:
        self.base = base
        self.model = model
        self.rows = rows
        self.seq, self.size, self.count = base.seq, base.size, base.count
        self.pks, self.live, self.scales = base.pks, base.live, base.scales
        self.codes, self.signs = base.codes, base.signs
        self.total = None if base.total is None else base.total.copy()
        self.own_live = False  # ``live`` is this builder's copy: rows below base.size writable

    def apply(self, changes: list[tuple[Any, ...]]) -> VectorSnapshot:
        """The version with ``changes`` applied: the last change of each memory counts
        (its earlier ones would be replaced by it), the vectors kept appended as whole
        arrays (a scope's first load, or a backfill's thousands of new vectors, in one
        numpy call each rather than a loop of them per row)."""
        latest: dict[int, tuple[Any, ...]] = {}
        for pk, model, blob, seq, _erased in changes:
            self.seq = max(self.seq, seq)
            latest.pop(pk, None)  # in the order of their last change
            latest[pk] = (model, blob)
        appended: list[tuple[int, bytes]] = []
        for pk, (model, blob) in latest.items():
            self._drop(pk)
            if model == self.model and blob is not None:
                appended.append((pk, blob))
        self._append(appended)
        if self.size - self.count > max(self.count, MIN_DEAD):
            self._compact()
        return VectorSnapshot(
            self.seq,
            self.size,
            self.pks,
            self.live,
            self.scales,
            self.codes,
            self.signs,
            self.total,
            self.count,
        )

    def _drop(self, pk: int) -> None:
        """The memory's live row, if any, is live no more (and leaves the sum)."""
        row = self.rows.pop(pk, None)
        if row is None:
            return
        assert self.codes is not None
        assert self.total is not None
        if row < self.base.size and not self.own_live:
            self.live, self.own_live = self.live.copy(), True  # published: never written
        self.live[row] = False
        self.total -= self.codes[row].astype(float) * float(self.scales[row])
        self.count -= 1

    def _append(self, vectors: list[tuple[int, bytes]]) -> None:
        """New live rows for the memories' vectors (scale + int8 codes), after the last
        one; a vector of another length than this scope's is left out."""
        import numpy as np

        if self.codes is not None:
            dim = self.codes.shape[1]
        else:  # the first vector says how long this scope's are
            dim = next((len(blob) - 4 for _, blob in vectors if len(blob) > 4), 0)
        kept = [(pk, blob) for pk, blob in vectors if len(blob) == dim + 4 and dim > 0]
        if not kept:
            return
        n, start = len(kept), self.size
        if self.codes is None or start + n > self.codes.shape[0]:
            self._regrow(max(MIN_CAPACITY, 2 * start, start + n), dim)
        assert self.codes is not None
        assert self.signs is not None
        assert self.total is not None
        stored = np.frombuffer(b"".join(blob for _, blob in kept), dtype=np.uint8).reshape(n, -1)
        scales = stored[:, :4].copy().view("<f4").ravel()
        codes = stored[:, 4:].view(np.int8)
        rows = slice(start, start + n)
        self.pks[rows] = [pk for pk, _ in kept]
        self.live[rows], self.scales[rows], self.codes[rows] = True, scales, codes
        self.signs[:, rows] = sign_rows(codes)
        self.total += (codes.astype(np.float64) * scales[:, None].astype(np.float64)).sum(axis=0)
        self.rows.update((pk, start + i) for i, (pk, _) in enumerate(kept))
        self.size += n
        self.count += n

    def _regrow(self, capacity: int, dim: int) -> None:
        """New arrays of ``capacity`` rows holding the rows so far (the old ones stay as
        the published versions have them)."""
        import numpy as np

        old = self.size
        pks = np.zeros(capacity, dtype=np.int64)
        live = np.zeros(capacity, dtype=bool)
        scales = np.zeros(capacity, dtype=np.float32)
        codes = np.zeros((capacity, dim), dtype=np.int8)
        signs = np.zeros(((dim + 63) // 64, capacity), dtype=np.uint64)
        pks[:old], live[:old], scales[:old] = self.pks[:old], self.live[:old], self.scales[:old]
        if self.codes is not None and self.signs is not None:
            codes[:old], signs[:, :old] = self.codes[:old], self.signs[:, :old]
        self.pks, self.live, self.scales, self.codes, self.signs = pks, live, scales, codes, signs
        self.own_live = True
        if self.total is None:
            self.total = np.zeros(dim, dtype=np.float64)

    def _compact(self) -> None:
        """New arrays of the live rows only (after many replacements), and their sum
        counted afresh: O(live rows), once per more than that many replaced."""
        import numpy as np

        assert self.codes is not None
        assert self.signs is not None
        keep = np.flatnonzero(self.live[: self.size])
        dim = self.codes.shape[1]
        capacity = max(MIN_CAPACITY, 2 * keep.size)
        pks = np.zeros(capacity, dtype=np.int64)
        live = np.zeros(capacity, dtype=bool)
        scales = np.zeros(capacity, dtype=np.float32)
        codes = np.zeros((capacity, dim), dtype=np.int8)
        signs = np.zeros((self.signs.shape[0], capacity), dtype=np.uint64)
        n = keep.size
        pks[:n], live[:n], scales[:n] = self.pks[keep], True, self.scales[keep]
        codes[:n], signs[:, :n] = self.codes[keep], self.signs[:, keep]
        self.total = (codes[:n].astype(np.float64) * scales[:n, None]).sum(axis=0)
        self.pks, self.live, self.scales, self.codes, self.signs = pks, live, scales, codes, signs
        self.own_live = True
        self.rows.clear()
        self.rows.update((int(pk), row) for row, pk in enumerate(pks[:n]))
        self.size = self.count = n
