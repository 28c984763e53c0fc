"""A database the app cannot open at start is explained in a window, with ways on."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from pytestqt.qtbot import QtBot

from ltm_desktop.core.errors import LtmError
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.desktop import open_or_ask
from ltm_desktop.gui.window.startup_error import StartupErrorDialog


def newer_database(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True)
    path = DataPaths(data_dir).db_path
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE future (x)")
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    return path


def corrupt_database(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True)
    path = DataPaths(data_dir).db_path
    path.write_bytes(b"this is not a database" * 100)
    return path


class Person:
    """Answers the start-up dialog the way a person would: reads it, then presses a button."""

    def __init__(self, qtbot: QtBot, press: str, other: Path | None = None) -> None:
        self.qtbot, self.press, self.other = qtbot, press, other
        self.seen: list[str] = []

    def __call__(self, message: str, data_dir: Path) -> Path | None:
        dialog = StartupErrorDialog(message, data_dir, choose_dir=lambda _parent: self.other)
        self.qtbot.addWidget(dialog)
        dialog.show()
        self.qtbot.waitUntil(dialog.isVisible)
        self.seen.append(dialog.message.text())
        button = {"open": dialog.open_button, "quit": dialog.quit_button}[self.press]
        button.click()
        self.qtbot.waitUntil(lambda: not dialog.isVisible())
        return dialog.chosen_dir


@pytest.fixture
def opened_services() -> Iterator[list[object]]:
    services: list[object] = []
    yield services
    for opened in services:
        opened.service.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("make", [newer_database, corrupt_database], ids=["newer", "corrupt"])
def test_another_data_folder_can_be_opened_instead(
    qtbot: QtBot, tmp_path: Path, make: object, opened_services: list[object]
) -> None:
    bad = tmp_path / "bad"
    db = make(bad)  # type: ignore[operator]
    before = db.read_bytes()
    person = Person(qtbot, "open", other=tmp_path / "fresh")
    opened = open_or_ask(str(bad), None, ask=person)
    opened_services.append(opened)
    assert opened.service.paths.data_dir == tmp_path / "fresh"
    assert len(person.seen) == 1
    assert str(db) in person.seen[0]
    assert ("newer ltm-desktop" in person.seen[0]) or ("not an SQLite database" in person.seen[0])
    assert db.read_bytes() == before  # nothing was changed


def test_quit_keeps_the_error_for_the_terminal(qtbot: QtBot, tmp_path: Path) -> None:
    db = newer_database(tmp_path / "bad")
    person = Person(qtbot, "quit")
    with pytest.raises(LtmError, match="newer ltm-desktop"):
        open_or_ask(str(tmp_path / "bad"), None, ask=person)
    assert person.seen
    assert str(db) in person.seen[0]


def test_show_the_file_opens_its_folder(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = corrupt_database(tmp_path / "bad")
    opened: list[str] = []

    def open_url(url: QUrl) -> bool:
        opened.append(QUrl(url).toLocalFile())
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    dialog = StartupErrorDialog("broken", tmp_path / "bad")
    qtbot.addWidget(dialog)
    dialog.show()
    with qtbot.waitSignal(dialog.file_shown):
        dialog.show_button.click()
    assert opened == [str(db.parent)]
    assert dialog.isVisible()  # still there: the person decides next
