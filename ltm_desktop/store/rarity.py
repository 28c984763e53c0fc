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
REFRESH_AFTER = 2_000  # lookups; counts drift as memories are added, so forget them now and then


class WordRarity:
    """Document counts per word of a scope's FTS table, cached on one connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._vocabularies: set[str] = set()
        self._counts: dict[tuple[str, str], int] = {}
        self._lookups = 0

    def _vocabulary(self, table: str) -> str:
        vocab = f"temp.vocab_{table}"
        if table not in self._vocabularies:
            self._conn.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {vocab} USING fts5vocab(main, {table}, 'row')"
            )
            self._vocabularies.add(table)
        return vocab

    def counts(self, table: str, words: Iterable[str]) -> dict[str, int]:
        wanted = set(words)
        self._lookups += 1
        if self._lookups % REFRESH_AFTER == 0:
            self._counts.clear()
        missing = [w for w in wanted if (table, w) not in self._counts]
        if missing:
            if len(self._counts) + len(missing) > MAX_CACHED:
                self._counts.clear()
            vocab = self._vocabulary(table)
            found = dict.fromkeys(missing, 0)
            for start in range(0, len(missing), 500):
                chunk = missing[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(
                    self._conn.execute(
                        f"SELECT term, doc FROM {vocab} WHERE term IN ({marks})", chunk
                    ).fetchall()
                )
            # A word not in the index yet is not cached: it will not stay at 0.
            self._counts.update(((table, w), n) for w, n in found.items() if n > 0)
        else:
            found = {}
        return {w: found.get(w, self._counts.get((table, w), 0)) for w in wanted}

    def add_document(self, table: str, words: Iterable[str]) -> None:
        """Keep cached counts in step with a memory this connection just indexed."""
        for word in set(words):
            key = (table, word)
            if key in self._counts:
                self._counts[key] += 1

    def rarest(self, table: str, words: Iterable[str], n: int) -> list[str]:
        counts = self.counts(table, words)
        return sorted(counts, key=lambda w: (counts[w], -len(w), w))[:n]

    def reset(self) -> None:
        """Forget everything (after a rollback, which also drops temp vocabulary tables)."""
        self._vocabularies.clear()
        self._counts.clear()
