"""The app itself (``desktop.launch``, in a child process) on a PostgreSQL database: it
opens, shows the window and leaves the database as it found it. (It once wrote the demo's
sample memories into every PostgreSQL database it opened: the branch for "not SQLite"
was the demo's.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ltm_desktop.launching import open_service
from tests.pg_databases import PgDatabases, to_url

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import sys
from pathlib import Path
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from ltm_desktop.desktop import launch
from ltm_desktop.gui.window.main_window import MainWindow

tmp = Path(sys.argv[1])
QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp))
seen = []

def look_then_quit():
    app = QApplication.instance()
    windows = [w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
    if not windows:
        QTimer.singleShot(50, look_then_quit)
        return
    seen.extend(w.windowTitle() for w in windows)
    app.quit()

app = QApplication([])
QTimer.singleShot(0, look_then_quit)
code = launch(str(tmp / "data"), str(tmp / "config.toml"), demo=False, warn=print,
              database_url=sys.argv[2])
print(code, seen)
"""


def test_the_app_opens_a_postgresql_database_and_writes_nothing_to_it(
    tmp_path: Path, pg_databases: PgDatabases
) -> None:
    url = to_url(pg_databases.take())
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    env.pop("LTM_DESKTOP_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), url],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    code, titles = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert code == "0"
    assert "PostgreSQL" in titles
    service = open_service(tmp_path / "look", database_url=url).service
    try:
        assert [(p.project_id, n) for p, n in service.projects()] == [("global", 0)]
        assert service.history.events_after(0) == []  # not one write
    finally:
        service.close()
