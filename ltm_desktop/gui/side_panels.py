"""The side panels (projects, details) can be hidden to give the list the room, from the
View menu or their keys; the choice is remembered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from ltm_desktop.gui.main_window import MainWindow


def _on(value: object) -> bool:
    """A saved flag (QSettings' INI files give strings back)."""
    return str(value).lower() not in ("false", "0", "")


class SidePanels:
    """Wires the View menu's "Projects panel" and "Details panel" toggles."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        a = window.menu_actions
        self.panels: dict[str, tuple[QWidget, QAction]] = {
            "projects": (window.projects, a.show_projects),
            "details": (window.details, a.show_details),
        }
        window.splitter.setCollapsible(1, False)  # the list always stays
        for name, (panel, action) in self.panels.items():
            shown = _on(window.ctx.settings.value(f"panels/{name}", True))
            action.setChecked(shown)
            if not shown:  # showing one already shown would lay the splitter out afresh
                panel.hide()
            action.toggled.connect(lambda on, p=panel: self.set_shown(p, on))

    def set_shown(self, panel: QWidget, shown: bool) -> None:
        panel.setVisible(shown)
        if not shown and panel.isAncestorOf(self.window.focusWidget()):
            self.window.table.take_focus()

    def reveal(self, name: str) -> None:
        """Show a hidden panel that a command needs (Ctrl+E, Ctrl+N, Ctrl+0)."""
        self.panels[name][1].setChecked(True)

    def save(self) -> None:
        for name, (panel, _action) in self.panels.items():
            self.window.ctx.settings.setValue(f"panels/{name}", not panel.isHidden())
