""" "New from agents since you last looked": a filter on the list, a count per project in
the sidebar, and "Mark all seen" to start the next look from now.

The time of the last look is kept in the settings (one for the whole app: a person
reviews what agents wrote everywhere, then marks it seen). Before the first look it is
a day before the app first ran, so the first review covers what agents wrote today.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QCheckBox, QPushButton, QWidget

from ltm_desktop.core.records import SECONDS_PER_DAY
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import absolute_time

SEEN_KEY = "review/seen_at"


class NewSince(QObject):
    """The filter's checkbox and the "Mark all seen" button, and the time they use.

    Signals:
        changed(): the filter was turned on or off, or the last look moved.
    """

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.toggle = QCheckBox("New", parent)
        self.mark_seen = QPushButton("Mark all seen", parent)
        self.mark_seen.setToolTip("Start the next look from now: these stop counting as new")
        self.mark_seen.hide()
        if not ctx.settings.contains(SEEN_KEY):
            ctx.settings.setValue(SEEN_KEY, ctx.service.now() - SECONDS_PER_DAY)
        self.toggle.toggled.connect(self.on_toggled)
        self.mark_seen.clicked.connect(self.mark_all_seen)
        self._describe()

    @property
    def seen_at(self) -> float:
        return last_look(self.ctx)

    def since(self) -> float | None:
        """The list's ``new_since`` filter: the last look while the box is ticked."""
        return self.seen_at if self.toggle.isChecked() else None

    def on_toggled(self, on: bool) -> None:
        self.mark_seen.setVisible(on)
        self.changed.emit()

    def mark_all_seen(self) -> None:
        self.ctx.settings.setValue(SEEN_KEY, self.ctx.service.now())
        self._describe()
        self.changed.emit()

    def _describe(self) -> None:
        self.toggle.setToolTip(
            f"Only memories agents added since you last looked ({absolute_time(self.seen_at)})"
        )


def last_look(ctx: AppContext) -> float:
    """When the person last marked everything seen (a day before the first run before)."""
    try:
        return float(str(ctx.settings.value(SEEN_KEY)))
    except ValueError:  # never set, or a settings file someone edited
        return ctx.service.now() - SECONDS_PER_DAY
