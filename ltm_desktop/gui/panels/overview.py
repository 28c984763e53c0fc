"""The Overview tab: a scope's (or every scope's) memories in five small charts.

The numbers come from ``core.overview`` on a worker, through an ``OverviewCache``: showing
the tab again, or a repaint, computes nothing while the audit history's head stays put.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ltm_desktop.core.overview.cache import OverviewCache
from ltm_desktop.core.overview.figures import Overview
from ltm_desktop.gui.bridge import ChangeSet
from ltm_desktop.gui.charts.base import Chart
from ltm_desktop.gui.charts.columns import LineChart, StackedBars
from ltm_desktop.gui.charts.grid import HeatGrid
from ltm_desktop.gui.charts.share_bar import ShareBar
from ltm_desktop.gui.context import AppContext
from ltm_desktop.gui.panels import overview_text as text
from ltm_desktop.gui.panels.base import ScopedPanel
from ltm_desktop.gui.theme import muted_color

SHORTCUT = "Ctrl+7"
NO_MEMORIES = "No memories yet: they appear here as agents write them."


class Card(QFrame):
    """A chart under its title, over a line that says its numbers (or the hovered item's)."""

    def __init__(self, title: str, chart: Chart, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.chart = chart
        self.title = QLabel(f"<b>{title}</b>", self)
        self.detail = QLabel(self)
        self.detail.setWordWrap(True)
        self.detail.setStyleSheet(f"color: {muted_color().name()}")
        self.summary = ""
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.title)
        layout.addWidget(chart, 1)
        layout.addWidget(self.detail)
        chart.item_changed.connect(self.on_item_changed)

    def set_summary(self, summary: str) -> None:
        self.summary = summary
        self.detail.setText(summary)

    def on_item_changed(self, numbers: str) -> None:
        self.detail.setText(numbers or self.summary)


class OverviewPanel(ScopedPanel):
    """Memories over time, changes per day, uses against importance, stale and removed,
    and MEMORY.md's budget, for the selected scope or for every scope."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.cache = OverviewCache()
        self.shown: Overview | None = None
        self.go_action = QAction("&Overview", self)  # Ctrl+7, on the window (install_overview)
        self.go_action.setShortcut(QKeySequence(SHORTCUT))
        self.go_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.heading = QLabel(self)
        self.everywhere = QCheckBox("All projects", self)
        self.everywhere.setToolTip("Count the memories of every project together")
        self.memories = StackedBars("Memories per week by category", NO_MEMORIES, text.MEMORIES)
        self.writes = StackedBars(
            "Changes per day by who made them", "No changes in the last 30 days.", text.CHANGES
        )
        self.uses = HeatGrid(
            "Uses against importance", NO_MEMORIES, ("importance", "times agents read it")
        )
        self.stale = LineChart(
            "Stale and removed per week", "Nothing stale or removed.", text.MEMORIES, (5, 6)
        )
        self.budget = ShareBar("MEMORY.md budget by category", "")
        self.cards = [
            Card("Memories over time, by category", self.memories),
            Card("Changes per day, by who made them (30 days)", self.writes),
            Card("What agents read, by importance", self.uses),
            Card("Stale candidates and removals per week", self.stale),
            Card("What MEMORY.md spends its budget on", self.budget),
        ]
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.everywhere)
        grid = QGridLayout()
        for i, card in enumerate(self.cards[:4]):
            grid.addWidget(card, i // 2, i % 2)
        grid.addWidget(self.cards[4], 2, 0, 1, 2)
        self.cards[4].setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        grid.setRowStretch(0, 1)
        grid.setRowStretch(1, 1)
        body = QWidget(self)
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(top)
        column.addLayout(grid, 1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        self.view = self.memories  # where Ctrl+7 puts the keyboard
        self.everywhere.toggled.connect(lambda _on: self.reload(True))

    @property
    def scope(self) -> str | None:
        return None if self.everywhere.isChecked() else self.project_id

    def affected_by(self, changes: ChangeSet) -> bool:
        if self.scope is None:
            return changes.everything or bool(changes.project_ids)
        return changes.touches_precis(self.project_id)  # global's memories are in its MEMORY.md

    def reload(self, scope_changed: bool) -> None:
        service, scope, cache = self.ctx.service, self.scope, self.cache
        if scope_changed:
            self.heading.setText(self._heading_text())
        self.ctx.runner.run(
            lambda: cache.get(service, scope, service.now()),
            self.show_overview,
            lambda exc: self.ctx.errors.report(exc, "count the overview"),
            key="overview",
        )

    def _heading_text(self) -> str:
        where = "every project" if self.scope is None else self.ctx.scope.name
        return f"<b>Overview of {where}</b> — hover or use the arrow keys for exact numbers"

    def show_overview(self, found: Overview) -> None:
        if found is self.shown:
            return
        self.shown = found
        weeks = found.memories.weeks
        self.memories.set_data(
            [text.short_date(w) for w in weeks],
            [text.week_name(w) for w in weeks],
            found.memories.categories,
            found.memories.counts,
        )
        days = found.writes.days
        self.writes.set_data(
            [text.short_date(d) for d in days],
            [text.day_name(d) for d in days],
            [text.actor_name(a) for a in found.writes.actors],
            found.writes.counts,
        )
        grid = found.uses
        self.uses.set_data(
            [str(i) for i in range(len(grid.counts) - 1, -1, -1)],
            list(grid.buckets),
            list(reversed(grid.counts)),
            text.use_tips(grid),
        )
        part = found.stale_removed
        self.stale.set_data(
            [text.short_date(w) for w in part.weeks],
            [text.week_name(w) for w in part.weeks],
            ["stale candidates", "removed"],
            list(zip(part.stale, part.removed, strict=True)),
        )
        self._show_budget(found)
        summaries = (
            text.memories_summary(found),
            text.writes_summary(found),
            text.uses_summary(grid),
            text.stale_summary(found),
        )
        for card, summary in zip(self.cards, summaries, strict=False):
            card.set_summary(summary)

    def _show_budget(self, found: Overview) -> None:
        share = found.budget
        if share is None:
            self.budget.empty_text = (
                "MEMORY.md is per project: untick “All projects” to see a project's."
            )
            self.budget.set_data([], [], [], 0, "")
            self.cards[4].set_summary("")
            return
        self.budget.empty_text = "MEMORY.md is empty: no memory is in it yet."
        self.budget.set_data(
            share.categories,
            share.bytes,
            text.budget_tips(share),
            share.budget,
            text.budget_caption(share),
        )
        self.cards[4].set_summary(text.budget_caption(share))


def install_overview(tabs: QTabWidget, ctx: AppContext, window: QWidget) -> OverviewPanel:
    """Add the Overview as the last tab of ``tabs``, with Ctrl+7 to go there (the keyboard
    then in its first chart, Tab to the next)."""
    panel = OverviewPanel(ctx, tabs)
    tabs.addTab(panel, "Overview")

    def show() -> None:
        tabs.setCurrentWidget(panel)
        panel.view.setFocus(Qt.FocusReason.ShortcutFocusReason)

    panel.go_action.triggered.connect(show)
    window.addAction(panel.go_action)
    return panel
