"""Groups of memories of one scope that say the same thing in different words.

Two memories are *alike* when their vectors (``[search] embedder``) are close, or fairly
close and their words overlap too; without vectors, when their words overlap a lot:

- cosine >= STRONG_COSINE (0.80), or
- cosine >= WEAK_COSINE (0.65) and token Jaccard >= WITH_WORDS (0.20), or
- no vectors: token Jaccard >= WORDS_ONLY (0.60).

Measured with the bundled static model on 16 pairs of paraphrases and 18 pairs of
memories on the same topic that say different things (tests/unit/test_consolidation_
grouping.py keeps a sample): 13 of the paraphrases are alike, 4 of the others are (all
"same sentence, other specifics": staging vs production, Go vs Python). Paraphrases
share few words (Jaccard 0.0-0.4), so words alone would miss most of them; the cosine
carries the decision and the words confirm a middling one. The model that writes the
merge is asked to say when the memories differ, and a person approves every merge, so
a near miss costs one rejected proposal, never a memory.

A group is a seed and up to ``max_size - 1`` of its nearest neighbours (found by the
store's vector search and its full-text search of the seed's words, never all pairs),
each alike with every other member, so a group cannot drift along a chain. Each memory
is in at most one group. A run looks at most ``max_seeds`` seeds (newest first: a new
memory is the likeliest repeat of an old one) and stops at ``max_groups`` groups; each
seed costs one vector search and one text search, whatever the scope's size.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Protocol

from ltm_desktop.core.records import Memory
from ltm_desktop.core.rules import jaccard, similarity_tokens

STRONG_COSINE = 0.80
WEAK_COSINE = 0.65
WITH_WORDS = 0.20
WORDS_ONLY = 0.60

Group = tuple[Memory, ...]


@dataclass(frozen=True, slots=True)
class Limits:
    """What one run may cost: groups found, members per group, seeds looked at, and
    neighbours fetched per seed."""

    max_groups: int = 10
    max_size: int = 5
    max_seeds: int = 500
    neighbours: int = 8


class Neighbours(Protocol):
    """The reads grouping needs (``neighbours.StoreNeighbours`` over the store)."""

    def seeds(self, project_id: str, limit: int) -> Iterable[Memory]:
        """Up to ``limit`` active memories of the scope, newest first."""
        ...

    def candidates(self, project_id: str, memory: Memory, limit: int) -> list[Memory]:
        """Active memories of the scope near ``memory`` in meaning or words (not itself)."""
        ...

    def cosine(self, a: Memory, b: Memory) -> float | None:
        """The cosine similarity of their vectors; None when there are none (words only)."""
        ...


def alike(a: Memory, b: Memory, cosine: float | None) -> bool:
    """Whether two memories say the same thing, by the thresholds above."""
    words = jaccard(similarity_tokens(a.content), similarity_tokens(b.content))
    if cosine is None:
        return words >= WORDS_ONLY
    return cosine >= STRONG_COSINE or (cosine >= WEAK_COSINE and words >= WITH_WORDS)


def find_groups(
    project_id: str,
    neighbours: Neighbours,
    limits: Limits,
    *,
    exclude: Collection[str] = (),
    declined: Collection[frozenset[str]] = (),
) -> list[Group]:
    """The scope's groups of alike memories, largest first within the bounds of ``limits``.

    Args:
        exclude: memories not to group (waiting in a merge proposal already).
        declined: member sets a person rejected as a merge: not proposed again.
    """
    used = set(exclude)
    groups: list[Group] = []
    for seed in neighbours.seeds(project_id, limits.max_seeds):
        if seed.id in used:
            continue
        group = [seed]
        for other in neighbours.candidates(project_id, seed, limits.neighbours):
            if other.id in used or any(other.id == m.id for m in group):
                continue
            if all(alike(member, other, neighbours.cosine(member, other)) for member in group):
                group.append(other)
                if len(group) >= limits.max_size:
                    break
        if len(group) < 2 or frozenset(m.id for m in group) in declined:
            continue
        groups.append(tuple(group))
        used.update(m.id for m in group)
        if len(groups) >= limits.max_groups:
            break
    return sorted(groups, key=len, reverse=True)
