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


def luminance(color: QColor) -> float:
    """WCAG relative luminance."""

    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in (color.redF(), color.greenF(), color.blueF()))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours, 1 to 21 (4.5 reads as body text)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def meter_style(full: bool, palette: QPalette | None = None) -> str:
    """A budget meter whose text reads over its bar and its groove, light or dark: a pale
    bar (amber when full) under dark text, or a deep one under light text."""
    if is_dark(palette):
        text, groove, chunk = "#f2f2f2", "#2b2b2b", "#7a5200" if full else "#24528f"
    else:
        text, groove, chunk = "#1b1b1b", "#ffffff", "#f2c25c" if full else "#a9cdf5"
    return (
        f"QProgressBar {{ color: {text}; background-color: {groove}; text-align: center; "
        "border: 1px solid palette(mid); border-radius: 3px; }"
        f"QProgressBar::chunk {{ background-color: {chunk}; }}"
    )
