"""How many memories contain a word: a cached estimate that picks distinctive words.

Finding near-duplicate candidates is cheap when the search uses a memory's
rarest words. fts5vocab knows each word's document count but computes it by
walking the word's whole posting list, so counts are cached; an estimate that
drifts a little as memories are added is good enough to rank rarity.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

MAX_CACHED = 200_000
VOCAB_TABLE = "temp.memory_vocab"


class WordRarity:
    """Document counts per index word, cached on one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE} "
            "USING fts5vocab(main, memory_fts, 'row')"
        )
        self._conn = conn
        self._counts: dict[str, int] = {}

    def counts(self, words: Iterable[str]) -> dict[str, int]:
        wanted = set(words)
        missing = [w for w in wanted if w not in self._counts]
        if missing:
            if len(self._counts) + len(missing) > MAX_CACHED:
                self._counts.clear()
            found = dict.fromkeys(missing, 0)
            for start in range(0, len(missing), 500):
                chunk = missing[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(
                    self._conn.execute(
                        f"SELECT term, doc FROM {VOCAB_TABLE} WHERE term IN ({marks})", chunk
                    ).fetchall()
                )
            self._counts.update(found)
        return {w: self._counts[w] for w in wanted}

    def rarest(self, words: Iterable[str], n: int) -> list[str]:
        counts = self.counts(words)
        return sorted(counts, key=lambda w: (counts[w], -len(w), w))[:n]

    def forget(self) -> None:
        self._counts.clear()
