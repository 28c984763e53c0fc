"""Agent observations (agent_end, pre_compact) of the scope, newest first, by session, searchable."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.memory_list.view_state import ViewKeeper, configure_table
from ltm_desktop.gui.models.observation_model import COL_TITLE, ObservationModel
from ltm_desktop.gui.panels.base import ScopedPanel

ALL_SESSIONS = "All sessions"
NEWEST_POLL_MS = 2_000  # observations raise no change events: look for new ones while shown


class ObservationsPanel(ScopedPanel):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.model = ObservationModel(ctx.service, ctx.runner, self)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search observations…")
        self.search.setClearButtonEnabled(True)
        self.session = QComboBox(self)
        self.session.addItem(ALL_SESSIONS, None)
        self.session.setMinimumContentsLength(18)
        self.view = QTableView(self)
        self.view.setModel(self.model)
        configure_table(self.view, multi=False, stretch=COL_TITLE)
        self.keeper = ViewKeeper(self.view, self.model)
        self.detail = QPlainTextEdit(self)
        self.detail.setReadOnly(True)
        self.detail.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.detail.setPlaceholderText("Select an observation to read it.")
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(QLabel("Session:", self))
        top.addWidget(self.session)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.detail)
        splitter.setSizes([300, 200])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)
        self._debounce = QTimer(self, singleShot=True, interval=250)
        self._debounce.timeout.connect(self.on_filter_changed)
        self.search.textChanged.connect(self._debounce.start)
        self.session.currentIndexChanged.connect(self.on_filter_changed)
        self.model.dataChanged.connect(self.on_rows_arrived)
        self.model.load_failed.connect(lambda exc: ctx.errors.report(exc, "load observations"))
        self.view.selectionModel().currentRowChanged.connect(self.on_current_changed)
        self._newest: str | None = None
        self._shown: str | None = None  # the observation in the detail pane
        self._poll = QTimer(self, interval=NEWEST_POLL_MS)
        self._poll.timeout.connect(self.on_poll_due)

    def affected_by(self, changes: ChangeSet) -> bool:
        return changes.unaudited or changes.everything

    def reload(self, scope_changed: bool) -> None:
        if scope_changed:
            self.session.blockSignals(True)
            self.session.setCurrentIndex(0)  # all sessions: the others are the last scope's
            self.session.blockSignals(False)
            self.offer_sessions(self.project_id, [])
            self.model.set_filter(self.project_id, None, self.search.text())
        else:
            self.model.refresh()
        self.load_sessions()
        self._newest = None
        self._poll.start()
        self.on_poll_due()  # note the newest one now, so the next poll can tell what is new

    def hideEvent(self, event: object) -> None:
        self._poll.stop()
        super().hideEvent(event)  # type: ignore[arg-type]

    def stop(self) -> None:
        self._poll.stop()

    def on_poll_due(self) -> None:
        service, project_id = self.ctx.service, self.project_id

        def newest() -> str | None:
            found = service.observations.page(project_id, limit=1)
            return found[0].id if found else None

        self.ctx.runner.run(newest, self.on_newest, lambda exc: None, key=f"obs-poll-{id(self)}")

    @property
    def newest_seen(self) -> str | None:
        return self._newest

    def on_newest(self, newest: str | None) -> None:
        if self._newest is not None and newest != self._newest:
            self.model.refresh()
            self.load_sessions()
        self._newest = newest

    def on_filter_changed(self, *_args: object) -> None:
        self.model.set_filter(self.project_id, self.session.currentData(), self.search.text())

    def load_sessions(self) -> None:
        """Read the scope's sessions for the filter (all of them, not only those of the rows
        read so far) in the background."""
        service, project_id = self.ctx.service, self.project_id

        def sessions() -> list[str]:
            return service.observations.sessions(project_id)

        self.ctx.runner.run(
            sessions,
            lambda found: self.offer_sessions(project_id, found),
            lambda exc: None,  # the list itself reports a store that cannot be read
            key=f"obs-sessions-{id(self)}",
        )

    def offer_sessions(self, project_id: str | None, sessions: list[str]) -> None:
        """The filter's choices: all sessions, then ``sessions``; the chosen one stays
        chosen (and listed) while the scope is the same."""
        if project_id != self.project_id:
            return  # read for a scope no longer shown
        chosen = self.session.currentData()
        self.session.blockSignals(True)
        while self.session.count() > 1:
            self.session.removeItem(1)
        for session in sessions:
            self.session.addItem(session, session)
        if chosen is not None and self.session.findData(chosen) < 0:
            self.session.addItem(chosen, chosen)  # forgotten since, or older than those listed
        self.session.setCurrentIndex(max(self.session.findData(chosen), 0))
        self.session.blockSignals(False)

    def on_rows_arrived(self, top: QModelIndex, bottom: QModelIndex, *_args: object) -> None:
        """The current row's page came in (End, a click on a row still being read): show it."""
        current = self.view.currentIndex().row()
        if top.row() <= current <= bottom.row():
            self.on_current_changed()

    def on_current_changed(self, *_args: object) -> None:
        row = self.model.row_at(self.view.currentIndex().row())
        if row is None:
            self._shown = None
            self.detail.clear()
            return
        if row.id == self._shown:
            return  # a refresh: leave the text (and where it is scrolled to) alone
        self._shown = row.id
        o = row.observation
        self.detail.setPlainText(
            f"{o.title}\n{o.kind.value} · session {o.session_id} · {o.source}\n\n{o.narrative}"
        )
