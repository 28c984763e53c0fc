"""The review inbox: what an extraction stores, and approving, rejecting and reopening it.

Run on every backend: the decisions are the core's (core.reviewing, core.proposing).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ltm_desktop.core.errors import Conflict, InvalidInput, NotFound, StaleEdit
from ltm_desktop.core.inbox.extraction import MAX_ENTRIES, new_run_id
from ltm_desktop.core.inbox.proposals import ProposalState, RunStatus
from ltm_desktop.core.records import (
    GLOBAL_PROJECT_ID,
    AuditAction,
    ListQuery,
    MemoryDraft,
    Provenance,
    ReviewState,
)
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.store.migrations import MIGRATIONS, latest_version
from ltm_desktop.store.sqlite_store import SqliteStore
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.every_backend

DEPLOY = {"title": "Deploy", "content": "Deploy with make deploy from the main branch"}
PREFS = {"content": "The user prefers tabs over spaces in Go code", "category": "preference"}


def provenance(service: MemoryService, **overrides: Any) -> Provenance:
    values = {
        "run_id": new_run_id(service.now()),
        "agent": "claude-code",
        "session_id": "s-1",
        "source": "/tmp/t.jsonl",
        "model": "llama3",
        "extracted_at": service.now(),
    }
    return Provenance(**{**values, **overrides})


def extract(service: MemoryService, project: str, entries: list[Any], *, review: bool) -> Any:
    return service.inbox.store_extraction(
        project, entries, provenance(service), review=review, started_at=service.now()
    )


def actions(service: MemoryService, item_id: str) -> list[tuple[str, str]]:
    return [(e.action.value, e.actor) for e in service.history.memory(item_id)]


def test_without_review_entries_go_in_unreviewed_with_their_provenance(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY, PREFS], review=False)
    assert (run.status, run.added, run.proposed) == (RunStatus.OK, 2, 0)
    memories = service.list_memories(project)
    assert {m.review_state for m in memories} == {ReviewState.UNREVIEWED}
    assert {m.source for m in memories} == {"extractor"}
    assert all(m.provenance is not None and m.provenance.run_id == run.id for m in memories)
    assert [h.memory.title for h in service.search.query(project, "deploy")] == ["Deploy"]
    assert "Deploy with make deploy" in service.precis(project).text
    assert {e.id for e in service.inbox.entries(project)} == {m.id for m in memories}
    assert service.inbox.counts() == {project: 2}
    created = service.history.memory(run.item_ids[0])[0]
    assert (created.action, created.actor) == (AuditAction.CREATED, "extractor")
    assert created.after is not None
    assert created.after["provenance"]["model"] == "llama3"


def test_with_review_entries_are_proposals_held_apart_from_memories(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY, PREFS], review=True)
    assert (run.added, run.proposed) == (0, 2)
    assert service.list_memories(project, ListQuery(include_disabled=True)) == []
    assert service.count_memories(project) == 0
    assert service.stats(project).active == 0
    assert service.search.query(project, "deploy") == []
    assert service.precis(project).text == ""
    entries = service.inbox.entries()
    assert [e.kind for e in entries] == ["proposal", "proposal"]
    proposal = service.inbox.get(run.item_ids[0])
    assert proposal.state is ProposalState.PROPOSED
    assert proposal.provenance.session_id == "s-1"
    assert actions(service, proposal.id) == [("proposed", "extractor")]
    assert service.inbox.count() == 2


def test_known_texts_invalid_entries_and_secrets_are_counted_not_stored(
    service: MemoryService, project: str
) -> None:
    service.add(project, MemoryDraft(content=DEPLOY["content"]), "agent")
    entries: list[Any] = [
        DEPLOY,  # already a memory
        PREFS,
        PREFS,  # twice in one reply
        "not an object",
        {"title": "no content"},
        {"content": "x", "category": "gossip"},
        {"content": "Use the key AKIAIOSFODNN7EXAMPLE for the staging bucket"},
    ]
    run = extract(service, project, entries, review=True)
    assert (run.proposed, run.duplicates, run.invalid, run.refused) == (1, 1, 3, 1)
    again = extract(service, project, [PREFS], review=True)  # still waiting: not twice
    assert (again.proposed, again.duplicates) == (0, 1)
    unreviewed = extract(service, project, [DEPLOY], review=False)
    assert (unreviewed.added, unreviewed.duplicates) == (0, 1)
    assert service.list_memories(project)[0].use_count == 1  # refreshed, as any add


def test_a_reply_past_the_limit_does_not_flood_the_inbox(
    service: MemoryService, project: str
) -> None:
    """The prompt asks for at most MAX_ENTRIES; a model that sent 500 had 500 proposals."""
    entries: list[Any] = [
        {"content": f"Service number {i} listens on port {8000 + i} in staging"} for i in range(50)
    ]
    run = extract(service, project, entries, review=True)
    assert (run.proposed, run.invalid) == (MAX_ENTRIES, 50 - MAX_ENTRIES)
    assert len(service.inbox.entries(project)) == MAX_ENTRIES
    assert "10 proposed, 40 invalid" in run.summary()


def test_approving_a_proposal_adds_it_through_the_normal_rules(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY], review=True)
    proposal = service.inbox.get(run.item_ids[0])
    decision = service.inbox.approve(proposal.id, "gui", expected_updated_at=proposal.updated_at)
    assert decision.status == "created"
    memory = decision.memory
    assert memory is not None
    assert (memory.source, memory.review_state) == ("extractor", None)
    assert memory.provenance == proposal.provenance
    assert service.inbox.get(proposal.id).state is ProposalState.APPROVED
    assert actions(service, proposal.id) == [("proposed", "extractor"), ("approved", "gui")]
    assert actions(service, memory.id) == [("created", "gui")]
    assert service.inbox.entries() == []
    assert "Deploy with make deploy" in service.precis(project).text
    with pytest.raises(Conflict) as info:
        service.inbox.approve(proposal.id, "gui")
    assert info.value.reason == "already_approved"


def test_edit_then_approve(service: MemoryService, project: str) -> None:
    run = extract(service, project, [DEPLOY], review=True)
    changes = {"content": "Deploy with make release", "importance": 8}
    decision = service.inbox.approve(run.item_ids[0], "gui", changes=changes)
    assert decision.memory is not None
    assert (decision.memory.content, decision.memory.importance) == (changes["content"], 8)
    approved = service.history.memory(run.item_ids[0])[-1]
    assert approved.before is not None
    assert approved.after is not None
    assert approved.before["content"] == DEPLOY["content"]
    assert approved.after["content"] == changes["content"]


def test_approving_text_added_meanwhile_refreshes_that_memory(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY], review=True)
    twin = service.add(project, MemoryDraft(content=DEPLOY["content"]), "agent").memory
    decision = service.inbox.approve(run.item_ids[0], "gui")
    assert decision.status == "deduplicated"
    assert decision.memory is not None
    assert decision.memory.id == twin.id
    assert service.get(twin.id).use_count == 1
    assert service.count_memories(project) == 1
    service.inbox.reopen(run.item_ids[0], "gui")  # undo: the refreshed memory stays
    assert service.get(twin.id).disabled is False
    assert service.inbox.get(run.item_ids[0]).state is ProposalState.PROPOSED


def test_undoing_an_approval_that_superseded_brings_the_old_memory_back(
    service: MemoryService, project: str
) -> None:
    old = service.add(
        project, MemoryDraft(content="Deploy with make deploy from the main branch now"), "agent"
    ).memory
    run = extract(service, project, [DEPLOY], review=True)
    decision = service.inbox.approve(run.item_ids[0], "gui")
    assert decision.status == "superseded"
    assert service.get(old.id).disabled
    reopened = service.inbox.reopen(run.item_ids[0], "gui", expected_updated_at=decision.version)
    assert reopened.proposal is not None
    assert reopened.proposal.state is ProposalState.PROPOSED
    assert decision.memory is not None
    assert service.get(decision.memory.id).disabled
    assert not service.get(old.id).disabled
    assert [m.id for m in service.list_memories(project)] == [old.id]


def test_an_approved_memory_changed_since_is_not_taken_back(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY], review=True)
    decision = service.inbox.approve(run.item_ids[0], "gui")
    assert decision.memory is not None
    service.update(decision.memory.id, {"importance": 9}, "agent")
    with pytest.raises(Conflict) as info:
        service.inbox.reopen(run.item_ids[0], "gui")
    assert info.value.reason == "stale"
    assert service.inbox.get(run.item_ids[0]).state is ProposalState.APPROVED


def test_reject_keeps_the_proposal_and_reopen_restores_it(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY], review=True)
    proposal = service.inbox.get(run.item_ids[0])
    rejected = service.inbox.reject(proposal.id, "gui", expected_updated_at=proposal.updated_at)
    assert service.inbox.get(proposal.id).state is ProposalState.REJECTED
    assert service.inbox.entries() == []
    assert service.inbox.count() == 0
    with pytest.raises(StaleEdit):
        service.inbox.reopen(proposal.id, "gui", expected_updated_at=proposal.updated_at)
    service.inbox.reopen(proposal.id, "gui", expected_updated_at=rejected.version)
    assert [e.id for e in service.inbox.entries()] == [proposal.id]
    assert [a for a, _ in actions(service, proposal.id)] == ["proposed", "rejected", "reopened"]


def test_an_unreviewed_memory_is_approved_rejected_and_reopened(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY, PREFS], review=False)
    kept, dropped = run.item_ids
    approved = service.inbox.approve(kept, "gui", changes={"importance": 7})
    assert approved.memory is not None
    assert approved.memory.review_state is None
    assert approved.memory.importance == 7
    service.inbox.reject(dropped, "gui")
    assert service.get(dropped).disabled
    assert service.history.removal_events([dropped])[dropped].action is AuditAction.REJECTED
    assert service.inbox.entries() == []
    service.inbox.reopen(dropped, "gui")
    service.inbox.reopen(kept, "gui")
    assert {e.id for e in service.inbox.entries()} == {kept, dropped}
    assert not service.get(dropped).disabled
    with pytest.raises(Conflict):
        service.inbox.reopen(kept, "gui")
    normal = service.add(project, MemoryDraft(content="Nothing to do with extraction"), "a")
    with pytest.raises(Conflict) as info:
        service.inbox.approve(normal.memory.id, "gui")
    assert info.value.reason == "already_reviewed"


def test_a_failed_run_is_recorded_with_its_reason_and_shown_as_activity(
    service: MemoryService, project: str
) -> None:
    source = provenance(service)
    run = service.inbox.record_failed_extraction(
        project, source, "the model did not answer within 60 s", started_at=service.now()
    )
    assert (run.status, run.reason) == (RunStatus.FAILED, "the model did not answer within 60 s")
    assert service.inbox.runs(project) == [run]
    event = service.history.project(project)[0]
    assert (event.memory_id, event.action, event.actor) == (
        run.id,
        AuditAction.EXTRACTION_FAILED,
        "extractor",
    )
    assert event.after is not None
    assert "did not answer within 60 s" in event.after["title"]


def test_the_inbox_shows_the_most_similar_memory(service: MemoryService, project: str) -> None:
    near = service.add(
        project, MemoryDraft(content="Deploy with make deploy from the release branch"), "a"
    ).memory
    service.add(project, MemoryDraft(content="Lint with ruff before each commit"), "a")
    extract(service, project, [DEPLOY, {"content": "Completely unrelated words here"}], review=True)
    by_content = {e.proposal.content: e for e in service.inbox.entries() if e.proposal}
    entry = by_content[DEPLOY["content"]]
    assert entry.similar is not None
    assert entry.similar.id == near.id
    assert 0.5 < entry.similarity < 1
    assert by_content["Completely unrelated words here"].similar is None


@pytest.mark.sqlite_only
def test_version_2_database_gains_the_inbox_after_a_backup(
    tmp_path: Path, make_service: ServiceFactory
) -> None:
    db, backups = tmp_path / "data" / "ltm.sqlite", tmp_path / "data" / "backups"
    db.parent.mkdir(mode=0o700)
    old = SqliteStore(db, backups, MIGRATIONS[:2])
    old.close()
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO memories (id, project_pk, title, content, category, importance, "
        "signature, created_at, updated_at, source) "
        "VALUES ('mem_old', 1, 't', 'old text', 'knowledge', 5, 'sig', 1, 1, 'agent')"
    )
    conn.commit()
    conn.close()
    service = make_service(tmp_path / "data", Settings())
    assert service.store.schema_version == latest_version() >= 3
    assert list(backups.glob("ltm-v2-*.sqlite"))
    memory = service.get("mem_old")
    assert (memory.review_state, memory.provenance) == (None, None)
    assert service.inbox.entries() == []


def test_keeping_an_unreviewed_memory_from_the_stale_list_reviews_it(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY], review=False)
    kept = service.reviews.mark(run.item_ids[0], "gui")
    assert kept.review_state is None
    assert service.inbox.entries() == []
    event = service.history.memory(kept.id)[-1]
    assert (event.action, event.before, event.after) == (
        AuditAction.REVIEWED,
        {"reviewed_at": None, "review_state": "unreviewed"},
        {"reviewed_at": kept.reviewed_at, "review_state": None},
    )


def test_a_proposal_is_approved_into_another_scope_and_taken_back_from_there(
    service: MemoryService, project: str
) -> None:
    """The extractor may file a person's general preference under the project it heard it
    in: approving it can put it in global (or another project) instead."""
    run = extract(service, project, [PREFS], review=True)
    proposal = service.inbox.get(run.item_ids[0])
    decision = service.inbox.approve(proposal.id, "gui", into=GLOBAL_PROJECT_ID)
    assert decision.memory is not None
    assert decision.memory.project_id == GLOBAL_PROJECT_ID
    assert service.list_memories(project) == []
    approved = service.history.memory(proposal.id)[-1]
    assert approved.after is not None
    assert approved.after["into"] == GLOBAL_PROJECT_ID
    service.inbox.reopen(proposal.id, "gui")  # the undo: the memory leaves global
    assert service.get(decision.memory.id).disabled
    assert [e.id for e in service.inbox.entries()] == [proposal.id]
    assert service.inbox.get(proposal.id).project_id == project


def test_an_unreviewed_memory_or_an_unknown_scope_is_refused_by_name(
    service: MemoryService, project: str
) -> None:
    run = extract(service, project, [DEPLOY], review=False)
    with pytest.raises(InvalidInput) as refused:
        service.inbox.approve(run.item_ids[0], "gui", into=GLOBAL_PROJECT_ID)
    assert refused.value.field == "into"
    proposals = extract(service, project, [PREFS], review=True)
    with pytest.raises(NotFound):
        service.inbox.approve(proposals.item_ids[0], "gui", into="proj_0000000000000000")
    assert service.inbox.get(proposals.item_ids[0]).state is ProposalState.PROPOSED


def test_the_models_tags_are_kept_and_bad_ones_left_off(
    service: MemoryService, project: str
) -> None:
    """The model's tags were dropped: only title, content, category and importance were
    read of an entry."""
    tagged = {**DEPLOY, "tags": ["Deploy", "ci"]}
    odd = {**PREFS, "tags": "not a list"}
    run = extract(service, project, [tagged, odd], review=True)
    proposals = {service.inbox.get(i).content: service.inbox.get(i) for i in run.item_ids}
    assert proposals[DEPLOY["content"]].tags == ("deploy", "ci")
    assert proposals[PREFS["content"]].tags == ()  # the memory kept, its bad tags not
    assert run.invalid == 0
