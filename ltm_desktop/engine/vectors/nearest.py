"""A search by meaning over the scopes' snapshots, for every engine: the nearest rows,
then the live memories among them (which only the engine can read), looking further
when too many were removed, expired or filtered out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ltm_desktop.core.records import Memory, SearchFilter
from ltm_desktop.engine.vectors.snapshot import VectorSnapshot, centred

SLACK = 3  # extra nearest rows, so that a few removed or expired ones rarely need a second look

# pks -> (pk, memory) of those in the searched scopes (an index behind never hands out
# another scope's memory, nor one erased meanwhile)
Loader = Callable[[list[int]], list[tuple[int, Memory]]]


@dataclass(frozen=True, slots=True)
class Nearest:
    """What a vector search asks: the ``limit`` nearest to ``vector`` of ``model``, none
    below ``min_score``; with ``centre``, ordered by similarity to the vector less the
    mean of the scopes' vectors (engine.vectors.scope_vectors)."""

    model: str
    vector: bytes
    limit: int
    min_score: float
    centre: float | None = None


def nearest_live(
    scopes: Sequence[VectorSnapshot],
    asked: Nearest,
    load: Loader,
    now: float,
    where: SearchFilter | None = None,
) -> list[tuple[Memory, float]]:
    """The nearest live memories of the snapshots (or those ``where`` admits), cosine
    scores, best first by cosine or, centred, by similarity to the centred query.

    Removed and expired memories keep their vectors (a restore needs no new one), so they
    are dropped here (as are those outside a filter), looking further when too many were.
    One version of each scope serves the whole search (the centring included), however
    the index moves meanwhile."""
    admits = where or SearchFilter()
    if not scopes or asked.limit <= 0:
        return []
    want = asked.limit + SLACK
    order = None
    if asked.centre is not None:
        order = centred(scopes, asked.vector, asked.centre)
    while True:
        found: list[tuple[int, float, float]] = []
        exhausted = True
        for scope in scopes:
            close = scope.nearest(asked.vector, want, asked.min_score, order)
            exhausted = exhausted and len(close) < want
            found += close
        found.sort(key=lambda hit: -hit[2])
        live = {
            pk: memory
            for pk, memory in load([pk for pk, _, _ in found])
            if admits.admits(memory, now)
        }
        hits = [(live[pk], score) for pk, score, _ in found if pk in live][: asked.limit]
        if len(hits) >= asked.limit or exhausted:
            return hits
        want *= 4
