"""GUI test fixtures: offscreen Qt, windows on real services, and helpers that wait (never sleep)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Callable, Iterator  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from pytestqt.qtbot import QtBot  # noqa: E402

from ltm_desktop.core.errors import LtmError  # noqa: E402
from ltm_desktop.core.records import Memory, MemoryDraft  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.gui.editing.conflicts import ConflictDialog  # noqa: E402
from ltm_desktop.gui.tasks import TaskRunner  # noqa: E402
from ltm_desktop.gui.window.banner import Banner  # noqa: E402
from ltm_desktop.gui.window.main_window import MainWindow  # noqa: E402
from tests.conftest import ServiceFactory  # noqa: E402

BILLING = "/home/dev/src/billing-api"
WindowFactory = Callable[..., MainWindow]


@dataclass
class FakeApi:
    """Stands in for the agent API server's status object."""

    endpoint: str | None = "unix:/run/user/1000/ltm-desktop/ltm.sock"
    error: str | None = None
    clients: int = 0
    action: str | None = None
    http_endpoint: str | None = None

    def connected_clients(self) -> int:
        return self.clients

    def last_action(self) -> str | None:
        return self.action


class AutoPrompter:
    """Answers the window's questions without a modal dialog; ``on_import`` is called
    with an import's preview before the answer is given."""

    def __init__(
        self,
        answer: str = "discard",
        import_answer: bool = True,
        on_import: Callable[[str], None] | None = None,
    ) -> None:
        self.answer, self.import_answer, self.on_import = answer, import_answer, on_import
        self.asked: list[str] = []

    def unsaved_changes(self, parent: Any, title: str) -> str:
        self.asked.append(title)
        return self.answer

    def confirm_import(self, parent: Any, preview: str) -> bool:
        if self.on_import is not None:
            self.on_import(preview)
        return self.import_answer


def add(
    service: MemoryService, project_id: str, content: str, actor: str = "agent", **kw: Any
) -> Memory:
    return service.add(project_id, MemoryDraft(content=content, **kw), actor).memory


def click(banner: Banner, caption: str) -> None:
    """Press one of a banner's choices (failing clearly when it does not offer it)."""
    button = banner.button(caption)
    assert button is not None, f"the banner offers no {caption!r}: {banner.label.text()!r}"
    button.click()


def wait_idle(qtbot: QtBot, window: MainWindow, timeout: int = 5000) -> None:
    qtbot.waitUntil(window.is_idle, timeout=timeout)


def conflict_dialog(qtbot: QtBot, window: MainWindow) -> ConflictDialog:
    """The "changed by someone else" dialog a refused write opened (waits for it)."""
    qtbot.waitUntil(lambda: bool(window.memory_actions.conflicts.open_dialogs()))
    dialogs = window.memory_actions.conflicts.open_dialogs()
    assert len(dialogs) == 1, dialogs
    assert dialogs[0].isVisible()
    return dialogs[0]


@pytest.fixture
def gui_settings(tmp_path: Path) -> QSettings:
    """Settings in a temp file: tests never touch the user's real QSettings."""
    return QSettings(str(tmp_path / "gui-settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def runner(qtbot: QtBot) -> Iterator[TaskRunner]:
    task_runner = TaskRunner()
    yield task_runner
    task_runner.shutdown()


@pytest.fixture
def make_window(
    qtbot: QtBot, make_service: ServiceFactory, gui_settings: QSettings
) -> Iterator[WindowFactory]:
    """Open MainWindows on services; closes them (joining their workers) before the services close."""
    windows: list[MainWindow] = []

    def factory(service: MemoryService, *, api: Any = None, scope: str | None = None) -> MainWindow:
        if scope is not None:
            gui_settings.setValue("scope", scope)
        window = MainWindow(service, settings=gui_settings, data_dir_label="test data", api=api)
        window.ctx.prompter = AutoPrompter()
        qtbot.addWidget(window)
        windows.append(window)
        window.show()
        if scope is not None:
            qtbot.waitUntil(lambda: window.ctx.scope.project_id == scope, timeout=5000)
        wait_idle(qtbot, window)
        return window

    yield factory
    for window in windows:
        window.close()
        window.shutdown()
        unexpected = [e for e in window.ctx.errors.shown if not isinstance(e, LtmError)]
        assert not unexpected, f"unexpected errors were shown: {unexpected!r}"


@pytest.fixture
def billing(service: MemoryService) -> str:
    return service.resolve_scope(cwd=BILLING, register=True)
