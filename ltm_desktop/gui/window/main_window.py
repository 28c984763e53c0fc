"""The main window: composes the panels and their satellites, and routes their signals.

The satellites (navigation, context menus, side panels, bulk curation, the saved layout)
are each given the parts of the window they act on, never the window itself."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QMainWindow,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.records import GLOBAL_PROJECT_ID
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.actions import MemoryActions
from ltm_desktop.gui.api_status import ApiStatus
from ltm_desktop.gui.context import build_context
from ltm_desktop.gui.dialogs.connect import AboutDialog, ConnectDialog, open_folder
from ltm_desktop.gui.dialogs.extract_launcher import ExtractLauncher
from ltm_desktop.gui.dialogs.secrets import FindSecrets
from ltm_desktop.gui.dialogs.transfer_launcher import TransferLauncher
from ltm_desktop.gui.editing.bulk_curation import BulkCuration
from ltm_desktop.gui.editing.editor import EditorPanel
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.inbox.actions import InboxActions
from ltm_desktop.gui.inbox.ops import InboxWrite
from ltm_desktop.gui.inbox.panel import InboxPanel
from ltm_desktop.gui.memory_list.memory_table import MemoryTable
from ltm_desktop.gui.memory_list.selection import ListSelection
from ltm_desktop.gui.panels.activity import ActivityPanel
from ltm_desktop.gui.panels.history import HistoryPanel
from ltm_desktop.gui.panels.observations import ObservationsPanel
from ltm_desktop.gui.panels.overview import install_overview
from ltm_desktop.gui.panels.precis import PrecisPanel
from ltm_desktop.gui.panels.projects import ProjectsPanel
from ltm_desktop.gui.panels.stale import StalePanel
from ltm_desktop.gui.panels.trash import TrashPanel
from ltm_desktop.gui.window.context_menus import ContextMenus, MenuLists
from ltm_desktop.gui.window.integrity_warning import IntegrityWarning
from ltm_desktop.gui.window.memory_md_warning import MemoryMdWarning
from ltm_desktop.gui.window.menus import build_actions, build_menus
from ltm_desktop.gui.window.navigation import (
    TAB_ACTIVITY,
    TAB_EDITOR,
    TAB_HISTORY,
    TAB_INBOX,
    TAB_MEMORIES,
    TAB_OBSERVATIONS,
    TAB_PRECIS,
    TAB_STALE,
    TAB_TRASH,
    Navigation,
)
from ltm_desktop.gui.window.saved_layout import SavedLayout
from ltm_desktop.gui.window.side_panels import Frame, SidePanels
from ltm_desktop.gui.window.status_bar import StatusBar
from ltm_desktop.gui.window.switches_bar import SwitchesBar
from ltm_desktop.gui.window.undo_keys import WindowKeys
from ltm_desktop.gui.window.window_start import first_size, warm_search

# The tabs' indexes are the navigation's, named here too for those who drive the window.
__all__ = [
    "TAB_ACTIVITY",
    "TAB_EDITOR",
    "TAB_HISTORY",
    "TAB_INBOX",
    "TAB_MEMORIES",
    "TAB_OBSERVATIONS",
    "TAB_PRECIS",
    "TAB_STALE",
    "TAB_TRASH",
    "MainWindow",
]


log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    """Projects | lists (memories, trash, stale, observations, activity) | editor, history, MEMORY.md."""

    def __init__(
        self,
        service: MemoryService,
        *,
        settings: QSettings,
        data_dir_label: str,
        api: ApiStatus | None = None,
    ) -> None:
        super().__init__()
        self._closed = False
        self.ctx = ctx = build_context(service, settings, api, data_dir_label, self)
        ctx.errors.window = self
        self.memory_actions = MemoryActions(service, ctx.runner, ctx.undo, ctx.errors, self)
        self.inbox_actions = InboxActions(
            service, ctx.runner, ctx.undo, ctx.errors, self.memory_actions.note_written, self
        )
        self.memory_actions.undo_handlers[InboxWrite] = self.inbox_actions.undo
        self.memory_actions.redo_handlers[InboxWrite] = self.inbox_actions.redo
        scope = str(settings.value("scope", GLOBAL_PROJECT_ID))
        self.projects = ProjectsPanel(ctx, scope, self)
        self.table = MemoryTable(ctx, self)
        self.trash = TrashPanel(ctx, self.memory_actions, self)
        self.stale = StalePanel(ctx, self.memory_actions, self)
        self.observations = ObservationsPanel(ctx, self)
        self.activity = ActivityPanel(ctx, self)
        self.inbox = InboxPanel(ctx, self.inbox_actions, self.projects.model.scope_choices, self)
        self.extractor = ExtractLauncher(ctx, self)
        self.transfer = TransferLauncher(ctx, self)
        self.editor = EditorPanel(ctx, self.memory_actions, self)
        self.history = HistoryPanel(ctx, self.memory_actions, self)
        self.precis = PrecisPanel(ctx, self)
        self.center = QTabWidget(self)
        lists: tuple[tuple[QWidget, str], ...] = (
            (self.table, "Memories"),
            (self.trash, "Trash"),
            (self.stale, "Stale"),
            (self.observations, "Observations"),
            (self.activity, "Activity"),
            (self.inbox, "Inbox"),
        )
        for panel, title in lists:
            self.center.addTab(panel, title)
        self.overview = install_overview(self.center, ctx, self)  # the last tab, Ctrl+7
        self.details = QTabWidget(self)
        details: tuple[tuple[QWidget, str], ...] = (
            (self.editor, "Editor"),
            (self.history, "History"),
            (self.precis, "MEMORY.md"),
        )
        for panel, title in details:
            self.details.addTab(panel, title)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        for widget in (self.projects, self.center, self.details):
            self.splitter.addWidget(widget)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([220, 860, 300])  # the editor widens when a memory opens
        self.memory_md_warning = MemoryMdWarning(service, ctx.runner, self)
        self.integrity_warning = IntegrityWarning(service, ctx.runner, self)
        central = QWidget(self)
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.memory_md_warning)
        self.switches = SwitchesBar(service, ctx.runner, self)  # config problems, memory off
        column.addWidget(self.switches)
        column.addWidget(self.integrity_warning)
        column.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        self.status = StatusBar(
            api, self, search=service.backfill.last_status, offline=service.offline.status
        )
        self.setStatusBar(self.status)
        self.menu_actions = a = build_actions(self)
        build_menus(self, a, (self.overview.go_action,))
        self.settings_action = self.switches.add_settings_action(self)
        toggles = (a.show_projects, a.show_details)
        self.navigation = go = Navigation(
            self.center,
            self.details,
            self.table,
            self.editor,
            self.history,
            self.projects.view,
            toggles,
            ctx.scope,
        )
        self.find_secrets = FindSecrets(self, ctx, go.open_memory)
        self.bulk = BulkCuration(
            self.table,
            self.memory_actions,
            ctx.scope,
            self.projects.model.scope_choices,
            self.status.say,
            self,
        )
        self._wire()
        self.setWindowTitle(f"ltm-desktop — {data_dir_label}[*]")
        self.resize(first_size(self.screen()))
        tabs = {"tab/center": self.center, "tab/details": self.details}
        self.saved_layout = SavedLayout(settings, self, self.splitter, tabs, self._tables())
        self.saved_layout.restore()
        ctx.bridge.start()
        self.projects.reload()
        warm_search(ctx, ctx.scope.project_id)  # the first scope's; later ones on a switch
        menu_lists = MenuLists(
            self.table,
            self.trash,
            self.stale,
            self.projects,
            self.inbox,
            self.activity,
            self.history,
        )
        self.context_menus = ContextMenus(menu_lists, a, go, self)
        frame = Frame(self, self.splitter, self.projects, self.center, self.details)
        self.side_panels = SidePanels(
            frame, toggles, self.editor, ctx.scope, settings, self.table.take_focus
        )
        shown = (self.table, self.trash, self.stale, self.inbox)
        self.lists = ListSelection(self.center, shown, self.memory_actions, a, self.status)
        self.keys = WindowKeys(self, a.undo, a.redo, self.editor, go.focus_list)
        self._focused_once = False

    # -- wiring -----------------------------------------------------------

    def _wire(self) -> None:
        a, ctx, go = self.menu_actions, self.ctx, self.navigation
        self.table.current_changed.connect(go.on_memory_current)
        self.table.activated.connect(lambda _id: go.focus_editor())
        self.table.connect_requested.connect(self.show_connect)
        self.table.new_requested.connect(go.new_memory)
        self.trash.current_changed.connect(go.on_memory_current)
        self.stale.current_changed.connect(go.on_memory_current)
        self.editor.memory_opened.connect(go.on_editor_opened)
        self.editor.open_requested.connect(go.open_memory)
        self.editor.dirty_changed.connect(self.setWindowModified)
        self.precis.memory_activated.connect(go.open_memory)
        self.activity.memory_activated.connect(go.open_activity_item)
        self.inbox.count_changed.connect(self.on_inbox_count)
        self.inbox_actions.message.connect(self.status.say)
        self.extractor.message.connect(self.status.say)
        a.extract.triggered.connect(self.extractor.choose)
        self.transfer.message.connect(self.status.say)
        self.projects.merger.message.connect(self.status.say)
        self.projects.detacher.message.connect(self.status.say)
        a.export.triggered.connect(self.transfer.choose_export)
        a.import_.triggered.connect(self.transfer.choose_import)
        a.backup_now.triggered.connect(self.transfer.backup_now)
        self.projects.loaded.connect(self.on_projects_loaded)
        self.table.new_since.changed.connect(self.projects.reload)
        self.table.model.total_changed.connect(lambda _n: self.on_projects_loaded())
        ctx.scope.scope_changed.connect(self.on_scope_changed)
        self.keep_in_cache(ctx.scope.project_id)
        self.memory_actions.message.connect(self.status.say)
        ctx.errors.passing.connect(self.status.say)
        self.memory_actions.reload_requested.connect(self.show_stored)
        self.status.connect_requested.connect(self.show_connect)
        ctx.undo.changed.connect(self.on_undo_changed)
        a.new_memory.triggered.connect(go.new_memory)
        a.save.triggered.connect(go.save_edit)
        a.revert.triggered.connect(self.editor.revert)
        a.undo.triggered.connect(self.memory_actions.undo)
        a.redo.triggered.connect(self.memory_actions.redo)
        ctx.undo.redo_changed.connect(self.on_redo_changed)
        a.find.triggered.connect(go.focus_search)
        a.refresh.triggered.connect(self.refresh)
        a.show_removed.toggled.connect(self.table.show_removed.setChecked)
        a.show_expired.toggled.connect(self.table.show_expired.setChecked)
        self.table.show_removed.toggled.connect(a.show_removed.setChecked)
        self.table.show_expired.toggled.connect(a.show_expired.setChecked)
        a.go_projects.triggered.connect(go.focus_projects)
        for action, index in (
            (a.go_memories, TAB_MEMORIES),
            (a.go_trash, TAB_TRASH),
            (a.go_stale, TAB_STALE),
            (a.go_observations, TAB_OBSERVATIONS),
            (a.go_activity, TAB_ACTIVITY),
            (a.go_inbox, TAB_INBOX),
        ):
            action.triggered.connect(lambda _=False, i=index: go.focus_tab(i))
        a.go_editor.triggered.connect(go.focus_editor)
        for action, index in ((a.go_history, TAB_HISTORY), (a.go_precis, TAB_PRECIS)):
            action.triggered.connect(lambda _=False, i=index: self.details.setCurrentIndex(i))
        a.open_folder.triggered.connect(lambda: open_folder(Path(ctx.service.paths.data_dir)))
        a.quit.triggered.connect(self.close)
        a.connect.triggered.connect(self.show_connect)
        a.about.triggered.connect(self.show_about)
        a.bulk_edit.triggered.connect(self.bulk.edit_selected)
        a.move_to.triggered.connect(lambda: self.bulk.transfer_selected(copy=False))
        a.copy_to.triggered.connect(lambda: self.bulk.transfer_selected(copy=True))

    # -- slots ------------------------------------------------------------

    def open_memory(self, memory_id: str) -> None:
        """Show a memory wherever it was clicked (precis, activity, a conflict)."""
        self.navigation.open_memory(memory_id)

    def new_memory(self) -> None:
        self.navigation.new_memory()

    def focus_editor(self) -> None:
        """Ctrl+E: the editor's tab, with the cursor in the memory's text."""
        self.navigation.focus_editor()

    def on_inbox_count(self, count: int) -> None:
        self.center.setTabText(TAB_INBOX, f"Inbox ({count:,})" if count else "Inbox")

    def show_stored(self, memory_id: str) -> None:
        """After a refused write the person chose to see the memory as it is stored now."""
        self.refresh()
        if self.editor.memory_id == memory_id:
            self.editor.reload()
            self.history.refresh()
        else:
            self.navigation.open_memory(memory_id)

    def keep_in_cache(self, project_id: str) -> None:
        """The scope shown is mirrored into the outbox's read cache, so its memories can
        be read and edited offline. On a worker: marking it writes the cache's file, which
        another process may hold locked for a moment (a failure is only logged)."""
        offline = self.ctx.service.offline
        self.ctx.runner.run(
            lambda: offline.seen(project_id),
            on_error=lambda exc: log.warning(
                "could not mark %s for the read cache: %s", project_id, exc
            ),
        )

    def on_scope_changed(self, project_id: str) -> None:
        self.ctx.settings.setValue("scope", project_id)
        self.keep_in_cache(project_id)
        self.on_projects_loaded()
        warm_search(self.ctx, project_id)

    def on_projects_loaded(self) -> None:
        self.table.has_projects = self.projects.has_any_memories()
        self.table.on_list_loaded()
        total = self._scope_total()
        size = "" if total is None else f": {count_label(total, 'memory', 'memories')}"
        self.status.set_scope_text(f"{self.ctx.scope.name}{size}")

    def _scope_total(self) -> int | None:
        """The shown list's count of this scope; else (a hidden list is not refreshed) the
        sidebar's count of the scope's active memories, never the last scope's."""
        model, project_id = self.table.model, self.ctx.scope.project_id
        shown = self.center.currentIndex() == TAB_MEMORIES  # a hidden list is not refreshed
        if shown and model.query.project_id == project_id and not model.is_loading():
            return model.total
        row = self.projects.model.project(project_id)
        return None if row is None else row.active

    def on_undo_changed(self, label: str) -> None:
        self.menu_actions.undo.setEnabled(bool(label))
        self.menu_actions.undo.setText(f"&Undo {label}" if label else "&Undo")

    def on_redo_changed(self, label: str) -> None:
        self.menu_actions.redo.setEnabled(bool(label))
        self.menu_actions.redo.setText(f"&Redo {label}" if label else "&Redo")

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._focused_once:  # start in the list, not the first field of the window
            self._focused_once = True
            self.table.take_focus()

    def refresh(self) -> None:
        self.projects.reload()
        for panel in (
            self.table,
            self.trash,
            self.stale,
            self.observations,
            self.activity,
            self.precis,
            self.inbox,
        ):
            panel.reload_now()

    def show_connect(self) -> ConnectDialog:
        dialog = ConnectDialog.for_window(self.ctx, self.projects.model, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def show_about(self) -> AboutDialog:
        dialog = AboutDialog(self.ctx.service, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    # -- lifecycle --------------------------------------------------------

    def is_idle(self) -> bool:
        """No data work in flight (tests and benchmarks wait on this)."""
        models = (self.table.model, self.trash.model, self.activity.model, self.observations.model)
        return self.ctx.runner.is_idle() and all(m.is_settled() for m in models)

    def _tables(self) -> dict[str, QTableView]:
        """Every table whose column widths the person may set, by settings name."""
        return {
            "memories": self.table.list_view,
            "search": self.table.search_view,
            "trash": self.trash.view,
            "stale": self.stale.view,
            "observations": self.observations.view,
            "activity": self.activity.view,
            "inbox": self.inbox.view,
            "precis": self.precis.candidates,
        }

    def _save_settings(self) -> None:
        settings = self.ctx.settings
        self.saved_layout.save()
        self.side_panels.save()
        settings.setValue("scope", self.ctx.scope.project_id)
        settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closed and not self.editor.confirm_leave(
            then=lambda: None if self.close() else None
        ):
            event.ignore()
            return
        self.shutdown()
        super().closeEvent(event)

    def shutdown(self) -> None:
        """Stop timers and the change feed, finish background work (joins the workers)."""
        if self._closed:
            return
        self._closed = True
        self._save_settings()
        self.status.stop()
        self.keys.remove()
        self.observations.stop()
        self.ctx.bridge.stop()
        self.memory_md_warning.stop()
        self.ctx.runner.shutdown()
        self.ctx.errors.close_all()
        self.memory_actions.conflicts.close_all()
