"""Bulk actions on thousands of memories, as the GUI runs them (``gui.ops.run``, off the UI
thread): remove N (Stale "Remove selected", Delete in the list), restore them (its undo)
and erase them for good (the Trash's "Erase permanently…").

    .venv/bin/python bench/bulk_bench.py [--memories 5000] [--gui]

Prints the wall time of each step, memories per second, and how many write transactions
and change notifications each took. ``--gui`` instead drives a window's Stale tab: Select
all, Remove selected, and times the click itself (the UI thread), the wait until every
memory is in the Trash, and until the list is empty.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltm_desktop.core.records import MemoryDraft  # noqa: E402
from ltm_desktop.core.service import MemoryService  # noqa: E402
from ltm_desktop.core.settings.paths import DataPaths  # noqa: E402
from ltm_desktop.gui import ops  # noqa: E402
from ltm_desktop.store import open_store  # noqa: E402


class Counted:
    """Counts the store's write transactions and the service's change notifications."""

    def __init__(self, service: MemoryService) -> None:
        self.transactions = 0
        self.publishes = 0
        store, events = service.store, service.events
        write, publish = store.write, events.publish

        def counted_write() -> Any:
            self.transactions += 1
            return write()

        def counted_publish(batch: Any) -> None:
            self.publishes += 1
            publish(batch)

        store.write = counted_write  # type: ignore[method-assign]
        events.publish = counted_publish  # type: ignore[method-assign,assignment]

    def reset(self) -> tuple[int, int]:
        seen = (self.transactions, self.publishes)
        self.transactions = self.publishes = 0
        return seen


def step(name: str, count: int, counted: Counted, work: Any) -> None:
    counted.reset()
    start = time.perf_counter()
    work()
    took = time.perf_counter() - start
    transactions, publishes = counted.reset()
    print(
        f"{name:<28} {took:8.2f} s  {count / took:9,.0f}/s  "
        f"{transactions:6,} transactions  {publishes:6,} notifications"
    )


def gui(count: int) -> None:
    from PySide6.QtCore import QSettings

    from ltm_desktop.gui.app import application
    from ltm_desktop.gui.window.main_window import TAB_STALE, MainWindow

    app = application([])
    offset = 0.0

    def clock() -> float:
        return time.time() + offset

    with tempfile.TemporaryDirectory() as tmp:
        paths = DataPaths(Path(tmp) / "data")
        service = MemoryService(open_store(paths.db_path, paths.backup_dir), paths, clock=clock)
        service.start()
        project = service.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
        drafts = [
            MemoryDraft(f"Generated memory {i} about component {i % 97}", importance=1)
            for i in range(count)
        ]
        service.import_memories(project, drafts, "bench")
        offset = 90 * 86_400.0  # all of them stale now
        settings = QSettings(str(Path(tmp) / "gui.ini"), QSettings.Format.IniFormat)
        settings.setValue("scope", project)
        window = MainWindow(service, settings=settings, data_dir_label="bench")
        window.show()
        stale = window.stale

        def wait(done: Any) -> None:
            while not done():
                app.processEvents()

        window.center.setCurrentIndex(TAB_STALE)
        wait(lambda: stale.model.rowCount() == count)
        stale.select_all.click()
        start = time.perf_counter()
        stale.remove_button.click()
        click = time.perf_counter() - start
        wait(lambda: service.count_memories(project) == 0)
        stored = time.perf_counter() - start
        wait(lambda: stale.model.rowCount() == 0)
        listed = time.perf_counter() - start
        print(
            f"Stale tab, remove {count:,}: the click {click * 1000:,.0f} ms on the UI thread; "
            f"all in the Trash after {stored:.2f} s; the list empty after {listed:.2f} s"
        )
        window.close()
        window.shutdown()
        service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=5_000)
    parser.add_argument("--gui", action="store_true", help="drive the Stale tab instead")
    args = parser.parse_args()
    if args.gui:
        gui(args.memories)
        return
    with tempfile.TemporaryDirectory() as tmp:
        paths = DataPaths(Path(tmp) / "data")
        service = MemoryService(open_store(paths.db_path, paths.backup_dir), paths)
        service.start()
        try:
            project = service.resolve_scope(cwd="/home/dev/src/billing-api", register=True)
            drafts = [
                MemoryDraft(f"Generated memory {i} about component {i % 97} and step {i * 7}")
                for i in range(args.memories)
            ]
            memories = service.import_memories(project, drafts, "bench")
            n = len(memories)
            counted = Counted(service)
            versions = {m.id: m.updated_at for m in memories}
            outcome = ops.BulkOutcome()

            def remove() -> None:
                nonlocal outcome
                outcome = ops.run(service, ops.writes("remove", versions))
                assert len(outcome.done) == n, (len(outcome.done), outcome.failed[:1])

            step(f"remove {n:,}", n, counted, remove)

            def undo() -> None:
                back = ops.run(service, ops.inverse(outcome))
                assert len(back.done) == n
                again = ops.run(service, ops.inverse(back))
                assert len(again.done) == n

            step(f"restore + remove {n:,}", 2 * n, counted, undo)
            ids = list(versions)

            def erase() -> None:
                if hasattr(service, "erase_many"):
                    erased = service.eraser.erase_many(ids, ops.ACTOR)
                    assert len(erased.ids) == n
                else:
                    for memory_id in ids:
                        service.eraser.erase(memory_id, ops.ACTOR)

            step(f"erase {n:,}", n, counted, erase)
            service.memory_md.flush()
        finally:
            service.close()


if __name__ == "__main__":
    main()
