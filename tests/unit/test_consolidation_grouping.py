"""Finding groups of memories that say the same thing: the thresholds on realistic pairs
(the bundled static model), and the bounds of a run (fake neighbours)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cache

import pytest

from ltm_desktop.core.consolidation.consolidator import Consolidator
from ltm_desktop.core.consolidation.grouping import Limits, alike, find_groups
from ltm_desktop.core.records import Category, Memory, MemoryDraft
from ltm_desktop.embedding.static import StaticEmbedder
from tests.conftest import ServiceFactory

# Paraphrases: the same fact in other words (few shared words: Jaccard 0.0-0.4).
PARAPHRASES = [
    (
        "Use pytest for all tests in this repo; run them with `pytest -q`.",
        "Tests are written with pytest and run via pytest -q.",
    ),
    (
        "Database migrations live in store/migrations.py and each one is numbered.",
        "Schema changes are numbered migrations in store/migrations.py.",
    ),
    (
        "The user likes short commit messages in the imperative mood.",
        "Commit messages: imperative mood, kept short (user preference).",
    ),
    (
        "Logging uses structlog with JSON output in production.",
        "In production, logs are JSON, written through structlog.",
    ),
    (
        "Never use git add -A in this repository; add files by name.",
        "Stage files by their paths, never with git add -A.",
    ),
    (
        "The user wants answers in British English.",
        "Write in British English spelling, as the user prefers.",
    ),
]
# The same topic, another fact: never one group.
DIFFERENT = [
    (
        "Use pytest for all tests in this repo; run them with `pytest -q`.",
        "Format the code with ruff format prior to every commit.",
    ),
    (
        "The project uses PostgreSQL 15 in production.",
        "The project uses SQLite for local development.",
    ),
    (
        "Always run ruff format before committing.",
        "Always run mypy strict before committing.",
    ),
    (
        "Schema changes are numbered migrations in store/migrations.py.",
        "Each migration takes a backup of the database first.",
    ),
    (
        "The user wants answers in British English.",
        "The user wants answers to be short and direct.",
    ),
    (
        "Releases are tagged vX.Y.Z and built by the release workflow in CI.",
        "Nightly builds are published by the nightly workflow in CI.",
    ),
]


@cache
def static() -> StaticEmbedder:
    return StaticEmbedder()


def memory(content: str, number: int = 0, project: str = "proj_x") -> Memory:
    return Memory(
        id=f"mem_{number:04d}",
        project_id=project,
        title=content[:40],
        content=content,
        category=Category.KNOWLEDGE,
        importance=0,
        tags=(),
        files=(),
        signature=str(number),
        created_at=float(number),
        updated_at=float(number),
        last_used_at=None,
        use_count=0,
        ttl_days=None,
        disabled=False,
        source="gui",
        superseded_by=None,
    )


def static_cosine(a: str, b: str) -> float:
    import numpy as np

    first, second = (np.frombuffer(v, dtype="<f4") for v in static().embed([a, b]))
    return float(first @ second)


@pytest.mark.parametrize(("a", "b"), PARAPHRASES)
def test_paraphrases_are_alike(a: str, b: str) -> None:
    assert alike(memory(a), memory(b), static_cosine(a, b))


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_memories_that_say_other_things_are_not(a: str, b: str) -> None:
    assert not alike(memory(a), memory(b), static_cosine(a, b))


def test_without_vectors_only_a_large_word_overlap_is_alike() -> None:
    a, b = PARAPHRASES[0]
    assert not alike(memory(a), memory(b), None)
    near = "Run the unit tests with make test before every push to main"
    assert alike(memory(near), memory(near + " please"), None)


class Graph:
    """Fake neighbours: memories, which pairs are alike (cosine 0.9) or not (0.0); counts
    the searches made."""

    def __init__(self, memories: Sequence[Memory], edges: Iterable[tuple[int, int]]) -> None:
        self.memories = list(memories)
        self.edges = {frozenset(e) for e in edges}
        self.searches = 0

    def _n(self, m: Memory) -> int:
        return int(m.id.removeprefix("mem_"))

    def seeds(self, project_id: str, limit: int) -> Iterable[Memory]:
        return self.memories[:limit]

    def candidates(self, project_id: str, memory: Memory, limit: int) -> list[Memory]:
        self.searches += 1
        n = self._n(memory)
        near = [m for m in self.memories if frozenset((n, self._n(m))) in self.edges]
        return near[:limit]

    def cosine(self, a: Memory, b: Memory) -> float | None:
        return 0.9 if frozenset((self._n(a), self._n(b))) in self.edges else 0.0


def ids(groups: Sequence[Sequence[Memory]]) -> list[set[int]]:
    return [{int(m.id[4:]) for m in g} for g in groups]


def many(n: int) -> list[Memory]:
    return [memory(f"memory number {i}", i) for i in range(n)]


def test_a_group_is_a_clique_and_each_memory_is_in_one_group() -> None:
    # 0-1-2 all alike; 2-3 alike but 3 is not like 0 or 1 (a chain must not join it)
    graph = Graph(many(6), [(0, 1), (0, 2), (1, 2), (2, 3), (4, 5)])
    groups = find_groups("proj_x", graph, Limits())
    assert ids(groups) == [{0, 1, 2}, {4, 5}]


def test_the_cap_on_groups_and_seeds_bounds_a_run() -> None:
    graph = Graph(many(40), [(i, i + 1) for i in range(0, 40, 2)])
    groups = find_groups("proj_x", graph, replace(Limits(), max_groups=3))
    assert len(groups) == 3
    assert graph.searches == 3  # seeds 0, 2 and 4, once each; then the cap stops the run
    graph = Graph(many(40), [(i, i + 1) for i in range(0, 40, 2)])
    found = find_groups("proj_x", graph, replace(Limits(), max_groups=100, max_seeds=10))
    assert len(found) == 5
    assert graph.searches == 5  # never more searches than seeds


def test_groups_are_at_most_max_size() -> None:
    graph = Graph(many(8), [(a, b) for a in range(8) for b in range(8) if a < b])
    groups = find_groups("proj_x", graph, replace(Limits(), max_size=3))
    assert [len(g) for g in groups] == [3, 3, 2]


def test_excluded_memories_and_declined_groups_are_left_out() -> None:
    graph = Graph(many(6), [(0, 1), (2, 3), (4, 5)])
    groups = find_groups(
        "proj_x",
        graph,
        Limits(),
        exclude={"mem_0000"},
        declined={frozenset({"mem_0002", "mem_0003"})},
    )
    assert ids(groups) == [{4, 5}]


def test_a_real_scope_groups_its_paraphrases_and_nothing_else(
    make_service: ServiceFactory,
) -> None:
    service = make_service(embedder=static())
    project = service.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
    for a, b in PARAPHRASES[:3]:
        service.add(project, MemoryDraft(content=a), "gui")
        service.add(project, MemoryDraft(content=b), "gui")
    for a, b in DIFFERENT[1:3]:
        service.add(project, MemoryDraft(content=a), "gui")
        service.add(project, MemoryDraft(content=b), "gui")
    groups = Consolidator(service.inbox, static()).find(project)
    found = sorted(sorted(m.content for m in g) for g in groups)
    assert found == sorted(sorted(pair) for pair in PARAPHRASES[:3])
