"""Charts over a row of columns (weeks, days) with a counted y axis: stacked bars and lines."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QWidget

from ltm_desktop.gui.charts.base import Chart, nice_ceiling
from ltm_desktop.gui.charts.colors import faint, ink, series_color
from ltm_desktop.gui.formatting import count_label
from ltm_desktop.gui.theme import muted_color

LEGEND_ROW = 18
AXIS_LABELS = 16


class ColumnChart(Chart):
    """Columns named ``labels`` (axis) and ``names`` (tooltips), each with a value per series."""

    def __init__(
        self, name: str, empty_text: str, unit: tuple[str, str], parent: QWidget | None = None
    ) -> None:
        super().__init__(name, empty_text, parent)
        self.unit = unit  # (one, many): "memory", "memories"
        self.labels: list[str] = []
        self.names: list[str] = []
        self.series: list[str] = []
        self.values: list[tuple[int, ...]] = []

    def set_data(
        self,
        labels: Sequence[str],
        names: Sequence[str],
        series: Sequence[str],
        values: Sequence[Sequence[int]],
    ) -> None:
        self.labels, self.names, self.series = list(labels), list(names), list(series)
        self.values = [tuple(v) for v in values]
        self.data_changed()

    def count(self) -> int:
        return len(self.values)

    def is_empty(self) -> bool:
        return not any(map(any, self.values))

    def top(self) -> int:
        raise NotImplementedError

    def tip(self, index: int) -> str:
        row = self.values[index]
        one, many = self.unit
        parts = [f"{name} {n:,}" for name, n in zip(self.series, row, strict=True)]
        total = f" ({count_label(sum(row), one, many)})" if len(row) > 1 else ""
        return f"{self.names[index]}: {', '.join(parts)}{total}"

    def plot_rect(self) -> QRectF:
        width = self.fontMetrics().horizontalAdvance(f"{self.top():,}") + 8
        return QRectF(self.rect()).adjusted(width + 6, LEGEND_ROW + 8, -8, -AXIS_LABELS - 4)

    def items(self, plot: QRectF) -> list[QRectF]:
        step = plot.width() / max(1, len(self.values))
        return [
            QRectF(plot.left() + i * step, plot.top(), step, plot.height())
            for i in range(len(self.values))
        ]

    def y_of(self, plot: QRectF, value: float) -> float:
        return plot.bottom() - plot.height() * value / self.top()

    def paint_plot(self, painter: QPainter, plot: QRectF) -> None:
        self._paint_axes(painter, plot)
        self._paint_legend(painter)

    def _paint_axes(self, painter: QPainter, plot: QRectF) -> None:
        top, metrics = self.top(), self.fontMetrics()
        muted = muted_color(self.palette())
        for i in range(5):
            value = top * i / 4
            y = self.y_of(plot, value)
            painter.setPen(QPen(faint(self.palette()), 1))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            if value.is_integer():
                painter.setPen(muted)
                box = QRectF(0, y - 8, plot.left() - 6, 16)
                painter.drawText(
                    box,
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                    f"{int(value):,}",
                )
        painter.setPen(muted)
        areas = self.items(plot)
        room = max(metrics.horizontalAdvance(label) for label in self.labels) + 10
        every = max(1, int(room // max(1.0, areas[0].width())) + 1)
        for i in range(len(areas) - 1, -1, -every):  # the newest column always has its label
            left = min(max(0.0, areas[i].center().x() - room / 2), self.width() - room)
            box = QRectF(left, plot.bottom() + 3, room, AXIS_LABELS)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, self.labels[i])

    def _paint_legend(self, painter: QPainter) -> None:
        x, metrics = 8.0, self.fontMetrics()
        for i, name in enumerate(self.series):
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(series_color(self.colour_of(i), self.palette()))
            painter.drawRoundedRect(QRectF(x, 6, 10, 10), 2, 2)
            painter.setPen(ink(self.palette()))
            painter.drawText(QPointF(x + 14, 6 + metrics.ascent() - 1), name)
            x += 14 + metrics.horizontalAdvance(name) + 14

    def colour_of(self, series: int) -> int:
        return series


class StackedBars(ColumnChart):
    """A bar per column, its series stacked from the bottom in legend order."""

    def top(self) -> int:
        return nice_ceiling(max((sum(v) for v in self.values), default=0))

    def paint_plot(self, painter: QPainter, plot: QRectF) -> None:
        super().paint_plot(painter, plot)
        painter.setPen(Qt.PenStyle.NoPen)
        for area, row in zip(self.items(plot), self.values, strict=True):
            width = max(1.0, area.width() * 0.72)
            left, base = area.center().x() - width / 2, 0
            for i, n in enumerate(row):
                if n:
                    painter.setBrush(series_color(self.colour_of(i), self.palette()))
                    y0, y1 = self.y_of(plot, base), self.y_of(plot, base + n)
                    painter.drawRect(QRectF(left, y1, width, y0 - y1))
                base += n


class LineChart(ColumnChart):
    """A line per series through the columns' centres, with a dot at each value."""

    def __init__(
        self,
        name: str,
        empty_text: str,
        unit: tuple[str, str],
        colours: Sequence[int],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(name, empty_text, unit, parent)
        self.colours = list(colours)

    def colour_of(self, series: int) -> int:
        return self.colours[series]

    def top(self) -> int:
        return nice_ceiling(max((max(v) for v in self.values if v), default=0))

    def paint_plot(self, painter: QPainter, plot: QRectF) -> None:
        super().paint_plot(painter, plot)
        centres = [area.center().x() for area in self.items(plot)]
        for s in range(len(self.series)):
            colour = series_color(self.colour_of(s), self.palette())
            path = QPainterPath()
            points = [
                QPointF(x, self.y_of(plot, row[s]))
                for x, row in zip(centres, self.values, strict=True)
            ]
            path.moveTo(points[0])
            for point in points[1:]:
                path.lineTo(point)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(
                QPen(colour, 2, Qt.PenStyle.SolidLine if s == 0 else Qt.PenStyle.DashLine)
            )
            painter.drawPath(path)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            for point in points:
                painter.drawEllipse(point, 2.5, 2.5)
