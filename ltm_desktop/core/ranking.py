"""Reinforcement: how use and its recency lift a memory in the precis and in search.

The first design: a memory's use count "feeds back into the importance weighting,
keeping frequently used memories ranked high". Here a memory's *recent uses* are its
uses, each halved for every ``USE_HEAT_HALF_LIFE`` (60 days) since it happened, and

    reinforcement = MAX_BOOST * recent / (recent + HALF_BOOST_USES)
    effective importance = importance + reinforcement

so three recent uses add one point, many add nearly two, and none add nothing: use
lifts a memory above equally important ones, but never above one two points more
important. The precis orders by effective importance, then by the last update; search
multiplies relevance by ``1 + SEARCH_PRIOR * effective importance`` (core.hybrid).
"""

from __future__ import annotations

from ltm_desktop.core.backend import USE_HEAT_EPOCH, USE_HEAT_HALF_LIFE
from ltm_desktop.core.records import Memory

MAX_BOOST = 2.0
HALF_BOOST_USES = 3.0
SEARCH_PRIOR = 0.02  # importance 10 with full reinforcement: relevance x 1.24


def heat(count: int, at: float) -> float:
    """What ``count`` uses at time ``at`` add to a memory's ``use_heat``."""
    return float(count * 2.0 ** ((at - USE_HEAT_EPOCH) / USE_HEAT_HALF_LIFE))


def recent_uses(memory: Memory, now: float) -> float:
    """The memory's uses, each halved for every half-life since it happened."""
    if memory.use_heat <= 0:
        return 0.0
    return float(memory.use_heat * 2.0 ** (-(now - USE_HEAT_EPOCH) / USE_HEAT_HALF_LIFE))


def reinforcement(memory: Memory, now: float) -> float:
    """Importance points earned by use: 0 (never used) up to, never reaching, MAX_BOOST."""
    recent = recent_uses(memory, now)
    return MAX_BOOST * recent / (recent + HALF_BOOST_USES)


def effective_importance(memory: Memory, now: float) -> float:
    return memory.importance + reinforcement(memory, now)


def precis_key(memory: Memory, now: float) -> tuple[float, float]:
    """Precis order (ascending sorts best first): effective importance, then newest update."""
    return (-effective_importance(memory, now), -memory.updated_at)


def search_prior(memory: Memory, now: float) -> float:
    """The factor a search hit's relevance is multiplied by."""
    return 1.0 + SEARCH_PRIOR * effective_importance(memory, now)
