"""Panels that follow the selected scope and the change stream, and reload only while visible."""

from __future__ import annotations

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QWidget

from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext


class ScopedPanel(QWidget):
    """Subclasses implement ``reload(scope_changed)``; it runs at once when the panel is
    visible, else when it is next shown (a hidden tab costs nothing)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self._scope_dirty = True
        self._data_dirty = False
        ctx.scope.scope_changed.connect(self.on_scope_changed)
        ctx.bridge.changed.connect(self.on_changes)

    @property
    def project_id(self) -> str:
        return self.ctx.scope.project_id

    def reload(self, scope_changed: bool) -> None:
        raise NotImplementedError

    def affected_by(self, changes: ChangeSet) -> bool:
        return changes.touches(self.project_id)

    def on_scope_changed(self, _project_id: str) -> None:
        self._scope_dirty = True
        self._reload_if_visible()

    def on_changes(self, changes: ChangeSet) -> None:
        if self.affected_by(changes):
            self._data_dirty = True
            self._reload_if_visible()

    def reload_now(self) -> None:
        """Refresh on request (F5): as if the data had changed."""
        self._data_dirty = True
        self._reload_if_visible()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._reload_if_visible()

    def _reload_if_visible(self) -> None:
        if not self.isVisible() or not (self._scope_dirty or self._data_dirty):
            return
        scope_changed = self._scope_dirty
        self._scope_dirty = self._data_dirty = False
        self.reload(scope_changed)
