"""An inline notice with a few choices (conflicts, outcomes), styled from the palette."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from ltm_desktop.gui import theme


class Banner(QFrame):
    """Hidden until ``show_message``; its buttons call back and hide it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(10, 6, 6, 6)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self._layout.addWidget(self.label, 1)
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
            self._layout.addWidget(button)
            self.buttons.append(button)
        self.show()

    def button(self, caption: str) -> QPushButton | None:
        return next((b for b in self.buttons if b.text() == caption), None)

    def _choose(self, callback: Callable[[], None]) -> None:
        self.hide()
        callback()
