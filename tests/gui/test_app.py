"""The entry point and the demo data."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltm_desktop.core.records import GLOBAL_PROJECT_ID, ListQuery
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.demo import PROJECTS, fill_demo_data
from tests.conftest import FakeClock

ROOT = Path(__file__).resolve().parents[2]


def test_demo_data_fills_every_view(service: MemoryService, clock: FakeClock) -> None:
    fill_demo_data(service)
    scopes = {p.project_id: n for p, n in service.projects()}
    assert len(scopes) == len(PROJECTS) + 1
    assert scopes[GLOBAL_PROJECT_ID] >= 3
    billing = service.resolve_scope(cwd=PROJECTS["billing"])
    trash = service.list_memories(billing, ListQuery(only_disabled=True))
    assert any(m.superseded_by for m in trash)
    assert any(not m.superseded_by for m in trash)
    assert any(m.ttl_days for m in service.list_memories(billing))
    assert any(m.use_count for m in service.list_memories(billing))
    assert service.observations.page(billing)
    assert {e.actor for e in service.history.project(billing)} >= {"gui", "claude-code"}
    clock.advance(days=61)
    assert service.stale.memories(billing)  # the low-importance ones go stale with time


RUN_GUI_SCRIPT = """
import sys
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.app import run_gui
from ltm_desktop.gui.window.main_window import MainWindow
from ltm_desktop.store import open_store

tmp = Path(sys.argv[1])
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp))
paths = DataPaths(tmp / "data")
service = MemoryService(open_store(paths.db_path, paths.backup_dir), paths)
service.start()
app = QApplication([])
seen = []

def look_then_quit():
    seen.extend(w.windowTitle() for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
    app.quit()

QTimer.singleShot(0, look_then_quit)
code = run_gui(service, data_dir_label="test dir")
service.close()
print(code, seen)
"""


def test_run_gui_opens_the_window_and_returns(tmp_path: Path) -> None:
    """In a child process: ``app.exec()`` leaves process-wide Qt state behind for later tests."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", RUN_GUI_SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "0 ['ltm-desktop — test dir[*]']"


def test_the_ui_thread_gets_the_gil_back_quickly(qapp: object) -> None:
    """Workers run Python too; the UI thread must not wait 5 ms for every model call."""
    from ltm_desktop.gui.app import UI_SWITCH_INTERVAL, application

    application()
    assert sys.getswitchinterval() == pytest.approx(UI_SWITCH_INTERVAL)
    assert UI_SWITCH_INTERVAL <= 0.001
