"""The editor accepts and shows a memory's files; the stale view says when one is gone."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.editing.form import EditorForm
from ltm_desktop.gui.window.main_window import TAB_STALE
from tests.conftest import FakeClock
from tests.gui.conftest import WindowFactory, add
from tests.gui.test_editor import open_in_editor


def test_editor_shows_and_saves_files(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, tmp_path: Path
) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    memory = add(service, project, "Routing is in app.py", files=["src/app.py", "README.md"])
    window = make_window(service, scope=project)
    open_in_editor(qtbot, window, memory.id)
    form = window.editor.form
    assert form.files.text() == "src/app.py, README.md"
    form.files.setText(f"src/main.py, {tmp_path}/docs/x.md")
    form.files.textEdited.emit(form.files.text())
    assert window.editor.is_dirty()
    window.menu_actions.save.trigger()
    qtbot.waitUntil(lambda: service.get(memory.id).files == ("src/main.py", "docs/x.md"))
    qtbot.waitUntil(lambda: form.files.text() == "src/main.py, docs/x.md")

    form.files.setText("/etc/hosts")
    form.files.textEdited.emit(form.files.text())
    window.editor.save()
    qtbot.waitUntil(lambda: "is outside the project" in form.error_text("files"))
    assert service.get(memory.id).files == ("src/main.py", "docs/x.md")


def test_stale_view_says_a_file_is_gone(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    clock: FakeClock,
    tmp_path: Path,
) -> None:
    (tmp_path / "app.py").write_text("print()")
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    add(service, project, "Routing is in app.py", importance=9, files=["app.py"])
    (tmp_path / "app.py").unlink()
    window = make_window(service, scope=project)
    window.center.setCurrentIndex(TAB_STALE)
    stale = window.stale
    qtbot.waitUntil(lambda: stale.model.rowCount() == 1, timeout=5000)
    assert stale.model.rows()[0].reason == "a file it names no longer exists: app.py"
    (tmp_path / "app.py").write_text("print()")  # back: gone from the list after a minute
    clock.advance(61)
    window.stale.reload_now()
    qtbot.waitUntil(lambda: stale.model.rowCount() == 0, timeout=5000)


def test_new_memory_with_files(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, tmp_path: Path
) -> None:
    project = service.resolve_scope(cwd=str(tmp_path), register=True)
    window = make_window(service, scope=project)
    window.new_memory()
    form = window.editor.form
    form.content.setPlainText("Config is read in settings.py")
    form.files.setText(f"{tmp_path}/pkg/settings.py")
    window.editor.save()
    qtbot.waitUntil(lambda: service.count_memories(project) == 1, timeout=5000)
    [memory] = service.list_memories(project)
    assert memory.files == ("pkg/settings.py",)


def test_the_inbox_form_has_no_files_row(qtbot: QtBot) -> None:
    form = EditorForm()
    qtbot.addWidget(form)
    form.show()
    assert form.files.isVisible()
    form.hide_files()
    assert not form.files.isVisible()
