"""The scope's live MEMORY.md: rendered, raw, its budget meter and what the budget cut."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.records import PrecisInfo
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui import theme
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.formatting import budget_label
from ltm_desktop.gui.memory_list.view_state import ColumnFitter, ViewKeeper, configure_table
from ltm_desktop.gui.models.base import MemoryIdRole
from ltm_desktop.gui.models.precis_model import (
    COL_IMPORTANCE,
    COL_RANK,
    COL_SCOPE,
    COL_STATUS,
    COL_TITLE,
    CandidateRow,
    PrecisCandidatesModel,
)
from ltm_desktop.gui.panels.base import ScopedPanel


def load_precis(service: MemoryService, project_id: str) -> tuple[PrecisInfo, list[CandidateRow]]:
    info = service.precis(project_id)
    included = set(info.memory_ids)
    # the budget ran out inside the last memory that went in: it is there, cut short
    cut_short = info.memory_ids[-1] if info.truncated and info.memory_ids else None
    found = service.get_many(info.candidate_ids)
    rows = []
    for rank, memory_id in enumerate(info.candidate_ids, start=1):
        memory = found.get(memory_id)
        if memory is None:  # removed since the precis was computed
            continue
        rows.append(
            CandidateRow(
                memory_id,
                rank,
                memory.title,
                memory.importance,
                service.ambient.is_ambient(memory.project_id),
                memory_id in included,
                truncated=memory_id == cut_short,
            )
        )
    return info, rows


class PrecisPanel(ScopedPanel):
    """Reloads whenever the scope or global changes, whoever changed it: one load at a time
    (changes arriving meanwhile are read by one more load after it), and what did not change
    (the text, the candidates, the meter's colour) is not rendered or laid out again.

    Signals:
        memory_activated(str): the person clicked a candidate.
        precis_loaded(object): the PrecisInfo now shown.
    """

    memory_activated = Signal(str)
    precis_loaded = Signal(object)

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.info: PrecisInfo | None = None
        self._shown_text: str | None = None
        self._loading = False
        self._load_again = False
        self.meter = QProgressBar(self)
        self.meter.setTextVisible(True)
        self.warning = QLabel(self)
        self.warning.setWordWrap(True)
        self.path = QLabel(self)
        self.path.setWordWrap(True)
        self.path.setEnabled(False)
        self.rendered = QTextBrowser(self)
        self.rendered.setOpenExternalLinks(False)
        self.raw = QPlainTextEdit(self)
        self.raw.setReadOnly(True)
        self.raw.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.rendered, "Preview")
        self.tabs.addTab(self.raw, "Raw text")
        self.model = PrecisCandidatesModel(self)
        self.candidates = QTableView(self)
        self.candidates.setModel(self.model)
        configure_table(self.candidates, multi=False, stretch=COL_TITLE)
        self.fitter = ColumnFitter(
            self.candidates, (COL_RANK, COL_IMPORTANCE, COL_SCOPE, COL_STATUS)
        )
        self.keeper = ViewKeeper(self.candidates, self.model)
        self.candidates.clicked.connect(self.on_candidate_clicked)
        self.candidates.activated.connect(self.on_candidate_clicked)
        lower = QWidget(self)
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        caption = QLabel("Top memories by importance — which made it into the file:", lower)
        caption.setWordWrap(True)
        lower_layout.addWidget(caption)
        lower_layout.addWidget(self.candidates)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.tabs)
        splitter.addWidget(lower)
        splitter.setSizes([320, 220])
        layout = QVBoxLayout(self)
        layout.addWidget(self.meter)
        layout.addWidget(self.warning)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.path)

    def affected_by(self, changes: ChangeSet) -> bool:
        return changes.touches_precis(self.project_id)

    def reload(self, scope_changed: bool) -> None:
        if self._loading and not scope_changed:
            self._load_again = True  # read once the load under way is in
            return
        self._loading, self._load_again = True, False
        service, project_id = self.ctx.service, self.project_id
        self.ctx.runner.run(
            lambda: load_precis(service, project_id),
            lambda result: self._on_loaded(project_id, *result),
            self._on_failed,
            key=f"precis-{id(self)}",
        )

    def _load_done(self) -> None:
        self._loading = False
        if self._load_again:
            self.reload(scope_changed=False)

    def _on_failed(self, exc: BaseException) -> None:
        self._load_done()
        self.ctx.errors.report(exc, "render MEMORY.md")

    def _on_loaded(self, project_id: str, info: PrecisInfo, rows: list[CandidateRow]) -> None:
        try:
            if project_id == self.project_id:
                self._show(info, rows)
        finally:
            self._load_done()

    def _show(self, info: PrecisInfo, rows: list[CandidateRow]) -> None:
        self.info = info
        self.meter.setRange(0, max(1, info.budget))
        self.meter.setValue(min(info.bytes, info.budget))
        self.meter.setFormat(budget_label(info.bytes, info.budget))
        full = info.truncated or info.bytes >= info.budget  # the meter says so in colour too
        style = theme.meter_style(full)
        if self.meter.styleSheet() != style:  # setting one re-polishes, even the same one
            self.meter.setStyleSheet(style)
        cut = len(info.candidate_ids) - len(info.memory_ids)
        if info.truncated:
            self.warning.setText(
                f"⚠ MEMORY.md is cut at its {info.budget:,}-byte budget: the last memory is "
                f"truncated and {cut} more did not fit. Lower the importance of memories agents "
                "do not need, or raise [precis] budget_bytes in the config."
            )
            self._warning_style(f"color: {theme.css(theme.warning_color())};")
            self.warning.show()
        elif not info.text:
            self.warning.setText("Nothing to inject yet: this scope and global have no memories.")
            self._warning_style("")
            self.warning.show()
        else:
            self.warning.hide()
        if info.text != self._shown_text:  # rendering Markdown is the costly part
            self._shown_text = info.text
            scroll = self.rendered.verticalScrollBar().value()
            self.rendered.setMarkdown(info.text)
            self.rendered.verticalScrollBar().setValue(scroll)
        if self.raw.toPlainText() != info.text:
            raw_scroll = self.raw.verticalScrollBar().value()
            self.raw.setPlainText(info.text)
            self.raw.verticalScrollBar().setValue(raw_scroll)
        self.path.setText(f"File: {info.path} (regenerated after every change; do not edit)")
        if rows != self.model.rows():  # else no patch, no keeper pass, no column fit
            self.model.set_rows(rows)
        self.precis_loaded.emit(info)

    def _warning_style(self, style: str) -> None:
        if self.warning.styleSheet() != style:
            self.warning.setStyleSheet(style)

    def on_candidate_clicked(self, index: QModelIndex) -> None:
        memory_id = index.data(MemoryIdRole)
        if memory_id:
            self.memory_activated.emit(memory_id)
