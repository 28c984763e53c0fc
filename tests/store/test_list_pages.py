"""A page at any offset, in every order the memory list offers, walks an index (no sort)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ltm_desktop.core.records import ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.store.memory_reads import PAGE_INDEXES, list_sql
from tests.conftest import make_draft

ORDERS = sorted(PAGE_INDEXES)


@pytest.fixture
def crowded(service: MemoryService, project: str) -> str:
    """Sixty memories whose sort keys collide a lot (ties are where paging goes wrong)."""
    for i in range(60):
        service.add(
            project,
            make_draft(
                f"alpha{i} bravo{i} charlie{i} delta{i} echo{i} part {i % 7}",
                title=["alpha", "Beta", "gamma"][i % 3],
                category=["knowledge", "skill", "preference"][i % 3],
                importance=1 + i % 4,
            ),
            ["agent", "claude", "gui"][i % 3],
        )
    for words in ("part 1", "part 2", "part 2 alpha4", "part 3"):  # uses, some tied
        assert service.search.query(project, words, limit=20)
    return project


@pytest.mark.parametrize(("order_by", "descending"), ORDERS)
def test_pages_at_every_offset_tile_the_whole_list(
    service: MemoryService, crowded: str, order_by: str, descending: bool
) -> None:
    def page(offset: int, limit: int) -> list[str]:
        query = ListQuery(order_by=order_by, descending=descending, limit=limit, offset=offset)
        return [m.id for m in service.list_memories(crowded, query)]

    whole = page(0, 1_000)
    assert len(set(whole)) == len(whole) == 60
    assert [i for offset in range(0, 60, 7) for i in page(offset, 7)] == whole


@pytest.mark.parametrize(("order_by", "descending"), ORDERS)
def test_a_deep_page_walks_its_index_without_sorting(
    service: MemoryService, crowded: str, tmp_path: Path, order_by: str, descending: bool
) -> None:
    with sqlite3.connect(DataPaths(tmp_path / "data").db_path) as conn:
        (pk,) = conn.execute("SELECT pk FROM projects WHERE project_id = ?", (crowded,)).fetchone()
        query = ListQuery(order_by=order_by, descending=descending, limit=200, offset=99_800)
        sql, params = list_sql(pk, query, 0.0)
        plan = " | ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))
    assert f"USING INDEX {PAGE_INDEXES[order_by, descending]}" in plan
    assert "TEMP B-TREE" not in plan


def test_a_filtered_page_leaves_the_index_to_the_planner(tmp_path: Path) -> None:
    sql, _ = list_sql(1, ListQuery(category="skill"), 0.0)
    assert "INDEXED BY" not in sql
    sql, _ = list_sql(1, ListQuery(include_disabled=True), 0.0)
    assert "INDEXED BY" not in sql
