"""Room for a list's title: the columns that matter least step aside while the list is too
narrow for its title (or match) column to read, and come back when it widens."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QTableView


class TitleRoom(QObject):
    """Watches ``view``'s width; hides the ``optional`` columns, in that order, while the
    ``stretch`` column would get less than ``title_min`` pixels. A child of the view."""

    def __init__(
        self, view: QTableView, stretch: int, optional: tuple[int, ...], title_min: int
    ) -> None:
        super().__init__(view)
        self.view, self.stretch, self.optional, self.title_min = view, stretch, optional, title_min
        self._widths: dict[int, int] = {}  # of the columns hidden here
        view.viewport().installEventFilter(self)  # its width is the room, once laid out

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.Show):
            self.fit()
        return False

    def fit(self) -> None:
        header = self.view.horizontalHeader()
        room = self.view.viewport().width()
        widths = {
            column: self._widths.get(column, 0)
            if header.isSectionHidden(column)
            else header.sectionSize(column)
            for column in range(header.count())
            if column != self.stretch
        }
        used = sum(widths.values())
        hide: set[int] = set()
        for column in self.optional:
            if used + self.title_min <= room:
                break
            hide.add(column)
            used -= widths[column]
        for column in self.optional:
            hidden = header.isSectionHidden(column)
            if column in hide and not hidden:
                self._widths[column] = header.sectionSize(column)
                header.hideSection(column)
            elif column not in hide and hidden and column in self._widths:
                header.showSection(column)
                header.resizeSection(column, self._widths.pop(column))
