"""What every chart shares: hover and arrow keys show an item's exact numbers, the chart
says them to a screen reader, and an empty chart says why."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFocusEvent, QHelpEvent, QKeyEvent, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QToolTip, QWidget

from ltm_desktop.gui.charts.colors import faint, ink
from ltm_desktop.gui.theme import muted_color

MARGIN = 6


def nice_ceiling(value: float) -> int:
    """The axis top: 1, 2, 2.5 or 5 times a power of ten, at or above ``value``."""
    if value <= 1:
        return 1
    scale = 1
    while True:
        for step in (1, 2, 2.5, 5):
            if step * scale >= value and float(step * scale).is_integer():
                return int(step * scale)
        scale *= 10


class Chart(QWidget):
    """A chart of items (bars, points, cells, segments), each with its numbers in words.

    Subclasses give ``items(plot)`` (an item's area), ``tip(i)`` (its numbers) and
    ``paint_plot(painter, plot)``; ``summary()`` opens the accessible description.

    Signals:
        item_changed(str): the numbers of the item under the mouse or the arrow keys
            ("" when none).
    """

    item_changed = Signal(str)

    def __init__(self, name: str, empty_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName(name)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.setMinimumSize(260, 170)
        self.empty_text = empty_text
        self.current = -1

    # -- for subclasses -------------------------------------------------------

    def count(self) -> int:
        raise NotImplementedError

    def is_empty(self) -> bool:
        return self.count() == 0

    def items(self, plot: QRectF) -> list[QRectF]:
        raise NotImplementedError

    def tip(self, index: int) -> str:
        raise NotImplementedError

    def summary(self) -> str:
        return ""

    def paint_plot(self, painter: QPainter, plot: QRectF) -> None:
        raise NotImplementedError

    def plot_rect(self) -> QRectF:
        return QRectF(self.rect()).adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)

    # -- shared ---------------------------------------------------------------

    def data_changed(self) -> None:
        """Call after new data: repaint, and say the numbers to assistive technology."""
        self.current = -1
        parts = [self.summary()] if self.summary() else []
        if self.is_empty():
            parts.append(self.empty_text)
        else:
            parts += [self.tip(i) for i in range(self.count())]
        self.setAccessibleDescription(". ".join(p.rstrip(".") for p in parts) + ".")
        self.item_changed.emit("")
        self.update()

    def item_at(self, pos: QPointF) -> int:
        if self.is_empty():
            return -1
        for i, area in enumerate(self.items(self.plot_rect())):
            if area.contains(pos):
                return i
        return -1

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        plot = self.plot_rect()
        if self.is_empty():
            painter.setPen(muted_color(self.palette()))
            painter.drawText(
                plot, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.empty_text
            )
        else:
            self.paint_plot(painter, plot)
            if 0 <= self.current < self.count():
                area = self.items(plot)[self.current]
                painter.setPen(ink(self.palette()))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(area.adjusted(-1, -1, 1, 1))
        if self.hasFocus():
            painter.setPen(faint(self.palette()).darker(150))
            painter.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        painter.end()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            index = self.item_at(QPointF(event.pos()))
            if index < 0:
                QToolTip.hideText()
                event.ignore()
            else:
                QToolTip.showText(event.globalPos(), self.tip(index), self)
            return True
        return super().event(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        index = self.item_at(event.position())
        if index != self.current:
            self.current = index
            self.item_changed.emit(self.tip(index) if index >= 0 else "")
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if not self.hasFocus() and self.current >= 0:
            self.current = -1
            self.item_changed.emit("")
            self.update()
        super().leaveEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        steps = {
            Qt.Key.Key_Left: -1,
            Qt.Key.Key_Right: 1,
            Qt.Key.Key_Up: -self.row_step(),
            Qt.Key.Key_Down: self.row_step(),
        }
        n, key = self.count(), Qt.Key(event.key())
        if n == 0 or key not in (*steps, Qt.Key.Key_Home, Qt.Key.Key_End):
            super().keyPressEvent(event)
            return
        if key == Qt.Key.Key_Home:
            index = 0
        elif key == Qt.Key.Key_End:
            index = n - 1
        else:
            start = self.current if self.current >= 0 else (n if steps[key] < 0 else -1)
            index = max(0, min(n - 1, start + steps[key]))
        self.select(index)

    def row_step(self) -> int:
        """How far Up and Down move (a grid moves by a row)."""
        return 1

    def select(self, index: int) -> None:
        """Make an item current, as the arrow keys do: outlined, its numbers in the signal
        (the panel writes them under the chart, where they stay while the keyboard is here)."""
        self.current = index
        self.update()
        self.item_changed.emit(self.tip(index))

    def focusOutEvent(self, event: QFocusEvent) -> None:
        QToolTip.hideText()
        self.update()
        super().focusOutEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusInEvent(event)
