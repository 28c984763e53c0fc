"""The status bar, in fixed sections that never overlap: the scope's size (and the
selection's) | background work (indexing, a bulk action's progress and its Cancel) | the
last message | the shared database's reachability ("offline — 3 changes waiting") |
whether agents can reach this app and what they did last."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from ltm_desktop.core.offline import OfflineStatus
from ltm_desktop.core.records import IndexStatus
from ltm_desktop.gui import theme
from ltm_desktop.gui.api_status import ApiStatus, RestartableApi, ServesHttp
from ltm_desktop.gui.elided_label import ElidedLabel

POLL_MS = 1_000
MESSAGE_MS = 8_000


class StatusBar(QStatusBar):
    """Polls the ApiStatus once a second (cheap in-memory reads); works without one.

    Signals:
        connect_requested(): the person clicked "Connect an agent…".
        cancel_requested(): the person pressed Cancel on the bulk action under way.
    """

    connect_requested = Signal()
    cancel_requested = Signal()

    def __init__(
        self,
        api: ApiStatus | None,
        parent: QWidget | None = None,
        search: Callable[[], IndexStatus | None] | None = None,
        offline: Callable[[], OfflineStatus] | None = None,
    ) -> None:
        """``offline``: the outbox's state (``service.offline.status``), polled with the API."""
        super().__init__(parent)
        self.api = api
        self._search = search
        self._offline = offline
        self.offline_label = ElidedLabel(self)  # "offline — 3 changes waiting (oldest 2 min)"
        self.offline_label.hide()
        self.scope_label = QLabel(self)  # never cut: the count is what the bar is for
        self.selection_label = QLabel(self)  # "10,187 selected"
        self.selection_label.hide()
        self.search_label = ElidedLabel(self)  # indexing meaning
        self.search_label.hide()
        self.progress_bar = QProgressBar(self)  # a bulk action's chunks
        self.progress_bar.setMaximumWidth(160)
        self.progress_bar.hide()
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setToolTip("Stop after the chunk being written; what was done stays")
        self.cancel_button.clicked.connect(self.on_cancel_clicked)
        self.cancel_button.hide()
        self.message_label = ElidedLabel(self)  # its whole text in its tooltip
        self._message_timer = QTimer(self, singleShot=True, interval=MESSAGE_MS)
        self._message_timer.timeout.connect(self.clear_message)
        self._about_api: tuple[str | None, str | None] | None = None  # the API's state then
        self.api_label = ElidedLabel(self)
        self.agents_label = QLabel(self)  # short: cut, it read '2 a…ted'
        self.last_label = ElidedLabel(self)
        self.start_button = QPushButton("Start API", self)
        self.start_button.setFlat(True)
        self.start_button.clicked.connect(self.on_start_clicked)
        self.start_button.hide()
        self._waiting_for_other = False  # another server holds the data dir: take over later
        self.connect_button = QPushButton("Connect an agent…", self)
        self.connect_button.setFlat(True)
        self.connect_button.clicked.connect(self.connect_requested)
        # All permanent: Qt's temporary messages (a menu's status tips too) hide the
        # normal widgets and paint over them ("Saved …" over "Indexing meaning").
        for widget in (
            self.scope_label,
            self.selection_label,
            self.search_label,
            self.progress_bar,
            self.cancel_button,
        ):
            self.addPermanentWidget(widget)
        self.addPermanentWidget(self.message_label, 1)
        for widget in (
            self.offline_label,
            self.api_label,
            self.start_button,
            self.agents_label,
            self.last_label,
            self.connect_button,
        ):
            self.addPermanentWidget(widget)
        self._timer = QTimer(self, interval=POLL_MS)
        self._timer.timeout.connect(self.on_poll_due)
        self._timer.start()
        self.on_poll_due()

    def stop(self) -> None:
        self._timer.stop()

    def set_scope_text(self, text: str) -> None:
        self.scope_label.setText(text)

    def set_selected(self, count: int) -> None:
        """How many memories the list's selection holds (said from two on)."""
        self.selection_label.setText(f"{count:,} selected")
        self.selection_label.setVisible(count > 1)

    def show_progress(self, doing: str, done: int, of: int) -> None:
        """A bulk action's progress, with its Cancel."""
        self.progress_bar.setRange(0, max(1, of))
        self.progress_bar.setValue(min(done, of))
        self.progress_bar.setFormat(f"{done:,} of {of:,}")
        self.progress_bar.setToolTip(doing)
        self.progress_bar.show()
        self.cancel_button.setEnabled(True)
        self.cancel_button.show()

    def hide_progress(self) -> None:
        self.progress_bar.hide()
        self.cancel_button.hide()

    def on_cancel_clicked(self) -> None:
        self.cancel_button.setEnabled(False)
        self.say("Cancelling after the chunk being written…")
        self.cancel_requested.emit()

    def say(self, text: str, *, about_api: bool = False) -> None:
        """Show ``text`` in the message section for a while; ``about_api``: it goes as soon
        as the agent API's state moves on (it would be stale)."""
        if not text:
            return
        self.message_label.setText(text)
        self._about_api = self._api_state() if about_api else None
        self._message_timer.start()

    def clear_message(self) -> None:
        self.message_label.setText("")
        self._about_api = None

    def currentMessage(self) -> str:
        """The message section's text (Qt's own temporary message is not used)."""
        return self.message_label.text()

    def _api_state(self) -> tuple[str | None, str | None]:
        api = self.api
        return (None, None) if api is None else (api.endpoint, api.error)

    def on_poll_due(self) -> None:
        self._show_search()
        self._show_offline()
        api = self.api
        if api is None:
            self._show("Agent API: not started in this window", "", "")
            return
        try:
            error, endpoint = api.error, api.endpoint
            clients = api.connected_clients()
            last = api.last_action()
        except Exception as exc:  # a status object must never take the window down
            self._show(f"Agent API status unavailable: {exc}", "", "", error=True)
            return
        if self._about_api is not None and self._about_api != (endpoint, error):
            self.clear_message()  # what it said of the API is no longer so
        self._offer_start(api, error)
        if error and self._waiting_for_other:
            self._show(
                "Agent API: another ltm-desktop server serves this data dir; this "
                "window takes over when it stops",
                "",
                "",
            )
            self.api_label.setToolTip(f"{self.api_label.text()}\n{error}")
        elif error:
            self._show(f"Agent API not running: {error}", "", "", error=True)
        elif endpoint is None:
            self._show("Agent API starting…", "", "")
        else:
            if self._waiting_for_other:
                self._waiting_for_other = False
                self.say(
                    f"The other ltm-desktop server stopped: agents now reach this window at "
                    f"{endpoint}."
                )

            agents = (
                "no agents connected"
                if clients == 0
                else f"{clients} agent{'s' if clients != 1 else ''} connected"
            )
            http = api.http_endpoint if isinstance(api, ServesHttp) else None
            where = f"API: {endpoint}" + (f"  {http}" if http else "")
            self._show(where, agents, f"Last: {last}" if last else "")

    def _offer_start(self, api: ApiStatus, error: str | None) -> None:
        """ "Start API" / "Retry" while the API is down; while another server holds the
        data dir, try to take over at every poll (it costs a lock attempt)."""
        restartable = isinstance(api, RestartableApi)
        self.start_button.setVisible(restartable and bool(error))
        if not restartable or not error:
            return
        assert isinstance(api, RestartableApi)
        if api.other_server:
            self._waiting_for_other = True
            self.start_button.setText("Start API")
            api.restart()
        else:
            self.start_button.setText("Retry")

    def on_start_clicked(self) -> None:
        api = self.api
        if isinstance(api, RestartableApi):
            api.restart()
            self.say("Starting the agent API…", about_api=True)
            self.on_poll_due()

    def _show_search(self) -> None:
        """Semantic search's backfill progress, or why it is off; nothing once complete."""
        status = self._search() if self._search is not None else None
        if status is None or (status.complete and status.problem is None):
            self.search_label.hide()
            return
        if status.problem is not None:
            self.search_label.setText("Search by words only")
            self.search_label.setToolTip(status.problem)
        else:
            self.search_label.setText(
                f"Indexing meaning: {status.with_vectors:,} of {status.memories:,} memories"
            )
            self.search_label.setToolTip(
                "Memories get vectors for search by meaning in the background; until then "
                "they are found by their words."
            )
        self.search_label.show()

    def _show_offline(self) -> None:
        """The outbox's state while the database is away or writes wait; nothing else."""
        try:
            status = self._offline() if self._offline is not None else None
        except Exception as exc:  # a status object must never take the window down
            self.offline_label.setText("outbox state unavailable")
            self.offline_label.setToolTip(str(exc))
            self.offline_label.show()
            return
        text = status.describe() if status is not None else ""
        if status is None or not text:
            self.offline_label.hide()
            return
        self.offline_label.setText(text)
        tip = [
            "Changes made while the shared database cannot be reached are kept on this "
            "machine and written, in order, when it answers again."
        ]
        if status.problem:
            tip.append(status.problem)
        if status.conflicts:
            tip.append(
                f"{status.conflicts} could not be applied and are kept aside in the outbox "
                "(see them with `ltm-desktop outbox`)"
            )
        self.offline_label.setToolTip("\n".join(tip))
        self.offline_label.setStyleSheet(
            f"color: {theme.css(theme.error_color())};" if status.offline else ""
        )
        self.offline_label.show()

    def _show(self, api: str, agents: str, last: str, *, error: bool = False) -> None:
        self.api_label.setText(api)
        self.api_label.setStyleSheet(f"color: {theme.css(theme.error_color())};" if error else "")
        self.agents_label.setText(agents)
        self.agents_label.setVisible(bool(agents))
        self.last_label.setText(last)
        self.last_label.setVisible(bool(last))
