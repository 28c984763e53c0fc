"""Where the person is in the window: the list and the detail tab in front, where the
keyboard is, and the memory open (selected in the list, in the editor, in its history)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QTabWidget, QWidget

from ltm_desktop.gui.context import ScopeState
from ltm_desktop.gui.editing.editor import EditorPanel
from ltm_desktop.gui.memory_list.memory_table import MemoryTable
from ltm_desktop.gui.panels.history import HistoryPanel

TAB_MEMORIES, TAB_TRASH, TAB_STALE, TAB_OBSERVATIONS, TAB_ACTIVITY, TAB_INBOX = range(6)
TAB_EDITOR, TAB_HISTORY, TAB_PRECIS = range(3)


class Navigation:
    """Opens memories and moves the keyboard between the window's parts: ``center`` holds
    the lists (the memory list first), ``details`` the editor, the history and MEMORY.md.
    A hidden side panel a command needs is shown by checking its View menu toggle
    (``show_projects``, ``show_details``), as the person would."""

    def __init__(
        self,
        center: QTabWidget,
        details: QTabWidget,
        table: MemoryTable,
        editor: EditorPanel,
        history: HistoryPanel,
        projects_view: QWidget,
        toggles: tuple[QAction, QAction],
        scope: ScopeState,
    ) -> None:
        """``toggles``: the View menu's "Projects panel" and "Details panel"."""
        self._center, self._details = center, details
        self._table, self._editor, self._history = table, editor, history
        self._projects_view, self._scope = projects_view, scope
        self._show_projects, self._show_details = toggles

    # -- the memory open --------------------------------------------------

    def on_memory_current(self, memory_id: str) -> None:
        if self._editor.open_memory(memory_id):
            self._history.show_memory(memory_id)
        elif self._editor.memory_id:  # the person stayed: keep the table on the edited memory
            self._table.select_memory(self._editor.memory_id, when_loaded=False)

    def on_editor_opened(self, memory_id: str) -> None:
        self._history.show_memory(memory_id)
        if self._table.current_id() != memory_id:
            # select it once a refresh lists it (a memory just created); one in the Trash
            # will never be in this list, so waiting for it would only hijack a later click
            base = self._editor.base
            self._table.select_memory(memory_id, when_loaded=base is not None and not base.disabled)

    def open_memory(self, memory_id: str) -> None:
        """Show a memory wherever it was clicked (precis, activity, a conflict)."""
        self._center.setCurrentIndex(TAB_MEMORIES)
        self._details.setCurrentIndex(TAB_EDITOR)
        if not self._table.select_memory(memory_id) and self._editor.open_memory(memory_id):
            self._history.show_memory(memory_id)

    def open_activity_item(self, item_id: str) -> None:
        """An Activity row: a memory opens in the editor, a proposal in the Inbox (a run's
        row says all there is to say)."""
        if item_id.startswith("prop_"):
            self._center.setCurrentIndex(TAB_INBOX)
        elif item_id.startswith("mem_"):
            self.open_memory(item_id)

    def new_memory(self) -> None:
        self._show_details.setChecked(True)
        self._details.setCurrentIndex(TAB_EDITOR)
        self._editor.start_new(self._scope.project_id, self._scope.name)
        if self._editor.new_project is not None:  # the person did not stay on unsaved edits
            self._table.forget_current()

    def save_edit(self) -> None:
        """Ctrl+S: save; typed in the editor, the keyboard then goes back to the list on the
        saved memory, where Ctrl+Z undoes the save (as the status bar says)."""
        editor = self._editor
        focus = QApplication.focusWidget()
        typed_here = focus is not None and editor.isAncestorOf(focus)
        editor.save(then=(lambda: self.focus_list(editor.memory_id)) if typed_here else None)

    # -- the keyboard -----------------------------------------------------

    def focus_list(self, memory_id: str | None = None) -> None:
        """The keyboard to the list in front (Escape in the editor), on ``memory_id``."""
        self.focus_tab(self._center.currentIndex())
        if memory_id and self._center.currentIndex() == TAB_MEMORIES:
            self._table.select_memory(memory_id)

    def focus_projects(self) -> None:
        self._show_projects.setChecked(True)
        self._projects_view.setFocus()

    def focus_tab(self, index: int) -> None:
        """Ctrl+1…6: the tab, with the keyboard in its list (not in the sidebar)."""
        self._center.setCurrentIndex(index)
        tab = self._center.widget(index)
        view = (
            self._table.stack.currentWidget()
            if index == TAB_MEMORIES
            else getattr(tab, "view", None)
        )
        if isinstance(view, QWidget):
            view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_editor(self) -> None:
        """Ctrl+E: the editor's tab, with the cursor in the memory's text."""
        self._show_details.setChecked(True)
        self._details.setCurrentIndex(TAB_EDITOR)
        self._editor.form.content.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_search(self) -> None:
        self._center.setCurrentIndex(TAB_MEMORIES)
        self._table.focus_search()
