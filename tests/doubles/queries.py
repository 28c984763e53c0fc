"""The in-memory store's queries: filters, orders and a naive word search.

They answer what ``core.backend.MemoryStore`` asks, by scanning; how good the search
ranking is does not matter here (SQLite's ranking has tests of its own).
"""

from __future__ import annotations

from collections.abc import Sequence

from ltm_desktop.core.records import Memory
from ltm_desktop.core.search.query import ParsedQuery, Term, split_words, word_root

# order_by -> the keys that break its ties (None: in the same direction); the last
# tie-breaker is insertion order, as SQLite's is the row's primary key.
THEN: dict[str, tuple[tuple[str, bool | None], ...]] = {
    "importance": (("updated_at", None),),
    "updated_at": (),
    "created_at": (),
    "last_used_at": (),
    "use_count": (("updated_at", True),),
    "title": (),
    "category": (("importance", True), ("updated_at", True)),
    "source": (("updated_at", True),),
    "disabled_at": (),
}


def is_live(memory: Memory, now: float) -> bool:
    """Neither removed nor expired."""
    return not memory.disabled and not memory.is_expired(now)


def stale(memory: Memory, max_importance: int, cutoff: float, now: float) -> bool:
    """The stale-candidate query of ``MemoryStore.stale_memories``."""
    return (
        is_live(memory, now)
        and memory.importance <= max_importance
        and memory.use_count == 0
        and max(memory.updated_at, memory.reviewed_at or 0) < cutoff
    )


def _key(memory: Memory, name: str) -> tuple[bool, object]:
    """Sortable, with NULL first as in SQLite; titles compare case-insensitively."""
    value = getattr(memory, name)
    if name == "title":
        value = value.lower()
    return (value is not None, 0 if value is None else value)


def ordered(memories: Sequence[Memory], order_by: str, descending: bool) -> list[Memory]:
    keys = [(order_by, descending)]
    keys += [(name, descending if then is None else then) for name, then in THEN[order_by]]
    result = list(memories)
    for name, desc in reversed(keys):  # stable sorts, least significant key first
        result.sort(key=lambda m: _key(m, name), reverse=desc)
    return result


def _word_matches(term: Term, index: int, word: str) -> bool:
    wanted = term.words[index]
    if term.prefix and index == len(term.words) - 1:
        return word.startswith(wanted)
    if term.exact:
        return word == wanted
    return word.startswith(word_root(wanted))


def matches(term: Term, text: str) -> bool:
    """Whether ``text`` holds the term's words, adjacent and in order."""
    words, n = split_words(text), len(term.words)
    return any(
        all(_word_matches(term, j, words[i + j]) for j in range(n))
        for i in range(len(words) - n + 1)
    )


def score(query: ParsedQuery, *texts: str) -> float:
    """How many of the query's terms the texts hold (0 with any excluded term)."""
    text = " ".join(texts)
    if any(matches(term, text) for term in query.negative):
        return 0.0
    return float(sum(matches(term, text) for term in query.positive))
