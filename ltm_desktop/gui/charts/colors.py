"""Series colours that read on the light and the dark palette (Okabe-Ito, told apart with
the common colour-vision deficiencies), and the neutral ink of axes and grid lines."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from ltm_desktop.gui.theme import is_dark, muted_color

LIGHT = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#8c8c8c")
DARK = ("#4aa3df", "#f0b54a", "#2fc497", "#e08fc0", "#8fd0f5", "#f27b3a", "#a6a6a6")


def series_color(index: int, palette: QPalette | None = None) -> QColor:
    colours = DARK if is_dark(palette) else LIGHT
    return QColor(colours[index % len(colours)])


def ink(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorRole.WindowText)


def faint(palette: QPalette) -> QColor:
    """Grid lines: the muted text colour, mostly transparent."""
    colour = QColor(muted_color(palette))
    colour.setAlpha(70)
    return colour


def heat(fraction: float, palette: QPalette) -> QColor:
    """A cell's colour from the base (0) to the first series colour (1)."""
    low = palette.color(QPalette.ColorRole.Base)
    high = series_color(0, palette)
    t = max(0.0, min(1.0, fraction))
    return QColor(
        round(low.red() + (high.red() - low.red()) * t),
        round(low.green() + (high.green() - low.green()) * t),
        round(low.blue() + (high.blue() - low.blue()) * t),
    )
