"""A MEMORY.md that cannot be written shows a warning bar naming the path and the reason."""

from __future__ import annotations

import shutil

from pytestqt.qtbot import QtBot

from ltm_desktop.core.service import MemoryService
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
    assert "MEMORY.md could not be written" in warning.label.text()
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
    qtbot.waitUntil(lambda: not service.precis_problems(), timeout=5000)
    qtbot.waitUntil(lambda: warning.isHidden(), timeout=5000)
    assert "The invoices job runs nightly" in target.read_text()
