"""A heat grid: rows by columns of counts, each cell shaded by its share of the largest."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from ltm_desktop.gui.charts.base import Chart
from ltm_desktop.gui.charts.colors import heat, ink
from ltm_desktop.gui.theme import muted_color


class HeatGrid(Chart):
    """``counts[row][column]``; ``tips[row][column]`` say each cell's numbers in words."""

    def __init__(
        self, name: str, empty_text: str, axes: tuple[str, str], parent: QWidget | None = None
    ) -> None:
        super().__init__(name, empty_text, parent)
        self.axes = axes  # (rows' title, columns' title)
        self.rows: list[str] = []
        self.columns: list[str] = []
        self.counts: list[tuple[int, ...]] = []
        self.tips: list[list[str]] = []

    def set_data(
        self,
        rows: Sequence[str],
        columns: Sequence[str],
        counts: Sequence[Sequence[int]],
        tips: Sequence[Sequence[str]],
    ) -> None:
        self.rows, self.columns = list(rows), list(columns)
        self.counts = [tuple(r) for r in counts]
        self.tips = [list(t) for t in tips]
        self.data_changed()

    def count(self) -> int:
        return len(self.rows) * len(self.columns)

    def is_empty(self) -> bool:
        return not any(map(any, self.counts))

    def row_step(self) -> int:
        return len(self.columns)

    def tip(self, index: int) -> str:
        row, column = divmod(index, len(self.columns))
        return self.tips[row][column]

    def plot_rect(self) -> QRectF:
        metrics = self.fontMetrics()
        left = max(metrics.horizontalAdvance(r) for r in [*self.rows, "10"]) + metrics.height() + 10
        return QRectF(self.rect()).adjusted(left, 6, -8, -2 * metrics.height() - 8)

    def items(self, plot: QRectF) -> list[QRectF]:
        w, h = plot.width() / len(self.columns), plot.height() / len(self.rows)
        return [
            QRectF(plot.left() + c * w, plot.top() + r * h, w, h).adjusted(1, 1, -1, -1)
            for r in range(len(self.rows))
            for c in range(len(self.columns))
        ]

    def paint_plot(self, painter: QPainter, plot: QRectF) -> None:
        largest = max(max(r) for r in self.counts)
        metrics, palette = self.fontMetrics(), self.palette()
        for index, area in enumerate(self.items(plot)):
            row, column = divmod(index, len(self.columns))
            n = self.counts[row][column]
            share = math.log1p(n) / math.log1p(largest) if n else 0.0
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(heat(0.12 + 0.88 * share if n else 0.0, palette))
            painter.drawRect(area)
            if (
                n
                and metrics.horizontalAdvance(f"{n:,}") < area.width() - 2
                and metrics.ascent() <= area.height()
            ):
                painter.setPen(
                    palette.color(palette.ColorRole.Base) if share > 0.55 else ink(palette)
                )
                painter.drawText(area, Qt.AlignmentFlag.AlignCenter, f"{n:,}")
        painter.setPen(muted_color(palette))
        h = plot.height() / len(self.rows)
        for r, label in enumerate(self.rows):
            box = QRectF(0, plot.top() + r * h, plot.left() - 6, h)
            painter.drawText(
                box, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, label
            )
        w = plot.width() / len(self.columns)
        for c, label in enumerate(self.columns):
            box = QRectF(plot.left() + c * w, plot.bottom() + 2, w, metrics.height())
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, label)
        row_title, column_title = self.axes
        painter.drawText(
            QRectF(
                plot.left(), plot.bottom() + metrics.height() + 4, plot.width(), metrics.height()
            ),
            Qt.AlignmentFlag.AlignCenter,
            column_title,
        )
        painter.save()
        painter.translate(metrics.height() * 0.5 + 2, plot.center().y())
        painter.rotate(-90)
        painter.drawText(
            QRectF(-plot.height() / 2, -metrics.height() / 2, plot.height(), metrics.height()),
            Qt.AlignmentFlag.AlignCenter,
            row_title,
        )
        painter.restore()
