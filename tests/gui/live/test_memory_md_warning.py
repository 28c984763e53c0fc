"""A MEMORY.md that cannot be written shows a warning bar naming the path and the reason."""

from __future__ import annotations

import shutil
from pathlib import Path

from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
from tests.conftest import ServiceFactory
from tests.gui.conftest import WindowFactory, add


def test_the_warning_bar_names_the_file_and_goes_away_once_it_is_written(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    window = make_window(service, scope=billing)
    warning = window.memory_md_warning
    assert warning.isHidden()
    target = service.paths.precis_path(billing)
    target.unlink(missing_ok=True)
    (target / "in-the-way").mkdir(parents=True)

    add(service, billing, "The invoices job runs nightly")  # an agent writes meanwhile

    qtbot.waitUntil(lambda: warning.isVisible(), timeout=5000)
    assert "MEMORY.md of billing-api could not be written" in warning.label.text()
    assert str(target) in warning.label.text()
    assert "Is a directory" in warning.label.text()
    retry = warning.button("Retry now")
    assert retry is not None
    retry.click()  # still blocked: the bar comes back
    assert warning.isHidden()
    qtbot.waitUntil(lambda: warning.isVisible(), timeout=5000)

    shutil.rmtree(target)
    retry = warning.button("Retry now")
    assert retry is not None
    retry.click()
    qtbot.waitUntil(lambda: not service.memory_md.problems(), timeout=5000)
    qtbot.waitUntil(lambda: warning.isHidden(), timeout=5000)
    assert "The invoices job runs nightly" in target.read_text()


def test_a_window_opened_on_a_blocked_memory_md_shows_the_bar_at_once(
    qtbot: QtBot, make_window: WindowFactory, make_service: ServiceFactory, tmp_path: Path
) -> None:
    first = make_service(tmp_path / "data")
    project = first.resolve_scope(cwd="/srv/billing", register=True)
    add(first, project, "Invoices are numbered per year")
    target = first.paths.precis_path(project)
    first.close()
    shutil.rmtree(target.parent)
    target.parent.write_text("in the way")  # a file where the scope's directory should be

    service = make_service(tmp_path / "data")  # starts, and reports the blocked path
    window = make_window(service, scope=project)
    assert window.memory_md_warning.isVisible()
    assert str(target) in window.memory_md_warning.label.text()
    assert window.table.model.rowCount() == 1  # the app works as usual meanwhile
