"""An inline notice with a few choices (conflicts, outcomes), styled from the palette."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from ltm_desktop.gui import theme

Direction = QBoxLayout.Direction


class Banner(QFrame):
    """Hidden until ``show_message``; its buttons call back and hide it.

    The text takes the banner's whole width and the buttons sit under it, in a row while
    they fit and one above the other when the banner is too narrow for that.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        layout.addWidget(self.label)
        self._row = QBoxLayout(Direction.LeftToRight)
        self._row.addStretch(1)
        layout.addLayout(self._row)
        self.buttons: list[QPushButton] = []
        self.hide()

    def show_message(
        self,
        text: str,
        choices: list[tuple[str, Callable[[], None]]] | None = None,
        *,
        warn: bool = True,
    ) -> None:
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        colour = theme.css(theme.banner_background()) if warn else "palette(alternate-base)"
        self.setStyleSheet(f"QFrame#banner {{ background: {colour}; border-radius: 4px; }}")
        self.label.setText(text)
        for caption, callback in choices or []:
            button = QPushButton(caption, self)
            button.clicked.connect(lambda _=False, cb=callback: self._choose(cb))
            self._row.addWidget(button)
            self.buttons.append(button)
        self._fit_buttons(self.width())
        self.show()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_buttons(event.size().width())

    def _fit_buttons(self, width: int) -> None:
        """A row of buttons while it fits the banner, else a column (each shown whole)."""
        margins = self.contentsMargins().left() + self.contentsMargins().right() + 16
        spacing = max(self._row.spacing(), 0) * len(self.buttons)
        wanted = sum(b.sizeHint().width() for b in self.buttons) + spacing + margins
        fits = width >= wanted
        self._row.setDirection(Direction.LeftToRight if fits else Direction.TopToBottom)

    def button(self, caption: str) -> QPushButton | None:
        return next((b for b in self.buttons if b.text() == caption), None)

    def _choose(self, callback: Callable[[], None]) -> None:
        self.hide()
        callback()
