"""Merge proposals: proposed once, approved (every member superseded), rejected (nothing
changes), refused when a member moved on, undone. Run on every backend."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ltm_desktop.core.consolidation.consolidator import ConsolidationFailed, Consolidator
from ltm_desktop.core.errors import Conflict, LtmError
from ltm_desktop.core.inbox.proposals import Proposal, ProposalState
from ltm_desktop.core.records import AuditAction, Memory, MemoryDraft, Provenance
from ltm_desktop.core.service import MemoryService
from tests.doubles.embedders import WordHashEmbedder

pytestmark = pytest.mark.every_backend

# Alike by the test embedder (cosine 0.76-0.91, Jaccard 0.33-0.57): below the supersede
# rule's 0.7, so all three are stored.
TESTS = [
    "Run the unit tests with make test before pushing to main",
    "Before a push to the main branch, the unit tests must run via make test",
    "Unit tests: make test runs them; do it before you push to main",
]
OTHER = "The user prefers tabs in Go code"
MERGED = {
    "title": "Test before pushing",
    "content": "Run the unit tests with make test before every push to main.",
    "category": "skill",
    "tags": ["testing"],
}


class FakeWriter:
    """Answers every group with ``answer`` (or raises it); remembers the groups asked."""

    model = "fake-merger"

    def __init__(self, answer: object = None) -> None:
        self.answer = MERGED if answer is None else answer
        self.asked: list[list[str]] = []

    def write(self, members: Sequence[Memory]) -> object:
        self.asked.append([m.id for m in members])
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.fixture
def service(make_service: object) -> MemoryService:
    return make_service(embedder=WordHashEmbedder())  # type: ignore[operator]


@pytest.fixture
def project(service: MemoryService) -> str:
    return service.resolve_scope(cwd="/home/dev/src/billing-api", register=True)


def add_group(service: MemoryService, project: str) -> list[Memory]:
    members = [service.add(project, MemoryDraft(content=t), "gui").memory for t in TESTS]
    service.add(project, MemoryDraft(content=OTHER), "gui")
    return members


def consolidate(service: MemoryService, project: str, writer: FakeWriter | None = None) -> Proposal:
    report = Consolidator(service.inbox, WordHashEmbedder(), writer or FakeWriter()).run(project)
    [proposal] = report.proposals
    return proposal


def actives(service: MemoryService, project: str) -> set[str]:
    return {m.content for m in service.list_memories(project)}


def test_a_run_proposes_one_merge_per_group_and_changes_no_memory(
    service: MemoryService, project: str
) -> None:
    members = add_group(service, project)
    before = actives(service, project)
    writer = FakeWriter()
    proposal = consolidate(service, project, writer)
    assert sorted(writer.asked[0]) == sorted(m.id for m in members)
    assert {m.memory_id for m in proposal.merges} == {m.id for m in members}
    assert (proposal.title, proposal.category.value, proposal.tags) == (
        "Test before pushing",
        "skill",
        ("testing",),
    )
    assert actives(service, project) == before  # nothing changes until approved
    [entry] = service.inbox.entries(project)
    assert entry.proposal == proposal
    assert {m.id for m in entry.members} == {m.id for m in members}
    assert entry.similar is None


def test_a_memory_waiting_in_a_merge_is_not_proposed_again(
    service: MemoryService, project: str
) -> None:
    add_group(service, project)
    consolidate(service, project)
    writer = FakeWriter()
    report = Consolidator(service.inbox, WordHashEmbedder(), writer).run(project)
    assert (report.groups, report.proposals, writer.asked) == ((), (), [])


def test_approving_adds_the_merge_and_supersedes_every_member(
    service: MemoryService, project: str
) -> None:
    members = add_group(service, project)
    proposal = consolidate(service, project)
    decision = service.inbox.approve(proposal.id, "gui", expected_updated_at=proposal.updated_at)
    merged = decision.memory
    assert merged is not None
    assert actives(service, project) == {MERGED["content"], OTHER}
    for member in members:
        gone = service.get(member.id)
        assert (gone.disabled, gone.superseded_by) == (True, merged.id)
        assert service.history.memory(member.id)[-1].action is AuditAction.SUPERSEDED
    assert service.inbox.get(proposal.id).state is ProposalState.APPROVED
    approval = service.history.memory(proposal.id)[-1].after or {}
    assert approval["merged"] == [m.memory_id for m in proposal.merges]


def test_rejecting_changes_no_memory_and_the_group_is_not_proposed_again(
    service: MemoryService, project: str
) -> None:
    add_group(service, project)
    before = actives(service, project)
    proposal = consolidate(service, project)
    service.inbox.reject(proposal.id, "gui")
    assert actives(service, project) == before
    assert service.inbox.entries(project) == []
    writer = FakeWriter()
    report = Consolidator(service.inbox, WordHashEmbedder(), writer).run(project)
    assert (report.proposals, writer.asked) == ((), [])  # a person said no to that group


@pytest.mark.parametrize("change", ["edit", "remove"])
def test_approval_refuses_when_a_member_moved_on_and_writes_nothing(
    service: MemoryService, project: str, change: str
) -> None:
    members = add_group(service, project)
    proposal = consolidate(service, project)
    if change == "edit":
        service.update(members[1].id, {"importance": 7}, "gui")
    else:
        service.remove(members[1].id, "gui")
    before = actives(service, project)
    with pytest.raises(Conflict, match=members[1].id) as raised:
        service.inbox.approve(proposal.id, "gui")
    assert "nothing was written" in str(raised.value)
    assert actives(service, project) == before
    assert service.inbox.get(proposal.id).state is ProposalState.PROPOSED


def test_undo_takes_the_merge_back_and_restores_every_member_then_redo_works(
    service: MemoryService, project: str
) -> None:
    members = add_group(service, project)
    before = actives(service, project)
    proposal = consolidate(service, project)
    approved = service.inbox.approve(proposal.id, "gui")
    merged_id = approved.memory.id  # type: ignore[union-attr]
    reopened = service.inbox.reopen(proposal.id, "gui", expected_updated_at=approved.version)
    assert actives(service, project) == before
    assert service.get(merged_id).disabled
    assert all(not service.get(m.id).disabled for m in members)
    assert reopened.proposal is not None
    assert reopened.proposal.state is ProposalState.PROPOSED
    again = service.inbox.approve(proposal.id, "gui", expected_updated_at=reopened.version)
    assert again.memory is not None
    assert actives(service, project) == {MERGED["content"], OTHER}


def test_undo_refuses_when_the_merged_memory_was_edited(
    service: MemoryService, project: str
) -> None:
    add_group(service, project)
    proposal = consolidate(service, project)
    approved = service.inbox.approve(proposal.id, "gui")
    service.update(approved.memory.id, {"importance": 9}, "gui")  # type: ignore[union-attr]
    with pytest.raises(Conflict, match="changed since"):
        service.inbox.reopen(proposal.id, "gui")


def test_a_model_that_cannot_answer_leaves_nothing_written(
    service: MemoryService, project: str
) -> None:
    add_group(service, project)
    writer = FakeWriter(LtmError("cannot connect to http://127.0.0.1:9/v1"))
    with pytest.raises(ConsolidationFailed, match="cannot connect.*nothing was written"):
        Consolidator(service.inbox, WordHashEmbedder(), writer).run(project)
    assert service.inbox.entries(project) == []


@pytest.mark.parametrize(
    "answer",
    [
        {"content": ""},
        "not an object",
        {"title": "Key", "content": "Deploy with AKIAIOSFODNN7EXAMPLE as the key"},
    ],
)
def test_answers_that_are_no_memory_or_hold_a_secret_are_refused(
    service: MemoryService, project: str, answer: object
) -> None:
    add_group(service, project)
    with pytest.raises(ConsolidationFailed, match="not usable merges"):
        Consolidator(service.inbox, WordHashEmbedder(), FakeWriter(answer)).run(project)
    assert service.inbox.entries(project) == []


def test_the_model_may_say_they_differ(service: MemoryService, project: str) -> None:
    add_group(service, project)
    report = Consolidator(service.inbox, WordHashEmbedder(), FakeWriter({"same": False})).run(
        project
    )
    assert (report.proposals, report.not_same) == ((), 1)
    assert "1 judged different by the model" in report.summary()


def test_a_member_changed_while_the_model_was_asked_is_skipped(
    service: MemoryService, project: str
) -> None:
    members = add_group(service, project)
    provenance = Provenance("run_1", "consolidate", "", "consolidation", "m", service.now())
    service.update(members[0].id, {"importance": 3}, "gui")  # after it was read
    made = service.inbox.propose_merges(
        project, [(MemoryDraft(content="merged"), members)], provenance
    )
    assert made == []
    assert service.inbox.entries(project) == []


def test_the_merge_keeps_what_a_person_set_on_the_members(
    service: MemoryService, project: str
) -> None:
    members = add_group(service, project)
    service.update(members[0].id, {"importance": 8, "tags": ["ci"]}, "gui")
    proposal = consolidate(service, project, FakeWriter({"content": MERGED["content"]}))
    assert proposal.importance == 8
    assert proposal.tags == ("ci",)


@pytest.mark.sqlite_only
def test_the_history_of_an_approved_and_undone_merge_verifies(
    service: MemoryService, project: str
) -> None:
    add_group(service, project)
    proposal = consolidate(service, project)
    approved = service.inbox.approve(proposal.id, "gui")
    service.inbox.reopen(proposal.id, "gui", expected_updated_at=approved.version)
    service.inbox.approve(proposal.id, "gui")
    assert service.store.verify(quick=False).ok
