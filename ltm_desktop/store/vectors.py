"""Vectors: stored as int8 with a scale, searched in memory per scope (numpy, lazily).

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
"""

from __future__ import annotations

import sqlite3
import struct
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ltm_desktop.store.scope_index import _grow, _Grown, changed_rows

if TYPE_CHECKING:
    from numpy.typing import NDArray

RESCORED = 256  # rows scored exactly after the sign-bit preselection


def quantize(vector: bytes) -> bytes:
    """float32 little-endian bytes -> scale (float32) + int8 codes."""
    import numpy as np

    values = np.frombuffer(vector, dtype="<f4")
    peak = float(np.abs(values).max()) if values.size else 0.0
    scale = peak / 127 if peak > 0 else 1.0
    codes = np.clip(np.rint(values / scale), -127, 127).astype(np.int8)
    return struct.pack("<f", scale) + codes.tobytes()


class ScopeVectors:
    """One scope's vectors of one model."""

    def __init__(self, model: str) -> None:
        import numpy as np

        self.model = model
        self.seq = 0
        self.grown = _Grown()
        self.pks = np.zeros(0, dtype=np.int64)
        self.present = np.zeros(0, dtype=bool)
        self.scales = np.zeros(0, dtype=np.float32)
        self.codes: NDArray[Any] | None = None  # (rows, dim) int8
        self.signs: NDArray[Any] | None = None  # (words, rows) uint64, word-major
        self.total: NDArray[Any] | None = None  # (dim,) float64: sum of the present rows
        self.count = 0  # present rows

    def update(self, rows: list[tuple[Any, ...]]) -> None:
        """Rows of ``changed_rows(..., "model, vector")``, in ``seq`` order (an erased
        memory's has no vector: its row is no longer present)."""
        for pk, model, blob, seq, _erased in rows:
            self.seq = max(self.seq, seq)
            row, _ = self.grown.row_of(pk)
            self.pks = _grow(self.pks, row + 1)
            self.present = _grow(self.present, row + 1)
            self.scales = _grow(self.scales, row + 1)
            self.pks[row] = pk
            if self.present[row]:
                self._count(row, -1)
            self.present[row] = model == self.model and blob is not None and self._put(row, blob)
            if self.present[row]:
                self._count(row, +1)

    def _count(self, row: int, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) a present row from the scope's sum."""
        assert self.codes is not None
        assert self.total is not None
        self.total += sign * self.codes[row].astype(float) * float(self.scales[row])
        self.count += sign

    def _put(self, row: int, blob: bytes) -> bool:
        """Keep one stored vector; False when it is not one this scope can hold."""
        import numpy as np

        dim = len(blob) - 4
        if dim <= 0:
            return False
        if self.codes is None or self.signs is None:
            self.codes = np.zeros((0, dim), dtype=np.int8)
            self.signs = np.zeros(((dim + 63) // 64, 0), dtype=np.uint64)
            self.total = np.zeros(dim, dtype=np.float64)
        if dim != self.codes.shape[1]:
            return False
        self.codes = _grow(self.codes, row + 1)
        self.signs = _grow(self.signs, row + 1, axis=1)
        codes = np.frombuffer(blob, dtype=np.int8, offset=4)
        self.codes[row] = codes
        self.scales[row] = struct.unpack_from("<f", blob)[0]
        self.signs[:, row] = _sign_words(codes)
        return True

    def nearest(
        self, query: bytes, limit: int, min_score: float = -1.0, order: bytes | None = None
    ) -> list[tuple[int, float, float]]:
        """(pk, cosine similarity, ordering score) of the ``limit`` rows at or above
        ``min_score`` most similar to ``order`` (the centred query), or to ``query``."""
        import numpy as np

        size = self.grown.size
        if self.codes is None or self.signs is None or not size:
            return []
        q = np.frombuffer(query, dtype="<f4")
        by = q if order is None else np.frombuffer(order, dtype="<f4")
        if q.shape[0] != self.codes.shape[1] or by.shape != q.shape:
            return []
        present = np.flatnonzero(self.present[:size])
        if present.size > RESCORED:
            mine = _sign_words(by)
            distance = np.zeros(size, dtype=np.int32)
            for word in range(self.signs.shape[0]):
                distance += np.bitwise_count(self.signs[word, :size] ^ mine[word])
            distance[~self.present[:size]] = np.iinfo(np.int32).max
            present = np.argpartition(distance, RESCORED)[:RESCORED]
        rows = self.codes[present].astype(np.float32)
        scores = (rows @ q) * self.scales[present]
        ranks = scores if order is None else (rows @ by) * self.scales[present]
        ranks = np.where(scores >= min_score, ranks, -np.inf)
        best = [i for i in np.argsort(-ranks)[:limit] if ranks[i] > -np.inf]
        return [(int(self.pks[present[i]]), float(scores[i]), float(ranks[i])) for i in best]


def _sign_words(values: NDArray[Any]) -> NDArray[Any]:
    import numpy as np

    bits = np.packbits(values > 0)
    padded = np.zeros(((bits.size + 7) // 8) * 8, dtype=np.uint8)
    padded[: bits.size] = bits
    return padded.view("<u8")


class VectorIndex:
    """Every scope's vectors for the readers (shared by their threads, under a lock)."""

    def __init__(self) -> None:
        self._scopes: dict[tuple[int, str], ScopeVectors] = {}
        self._lock = threading.Lock()

    def nearest(
        self,
        conn: sqlite3.Connection,
        project_pk: int,
        model: str,
        query: bytes,
        limit: int,
        min_score: float = -1.0,
        order: bytes | None = None,
    ) -> list[tuple[int, float, float]]:
        with self._lock:
            return self._scope(conn, project_pk, model).nearest(query, limit, min_score, order)

    def centred(
        self,
        conn: sqlite3.Connection,
        project_pks: Sequence[int],
        model: str,
        query: bytes,
        centre: float,
    ) -> bytes:
        """``query`` less the mean vector of the scopes' n rows times n / (n + ``centre``)
        (few rows say little about what they share), at unit length."""
        import numpy as np

        q = np.frombuffer(query, dtype="<f4").astype(np.float64)
        total, count = np.zeros_like(q), 0
        with self._lock:
            for pk in project_pks:
                scope = self._scope(conn, pk, model)
                if scope.total is not None and scope.total.shape == q.shape:
                    total, count = total + scope.total, count + scope.count
        shifted = q - total / (count + max(centre, 0.0)) if count else q
        norm = float(np.linalg.norm(shifted))
        return (shifted / norm if norm > 0 else q).astype("<f4").tobytes()

    def _scope(self, conn: sqlite3.Connection, project_pk: int, model: str) -> ScopeVectors:
        """The scope's vectors, brought up to date (under the lock)."""
        scope = self._scopes.get((project_pk, model))
        if scope is None:
            scope = self._scopes[(project_pk, model)] = ScopeVectors(model)
        rows = changed_rows(conn, project_pk, scope.seq, "model, vector")
        if rows:
            scope.update(rows)
        return scope

    def memory_bytes(self) -> int:
        """What the loaded arrays take (for the benchmark)."""
        with self._lock:
            total = 0
            for scope in self._scopes.values():
                for array in (scope.pks, scope.present, scope.scales, scope.codes, scope.signs):
                    total += 0 if array is None else int(array.nbytes)
            return total
