"""Colours derived from the current palette, so light and dark modes both stay readable."""

from __future__ import annotations

from PySide6.QtGui import QColor, QGuiApplication, QPalette


def _palette() -> QPalette:
    return QGuiApplication.palette()


def is_dark(palette: QPalette | None = None) -> bool:
    palette = palette or _palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def error_color(palette: QPalette | None = None) -> QColor:
    return QColor("#ff7b72") if is_dark(palette) else QColor("#b3261e")


def warning_color(palette: QPalette | None = None) -> QColor:
    return QColor("#e3b341") if is_dark(palette) else QColor("#8a5a00")


def muted_color(palette: QPalette | None = None) -> QColor:
    palette = palette or _palette()
    return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)


def added_background(palette: QPalette | None = None) -> QColor:
    return QColor("#1f3d2a") if is_dark(palette) else QColor("#dafbe1")


def removed_background(palette: QPalette | None = None) -> QColor:
    return QColor("#4a2226") if is_dark(palette) else QColor("#ffebe9")


def banner_background(palette: QPalette | None = None) -> QColor:
    return QColor("#3d3112") if is_dark(palette) else QColor("#fff8c5")


def css(color: QColor) -> str:
    return color.name()
