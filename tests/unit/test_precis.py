"""MEMORY.md: rendering, budget truncation, atomic regeneration, prompt section."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ltm_desktop.core.memory_md.precis import (
    TRUNCATION_MARK,
    PrecisManager,
    prompt_section,
    render_block,
    render_precis,
)
from ltm_desktop.core.ranking import precis_key
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Category, ListQuery, Memory
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import FakeClock, ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend


def memory(i: int, title: str = "", content: str = "", importance: int = 5) -> Memory:
    return Memory(
        id=f"m{i}",
        project_id="global",
        title=title or f"T{i}",
        content=content or f"C{i}",
        category=Category.KNOWLEDGE,
        importance=importance,
        tags=(),
        signature="",
        created_at=0,
        updated_at=float(i),
        last_used_at=None,
        use_count=0,
        ttl_days=None,
        disabled=False,
        source="t",
        superseded_by=None,
    )


def test_render_format() -> None:
    rendered = render_precis([memory(1, "One", "first"), memory(2, "Two", "second")], 5120)
    assert rendered.text == "## One\n\nfirst\n\n## Two\n\nsecond"
    assert not rendered.truncated
    assert rendered.memory_ids == ("m1", "m2")
    assert render_precis([], 5120).text == ""


def test_truncation_marks_the_cut_and_lists_partial_blocks() -> None:
    blocks = [memory(i, f"Title {i}", "x" * 100) for i in range(10)]
    rendered = render_precis(blocks, 300)
    assert rendered.truncated
    assert rendered.text.endswith(TRUNCATION_MARK)
    assert len(rendered.text.encode()) <= 300
    assert rendered.memory_ids == ("m0", "m1", "m2")  # the third block is cut part-way


def test_truncation_cuts_at_a_character_boundary() -> None:
    rendered = render_precis([memory(1, "表", "数据库" * 200)], 256)
    raw = rendered.text.encode("utf-8")
    assert len(raw) <= 256
    raw.decode("utf-8")  # strict: must not raise


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=400)), max_size=12
    ),
    st.integers(min_value=len(TRUNCATION_MARK.encode()), max_value=3000),
)
def test_property_never_over_budget_and_always_utf8(
    pairs: list[tuple[str, str]], budget: int
) -> None:
    memories = [memory(i, t, c) for i, (t, c) in enumerate(pairs)]
    rendered = render_precis(memories, budget)
    raw = rendered.text.encode("utf-8", errors="strict")
    assert len(raw) <= budget
    full = "\n\n".join(render_block(m) for m in memories)
    if len(full.encode("utf-8", errors="surrogatepass")) <= budget:
        assert rendered.text == full
        assert not rendered.truncated
    else:
        assert rendered.truncated
        assert rendered.text.endswith(TRUNCATION_MARK)
    assert list(rendered.memory_ids) == [m.id for m in memories[: len(rendered.memory_ids)]]


def test_precis_follows_every_write(service: MemoryService, project: str) -> None:
    path = Path(service.precis(project).path)
    assert path.name == "MEMORY.md"
    memory = service.add(
        project, make_draft("Always run migrations first", title="Migrations"), "a"
    ).memory
    assert service.memory_md.flush()
    assert "## Migrations\n\nAlways run migrations first" in path.read_text()
    service.update(memory.id, {"title": "DB migrations"}, "gui")
    assert service.memory_md.flush()
    assert path.read_text().startswith("## DB migrations")
    service.remove(memory.id, "gui")
    assert service.memory_md.flush()
    assert path.read_text() == ""
    assert not [p for p in path.parent.iterdir() if p.name != "MEMORY.md"]  # no temp files left


def test_precis_ranks_project_and_global_together(service: MemoryService, project: str) -> None:
    service.add(project, make_draft("project detail", title="P", importance=4), "a")
    service.add(GLOBAL_PROJECT_ID, make_draft("user likes tabs", title="G", importance=9), "a")
    info = service.precis(project)
    assert info.text.startswith("## G")
    assert "## P" in info.text
    assert service.memory_md.flush()
    assert Path(service.precis(GLOBAL_PROJECT_ID).path).read_text() == "## G\n\nuser likes tabs"
    # a global write refreshes every project's file, in the background
    assert Path(info.path).read_text() == info.text


def test_precis_reports_budget_and_ids(make_service: ServiceFactory) -> None:
    service = make_service(settings=Settings(precis_budget_bytes=400, precis_top_n=5))
    project = service.resolve_scope(cwd="/srv/app", register=True)
    ids = [
        service.add(
            project, make_draft(f"{'word' * 30} number{i}", importance=9 - i), "a"
        ).memory.id
        for i in range(8)
    ]
    info = service.precis(project)
    assert info.budget == 400
    assert info.truncated
    assert info.bytes == len(info.text.encode()) <= 400
    assert info.candidate_ids == tuple(ids[:5])
    assert info.memory_ids == tuple(ids[: len(info.memory_ids)])
    assert len(info.memory_ids) < 5


def test_missing_precis_reads_empty_and_startup_regenerates(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    service = make_service()
    project = service.resolve_scope(cwd="/srv/app", register=True)
    assert service.precis_manager.read_file("proj_ffffffffffffffff") == ""
    service.add(project, make_draft("kept in the store"), "a")
    path = Path(service.precis(project).path)
    service.close()
    path.unlink()
    path.with_name("MEMORY.md").parent.joinpath("junk").write_text("x")
    reopened = make_service()
    assert reopened.precis_manager.read_file(project) == "## kept in the store\n\nkept in the store"


def test_prompt_section(service: MemoryService, project: str) -> None:
    assert service.prompt_section(project) == ""
    service.add(project, make_draft("Use uv to install", title="Tooling"), "a")
    section = service.prompt_section(project)
    assert section.startswith("## Long-Term Memory\n\n")
    assert "search" in section.lower()
    assert section.endswith("## Tooling\n\nUse uv to install")
    assert prompt_section("", "nudge") == ""


def test_budget_too_small_is_refused() -> None:
    with pytest.raises(ValueError, match="budget"):
        render_precis([memory(1)], 3)


def test_writes_outside_the_top_n_leave_the_file_alone(make_service: ServiceFactory) -> None:
    service = make_service(settings=Settings(precis_top_n=2))
    project = service.resolve_scope(cwd="/srv/app", register=True)
    for i, importance in enumerate((9, 8)):
        service.add(project, make_draft(f"top memory {i} alpha{i}", importance=importance), "a")
    path = Path(service.precis(project).path)
    assert service.memory_md.flush()
    before = path.stat().st_mtime_ns, path.read_text()
    low = service.add(project, make_draft("unimportant detail", importance=1), "a").memory
    assert service.memory_md.flush()
    assert (path.stat().st_mtime_ns, path.read_text()) == before
    service.update(low.id, {"importance": 10}, "gui")  # now it enters the top 2
    assert service.memory_md.flush()
    assert path.read_text().startswith("## unimportant detail")


def test_another_process_lowering_the_top_n_is_noticed(
    make_service: ServiceFactory, tmp_path: Path
) -> None:
    settings = Settings(precis_top_n=2)
    mine = make_service(tmp_path / "shared", settings=settings)
    theirs = make_service(tmp_path / "shared", settings=settings)
    project = mine.resolve_scope(cwd="/srv/app", register=True)
    top = mine.add(project, make_draft("first place", importance=9), "a").memory
    mine.add(project, make_draft("second place", importance=8), "a")
    theirs.remove(top.id, "gui")  # the other process frees a slot in the top 2
    mine.add(project, make_draft("now it fits", importance=3), "a")
    assert mine.memory_md.flush()
    text = Path(mine.precis(project).path).read_text()
    assert text == "## second place\n\nsecond place\n\n## now it fits\n\nnow it fits"


def test_a_write_after_a_top_memory_expired_refreshes_the_file(
    make_service: ServiceFactory, clock: FakeClock
) -> None:
    service = make_service(settings=Settings(precis_top_n=2))
    project = service.resolve_scope(cwd="/srv/app", register=True)
    service.add(project, make_draft("alpha", importance=9, ttl_days=1), "a")
    service.add(project, make_draft("bravo", importance=8), "a")
    clock.advance(days=2)  # alpha expired, but nothing wrote since
    service.add(project, make_draft("charlie", importance=3), "a")
    assert service.memory_md.flush()
    text = Path(service.precis(project).path).read_text()
    assert text == "## bravo\n\nbravo\n\n## charlie\n\ncharlie"


def test_the_prompt_section_names_the_memory_tools(service: MemoryService, project: str) -> None:
    """First design §7: the section tells the agent which tools search and write its memory."""
    service.add(project, make_draft("Run the tests with make test"), "a")
    section = service.prompt_section(project)
    assert "`memory_search`" in section
    assert "`memory_write`" in section


class _CountingReads:
    """The store's top-N reads, counted (the precis reads through ``top_memories`` only)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.calls: list[tuple[tuple[str, ...], tuple[int, ...]]] = []

    def top_memories(
        self, project_ids: Sequence[str], importances: Sequence[int], n: int, now: float
    ) -> list[Memory]:
        self.calls.append((tuple(project_ids), tuple(importances)))
        found: list[Memory] = self._store.top_memories(project_ids, importances, n, now)
        return found


def test_the_precis_is_the_exact_top_n_read_a_few_levels_at_a_time(
    make_service: ServiceFactory, clock: FakeClock
) -> None:
    """Every level holds more than N memories in both scopes, some reinforced by use: the
    precis is the top N of all of them in precis order, found with two reads of two levels
    of both scopes each (not a read per scope and level)."""
    service = make_service(settings=Settings(precis_top_n=6))
    project = "proj_00000000000000a1"
    for s, scope in enumerate((project, GLOBAL_PROJECT_ID)):
        for importance in range(11):
            for k in range(8):
                words = " ".join(f"w{s}i{importance}k{k}n{j}" for j in range(5))
                draft = make_draft(f"kw{importance}x{k}s{s} {words}", importance=importance)
                service.add(scope, draft, "a")
                clock.advance(1)
    for _ in range(9):  # two level-9 memories reinforced: up to +2, above plain level 10s
        service.search.query(project, "kw9x0s0", reinforce=True)
        service.search.query(project, "kw9x1s0", reinforce=True)
    service._uses.flush()
    now = clock()
    everything = [
        m
        for scope in (project, GLOBAL_PROJECT_ID)
        for m in service.store.list_memories(scope, ListQuery(limit=500), now)
    ]
    assert len(everything) == 2 * 11 * 8  # nothing was taken for a duplicate
    expected = [m.id for m in sorted(everything, key=lambda m: precis_key(m, now))[:6]]
    counting = _CountingReads(service.store)
    manager = service.precis_manager
    precis = PrecisManager(counting, manager.path_for, manager.budget, 6, clock)  # type: ignore[arg-type]
    assert [m.id for m in precis.candidates(project)] == expected
    assert any("kw9x" in m.content for m in precis.candidates(project)[:2])  # use lifted them
    assert counting.calls[0] == ((project, GLOBAL_PROJECT_ID), (10, 9))
    assert len(counting.calls) == 2  # levels 10 and 9, then 8 and 7 (a level-9 used beats 10)
