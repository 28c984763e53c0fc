"""What an empty list says: on first launch, how to connect an agent; later, why it is empty."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

WELCOME = (
    "<h2>Welcome to ltm-desktop</h2>"
    "<p>This is where your coding agents' long-term memory lives. Nothing is stored yet.</p>"
    "<p>Point an agent at the local API and it will start writing memories for the project it "
    "works in; they appear here within a second. You can browse, search, edit and remove "
    "them, and see the <code>MEMORY.md</code> each project gets.</p>"
)


class EmptyState(QWidget):
    """A friendly page shown instead of an empty table.

    Signals:
        connect_requested(): the person wants the "Connect an agent" instructions.
        new_requested(): the person wants to write a memory themselves.
        clear_requested(): the person wants the filters that hide every memory cleared.
    """

    connect_requested = Signal()
    new_requested = Signal()
    clear_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # A fixed width lets the layout ask the wrapped text for its real height
        # (an aligned, free-width label gets a height for the wrong width and is clipped).
        self.label.setFixedWidth(400)
        self.connect_button = QPushButton("Connect an agent…", self)
        self.connect_button.clicked.connect(self.connect_requested)
        self.new_button = QPushButton("New memory (Ctrl+N)", self)
        self.new_button.clicked.connect(self.new_requested)
        self.clear_button = QPushButton("C&lear filters", self)
        self.clear_button.clicked.connect(self.clear_requested)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.connect_button)
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.clear_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.label, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addSpacing(12)
        layout.addLayout(buttons)
        layout.addStretch(2)

    def _set_text(self, html: str) -> None:
        self.label.setText(html)
        self.label.setMinimumHeight(self.label.heightForWidth(self.label.width()))

    def show_welcome(self) -> None:
        self._set_text(WELCOME)
        self.connect_button.show()
        self.new_button.show()
        self.clear_button.hide()

    def show_text(
        self, title: str, text: str, *, offer_new: bool = False, offer_clear: bool = False
    ) -> None:
        self._set_text(f"<h3>{title}</h3><p>{text}</p>")
        self.connect_button.setVisible(offer_new)
        self.new_button.setVisible(offer_new)
        self.clear_button.setVisible(offer_clear)
