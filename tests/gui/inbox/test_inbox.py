"""The Inbox: proposals and unreviewed memories with provenance and their nearest memory;
approve, edit then approve, reject, in bulk, by key, undone with Ctrl+Z and redone with
Ctrl+Shift+Z; MEMORY.md follows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from ltm_desktop.agent.extractor.worker import ExtractionWorker
from ltm_desktop.core.errors import StorageError
from ltm_desktop.core.inbox.extraction import new_run_id
from ltm_desktop.core.inbox.proposals import ExtractionRun, ProposalState
from ltm_desktop.core.records import GLOBAL_PROJECT_ID, Provenance, ReviewState
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import TAB_ACTIVITY, TAB_INBOX, MainWindow
from tests.agent.fake_model import FakeModel
from tests.agent.fake_model import fake_model as fake_model  # a fixture
from tests.conftest import ServiceFactory
from tests.gui.conftest import BILLING, WindowFactory, add, wait_idle

DEPLOY = {"title": "Deploying", "content": "Deploy with make deploy from the main branch today"}
TABS = {"title": "Tabs", "content": "The user wants tabs in Go code", "category": "preference"}
LINT = {"title": "Lint", "content": "Run ruff before every commit in this repository"}
FIXTURE = Path(__file__).parents[2] / "agent" / "fixtures" / "claude-code-transcript.jsonl"


def extract(
    service: MemoryService, project: str, entries: list[Any], review: bool = True
) -> ExtractionRun:
    source = Provenance(
        new_run_id(service.now()), "claude-code", "5e55", "/t.jsonl", "llama3", service.now()
    )
    return service.inbox.store_extraction(
        project, entries, source, review=review, started_at=service.now()
    )


def memory_md(qtbot: QtBot, window: MainWindow, project: str) -> str:
    """The scope's MEMORY.md once the window's writes (and their files) are done."""
    wait_idle(qtbot, window)
    service = window.ctx.service
    assert service.memory_md.flush()
    return service.paths.precis_path(project).read_text(encoding="utf-8")


def open_inbox(qtbot: QtBot, window: MainWindow, rows: int) -> None:
    window.center.setCurrentIndex(TAB_INBOX)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == rows)
    wait_idle(qtbot, window)


def press(qtbot: QtBot, window: MainWindow, key: Qt.Key) -> None:
    window.inbox.view.setFocus()
    qtbot.keyClick(window.inbox.view, key)


def state(service: MemoryService, proposal_id: str) -> ProposalState:
    return service.inbox.get(proposal_id).state


def test_the_inbox_shows_proposals_with_provenance_the_nearest_memory_and_a_badge(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    near = add(
        service, billing, "Deploy with make deploy from the main branch", title="How we deploy"
    )
    extract(service, billing, [DEPLOY, TABS])
    window = make_window(service, scope=billing)
    qtbot.waitUntil(lambda: window.center.tabText(TAB_INBOX) == "Inbox (2)")
    open_inbox(qtbot, window, 2)
    rows = {r.title: r for r in window.inbox.model.rows()}
    assert rows["Deploying"].similar_id == near.id
    window.inbox.select_row(window.inbox.model.row_of(rows["Deploying"].id))
    details = window.inbox.details.toPlainText()
    assert "claude-code, session 5e55, by llama3" in details
    assert "Most similar memory: 8" in details  # 8 of 9 words: 89%
    assert "How we deploy" in details
    assert "approving it replaces that memory" in details
    similar = window.inbox.model.index(window.inbox.model.row_of(rows["Deploying"].id), 5)
    assert similar.data().endswith("“How we deploy”")
    assert service.search.query(billing, "tabs") == []  # proposals are not memories yet


def test_approve_by_key_selects_the_next_item_updates_memory_md_and_undoes(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    run = extract(service, billing, [DEPLOY, TABS, LINT])
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 3)
    first = window.inbox.model.rows()[0]
    window.inbox.select_row(0)
    press(qtbot, window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: state(service, first.id) is ProposalState.APPROVED)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 2)
    assert window.inbox.selected_items().keys() == {window.inbox.model.rows()[0].id}
    qtbot.waitUntil(lambda: window.center.tabText(TAB_INBOX) == "Inbox (2)")
    assert first.content in memory_md(qtbot, window, billing)
    assert "Ctrl+Z undoes it" in window.status.currentMessage()

    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: state(service, first.id) is ProposalState.PROPOSED)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 3)
    assert first.content not in memory_md(qtbot, window, billing)
    assert service.count_memories(billing) == 0
    assert set(run.item_ids) == {r.id for r in window.inbox.model.rows()}

    qtbot.waitUntil(window.menu_actions.redo.isEnabled)  # once the undo has been done
    window.menu_actions.redo.trigger()  # approved again, and undoable again
    qtbot.waitUntil(lambda: state(service, first.id) is ProposalState.APPROVED)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 2)
    assert first.content in memory_md(qtbot, window, billing)
    assert window.status.currentMessage().startswith("Redone: Approve")
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: state(service, first.id) is ProposalState.PROPOSED)
    qtbot.waitUntil(lambda: service.count_memories(billing) == 0)


def test_edit_then_approve(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    extract(service, billing, [DEPLOY])
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 1)
    window.inbox.select_row(0)
    press(qtbot, window, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: window.inbox.edit_dialog is not None)
    dialog = window.inbox.edit_dialog
    assert dialog is not None
    assert dialog.form.content.toPlainText() == DEPLOY["content"]
    dialog.form.content.setPlainText("Deploy with make release from main")
    dialog.form.importance.setValue(9)
    dialog.approve_button.click()
    qtbot.waitUntil(lambda: service.count_memories(billing) == 1)
    [memory] = service.list_memories(billing)
    assert (memory.content, memory.importance, memory.source) == (
        "Deploy with make release from main",
        9,
        "extractor",
    )
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 0)
    assert "make release" in memory_md(qtbot, window, billing)

    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.count_memories(billing) == 0)
    qtbot.waitUntil(window.menu_actions.redo.isEnabled)  # the store is undone before the GUI hears
    window.menu_actions.redo.trigger()  # approved again with the same edits
    qtbot.waitUntil(lambda: service.count_memories(billing) == 1)
    [again] = service.list_memories(billing)
    assert (again.content, again.importance) == ("Deploy with make release from main", 9)


def test_reject_by_key_and_undo(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    extract(service, billing, [DEPLOY, TABS])
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 2)
    target = window.inbox.model.rows()[1]
    window.inbox.select_row(1)
    press(qtbot, window, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: state(service, target.id) is ProposalState.REJECTED)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 1)
    assert window.inbox.selected_items().keys() == {window.inbox.model.rows()[0].id}
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: state(service, target.id) is ProposalState.PROPOSED)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 2)
    assert window.menu_actions.redo.isEnabled()
    window.menu_actions.redo.trigger()
    qtbot.waitUntil(lambda: state(service, target.id) is ProposalState.REJECTED)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 1)


def test_bulk_approve_and_reject_are_one_undo_each(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    run = extract(service, billing, [DEPLOY, TABS, LINT])
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 3)
    window.inbox.select_all.click()
    window.inbox.approve_button.click()
    qtbot.waitUntil(lambda: service.count_memories(billing) == 3)
    qtbot.waitUntil(lambda: window.center.tabText(TAB_INBOX) == "Inbox")
    text = memory_md(qtbot, window, billing)
    assert all(e["content"] in text for e in (DEPLOY, TABS, LINT))
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.count_memories(billing) == 0)
    assert {state(service, i) for i in run.item_ids} == {ProposalState.PROPOSED}
    open_inbox(qtbot, window, 3)
    window.inbox.view.selectAll()
    window.inbox.view.setFocus()
    window.menu_actions.delete.trigger()  # Delete rejects in the Inbox
    qtbot.waitUntil(lambda: {state(service, i) for i in run.item_ids} == {ProposalState.REJECTED})
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 0)


def test_a_storage_error_part_way_keeps_what_was_decided_undoable(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each decision is its own transaction: when the disk fails at the second, the first
    is decided for good. It must be said, and undoable (it was neither)."""
    extract(service, billing, [DEPLOY, TABS, LINT])
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 3)
    approve, calls = service.inbox.approve, []

    def failing_second(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        if len(calls) == 2:
            raise StorageError("database or disk is full")
        return approve(*args, **kwargs)

    monkeypatch.setattr(service.inbox, "approve", failing_second)
    window.inbox.select_all.click()
    window.inbox.approve_button.click()
    qtbot.waitUntil(lambda: "Stopped: 2 items not done." in window.status.currentMessage())
    assert service.count_memories(billing) == 1
    assert len(calls) == 2  # nothing tried after the disk failed
    assert [type(e) for e in window.ctx.errors.shown] == [StorageError]
    monkeypatch.setattr(service.inbox, "approve", approve)
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.count_memories(billing) == 0)


def test_unreviewed_memories_are_approved_or_rejected_to_the_trash(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    run = extract(service, billing, [DEPLOY, TABS], review=False)
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 2)
    assert {window.inbox.model.index(r, 0).data() for r in range(2)} == {"Unreviewed"}
    kept, dropped = (window.inbox.model.rows()[i].id for i in (0, 1))
    window.inbox.select_row(0)
    press(qtbot, window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: service.get(kept).review_state is None)
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 1)
    press(qtbot, window, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: service.get(dropped).disabled)
    assert service.get(dropped).content not in memory_md(qtbot, window, billing)
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: not service.get(dropped).disabled)
    assert service.get(dropped).review_state is ReviewState.UNREVIEWED
    assert set(run.item_ids) == {kept, dropped}


def test_an_item_changed_meanwhile_is_not_overwritten(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    run = extract(service, billing, [DEPLOY])
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 1)
    window.inbox.select_row(0)
    service.inbox.reject(run.item_ids[0], "claude-code")  # an agent decided first
    press(qtbot, window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: "changed meanwhile" in window.status.currentMessage())
    assert state(service, run.item_ids[0]) is ProposalState.REJECTED
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 0)


def test_extract_from_a_transcript_fills_the_inbox_and_a_failure_shows_in_activity(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, fake_model: FakeModel
) -> None:
    fake_model.behaviour.reply = json.dumps([LINT])
    service = make_service(settings=fake_model.settings(extractor_review=True))
    service.extraction = ExtractionWorker(service)
    billing = service.resolve_scope(cwd=BILLING, register=True)
    window = make_window(service)
    with qtbot.waitSignal(window.extractor.started, timeout=5000):
        window.extractor.start(FIXTURE)
    qtbot.waitUntil(lambda: window.center.tabText(TAB_INBOX) == "Inbox (1)", timeout=10_000)
    qtbot.waitUntil(lambda: "1 proposed" in window.status.currentMessage(), timeout=5000)
    [entry] = service.inbox.entries()
    assert entry.proposal is not None
    assert entry.proposal.project_id == billing  # the project the transcript records
    assert entry.proposal.provenance.agent == "claude-code"

    fake_model.behaviour.status = 500
    fake_model.behaviour.raw_body = b'{"error": "model not loaded"}'
    window.extractor.start(FIXTURE)
    qtbot.waitUntil(lambda: "failed" in window.status.currentMessage(), timeout=10_000)
    assert "HTTP 500" in window.status.currentMessage()
    window.ctx.scope.set_scope(billing, "billing-api")
    window.center.setCurrentIndex(TAB_ACTIVITY)
    qtbot.waitUntil(
        lambda: any(
            r.event.action.value == "extraction_failed" and "HTTP 500" in r.title
            for r in window.activity.model.rows()
        ),
        timeout=5000,
    )


def test_without_an_extractor_nothing_is_extracted(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService
) -> None:
    window = make_window(service)
    window.extractor.start(FIXTURE)
    qtbot.waitUntil(lambda: "no extractor is configured" in window.status.currentMessage())
    assert service.inbox.runs() == []


def test_edit_then_approve_into_another_scope_and_undo_and_redo(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    """A general preference the extractor heard in one project belongs in Global: the
    scope could not be chosen on approval."""
    extract(service, billing, [DEPLOY])
    window = make_window(service, scope=billing)
    open_inbox(qtbot, window, 1)
    window.inbox.select_row(0)
    press(qtbot, window, Qt.Key.Key_E)
    qtbot.waitUntil(lambda: window.inbox.edit_dialog is not None)
    dialog = window.inbox.edit_dialog
    assert dialog is not None
    assert dialog.scope.isVisibleTo(dialog)
    assert dialog.scope.currentData() == billing  # its own scope by default
    dialog.scope.setCurrentIndex(dialog.scope.findData(GLOBAL_PROJECT_ID))
    dialog.approve_button.click()
    qtbot.waitUntil(lambda: service.count_memories(GLOBAL_PROJECT_ID) == 1)
    assert service.count_memories(billing) == 0
    qtbot.waitUntil(lambda: window.inbox.model.rowCount() == 0)  # the GUI heard the store
    wait_idle(qtbot, window)
    window.menu_actions.undo.trigger()
    qtbot.waitUntil(lambda: service.count_memories(GLOBAL_PROJECT_ID) == 0)
    qtbot.waitUntil(window.menu_actions.redo.isEnabled)
    window.menu_actions.redo.trigger()  # into the same scope again
    qtbot.waitUntil(lambda: service.count_memories(GLOBAL_PROJECT_ID) == 1)
    assert service.count_memories(billing) == 0
