"""The search field: search-as-you-type, debounced, so typing stays fluid."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget

DEBOUNCE_MS = 200


class SearchBox(QLineEdit):
    """Emits the text once typing pauses; Escape clears it; Down and Enter go to the results.

    Signals:
        query_changed(str): the settled text ("" shows the plain list again).
        to_results(): Down or Enter was pressed: the list (or the hits) should take the focus.
    """

    query_changed = Signal(str)
    to_results = Signal()

    def __init__(self, parent: QWidget | None = None, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self.setPlaceholderText('Search memories (Ctrl+F)… words, "a phrase", prefix*, -exclude')
        self.setClearButtonEnabled(True)
        self._timer = QTimer(self, singleShot=True, interval=debounce_ms)
        self._timer.timeout.connect(self.on_settled)
        self.textChanged.connect(self.on_text_changed)
        self._last = ""

    def on_text_changed(self, text: str) -> None:
        if not text.strip():  # clearing needs no wait
            self._timer.stop()
            self.on_settled()
        else:
            self._timer.start()

    def on_settled(self) -> None:
        text = self.text()
        if text != self._last:
            self._last = text
            self.query_changed.emit(text)

    def flush(self) -> None:
        """Emit now instead of after the pause (tests and benchmarks)."""
        if self._timer.isActive():
            self._timer.stop()
            self.on_settled()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.text():
            self.clear()
            return
        if event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.flush()  # Enter searches at once; the results take the focus when they come
            self.to_results.emit()
            return
        super().keyPressEvent(event)
