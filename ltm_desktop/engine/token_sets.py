"""Each memory's token set as bits, per scope, in memory: near-duplicate candidates for a
writer of either engine without asking the database to compare sets.

A set is TOKEN_BITS bits (a token sets bit crc32 % TOKEN_BITS); a scope's sets are one
word-major array, brought up to date from the engine's index rows whose ``seq`` passed the
last one seen (``update``). SQLite stores the bits in ``memory_index.token_bits``;
PostgreSQL stores the tokens themselves (``memory_index.tokens``) and its writer makes the
bits as it reads them. numpy is imported on first use only.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from numpy.typing import NDArray

TOKEN_BITS = 256
WORDS = TOKEN_BITS // 64
ALL_TOKENS = b"\xff" * (TOKEN_BITS // 8)  # a memory whose tokens are not known yet


def token_bits(tokens: Collection[str]) -> bytes:
    """The set of ``tokens`` as TOKEN_BITS bits (a token sets bit crc32 % TOKEN_BITS)."""
    value = 0
    for token in tokens:
        value |= 1 << (zlib.crc32(token.encode("utf-8", "surrogatepass")) % TOKEN_BITS)
    return value.to_bytes(TOKEN_BITS // 8, "little")


class _Grown:
    """Rows appended to arrays that grow by doubling; a memory's row is found by its pk."""

    def __init__(self) -> None:
        self.size = 0
        self.rows: dict[int, int] = {}  # memory pk -> row

    def row_of(self, pk: int) -> tuple[int, bool]:
        """(row, whether it is new) for ``pk``."""
        row = self.rows.get(pk)
        if row is not None:
            return row, False
        row = self.rows[pk] = self.size
        self.size += 1
        return row, True


def _grow(array: NDArray[Any], size: int, axis: int = 0) -> NDArray[Any]:
    import numpy as np

    if array.shape[axis] >= size:
        return array
    shape = list(array.shape)
    shape[axis] = max(size, 2 * shape[axis], 64)
    grown = np.zeros(shape, dtype=array.dtype)
    index = [slice(None)] * array.ndim
    index[axis] = slice(0, array.shape[axis])
    grown[tuple(index)] = array
    return grown


class TokenSets:
    """Each memory's token set in one scope, for near-duplicate candidates (the writer's)."""

    def __init__(self) -> None:
        import numpy as np

        self.seq = 0
        self.grown = _Grown()
        self.pks = np.zeros(0, dtype=np.int64)
        self.alive = np.zeros(0, dtype=bool)  # False: the memory was erased
        self.bits = np.zeros((WORDS, 0), dtype=np.uint64)  # word-major: fast per word

    def update(self, rows: list[tuple[Any, ...]]) -> None:
        """Rows of ``changed_rows(..., "token_bits")``, in ``seq`` order, applied as whole
        arrays (a quarter of a per-row loop's time): the backfill moves the ``seq`` of
        every row it gives a vector, so the writer's next check reads them all again."""
        import numpy as np

        if not rows:
            return
        latest = {pk: (bits, erased) for pk, bits, _seq, erased in rows}  # the last change
        places = np.fromiter(
            (self.grown.row_of(pk)[0] for pk in latest), dtype=np.int64, count=len(latest)
        )
        size = self.grown.size
        self.pks, self.alive = _grow(self.pks, size), _grow(self.alive, size)
        self.bits = _grow(self.bits, size, axis=1)
        self.pks[places] = np.fromiter(latest, dtype=np.int64, count=len(latest))
        self.alive[places] = [not erased for _, erased in latest.values()]
        packed = b"".join(bits or ALL_TOKENS for bits, _ in latest.values())
        self.bits[:, places] = np.frombuffer(packed, dtype="<u8").reshape(-1, WORDS).T
        self.seq = max(self.seq, int(rows[-1][2]))

    def load(self, rows: list[tuple[int, bytes | None]], seq: int) -> None:
        """Fill empty sets with the scope's ``memory_index`` rows (pk, token bits) as they
        are now, ``seq`` the newest change among them and the erasures: a writer's first
        add to a scope reads every row once, without ``update``'s bookkeeping per change
        (each memory has one row, and an erased one none)."""
        import numpy as np

        self.grown.rows = {pk: row for row, (pk, _) in enumerate(rows)}
        self.grown.size = len(rows)
        self.pks = np.fromiter((pk for pk, _ in rows), dtype=np.int64, count=len(rows))
        self.alive = np.ones(len(rows), dtype=bool)
        packed = b"".join(bits or ALL_TOKENS for _, bits in rows)
        words = np.frombuffer(packed, dtype="<u8").reshape(-1, WORDS)
        self.bits = np.ascontiguousarray(words.T)  # word-major, as ``holding`` reads it
        self.seq = seq

    def holding(self, tokens: Collection[str], at_least: int) -> list[int]:
        """Pks of the memories whose set may hold ``at_least`` of ``tokens``: each token they
        share sets the same bit in both, so they share at least ``at_least`` bits, less the
        bits ``tokens`` lose to collisions among themselves."""
        import numpy as np

        size = self.grown.size
        if not size:
            return []
        mine = np.frombuffer(token_bits(tokens), dtype="<u8")
        lost = len(tokens) - int(np.bitwise_count(mine).sum())
        shared = np.zeros(size, dtype=np.int32)
        for word in range(WORDS):
            shared += np.bitwise_count(self.bits[word, :size] & mine[word])
        chosen = (shared >= at_least - lost) & self.alive[:size]
        return [int(pk) for pk in self.pks[:size][chosen]]
