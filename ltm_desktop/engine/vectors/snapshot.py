"""One published version of a scope's vectors: what a search reads, never written again.

A search captures a version once and reads only its rows ``[0, size)``. The arrays are
shared with later versions, which append rows past ``size`` (never read by this one),
and which copy ``live`` before taking a row away and make new arrays when they regrow:
no row a version can see is ever written after the version is published
(``engine.vectors.scope_vectors`` builds them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numpy.typing import NDArray

RESCORED = 256  # rows scored exactly after the sign-bit preselection


@dataclass(frozen=True, slots=True)
class VectorSnapshot:
    """A scope's vectors of one model as of change ``seq``: rows ``[0, size)`` of the
    arrays (each row a vector that was stored; ``live`` False once replaced or gone)."""

    seq: int
    size: int
    pks: NDArray[Any]  # (capacity,) int64: the memory of each row
    live: NDArray[Any]  # (capacity,) bool
    scales: NDArray[Any]  # (capacity,) float32
    codes: NDArray[Any] | None  # (capacity, dim) int8; None before the first vector
    signs: NDArray[Any] | None  # (words, capacity) uint64, word-major
    total: NDArray[Any] | None  # (dim,) float64: the sum of the live rows
    count: int  # live rows

    def nearest(
        self, query: bytes, limit: int, min_score: float = -1.0, order: bytes | None = None
    ) -> list[tuple[int, float, float]]:
        """(pk, cosine similarity, ordering score) of the ``limit`` rows at or above
        ``min_score`` most similar to ``order`` (the centred query), or to ``query``.

        Rows are ranked by the Hamming distance of their sign bits to the query's, and
        the best ``RESCORED`` are scored exactly; below that many, all of them are."""
        import numpy as np

        size, codes, signs = self.size, self.codes, self.signs
        if codes is None or signs is None or not self.count:
            return []
        q = np.frombuffer(query, dtype="<f4")
        by = q if order is None else np.frombuffer(order, dtype="<f4")
        if q.shape[0] != codes.shape[1] or by.shape != q.shape:
            return []
        live = self.live[:size]
        chosen = np.flatnonzero(live)
        if chosen.size > RESCORED:
            mine = sign_words(by)
            distance = np.zeros(size, dtype=np.int32)
            for word in range(signs.shape[0]):
                distance += np.bitwise_count(signs[word, :size] ^ mine[word])
            distance[~live] = np.iinfo(np.int32).max
            chosen = np.argpartition(distance, RESCORED)[:RESCORED]
        rows = codes[chosen].astype(np.float32)
        scales = self.scales[chosen]
        scores = (rows @ q) * scales
        ranks = scores if order is None else (rows @ by) * scales
        ranks = np.where(scores >= min_score, ranks, -np.inf)
        best = [i for i in np.argsort(-ranks)[:limit] if ranks[i] > -np.inf]
        return [(int(self.pks[chosen[i]]), float(scores[i]), float(ranks[i])) for i in best]

    def nbytes(self) -> int:
        arrays = (self.pks, self.live, self.scales, self.codes, self.signs)
        return sum(0 if array is None else int(array.nbytes) for array in arrays)


def empty_snapshot() -> VectorSnapshot:
    import numpy as np

    return VectorSnapshot(
        seq=0,
        size=0,
        pks=np.zeros(0, dtype=np.int64),
        live=np.zeros(0, dtype=bool),
        scales=np.zeros(0, dtype=np.float32),
        codes=None,
        signs=None,
        total=None,
        count=0,
    )


def centred(snapshots: Sequence[VectorSnapshot], query: bytes, centre: float) -> bytes:
    """``query`` less the mean vector of the snapshots' n rows times n / (n + ``centre``)
    (few rows say little about what they share), at unit length."""
    import numpy as np

    q = np.frombuffer(query, dtype="<f4").astype(np.float64)
    total, count = np.zeros_like(q), 0
    for snapshot in snapshots:
        if snapshot.total is not None and snapshot.total.shape == q.shape:
            total, count = total + snapshot.total, count + snapshot.count
    shifted = q - total / (count + max(centre, 0.0)) if count else q
    norm = float(np.linalg.norm(shifted))
    return (shifted / norm if norm > 0 else q).astype("<f4").tobytes()


def sign_words(values: NDArray[Any]) -> NDArray[Any]:
    """One bit per dimension (set when positive), packed into little-endian 64-bit words."""
    import numpy as np

    bits = np.packbits(values > 0)
    padded = np.zeros(((bits.size + 7) // 8) * 8, dtype=np.uint8)
    padded[: bits.size] = bits
    return padded.view("<u8")


def sign_rows(codes: NDArray[Any]) -> NDArray[Any]:
    """``sign_words`` of each row of ``codes``, as the columns of a (words, rows) array
    (the word-major layout ``VectorSnapshot.signs`` keeps)."""
    import numpy as np

    bits = np.packbits(codes > 0, axis=1)
    padded = np.zeros((bits.shape[0], ((bits.shape[1] + 7) // 8) * 8), dtype=np.uint8)
    padded[:, : bits.shape[1]] = bits
    return padded.view("<u8").T
