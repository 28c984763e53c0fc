"""The service switches in the window: a warning bar for a bad config file, a bar while
long-term memory is off (with the button that turns it back on), and the settings view."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.config_file import set_config_value
from ltm_desktop.core.settings.paths import resolve_config_path
from ltm_desktop.gui.mnemonics import assign_mnemonics
from ltm_desktop.gui.tasks import TaskRunner
from ltm_desktop.gui.window.banner import Banner

MEMORY_OFF = (
    "<b>Long-term memory is off</b> (<code>[memory] enabled = false</code>): agents neither "
    "read nor write it. What is stored stays here for you to see and edit."
)


PLACEHOLDER = (
    "<b>The memory backend <code>{name}</code> is not implemented yet</b> "
    '(<code>[memory] backend</code> in {path}): agents get a "not implemented" error. '
    'Set <code>backend = "sqlite"</code> to use this app\'s database.'
)


def config_path(service: MemoryService) -> Path:
    return service.switches.config_path or resolve_config_path(None)


def describe_config_problems(problems: tuple[str, ...]) -> str:
    shown = "<br>".join(html.escape(p) for p in problems[:5])
    more = f"<br>(and {len(problems) - 5} more)" if len(problems) > 5 else ""
    return f"<b>The config file has problems; their defaults are used:</b><br>{shown}{more}"


def switch_memory(
    service: MemoryService,
    runner: TaskRunner,
    enabled: bool,
    done: Callable[[str | None], None],
) -> None:
    """Write ``[memory] enabled`` to the config file (on a worker: it is disk I/O), then
    switch the running service; ``done(None)`` or ``done(why it failed)`` on the UI thread.
    Nothing changes when the file cannot be written."""
    path = config_path(service)

    def write() -> None:
        set_config_value(path, "memory", "enabled", enabled)
        service.switches.set_enabled(enabled)

    runner.run(write, lambda _: done(None), lambda exc: done(str(exc)))


class SwitchesBar(QWidget):
    """Two bars above the lists: config problems, and memory switched off."""

    def __init__(self, service: MemoryService, runner: TaskRunner, parent: QWidget | None) -> None:
        super().__init__(parent)
        self._service = service
        self._runner = runner
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.config_warning = Banner(self)
        self.memory_off = Banner(self)
        column.addWidget(self.config_warning)
        column.addWidget(self.memory_off)
        if service.switches.config_problems:
            self.config_warning.show_message(
                describe_config_problems(service.switches.config_problems),
                [("Dismiss", lambda: None)],
            )
        self.refresh()

    def refresh(self, failure: str | None = None) -> None:
        """Show or hide the memory-off bar as the service's switches say."""
        if self._service.switches.enabled:
            switches = self._service.switches
            if switches.local:
                self.memory_off.hide()
            else:
                path = html.escape(str(config_path(self._service)))
                self.memory_off.show_message(PLACEHOLDER.format(name=switches.backend, path=path))
            return
        text = MEMORY_OFF
        if failure:
            text += f"<br>It could not be turned on: {html.escape(failure)}"
        self.memory_off.show_message(text, [("Turn memory on", self.turn_on)])

    def turn_on(self) -> None:
        switch_memory(self._service, self._runner, True, self.refresh)

    def add_settings_action(self, window: QMainWindow) -> QAction:
        """File ▸ Settings… (before the last separator, above Quit)."""
        action = QAction("Se&ttings…", window)
        action.setShortcut(QKeySequence(QKeySequence.StandardKey.Preferences))
        if action.shortcut().isEmpty():  # Linux and Windows have no standard one
            action.setShortcut(QKeySequence("Ctrl+,"))
        action.setStatusTip("The service switches: memory on or off, backend, observations")
        action.triggered.connect(lambda: self.show_settings(window))
        window.addAction(action)
        menus = [a.menu() for a in window.menuBar().actions()]
        file_menu = next((m for m in menus if isinstance(m, QMenu)), None)
        if file_menu is not None:
            separators = [a for a in file_menu.actions() if a.isSeparator()]
            if separators:  # above Quit
                file_menu.insertAction(separators[-1], action)
            else:
                file_menu.addAction(action)
        return action

    def show_settings(self, window: QWidget) -> SettingsDialog:
        dialog = SettingsDialog(self._service, self._runner, window)
        dialog.finished.connect(lambda _: self.refresh())
        dialog.open()
        return dialog


class SettingsDialog(QDialog):
    """The switches as the config file sets them; ``enabled`` can be changed here."""

    def __init__(self, service: MemoryService, runner: TaskRunner, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self._service = service
        self._runner = runner
        settings = service.settings
        form = QFormLayout()
        self.enabled = QCheckBox("Agents may read and write long-term memory", self)
        self.enabled.setChecked(service.switches.enabled)
        self.enabled.toggled.connect(self._toggled)
        form.addRow("[memory] enabled", self.enabled)
        backend = settings.memory_backend
        if backend != "sqlite":
            backend += f" at {settings.agentmemory_url} — not implemented: agents get an error"
        self.backend = QLabel(backend, self)
        form.addRow("[memory] backend", self.backend)
        for label, value in (
            ("[observe] agent_end", settings.observe_agent_end),
            ("[observe] pre_compact", settings.observe_pre_compact),
        ):
            form.addRow(label, QLabel("on" if value else "off", self))
        form.addRow("Config file", QLabel(str(config_path(service)), self))
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addLayout(form)
        column.addWidget(self.status)
        column.addWidget(buttons)
        assign_mnemonics(self)

    def _toggled(self, checked: bool) -> None:
        self.enabled.setEnabled(False)
        switch_memory(self._service, self._runner, checked, self._written)

    def _written(self, failure: str | None) -> None:
        self.enabled.setEnabled(True)
        if failure:
            self.status.setText(f"Not changed: {failure}")
            self.enabled.blockSignals(True)
            self.enabled.setChecked(self._service.switches.enabled)
            self.enabled.blockSignals(False)
        else:
            self.status.setText(f"Saved to {config_path(self._service)}")
