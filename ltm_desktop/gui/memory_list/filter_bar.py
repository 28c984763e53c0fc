"""The bar above the memory list: the search box and the filters, on one row where the
list is wide and on two where it is narrow, so the search box never shrinks to "S…"."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QLineEdit, QWidget

from ltm_desktop.core.records import Category
from ltm_desktop.gui.memory_list.search_box import SearchBox

SEARCH_MIN = 220  # below this a query and its placeholder no longer read
SEARCH_ROOM = 320  # the search box's width before the filters go to a row of their own


class FilterBar(QWidget):
    """Holds the search box, the category and tag filters and the Removed / Expired boxes;
    ``extra`` widgets (the New toggle) join the filters' row."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search_box = SearchBox(self)
        self.search_box.setMinimumWidth(SEARCH_MIN)
        self.category = QComboBox(self)
        self.category.addItem("All categories", None)
        for category in Category:
            self.category.addItem(category.value.capitalize(), category.value)
        self.tag = QLineEdit(self)
        self.tag.setPlaceholderText("Tag")
        self.tag.setClearButtonEnabled(True)
        self.tag.setMaximumWidth(140)
        self.show_removed = QCheckBox("Removed", self)
        self.show_removed.setToolTip("Also list memories in the Trash (struck through)")
        self.show_expired = QCheckBox("Expired", self)
        self.show_expired.setToolTip("Also list memories whose time to live ran out (in italics)")
        self.filters = QWidget(self)
        self._row = QHBoxLayout(self.filters)
        self._row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.category, self.tag, self.show_removed, self.show_expired):
            widget.setParent(self.filters)
            self._row.addWidget(widget)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.addWidget(self.search_box, 0, 0)
        self._grid.addWidget(self.filters, 0, 1)
        self._grid.setColumnStretch(0, 1)
        self.wrapped = False

    def add_filter(self, widget: QWidget) -> None:
        widget.setParent(self.filters)
        self._row.addWidget(widget)

    def clear(self) -> None:
        """Every filter off (the empty state's "Clear filters")."""
        for box in self.filters.findChildren(QCheckBox):
            box.setChecked(False)
        self.category.setCurrentIndex(0)
        self.tag.clear()

    def minimumSizeHint(self) -> QSize:
        """As narrow as the search box: the filters then take a row of their own."""
        hint = super().minimumSizeHint()
        return QSize(SEARCH_MIN, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        spacing = self._grid.horizontalSpacing()
        self._wrap(event.size().width() < SEARCH_ROOM + spacing + self.filters.sizeHint().width())

    def _wrap(self, wrapped: bool) -> None:
        """The filters below the search box (``wrapped``) or beside it."""
        if wrapped == self.wrapped:
            return
        self.wrapped = wrapped
        self._grid.removeWidget(self.filters)
        if wrapped:
            self._grid.addWidget(self.filters, 1, 0)
        else:
            self._grid.addWidget(self.filters, 0, 1)
