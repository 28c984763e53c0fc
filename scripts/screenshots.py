"""Render the main views with demo data to docs/screenshots/*.png (offscreen, no display needed).

.venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--only overview]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QItemSelectionModel, QSettings  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from ltm_desktop.core.inbox.extraction import new_run_id  # noqa: E402
from ltm_desktop.core.records import Provenance  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.settings.config import Settings  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402
from ltm_desktop.gui.app import application  # noqa: E402
from ltm_desktop.gui.demo import PROJECTS, DemoClock, fill_demo_data  # noqa: E402
from ltm_desktop.gui.window.main_window import (  # noqa: E402
    TAB_ACTIVITY,
    TAB_EDITOR,
    TAB_HISTORY,
    TAB_INBOX,
    TAB_MEMORIES,
    TAB_PRECIS,
    TAB_STALE,
    TAB_TRASH,
    MainWindow,
)
from ltm_desktop.store import open_store  # noqa: E402


class DemoApi:
    endpoint = "unix:/run/user/1000/ltm-desktop/ltm.sock"
    error = None

    def connected_clients(self) -> int:
        return 2

    def last_action(self) -> str | None:
        return "claude-code: memory.search 12 s ago"


def use_dark_palette(app: QApplication) -> None:
    """A dark Fusion palette, as a dark desktop theme would give (colours must follow it)."""
    app.setStyle("Fusion")
    palette = QPalette()
    role = QPalette.ColorRole
    for name, colour in {
        role.Window: "#2b2b2b",
        role.WindowText: "#e6e6e6",
        role.Base: "#1e1e1e",
        role.AlternateBase: "#262626",
        role.Text: "#e6e6e6",
        role.Button: "#353535",
        role.ButtonText: "#e6e6e6",
        role.Highlight: "#2f65ca",
        role.HighlightedText: "#ffffff",
        role.ToolTipBase: "#353535",
        role.ToolTipText: "#e6e6e6",
        role.PlaceholderText: "#8c8c8c",
        role.Link: "#6ea8fe",
    }.items():
        palette.setColor(name, QColor(colour))
    palette.setColor(QPalette.ColorGroup.Disabled, role.Text, QColor("#7a7a7a"))
    palette.setColor(QPalette.ColorGroup.Disabled, role.ButtonText, QColor("#7a7a7a"))
    app.setPalette(palette)


def fill_inbox(service: MemoryService, project_id: str) -> None:
    """What an extraction before a compaction might have found (two held for review, one
    added unreviewed)."""
    session = "7c1e9a40-52b3-4d0e-9f6a-0e2d8c4b1a77"
    transcript = f"~/.claude/projects/-home-me-src-billing-api/{session}.jsonl"
    for review, entries in (
        (
            True,
            [
                {
                    "title": "Invoice footer",
                    "content": "The VAT number and the IBAN are missing "
                    "from the invoice PDF footer (`templates/invoice.html`); ticket BILL-231, due "
                    "before the March release.",
                    "category": "task",
                    "importance": 6,
                },
                {
                    "title": "Stripe webhooks",
                    "content": "Stripe webhooks are verified with the "
                    "signing secret from the vault, and retried three times with backoff.",
                    "category": "knowledge",
                    "importance": 7,
                },
            ],
        ),
        (
            False,
            [
                {
                    "title": "Small commits",
                    "content": "The user prefers small commits with imperative subject lines.",
                    "category": "preference",
                    "importance": 5,
                },
            ],
        ),
    ):
        source = Provenance(
            new_run_id(service.now()),
            "claude-code",
            session,
            transcript,
            "llama3.1:8b",
            service.now(),
        )
        service.inbox.store_extraction(
            project_id, entries, source, review=review, started_at=service.now()
        )


def settle(app: QApplication, done: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.processEvents()
        if done():
            break
    for _ in range(20):
        app.processEvents()


def shoot_overview(app: QApplication, window: MainWindow, shot: Callable[[str], None]) -> None:
    """The Overview tab at 1280x800, the keyboard on a week of its first chart."""
    size = window.size()
    window.resize(1280, 800)
    window.center.setCurrentWidget(window.overview)
    settle(app, lambda: window.is_idle() and window.overview.shown is not None)
    window.overview.memories.setFocus()
    window.overview.memories.select(window.overview.memories.count() - 1)
    shot("overview")
    window.resize(size)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--dark", action="store_true", help="render with a dark palette")
    parser.add_argument("--only", choices=["overview"], help="render only this picture")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = application([])
    if args.dark:
        use_dark_palette(app)
    with tempfile.TemporaryDirectory() as tmp:
        paths = DataPaths(Path(tmp) / "data")
        clock = DemoClock()
        service = MemoryService(
            open_store(paths.db_path, paths.backup_dir),
            paths,
            Settings(precis_budget_bytes=2048),
            clock=clock,
        )
        service.start()
        fill_demo_data(service, clock)
        billing = service.resolve_scope(cwd=PROJECTS["billing"])
        settings = QSettings(str(Path(tmp) / "gui.ini"), QSettings.Format.IniFormat)
        settings.setValue("scope", billing)
        window = MainWindow(
            service, settings=settings, data_dir_label="~/.local/share/ltm-desktop", api=DemoApi()
        )
        window.resize(1280, 800)
        window.show()
        idle = window.is_idle
        settle(app, lambda: idle() and window.table.model.rowCount() > 0)

        def shot(name: str, widget: QWidget | None = None) -> None:
            settle(app, idle)
            (widget or window).grab().save(str(out / f"{name}.png"))
            print(out / f"{name}.png")

        shoot_overview(app, window, lambda name: shot(name))
        if args.only == "overview":
            window.close()
            service.close()
            return 0
        window.center.setCurrentIndex(TAB_MEMORIES)  # back from the Overview
        model = window.table.model
        flags = QItemSelectionModel.SelectionFlag
        window.table.list_view.selectionModel().setCurrentIndex(
            model.index(1, 0), flags.ClearAndSelect | flags.Rows
        )
        window.details.setCurrentIndex(TAB_EDITOR)
        shot("main-window")
        window.resize(800, 800)  # the projects step aside, the list keeps its room
        shot("main-window-800")
        window.resize(1280, 800)
        window.details.setCurrentIndex(TAB_HISTORY)
        window.history.view.selectRow(window.history.model.rowCount() - 1)
        shot("history")
        window.details.setCurrentIndex(TAB_PRECIS)
        shot("memory-md-preview")
        window.details.setCurrentIndex(TAB_EDITOR)
        window.table.search_box.setText("deploy produc")
        window.table.search_box.flush()
        settle(app, lambda: idle() and window.table.search_model.rowCount() > 0)
        window.table.search_view.selectRow(0)
        shot("search")
        window.table.search_box.clear()
        window.menu_actions.new_memory.trigger()
        window.editor.form.content.setPlainText("   ")
        window.editor.form.tags.setText(", ".join(f"tag{i}" for i in range(21)))
        window.editor.save()
        shot("editor-validation")
        window.editor.revert()
        window.center.setCurrentIndex(TAB_STALE)
        settle(app, lambda: idle() and window.stale.model.rowCount() > 0)
        window.stale.view.selectAll()
        shot("stale")
        window.center.setCurrentIndex(TAB_TRASH)
        settle(app, lambda: idle() and window.trash.model.rowCount() > 0)
        shot("trash")
        window.center.setCurrentIndex(TAB_ACTIVITY)
        settle(app, lambda: idle() and window.activity.model.rowCount() > 0)
        shot("activity")
        fill_inbox(service, billing)
        window.center.setCurrentIndex(TAB_INBOX)
        settle(app, lambda: idle() and window.inbox.model.rowCount() == 3)
        window.inbox.select_row(1)
        shot("inbox")
        window.center.setCurrentIndex(TAB_MEMORIES)
        dialog = window.show_connect()
        shot("connect-dialog", dialog)
        dialog.close()
        window.close()
        service.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
