"""The side panels (projects, details) around the list: hidden from the View menu or their
keys (the choice is remembered), stepped aside by themselves when the window gets too
narrow for the list and back when it widens, and the editor narrower while it is empty."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QSettings, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QSplitter, QTabWidget, QToolButton, QWidget

from ltm_desktop.gui.context import ScopeState
from ltm_desktop.gui.editing.editor import EditorPanel

PROJECTS_WIDTH = 220  # names of ~20 characters and the counts
LIST_MIN = 480  # the search box, and a title column that reads
DETAILS_EMPTY = 300  # "No memory selected" needs no more
DETAILS_WIDTH = 420  # a memory being edited
DETAILS_MIN = 280
PROJECTS_MIN = 160


def _on(value: object) -> bool:
    """A saved flag (QSettings' INI files give strings back)."""
    return str(value).lower() not in ("false", "0", "")


@dataclass(frozen=True)
class Frame:
    """The window's parts the side panels lay out: the splitter holds projects | center |
    details, and the window is watched for its width."""

    window: QWidget
    splitter: QSplitter
    projects: QWidget
    center: QTabWidget
    details: QWidget


class SidePanels(QObject):
    """Wires the View menu's "Projects panel" and "Details panel" toggles, the toggle next
    to the list's tabs that brings the projects back, and the panels' widths."""

    def __init__(
        self,
        frame: Frame,
        toggles: tuple[QAction, QAction],
        editor: EditorPanel,
        scope: ScopeState,
        settings: QSettings,
        to_list: Callable[[], None],
    ) -> None:
        """``toggles``: the View menu's "Projects panel" and "Details panel"; ``to_list``
        takes the keyboard from a panel being hidden to the list."""
        super().__init__(frame.window)
        self._frame, self._editor, self._scope, self._settings = frame, editor, scope, settings
        self._to_list = to_list
        show_projects, show_details = toggles
        self.panels: dict[str, tuple[QWidget, QAction]] = {
            "projects": (frame.projects, show_projects),
            "details": (frame.details, show_details),
        }
        self.stepped_aside: set[str] = set()  # hidden for room, not by the person
        self._automatic = False
        details = frame.splitter.sizes()[2]  # as restored, or the first one
        self._details_width = details if details > DETAILS_EMPTY + 40 else DETAILS_WIDTH
        self._last_width = -1
        frame.splitter.setCollapsible(1, False)  # the list always stays
        for name, (panel, action) in self.panels.items():
            shown = _on(settings.value(f"panels/{name}", True))
            action.setChecked(shown)
            if not shown:  # showing one already shown would lay the splitter out afresh
                panel.hide()
            action.toggled.connect(lambda on, n=name: self.on_toggled(n, on))
        center = frame.center
        self.projects_button = QToolButton(center)
        self.projects_button.setAutoRaise(True)
        self.projects_button.clicked.connect(lambda: self.reveal("projects"))
        center.setCornerWidget(self.projects_button, Qt.Corner.TopLeftCorner)
        center.setUsesScrollButtons(False)  # every tab in view, shortened if need be
        center.setElideMode(Qt.TextElideMode.ElideRight)
        for index in range(center.count()):  # a shortened tab says its name on hover
            center.setTabToolTip(index, center.tabText(index).replace("&", ""))
        scope.scope_changed.connect(self.on_scope_changed)
        editor.occupied_changed.connect(self.on_editor_occupied)
        frame.splitter.splitterMoved.connect(self.on_splitter_moved)
        self.on_scope_changed()
        self._show_button()
        frame.window.installEventFilter(self)

    def on_toggled(self, name: str, shown: bool) -> None:
        panel = self.panels[name][0]
        if not self._automatic:
            self.stepped_aside.discard(name)  # the person's choice from now on
        panel.setVisible(shown)
        if not shown and panel.isAncestorOf(self._frame.window.focusWidget()):
            self._to_list()
        self._show_button()
        if shown:
            self._give_room()

    def reveal(self, name: str) -> None:
        """Show a hidden panel that a command needs (Ctrl+E, Ctrl+N, Ctrl+0)."""
        self.panels[name][1].setChecked(True)

    def on_scope_changed(self, *_args: object) -> None:
        self.projects_button.setText("☰")  # narrow: the tabs need the room
        self.projects_button.setToolTip(f"Show the projects (Ctrl+0); this is {self._scope.name}")

    def _show_button(self) -> None:
        self.projects_button.setVisible(self._frame.projects.isHidden())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        window = self._frame.window
        if watched is window and event.type() == QEvent.Type.Resize:
            self.fit(window.width())
        return False

    def fit(self, width: int) -> None:
        """Step the projects (then the details) aside as the window narrows past the room
        the list needs, and bring back what stepped aside as it widens again."""
        last, self._last_width = self._last_width, width
        for name, room in (
            ("projects", PROJECTS_WIDTH + LIST_MIN + DETAILS_EMPTY),
            ("details", LIST_MIN + DETAILS_MIN),
        ):
            panel, action = self.panels[name]
            if width < room <= last or (last < 0 and width < room):
                if not panel.isHidden():
                    self.stepped_aside.add(name)
                    self._set_automatically(action, False)
            elif width >= room > last and name in self.stepped_aside:
                self.stepped_aside.discard(name)
                self._set_automatically(action, True)

    def _set_automatically(self, action: QAction, checked: bool) -> None:
        self._automatic = True
        try:
            action.setChecked(checked)
        finally:
            self._automatic = False

    def on_editor_occupied(self, occupied: bool) -> None:
        """The editor gets its width when it shows a memory, and gives it to the list
        while it shows none."""
        self._give_room(self._details_width if occupied else DETAILS_EMPTY)

    def on_splitter_moved(self, *_args: object) -> None:
        details = self._frame.details
        if self._editor.base is not None and not details.isHidden():
            self._details_width = details.width()  # the person's width

    def _give_room(self, details: int | None = None) -> None:
        """Sizes for the shown panels, the list taking what is left."""
        frame, splitter = self._frame, self._frame.splitter
        sizes = splitter.sizes()
        total = sum(sizes)
        if details is None:
            editor = self._editor
            occupied = editor.base is not None or editor.new_project is not None
            details = self._details_width if occupied else DETAILS_EMPTY
        projects = 0
        if not frame.projects.isHidden():
            projects = sizes[0] if sizes[0] >= PROJECTS_MIN else PROJECTS_WIDTH
        if frame.details.isHidden():
            details = 0
        else:
            details = max(DETAILS_MIN, min(details, total - projects - LIST_MIN))
        splitter.setSizes([projects, max(total - projects - details, 0), details])

    def save(self) -> None:
        for name, (panel, _action) in self.panels.items():
            shown = not panel.isHidden() or name in self.stepped_aside
            self._settings.setValue(f"panels/{name}", shown)
