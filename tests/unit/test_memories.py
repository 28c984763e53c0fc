"""Memory lifecycle through the service: add, dedup, supersede, update, delete, restore."""

from __future__ import annotations

import pytest

from ltm_desktop.core import rules
from ltm_desktop.core.errors import Conflict, InvalidInput, NotFound
from ltm_desktop.core.records import AddStatus, Category, ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from tests.conftest import FakeClock, ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend  # the core's rules, whatever stores them

DEPLOY = "Deploy the billing service with ./scripts/deploy.sh --env prod after the smoke tests pass"
DEPLOY_SIMILAR = (
    "Deploy the billing service with ./scripts/deploy.sh --env prod after the smoke tests succeed"
)


def test_add_returns_a_complete_record(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    result = service.add(
        project,
        make_draft(DEPLOY, category="skill", importance=7, tags=["Deploy"], ttl_days=30),
        "claude-code",
    )
    memory = result.memory
    assert result.status is AddStatus.CREATED
    assert memory.id.startswith("mem_")
    assert memory.project_id == project
    assert (
        memory.title
        == "Deploy the billing service with ./scripts/deploy.sh --env prod after the smoke…"
    )
    assert memory.category is Category.SKILL
    assert (memory.importance, memory.tags, memory.ttl_days) == (7, ("deploy",), 30)
    assert memory.use_count == 0
    assert memory.last_used_at is None
    assert memory.source == "claude-code"
    assert not memory.disabled
    assert memory.superseded_by is None
    assert memory.created_at == memory.updated_at <= clock.now
    assert service.get(memory.id) == memory


def test_missing_title_is_derived_from_content(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("Use ruff.\nIt replaces flake8."), "gui").memory
    assert memory.title == "Use ruff."
    titled = service.add(project, make_draft("Other text", title="  My  title "), "gui").memory
    assert titled.title == "My title"


def test_same_content_deduplicates(service: MemoryService, project: str, clock: FakeClock) -> None:
    first = service.add(project, make_draft("Use   PNPM, not npm"), "agent").memory
    clock.advance(60)
    again = service.add(project, make_draft("use pnpm, NOT npm "), "agent")
    assert again.status is AddStatus.DEDUPLICATED
    assert again.memory.id == first.id
    assert again.memory.use_count == 1
    assert again.memory.updated_at > first.updated_at
    assert service.count_memories(project) == 1
    assert service.get(first.id).use_count == 1


def test_dedup_is_per_project(service: MemoryService, project: str) -> None:
    other = service.resolve_scope(cwd="/home/dev/src/other", register=True)
    a = service.add(project, make_draft("Shared text"), "agent")
    b = service.add(other, make_draft("Shared text"), "agent")
    assert a.status is b.status is AddStatus.CREATED
    assert a.memory.id != b.memory.id


def test_near_duplicate_supersedes_and_restore_clears_it(
    service: MemoryService, project: str
) -> None:
    old = service.add(project, make_draft(DEPLOY), "agent").memory
    result = service.add(project, make_draft(DEPLOY_SIMILAR), "agent")
    assert result.status is AddStatus.SUPERSEDED
    assert result.superseded_id == old.id
    replaced = service.get(old.id)
    assert replaced.disabled
    assert replaced.superseded_by == result.memory.id
    assert [m.id for m in service.list_memories(project)] == [result.memory.id]

    restored = service.restore(old.id, "gui")
    assert not restored.disabled
    assert restored.superseded_by is None
    assert {m.id for m in service.list_memories(project)} == {old.id, result.memory.id}


def test_supersede_picks_the_most_similar(service: MemoryService, project: str) -> None:
    base = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima"
    far = service.add(project, make_draft(base + " mike november oscar"), "agent").memory
    near = service.add(project, make_draft(base + " mike"), "agent").memory
    assert service.get(far.id).disabled  # the second add superseded the first
    service.restore(far.id, "gui")
    result = service.add(project, make_draft(base), "agent")
    assert result.superseded_id == near.id
    assert not service.get(far.id).disabled


def test_dissimilar_content_does_not_supersede(service: MemoryService, project: str) -> None:
    service.add(project, make_draft(DEPLOY), "agent")
    result = service.add(
        project, make_draft("The staging database is rebuilt every night at 02:00"), "a"
    )
    assert result.status is AddStatus.CREATED
    assert result.superseded_id is None


def test_get_unknown_raises_not_found(service: MemoryService) -> None:
    with pytest.raises(NotFound, match="mem_nope"):
        service.get("mem_nope")


def test_update_is_a_partial_merge(service: MemoryService, project: str, clock: FakeClock) -> None:
    memory = service.add(
        project,
        make_draft("Old text about zebras", title="Old text", importance=2, tags=["a"]),
        "agent",
    ).memory
    clock.advance(5)
    updated = service.update(memory.id, {"importance": 9}, "gui")
    assert updated.importance == 9
    assert (updated.content, updated.title, updated.tags) == (
        "Old text about zebras",
        "Old text",
        ("a",),
    )
    assert updated.updated_at > memory.updated_at
    changed = service.update(memory.id, {"content": "New words entirely"}, "gui")
    assert changed.signature != memory.signature
    assert changed.title == "Old text"  # titles are not re-derived on edit
    assert [h.memory.id for h in service.search.query(project, "entirely")] == [memory.id]
    assert service.search.query(project, "zebras") == []


def test_update_with_same_values_records_nothing(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("Stable"), "agent").memory
    assert service.update(memory.id, {"content": "Stable"}, "gui") == memory
    assert [e.action for e in service.history.memory(memory.id)] == ["created"]


def test_update_refuses_to_duplicate_another_memory(service: MemoryService, project: str) -> None:
    a = service.add(project, make_draft("First fact"), "agent").memory
    b = service.add(project, make_draft("Second thing entirely"), "agent").memory
    with pytest.raises(Conflict) as info:
        service.update(b.id, {"content": "FIRST   fact"}, "gui")
    assert info.value.other_id == a.id
    assert "already has this content" in str(info.value)
    assert service.get(b.id).content == "Second thing entirely"


@pytest.mark.parametrize(
    ("changes", "field"),
    [({"importance": 99}, "importance"), ({"content": ""}, "content"), ({"bogus": 1}, "bogus")],
)
def test_bad_update_changes_nothing(
    service: MemoryService, project: str, changes: dict[str, object], field: str
) -> None:
    memory = service.add(project, make_draft("Keep me"), "agent").memory
    with pytest.raises(InvalidInput) as info:
        service.update(memory.id, changes, "gui")
    assert info.value.field == field
    assert service.get(memory.id) == memory


def test_soft_delete_frees_the_signature_and_hides_from_search(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("Ephemeral fact about kafka"), "agent").memory
    removed = service.remove(memory.id, "gui")
    assert removed.disabled
    assert removed.disabled_at is not None
    assert service.get(memory.id).disabled  # still readable for auditing
    assert service.search.query(project, "kafka") == []
    assert service.list_memories(project) == []
    again = service.add(project, make_draft("Ephemeral fact about kafka"), "agent")
    assert again.status is AddStatus.CREATED
    assert again.memory.id != memory.id


def test_restore_reindexes_and_refuses_to_shadow_a_twin(
    service: MemoryService, project: str
) -> None:
    memory = service.add(project, make_draft("Restorable fact about redis"), "agent").memory
    service.remove(memory.id, "gui")
    service.restore(memory.id, "gui")
    assert [h.memory.id for h in service.search.query(project, "redis")] == [memory.id]

    service.remove(memory.id, "gui")
    twin = service.add(project, make_draft("restorable fact about REDIS"), "agent").memory
    with pytest.raises(Conflict) as info:
        service.restore(memory.id, "gui")
    assert info.value.other_id == twin.id
    assert service.get(memory.id).disabled


def test_remove_twice_is_a_clear_error(service: MemoryService, project: str) -> None:
    memory = service.add(project, make_draft("Once"), "agent").memory
    service.remove(memory.id, "gui")
    with pytest.raises(Conflict, match="already removed"):
        service.remove(memory.id, "gui")
    with pytest.raises(NotFound):
        service.remove("mem_unknown", "gui")


def test_list_orders_by_importance_then_recency(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    ids = {}
    for name, importance in [("low", 1), ("high-old", 9), ("mid", 5), ("high-new", 9)]:
        draft = make_draft(f"{name} memory text", importance=importance)
        ids[name] = service.add(project, draft, "agent").memory.id
        clock.advance(10)
    listed = [m.id for m in service.list_memories(project)]
    assert listed == [ids["high-new"], ids["high-old"], ids["mid"], ids["low"]]


def test_list_pages_counts_and_filters(service: MemoryService, project: str) -> None:
    for i in range(25):
        category = "task" if i % 5 == 0 else "knowledge"
        tags = ["even"] if i % 2 == 0 else []
        service.add(
            project, make_draft(f"fact number {i} zz{i}", category=category, tags=tags), "a"
        )
    page1 = service.list_memories(project, ListQuery(limit=10, offset=0))
    page3 = service.list_memories(project, ListQuery(limit=10, offset=20))
    assert len(page1) == 10
    assert len(page3) == 5
    assert not {m.id for m in page1} & {m.id for m in page3}
    assert service.count_memories(project) == 25
    tasks = ListQuery(category="task")
    assert service.count_memories(project, tasks) == 5
    assert all(m.category is Category.TASK for m in service.list_memories(project, tasks))
    assert service.count_memories(project, ListQuery(tag="EVEN")) == 13
    victim = page1[0]
    service.remove(victim.id, "gui")
    assert service.count_memories(project) == 24
    assert service.count_memories(project, ListQuery(include_disabled=True)) == 25
    trash = service.list_memories(project, ListQuery(only_disabled=True))
    assert [m.id for m in trash] == [victim.id]


def test_list_rejects_unknown_sort_and_bad_paging(service: MemoryService, project: str) -> None:
    with pytest.raises(InvalidInput, match="order_by"):
        service.list_memories(project, ListQuery(order_by="content; DROP TABLE memories"))
    with pytest.raises(InvalidInput):
        service.list_memories(project, ListQuery(offset=-1))
    with pytest.raises(InvalidInput, match="category"):
        service.list_memories(project, ListQuery(category="nope"))


def test_list_can_sort_by_other_columns(service: MemoryService, project: str) -> None:
    for title in ["banana", "Apple", "cherry"]:
        service.add(project, make_draft(f"{title} content", title=title), "agent")
    titles = [
        m.title
        for m in service.list_memories(project, ListQuery(order_by="title", descending=False))
    ]
    assert titles == ["Apple", "banana", "cherry"]


def test_unknown_scope_lists_nothing(service: MemoryService) -> None:
    assert service.list_memories("proj_0000000000000000") == []
    assert service.count_memories("proj_0000000000000000") == 0


def test_projects_remember_path_and_name(service: MemoryService) -> None:
    project_id = service.resolve_scope(cwd="/home/dev/src/shop-web/", register=True)
    service.add(project_id, make_draft("x y z"), "agent")
    projects = {p.project_id: (p, n) for p, n in service.projects()}
    project, count = projects[project_id]
    assert (project.path, project.name, count) == ("/home/dev/src/shop-web", "shop-web", 1)
    assert "global" in projects


def test_resolve_scope_needs_exactly_one(service: MemoryService) -> None:
    with pytest.raises(InvalidInput):
        service.resolve_scope()
    with pytest.raises(InvalidInput):
        service.resolve_scope(cwd="/a", project_id="global")
    assert service.resolve_scope(project_id="global") == service.ambient.personal
    assert service.resolve_scope(project_id="team") == "global"


def test_writing_to_an_unseen_project_id_registers_it(service: MemoryService) -> None:
    service.add("proj_00000000000000aa", make_draft("hello there"), "agent")
    assert "proj_00000000000000aa" in {p.project_id for p, _ in service.projects()}


def test_import_is_one_audited_transaction(service: MemoryService, project: str) -> None:
    drafts = [make_draft(f"imported fact {i} about topic{i}x") for i in range(5)]
    drafts.append(make_draft("IMPORTED fact 0 about topic0x"))  # same text: skipped
    imported = service.import_memories(project, drafts, "importer")
    assert len(imported) == 5
    assert service.count_memories(project) == 5
    assert {e.action.value for m in imported for e in service.history.memory(m.id)} == {"imported"}
    assert service.precis(project).memory_ids  # precis refreshed


def test_import_skips_what_is_active_and_takes_back_what_was_removed(
    service: MemoryService, project: str
) -> None:
    """The batch's signatures are checked together: an active text is skipped, a removed
    one's text comes back as a new memory, and the history still checks out."""
    kept = service.add(project, make_draft("deploys go out on fridays"), "a").memory
    gone = service.add(project, make_draft("staging lives on vm-12"), "a").memory
    service.remove(gone.id, "gui")
    drafts = [make_draft("Deploys go out on Fridays"), make_draft("staging lives on vm-12")]
    drafts += [make_draft(f"imported fact {i}") for i in range(3)]
    imported = service.import_memories(project, drafts, "importer")
    assert [m.content for m in imported] == [
        "staging lives on vm-12",
        *(f"imported fact {i}" for i in range(3)),
    ]
    assert gone.id not in {m.id for m in imported}
    assert service.count_memories(project) == 5
    assert service.get(kept.id).use_count == kept.use_count  # skipped, not deduplicated
    assert service.integrity.verify().problems == ()


def test_import_with_one_bad_draft_imports_nothing(service: MemoryService, project: str) -> None:
    with pytest.raises(InvalidInput, match="importance"):
        service.import_memories(
            project, [make_draft("fine"), make_draft("bad", importance=12)], "x"
        )
    assert service.count_memories(project) == 0


def test_restoring_an_expired_memory_renews_it(
    service: MemoryService, project: str, clock: FakeClock
) -> None:
    memory = service.add(project, make_draft("renew me after expiry", ttl_days=1), "a").memory
    clock.advance(days=2)
    assert service.purge_expired(project) == 1
    restored = service.restore(memory.id, "gui")
    assert not restored.is_expired(service.now())
    assert [m.id for m in service.list_memories(project)] == [memory.id]
    event = service.history.memory(memory.id)[-1]  # the renewal is in the audit, as documented
    assert event.action.value == "restored"
    assert event.before == {"disabled": True, "updated_at": memory.updated_at}
    assert event.after == {"disabled": False, "updated_at": restored.updated_at}


def test_supersede_survives_an_edit_of_one_rare_word(service: MemoryService, project: str) -> None:
    base = "The connection pool for the orders database holds {n} connections per worker process"
    old = service.add(project, make_draft(base.format(n="twenty")), "agent").memory
    result = service.add(project, make_draft(base.format(n="thirty")), "agent")
    assert result.superseded_id == old.id


def test_supersede_does_not_depend_on_how_long_the_process_ran(
    service: MemoryService, project: str
) -> None:
    """Word counts first seen as 0 must not stay 0 in the rarity cache (review finding)."""

    def text(i: int, word: str = "note") -> str:
        return f"kubernetes deployment configuration {word} number with item zz{i} qq{i}"

    ids = [service.add(project, make_draft(text(i)), "a").memory.id for i in range(80)]
    result = service.add(project, make_draft(text(70, "memo")), "a")
    assert result.superseded_id == ids[70]


def test_a_cwd_resolves_to_its_name_while_a_write_has_created_but_not_registered_it(
    service: MemoryService,
) -> None:
    """Two agents' first writes at once: the second must not see the id as the name."""
    project_id = service.resolve_scope(cwd="/srv/rooted")  # not registered
    service.add(project_id, make_draft("first write creates the scope"), "agent")
    project = service.resolve_cwd("/srv/rooted")
    assert (project.project_id, project.name, project.path) == (project_id, "rooted", "/srv/rooted")


def test_a_refinement_adding_several_words_supersedes(service: MemoryService, project: str) -> None:
    """The 0.786 pair: three new words (the new text's rarest) once hid the original from
    the candidate search, and the refinement was stored twice."""
    old = service.add(
        project,
        make_draft("Sentry DSN lives in the vault under ops/sentry for every staging environment"),
        "agent",
    ).memory
    refined = (
        "Sentry DSN lives in the vault under ops/sentry for every staging environment "
        "rotated quarterly zeppelin"
    )
    tokens_old = rules.similarity_tokens(old.content)
    tokens_new = rules.similarity_tokens(refined)
    assert 0.75 < rules.jaccard(tokens_old, tokens_new) < 0.8  # 11 shared of 14
    result = service.add(project, make_draft(refined), "agent")
    assert (result.status, result.superseded_id) == (AddStatus.SUPERSEDED, old.id)


def test_the_default_importance_is_zero_unless_configured(make_service: ServiceFactory) -> None:
    """The first design's schema: 0; ``[memory] default_importance`` changes it."""
    plain = make_service()
    scope = plain.resolve_scope(cwd="/src/a")
    assert plain.add(scope, make_draft("no importance given"), "a").memory.importance == 0
    tuned = make_service(settings=Settings(default_importance=3))
    assert tuned.add(scope, make_draft("another without one"), "a").memory.importance == 3
    assert tuned.add(scope, make_draft("given", importance=8), "a").memory.importance == 8
    imported = tuned.import_memories(scope, [make_draft("imported without one")], "a")
    assert imported[0].importance == 3
