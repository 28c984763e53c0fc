"""Per-scope arrays in memory, for the two searches the full-text index cannot answer fast.

``memory_index`` holds one row per memory: a 256-bit set of its tokens (near-duplicate
candidates) and its vector (semantic search), with ``seq`` raised on every change; an
erased memory leaves a row in ``memory_index_erased`` (its pk, scope and the next
``seq``). A scope's arrays are loaded on first use and brought up to date from the rows
of both whose ``seq`` passed the last one seen (one index seek each when nothing
changed), in ``seq`` order, so the writes and erasures of other processes are picked
up. numpy is imported on first use only: entry points
that never search stay light.
"""

from __future__ import annotations

import sqlite3
import threading
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


def next_seq(conn: sqlite3.Connection, project_pk: int) -> int:
    """The scope's next ``seq``: past every change, erasures included (a seq handed out
    again would be one the readers think they have seen)."""
    row = conn.execute(
        "SELECT max(coalesce((SELECT max(seq) FROM memory_index WHERE project_pk = ?1), 0), "
        "coalesce((SELECT max(seq) FROM memory_index_erased WHERE project_pk = ?1), 0)) + 1",
        (project_pk,),
    ).fetchone()
    return int(row[0])


def changed_rows(
    conn: sqlite3.Connection, project_pk: int, seq: int, columns: str
) -> list[tuple[Any, ...]]:
    """The scope's index rows changed after ``seq``, oldest change first: (memory_pk,
    *``columns``, seq, erased); an erased memory's row has None for ``columns``."""
    nothing = ", ".join("NULL" for _ in columns.split(","))
    rows: list[tuple[Any, ...]] = conn.execute(
        f"SELECT memory_pk, {columns}, seq, 0 FROM memory_index WHERE project_pk = ?1 AND seq > ?2 "
        f"UNION ALL SELECT memory_pk, {nothing}, seq, 1 FROM memory_index_erased "
        "WHERE project_pk = ?1 AND seq > ?2 ORDER BY seq",
        (project_pk, seq),
    ).fetchall()
    return rows


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


class ScopeTokenSets:
    """The writer's TokenSets per scope; forgotten whole when a transaction rolls back.

    Only the writer reads or changes them (``SqliteWriteTxn.near_duplicates``, and
    ``reset`` on a rollback), always under the store's write lock: unlike the vectors
    (store.vectors), no search thread ever sees them, so they are changed in place. They
    hold the open transaction's own rows, which no reader may see anyway.
    """

    def __init__(self) -> None:
        self._scopes: dict[int, TokenSets] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._scopes.clear()

    def current(self, conn: sqlite3.Connection, project_pk: int) -> TokenSets:
        """The scope's sets with every change committed (or made in ``conn``'s transaction)."""
        with self._lock:
            sets = self._scopes.get(project_pk)
            if sets is None:
                sets = self._scopes[project_pk] = TokenSets()
        if sets.seq == 0 and sets.grown.size == 0:
            _load_whole(conn, project_pk, sets)
            return sets
        rows = changed_rows(conn, project_pk, sets.seq, "token_bits")
        if rows:
            sets.update(rows)
        return sets


def _load_whole(conn: sqlite3.Connection, project_pk: int, sets: TokenSets) -> None:
    """The scope's rows as they are now (a third of reading every change since 0, at
    135,000 memories), and the newest ``seq`` of both tables, so that the next look
    reads only what changed after it."""
    rows = conn.execute(
        "SELECT memory_pk, token_bits FROM memory_index WHERE project_pk = ?", (project_pk,)
    ).fetchall()
    (newest,) = conn.execute(
        "SELECT max(coalesce((SELECT max(seq) FROM memory_index WHERE project_pk = ?1), 0), "
        "coalesce((SELECT max(seq) FROM memory_index_erased WHERE project_pk = ?1), 0))",
        (project_pk,),
    ).fetchone()
    if rows:
        sets.load(rows, int(newest))
