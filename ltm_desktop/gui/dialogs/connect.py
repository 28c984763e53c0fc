"""The "Connect an agent" instructions, the About box, and the application icon."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontDatabase, QGuiApplication, QIcon, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop import __version__
from ltm_desktop.agent.snippets import agent_snippets
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.api_status import ApiStatus
from ltm_desktop.gui.dialogs.connect_check import (
    check_health,
    failure_line,
    project_dir,
    socket_snippets,
)
from ltm_desktop.gui.dialogs.integrate import INTEGRATED_TABS, IntegrateRow
from ltm_desktop.gui.mnemonics import assign_mnemonics
from ltm_desktop.resources import icon_pngs

if TYPE_CHECKING:
    from ltm_desktop.gui.context import AppContext
    from ltm_desktop.gui.models.projects_model import ProjectsModel
    from ltm_desktop.gui.tasks import TaskRunner

ABOUT_ICON_SIZE = 64


def app_icon() -> QIcon:
    """The application icon at every packaged size (PNGs, so no SVG plugin is needed)."""
    icon = QIcon()
    for data in icon_pngs().values():
        pixmap = QPixmap()
        if pixmap.loadFromData(data, "PNG"):
            icon.addPixmap(pixmap)
    return icon


def mcp_data_dir(data_dir: Path | None) -> str | None:
    """The ``--data-dir`` the MCP snippets must name: None for the default data dir."""
    from ltm_desktop.api.runtime import default_data_dir

    if data_dir is None or data_dir.resolve() == default_data_dir().resolve():
        return None
    return str(data_dir.resolve())


def _code_box(text: str, parent: QWidget) -> QPlainTextEdit:
    box = QPlainTextEdit(text, parent)
    box.setReadOnly(True)
    box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    lines = text.count("\n") + 1
    box.setFixedHeight(box.fontMetrics().lineSpacing() * (lines + 1) + 28)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    return box


class ConnectDialog(QDialog):
    """Copyable snippets that make an agent use this memory: one tab per agent (MCP, from
    the same source as the README, with this installation's path), and the socket API
    (searching the window's project), with a "Test connection" of the running API."""

    def __init__(
        self,
        api: ApiStatus | None,
        parent: QWidget | None = None,
        data_dir: Path | None = None,
        *,
        runner: TaskRunner | None = None,
        cwd: str | None = None,
    ) -> None:
        """Args:
        runner: runs the connection test (without one the test button is disabled).
        cwd: the working directory of the window's project (None: the home folder).
        """
        super().__init__(parent)
        self.api, self.runner = api, runner
        self.cwd = project_dir(cwd)
        self.setWindowTitle("Connect an agent")
        self.setMinimumWidth(900)
        if api is not None and api.endpoint:
            where = f"Agents reach this app at <code>{api.endpoint}</code>."
        elif api is not None and api.error:
            where = f"<b>The agent API is not running:</b> {api.error}"
        else:
            where = "The agent API is not running in this window."
        intro = QLabel(
            f"<p>{where}</p><p>Each memory is stored for the project of the agent's working "
            "directory. Agents that speak MCP start <code>ltm-desktop mcp</code>, which "
            "writes through this app while it runs (you see their changes live) and to the "
            "database directly otherwise; everything else can use the socket API.</p>",
            self,
        )
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        self.tabs = QTabWidget(self)
        layout.addWidget(self.tabs)
        self.copy_buttons: list[QPushButton] = []
        self.boxes: list[QPlainTextEdit] = []
        self.integrate_rows: dict[str, IntegrateRow] = {}  # by agent (claude-code, ...)
        for snippet in agent_snippets(data_dir=mcp_data_dir(data_dir)):
            page = self._page([(snippet.where, snippet.text)])
            agent = INTEGRATED_TABS.get(snippet.agent)
            if agent is not None:
                row = IntegrateRow(agent, snippet.agent, page)
                layout_of_page = page.layout()
                assert isinstance(layout_of_page, QVBoxLayout)
                layout_of_page.insertWidget(layout_of_page.count() - 1, row)
                self.integrate_rows[agent] = row
            self.tabs.addTab(page, snippet.agent)
        endpoint = api.endpoint if api else None
        self.socket_entries = socket_snippets(endpoint, self.cwd)
        self.tabs.addTab(self._page(self.socket_entries), "Socket API")
        self.copied = QLabel(self)
        layout.addWidget(self.copied)
        self.check_result = QLabel(self)  # what "Test connection" found, in one line
        self.check_result.setTextFormat(Qt.TextFormat.PlainText)
        self.check_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.check_result)
        self.test_button = QPushButton("Test connection", self)
        self.test_button.setToolTip("Ask the running agent API for its health")
        self.test_button.setEnabled(runner is not None)
        self.test_button.clicked.connect(self.test_connection)
        self._check_key = key = f"connect-test-{id(self)}"
        if runner is not None:  # a closed dialog drops a late answer
            self.destroyed.connect(lambda: runner.cancel(key))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.test_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        assign_mnemonics(self)

    def _page(self, entries: list[tuple[str, str]]) -> QWidget:
        page = QWidget(self.tabs)
        column = QVBoxLayout(page)
        for caption, text in entries:
            row = QHBoxLayout()
            label = QLabel(caption, page)
            label.setWordWrap(True)
            row.addWidget(label, 1)
            copy = QPushButton("Copy", page)
            copy.clicked.connect(lambda _=False, t=text: self.copy(t))
            row.addWidget(copy)
            self.copy_buttons.append(copy)
            column.addLayout(row)
            box = _code_box(text, page)
            self.boxes.append(box)
            column.addWidget(box)
        column.addStretch(1)
        return page

    @classmethod
    def for_window(cls, ctx: AppContext, projects: ProjectsModel, parent: QWidget) -> ConnectDialog:
        """The dialog for a window: its API, data dir, task runner and chosen project."""
        row = projects.project(ctx.scope.project_id)
        cwd = None if row is None or row.is_global else row.path
        data_dir = Path(ctx.service.paths.data_dir)
        return cls(ctx.api, parent, data_dir, runner=ctx.runner, cwd=cwd)

    def python_snippet(self) -> str:
        return next(text for caption, text in self.socket_entries if "Python" in caption)

    def copy(self, text: str) -> None:
        QGuiApplication.clipboard().setText(text)
        self.copied.setText("Copied to the clipboard.")

    def test_connection(self) -> None:
        """Call the running API's ``health`` in a background task; say what came back."""
        if self.runner is None:
            return
        endpoint = self.api.endpoint if self.api else None
        error = self.api.error if self.api else None
        self.test_button.setEnabled(False)
        self.check_result.setText("Testing the connection…")
        self.runner.run(
            lambda: check_health(endpoint, error),
            self.on_checked,
            lambda exc: self.on_checked(failure_line(exc)),
            key=self._check_key,
        )

    def on_checked(self, line: str) -> None:
        self.check_result.setText(line)
        self.test_button.setEnabled(True)


def last_backup_label(data_dir: Path) -> str:
    """When the newest automatic backup was made (File › Back up now, or at start)."""
    from ltm_desktop.backups import last_backup  # the store stays out of the GUI

    newest = last_backup(data_dir)
    if newest is None:
        return "never"
    made = time.strftime("%Y-%m-%d %H:%M", time.localtime(newest.stat().st_mtime))
    return f"{made} ({newest.name})"


class AboutDialog(QDialog):
    """Version and where the data lives, with a way to open that folder."""

    def __init__(self, service: MemoryService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About ltm-desktop")
        self.data_dir = Path(service.paths.data_dir)
        icon = app_icon()
        self.setWindowIcon(icon)
        self.icon_label = QLabel(self)
        self.icon_label.setPixmap(icon.pixmap(ABOUT_ICON_SIZE, ABOUT_ICON_SIZE))
        title = QLabel(f"<h2>ltm-desktop {__version__}</h2>", self)
        where = service.database.location  # a PostgreSQL store's never holds the password
        blurb = QLabel(
            "Long-term memory for AI coding agents that you can see and curate. "
            + (
                "The memories are on a PostgreSQL server."
                if where.startswith("PostgreSQL")
                else "Everything stays on this machine."
            ),
            self,
        )
        blurb.setWordWrap(True)
        grid = QGridLayout()
        for row, (name, value) in enumerate(
            (
                ("Version", __version__),
                ("Data folder", str(self.data_dir)),
                ("Database", where),
                ("Last backup", last_backup_label(self.data_dir)),
            )
        ):
            grid.addWidget(QLabel(f"<b>{name}</b>", self), row, 0)
            label = QLabel(value, self)
            label.setTextInteractionFlags(label.textInteractionFlags().TextSelectableByMouse)
            grid.addWidget(label, row, 1)
        self.open_button = QPushButton("Open data folder", self)
        self.open_button.clicked.connect(self.open_folder)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        heading = QHBoxLayout()
        heading.addWidget(self.icon_label)
        heading.addWidget(title, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(heading)
        layout.addWidget(blurb)
        layout.addLayout(grid)
        layout.addWidget(buttons)
        assign_mnemonics(self)

    def open_folder(self) -> bool:
        return open_folder(self.data_dir)


def open_folder(path: Path) -> bool:
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
