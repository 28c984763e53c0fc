"""Reinforcement feeds ranking: use and its recency lift a memory (core.ranking)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ltm_desktop.core import ranking
from ltm_desktop.core.backend import USE_HEAT_HALF_LIFE
from ltm_desktop.core.records import Category, Memory
from ltm_desktop.core.service import MemoryService
from tests.conftest import START, FakeClock, make_draft
from tests.unit.test_precis import memory

NOW = START

pytestmark = pytest.mark.every_backend


def test_the_formula_as_documented() -> None:
    memory = used_memory(uses=0)
    assert ranking.reinforcement(memory, NOW) == 0
    three = used_memory(uses=3)
    assert ranking.reinforcement(three, NOW) == pytest.approx(1.0)  # 3 recent uses: +1
    many = used_memory(uses=10_000)
    assert 1.99 < ranking.reinforcement(many, NOW) < ranking.MAX_BOOST
    later = NOW + USE_HEAT_HALF_LIFE  # one half-life later the 3 uses count 1.5
    assert ranking.recent_uses(three, later) == pytest.approx(1.5)


def used_memory(uses: int) -> Memory:
    return replace(memory(1), use_count=uses, use_heat=ranking.heat(uses, NOW))


def test_a_frequently_used_memory_rises_above_an_equally_important_unused_one_in_the_precis(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    used = service.add(project, make_draft("Deploys go through the release train"), "a").memory
    clock.advance(10)
    unused = service.add(project, make_draft("The staging box is called bruno"), "a").memory
    assert service.precis(project).candidate_ids[:2] == (unused.id, used.id)  # newer first
    for _ in range(4):
        service.search.query(project, "release train", reinforce=True)
    service._uses.flush()  # the precis reads the store, as MEMORY.md does after a write
    assert service.precis(project).candidate_ids[:2] == (used.id, unused.id)
    important = service.add(project, make_draft("Never force-push main", importance=2), "a")
    assert service.precis(project).candidate_ids[0] == important.memory.id  # +2 beats any use


def test_the_precis_tags_memories_by_category(service: MemoryService, project: str) -> None:
    service.add(project, make_draft("Answer in British English", category=Category.PREFERENCE), "a")
    service.add(project, make_draft("Migrate the billing cron", category="task"), "a")
    service.add(project, make_draft("Payments use Stripe"), "a")
    text = service.precis(project).text
    assert "## Answer in British English (preference)\n\n" in text
    assert "## Migrate the billing cron (task)\n\n" in text
    assert "## Payments use Stripe\n\n" in text  # plain knowledge stays untagged


def test_a_frequently_used_memory_rises_above_an_equally_important_unused_one_in_search(
    service: MemoryService, project: str
) -> None:
    two = service.add(project, make_draft("backup runs nightly at two"), "a").memory
    six = service.add(project, make_draft("backup runs nightly at six"), "a").memory
    hits = service.search.query(project, "backup nightly")
    assert hits[0].score == hits[1].score  # they match equally well
    second = two if hits[1].memory.id == two.id else six
    for _ in range(6):  # agents keep finding the second one by another question
        service.search.query(project, second.content, limit=1, reinforce=True)
    assert service.search.query(project, "backup nightly")[0].memory.id == second.id
