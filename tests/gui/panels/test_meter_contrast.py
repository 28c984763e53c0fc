"""The MEMORY.md meter's text reads against its bar (WCAG contrast ≥ 4.5) in light and dark."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from pytestqt.qtbot import QtBot

from ltm_desktop.core.settings.config import Settings
from ltm_desktop.gui.window.main_window import TAB_PRECIS
from tests.conftest import ServiceFactory
from tests.gui.conftest import WindowFactory, add


def luminance(color: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(color.redF())
        + 0.7152 * channel(color.greenF())
        + 0.0722 * channel(color.blueF())
    )


def contrast(a: QColor, b: QColor) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _rule(style: str, selector: str, prop: str) -> QColor | None:
    block = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", style)
    found = block and re.search(rf"(?<![-\w]){prop}\s*:\s*(#[0-9a-fA-F]{{6}})", block.group(1))
    return QColor(found.group(1)) if found else None


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in (
        (QPalette.ColorRole.Window, "#202124"),
        (QPalette.ColorRole.Base, "#2b2b2b"),
        (QPalette.ColorRole.Text, "#e8e8e8"),
        (QPalette.ColorRole.WindowText, "#e8e8e8"),
        (QPalette.ColorRole.Highlight, "#3d6fb4"),
        (QPalette.ColorRole.HighlightedText, "#ffffff"),
    ):
        palette.setColor(role, QColor(colour))
    return palette


@pytest.fixture(params=["light", "dark"])
def palette(request: pytest.FixtureRequest) -> Iterator[str]:
    before = QGuiApplication.palette()
    if request.param == "dark":
        QGuiApplication.setPalette(dark_palette())
    yield request.param
    QGuiApplication.setPalette(before)


@pytest.mark.parametrize("budget", [5120, 300])  # roomy, then full (the warning colour)
def test_the_meter_text_contrasts_with_its_bar(
    qtbot: QtBot,
    make_window: WindowFactory,
    make_service: ServiceFactory,
    palette: str,
    budget: int,
) -> None:
    service = make_service(settings=Settings(precis_budget_bytes=budget))
    project = service.resolve_scope(cwd="/home/dev/src/tiny", register=True)
    for word in ("alpha", "bravo", "charlie"):
        add(service, project, f"{word} " * 30, title=f"Memory {word}")
    window = make_window(service, scope=project)
    window.details.setCurrentIndex(TAB_PRECIS)
    meter = window.precis.meter
    qtbot.waitUntil(lambda: window.precis.info is not None and meter.text() != "")
    style, pal = meter.styleSheet(), meter.palette()
    text = _rule(style, "QProgressBar", "color") or pal.color(QPalette.ColorRole.Text)
    chunk = _rule(style, "QProgressBar::chunk", "background-color") or pal.color(
        QPalette.ColorRole.Highlight
    )
    groove = _rule(style, "QProgressBar", "background-color") or pal.color(QPalette.ColorRole.Base)
    assert contrast(text, chunk) >= 4.5, (palette, text.name(), chunk.name())
    assert contrast(text, groove) >= 4.5, (palette, text.name(), groove.name())
