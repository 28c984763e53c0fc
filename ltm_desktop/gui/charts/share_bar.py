"""A horizontal bar of a budget: a segment per part, what is left outlined."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QWidget

from ltm_desktop.gui.charts.base import Chart
from ltm_desktop.gui.charts.colors import faint, ink, series_color

BAR = 26


class ShareBar(Chart):
    """``sizes`` of ``parts`` out of ``budget``; ``tips`` say each part's numbers."""

    def __init__(self, name: str, empty_text: str, parent: QWidget | None = None) -> None:
        super().__init__(name, empty_text, parent)
        self.setMinimumWidth(260)
        self.setFixedHeight(BAR + self.fontMetrics().height() + 26)  # the caption is the panel's
        self.parts: list[str] = []
        self.sizes: list[int] = []
        self.tips: list[str] = []
        self.budget = 0
        self.caption = ""

    def set_data(
        self,
        parts: Sequence[str],
        sizes: Sequence[int],
        tips: Sequence[str],
        budget: int,
        caption: str,
    ) -> None:
        self.parts, self.sizes, self.tips = list(parts), list(sizes), list(tips)
        self.budget, self.caption = budget, caption
        self.data_changed()

    def count(self) -> int:
        return len(self.parts) if self.budget else 0

    def is_empty(self) -> bool:
        return not self.budget or not any(self.sizes)

    def summary(self) -> str:
        return self.caption

    def tip(self, index: int) -> str:
        return self.tips[index]

    def plot_rect(self) -> QRectF:
        return QRectF(self.rect()).adjusted(8, 8, -8, -8)

    def items(self, plot: QRectF) -> list[QRectF]:
        bar = QRectF(plot.left(), plot.top(), plot.width(), BAR)
        scale = bar.width() / max(self.budget, sum(self.sizes), 1)
        areas, x = [], bar.left()
        for size in self.sizes:
            areas.append(QRectF(x, bar.top(), size * scale, BAR))
            x += size * scale
        return areas

    def paint_plot(self, painter: QPainter, plot: QRectF) -> None:
        palette = self.palette()
        bar = QRectF(plot.left(), plot.top(), plot.width(), BAR)
        painter.setPen(QPen(faint(palette).darker(130), 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(bar)
        painter.setPen(Qt.PenStyle.NoPen)
        for i, area in enumerate(self.items(plot)):
            painter.setBrush(series_color(i, palette))
            painter.drawRect(area)
        metrics, x = self.fontMetrics(), plot.left()
        y = bar.bottom() + 8 + metrics.ascent()
        total = max(self.budget, 1)
        for i, (part, size) in enumerate(zip(self.parts, self.sizes, strict=True)):
            text = f"{part} {100 * size / total:.0f}%"
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(series_color(i, palette))
            painter.drawRoundedRect(QRectF(x, y - metrics.ascent() + 1, 10, 10), 2, 2)
            painter.setPen(ink(palette))
            painter.drawText(QPointF(x + 14, y), text)
            x += 14 + metrics.horizontalAdvance(text) + 16
