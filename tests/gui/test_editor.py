"""The editor: save creates an audit event, bad input is explained inline, new memories, conflicts."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox, QRadioButton, QTextBrowser
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import AuditAction
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.window.main_window import MainWindow
from tests.gui.conftest import WindowFactory, add, click, conflict_dialog, wait_idle


def open_in_editor(qtbot: QtBot, window: MainWindow, memory_id: str) -> None:
    qtbot.waitUntil(lambda: window.table.model.row_of(memory_id) >= 0)
    assert window.table.select_memory(memory_id)
    qtbot.waitUntil(lambda: window.editor.memory_id == memory_id)


def test_edit_and_save_records_an_audit_event(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Tests run with make test", tags=["testing"])
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    form = window.editor.form
    form.content.setPlainText("Tests run with make test-all")
    form.importance.setValue(8)
    assert window.editor.is_dirty()
    window.menu_actions.save.trigger()
    qtbot.waitUntil(lambda: not window.editor.is_dirty())
    stored = service.get(memory.id)
    assert (stored.content, stored.importance) == ("Tests run with make test-all", 8)
    last = service.history.memory(memory.id)[-1]
    assert (last.action, last.actor) == (AuditAction.UPDATED, "gui")
    assert last.before == {"content": "Tests run with make test", "importance": 0}


def test_bad_values_are_explained_inline_and_nothing_is_saved(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Original content")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    editor, form = window.editor, window.editor.form
    events = len(service.history.memory(memory.id))

    form.content.setPlainText("   ")
    editor.save()
    assert "content must not be empty" in form.error_text("content")

    form.content.setPlainText("Original content")
    form.tags.setText(", ".join(f"tag{i}" for i in range(21)))
    editor.save()
    assert "at most 20 tags" in form.error_text("tags")

    form.tags.setText("x" * 41)
    editor.save()
    assert "at most 40 characters" in form.error_text("tags")
    assert form.importance.maximum() == 10  # out of range cannot even be typed

    form.tags.setText("")
    form.title.setText("")
    editor.save()
    assert "title must not be empty" in form.error_text("title")
    wait_idle(qtbot, window)
    assert len(service.history.memory(memory.id)) == events
    assert service.get(memory.id).title == memory.title


def test_new_memory_reports_what_the_core_did(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    existing = add(service, billing, "Deploys happen on Tuesdays")
    window = make_window(service, scope=billing)
    messages: list[str] = []
    window.memory_actions.message.connect(messages.append)

    window.menu_actions.new_memory.trigger()
    assert window.editor.new_project == billing
    window.editor.form.content.setPlainText("Invoices are numbered per year")
    window.menu_actions.save.trigger()
    qtbot.waitUntil(lambda: bool(messages))
    assert messages[-1].startswith("Created “Invoices are numbered per year”")
    created = service.list_memories(billing)
    assert {m.source for m in created} == {"agent", "gui"}
    qtbot.waitUntil(lambda: window.table.current_id() == window.editor.memory_id)

    window.menu_actions.new_memory.trigger()
    window.editor.form.content.setPlainText("deploys happen on  tuesdays")
    window.menu_actions.save.trigger()
    qtbot.waitUntil(lambda: len(messages) == 2)
    assert "Already known" in messages[-1]
    assert window.editor.memory_id == existing.id


def test_duplicate_content_conflict_is_explained(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    first = add(service, billing, "Cache keys include the tenant id")
    second = add(service, billing, "Something else entirely different")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, second.id)
    window.editor.form.content.setPlainText("Cache keys include the tenant id")
    window.editor.save()
    qtbot.waitUntil(lambda: window.editor.banner.isVisible())
    assert "already has exactly this text" in window.editor.banner.label.text()
    button = window.editor.banner.button("Open that memory")
    assert button is not None
    window.editor.form.content.setPlainText("Something else entirely different")  # back to clean
    qtbot.waitUntil(lambda: not window.editor.is_dirty())
    button.click()
    qtbot.waitUntil(lambda: window.editor.memory_id == first.id)


def test_change_underneath_unsaved_edits_asks_and_never_overwrites(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Original text from the agent")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    editor = window.editor
    editor.form.content.setPlainText("My unsaved edit")
    service.update(memory.id, {"content": "The agent's newer text"}, "claude-code")
    qtbot.waitUntil(lambda: editor.banner.isVisible())
    assert "claude-code changed it" in editor.banner.label.text()
    assert editor.form.content.toPlainText() == "My unsaved edit"  # nothing overwritten
    assert service.get(memory.id).content == "The agent's newer text"

    click(editor.banner, "Load theirs")
    assert editor.form.content.toPlainText() == "The agent's newer text"
    assert not editor.is_dirty()

    editor.form.content.setPlainText("Mine again")
    service.update(memory.id, {"importance": 9}, "claude-code")
    qtbot.waitUntil(lambda: editor.banner.isVisible())
    click(editor.banner, "Keep mine")
    editor.save()
    qtbot.waitUntil(lambda: not editor.is_dirty())
    stored = service.get(memory.id)
    assert (stored.content, stored.importance) == ("Mine again", 9)


def test_save_refuses_when_the_poll_has_not_noticed_yet(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Shared text")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    window.ctx.bridge.stop()  # simulate a change the window has not heard of
    service.update(memory.id, {"content": "Changed elsewhere"}, "other-agent")
    window.editor.form.content.setPlainText("My version")
    window.editor.save()
    dialog = conflict_dialog(qtbot, window)
    assert "other-agent changed it" in dialog.message.text()
    assert service.get(memory.id).content == "Changed elsewhere"
    assert not dialog.compare_view.isVisible()
    dialog.compare_button.click()
    assert dialog.compare_view.isVisible()
    compared = dialog.compare_view.toPlainText()  # a word diff: stored words, then mine
    assert "Your change, against what is stored now" in compared
    assert all(word in compared for word in ("My", "version", "Changed", "elsewhere"))
    assert "Updated by other-agent" in compared  # what happened since, and who did it
    dialog.cancel_button.click()  # nothing happens: my edit stays in the form, unsaved
    qtbot.waitUntil(lambda: not window.memory_actions.conflicts.open_dialogs())
    assert window.editor.form.content.toPlainText() == "My version"
    assert window.editor.is_dirty()

    window.editor.save()
    conflict_dialog(qtbot, window).overwrite_button.click()
    qtbot.waitUntil(lambda: service.get(memory.id).content == "My version")
    qtbot.waitUntil(lambda: not window.editor.is_dirty())
    assert [(e.actor, e.action) for e in service.history.memory(memory.id)][-2:] == [
        ("other-agent", AuditAction.UPDATED),
        ("gui", AuditAction.UPDATED),
    ]


def test_reload_after_a_refused_save_shows_what_is_stored(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Shared text", importance=3)
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    window.ctx.bridge.stop()
    service.update(memory.id, {"importance": 8}, "other-agent")
    window.editor.form.content.setPlainText("My version")
    window.editor.save()
    conflict_dialog(qtbot, window).reload_button.click()
    qtbot.waitUntil(lambda: not window.editor.is_dirty())
    assert window.editor.form.content.toPlainText() == "Shared text"
    assert window.editor.form.importance.value() == 8
    assert (service.get(memory.id).content, service.get(memory.id).importance) == (
        "Shared text",
        8,
    )


def test_a_memory_in_the_trash_is_restored_not_edited(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Trashed but readable")
    service.remove(memory.id, "agent")
    window = make_window(service, scope=billing)
    window.open_memory(memory.id)
    qtbot.waitUntil(lambda: window.editor.memory_id == memory.id)
    editor = window.editor
    assert not editor.form.isEnabled()
    assert "in the Trash" in editor.banner.label.text()
    click(editor.banner, "Restore")
    qtbot.waitUntil(lambda: not service.get(memory.id).disabled)
    qtbot.waitUntil(lambda: editor.form.isEnabled())


def test_a_double_save_saves_once_without_a_false_conflict(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Deploys happen on Tuesdays")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    window.editor.form.importance.setValue(9)
    window.editor.save()
    window.editor.save()  # a second Ctrl+S before the first one returned
    qtbot.waitUntil(lambda: not window.editor.is_saving() and not window.editor.is_dirty())
    assert [e.action for e in service.history.memory(memory.id)].count(AuditAction.UPDATED) == 1
    assert not window.editor.banner.isVisible()


def test_moving_on_while_a_save_runs_keeps_the_editor_on_its_memory(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    first = add(service, billing, "First memory about queues", importance=6)
    second = add(service, billing, "Second memory about caches", importance=5)
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, first.id)
    window.editor.form.content.setPlainText("First memory about queues, edited")
    window.editor.save()
    window.table.select_memory(second.id)  # clicked while the save is on its way
    qtbot.waitUntil(lambda: not window.editor.is_saving())
    assert window.editor.memory_id == first.id
    qtbot.waitUntil(lambda: window.table.current_id() == first.id)
    assert service.get(first.id).content == "First memory about queues, edited"
    assert service.get(second.id).content == "Second memory about caches"


def test_answering_save_then_goes_where_the_person_clicked(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    first = add(service, billing, "First memory about queues", importance=6)
    second = add(service, billing, "Second memory about caches", importance=5)
    window = make_window(service, scope=billing)
    window.ctx.prompter.answer = "save"  # type: ignore[attr-defined]
    open_in_editor(qtbot, window, first.id)
    window.editor.form.content.setPlainText("First memory about queues, edited")
    window.table.select_memory(second.id)
    qtbot.waitUntil(lambda: window.editor.memory_id == second.id)
    assert service.get(first.id).content == "First memory about queues, edited"
    qtbot.waitUntil(lambda: window.table.current_id() == second.id)


def test_compare_shows_both_versions_and_takes_either_per_field(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memory = add(service, billing, "Deploys run on Tuesday mornings", title="Deploy day")
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    editor = window.editor
    editor.form.content.setPlainText("Deploys run on Thursday mornings")
    editor.form.importance.setValue(8)
    service.update(
        memory.id, {"content": "Deploys run on Tuesday evenings", "title": "Deploy slot"}, "codex"
    )
    qtbot.waitUntil(lambda: editor.banner.button("Compare…") is not None)
    click(editor.banner, "Compare…")
    dialog = editor.merge_dialog
    assert dialog is not None
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.fields == ["title", "content", "importance"]
    assert dialog.chosen() == {"title": "theirs", "content": "mine", "importance": "mine"}
    theirs = dialog.findChild(QRadioButton, "content:theirs")
    assert theirs is not None
    views = [v.toPlainText() for v in dialog.findChildren(QTextBrowser)]
    assert any("Thursday" in v for v in views)  # my edit, shown as a word diff
    assert any("evenings" in v for v in views)  # the agent's, next to it
    theirs.click()  # take the agent's text, keep my importance
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: not editor.banner.isVisible())
    assert editor.form.content.toPlainText() == "Deploys run on Tuesday evenings"
    assert editor.form.title.text() == "Deploy slot"
    assert editor.form.importance.value() == 8
    editor.save()
    qtbot.waitUntil(lambda: not editor.is_dirty())
    stored = service.get(memory.id)
    assert (stored.title, stored.content, stored.importance) == (
        "Deploy slot",
        "Deploys run on Tuesday evenings",
        8,
    )


def test_a_long_title_shows_its_start(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    title = "Deploying the billing service " + "with every step spelled out " * 5
    memory = add(service, billing, "How we deploy", title=title.strip())
    window = make_window(service, scope=billing)
    open_in_editor(qtbot, window, memory.id)
    form = window.editor.form
    assert form.title.text() == title.strip()
    assert form.title.cursorPosition() == 0
