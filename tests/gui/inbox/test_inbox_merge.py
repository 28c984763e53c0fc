"""The Inbox shows a merge proposal understandably (what it merges), approving it by key
supersedes every member, and Ctrl+Z brings them back."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ltm_desktop.core.inbox.proposals import ProposalState
from ltm_desktop.core.records import MemoryDraft, Provenance
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.models.inbox_model import COL_KIND, COL_SIMILAR
from ltm_desktop.gui.window.main_window import TAB_INBOX
from tests.gui.conftest import WindowFactory, add, wait_idle

TEXTS = [
    "Run the unit tests with make test before pushing to main",
    "Before a push to the main branch, the unit tests must run via make test",
    "Unit tests: make test runs them; do it before you push to main",
]


def propose(service: MemoryService, project: str) -> tuple[str, list[str]]:
    members = [add(service, project, text, title=f"Tests {n}") for n, text in enumerate(TEXTS)]
    provenance = Provenance("run_1", "consolidate", "", "consolidation", "m", service.now())
    draft = MemoryDraft(content="Run make test before every push to main.", title="Test first")
    [proposal] = service.inbox.propose_merges(project, [(draft, members)], provenance)
    return proposal.id, [m.id for m in members]


def test_the_inbox_shows_what_a_merge_replaces_and_approving_supersedes_it(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    proposal_id, member_ids = propose(service, billing)
    window = make_window(service, scope=billing)
    window.center.setCurrentIndex(TAB_INBOX)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 1)
    model = window.inbox.model
    assert model.index(0, COL_KIND).data() == "Merge of 3"
    assert model.index(0, COL_SIMILAR).data() == "Merges 3 memories"
    assert "• Tests 1" in model.index(0, COL_KIND).data(Qt.ItemDataRole.ToolTipRole)
    window.inbox.select_row(0)
    details = window.inbox.details.toPlainText()
    assert "Merges 3 memories" in details
    for n in range(3):
        assert f"Tests {n}" in details

    window.inbox.view.setFocus()
    qtbot.keyClick(window.inbox.view, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: service.inbox.get(proposal_id).state is ProposalState.APPROVED)
    merged = service.inbox.get(proposal_id).memory_id
    assert {service.get(i).superseded_by for i in member_ids} == {merged}
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 0)

    wait_idle(qtbot, window)
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.inbox.get(proposal_id).state is ProposalState.PROPOSED)
    assert all(not service.get(i).disabled for i in member_ids)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 1)
