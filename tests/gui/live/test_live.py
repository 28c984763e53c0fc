"""Live updates: writes from another thread (an agent in-process) and another process's service."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.gui.bridge import ChangeSet, ServiceBridge
from ltm_desktop.gui.tasks import TaskRunner
from tests.conftest import ServiceFactory
from tests.gui.conftest import WindowFactory, add


def write_from_thread(work: object) -> None:
    """Run a write on another thread, as the agent API server does."""
    thread = threading.Thread(target=work, name="fake-agent")  # type: ignore[arg-type]
    thread.start()
    thread.join()


def test_agent_write_from_another_thread_keeps_selection_and_edits(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    memories = [
        add(service, billing, f"{word} memory about the build", importance=5)
        for word in ("First", "Second", "Third")
    ]
    window = make_window(service, scope=billing)
    table = window.table
    chosen = memories[1]
    qtbot.waitUntil(lambda: table.select_memory(chosen.id))
    qtbot.waitUntil(lambda: window.editor.memory_id == chosen.id)
    window.editor.form.tags.setText("unsaved, edit")
    window.editor.form.on_field_edited()
    assert window.editor.is_dirty()

    def agent() -> None:
        service.add(
            billing, MemoryDraft("Brand new fact from the agent", importance=9), "claude-code"
        )
        service.update(memories[2].id, {"title": "Renamed by the agent"}, "claude-code")
        service.remove(memories[0].id, "claude-code")

    write_from_thread(agent)
    qtbot.waitUntil(
        lambda: (
            table.model.rowCount() == 3
            and table.model.rows()[0].title == "Brand new fact from the agent"
        )
    )
    assert table.selected_ids() == [chosen.id]  # selection survived the rows moving
    assert table.current_id() == chosen.id
    assert "Renamed by the agent" in [r.title for r in table.model.rows()]
    assert window.editor.form.tags.text() == "unsaved, edit"  # edits untouched
    assert window.editor.memory_id == chosen.id
    qtbot.waitUntil(lambda: getattr(window.projects.model.project(billing), "active", 0) == 3)


@pytest.mark.slow
def test_second_service_on_the_same_data_dir_is_picked_up(
    qtbot: QtBot,
    make_window: WindowFactory,
    make_service: ServiceFactory,
    service: MemoryService,
    billing: str,
    tmp_path: object,
) -> None:
    add(service, billing, "Existing memory")
    window = make_window(service, scope=billing)
    other = make_service(service.paths.data_dir)  # another process on the same database
    created = other.add(billing, MemoryDraft("Written by a headless server"), "server").memory
    new_project = other.resolve_scope(cwd="/srv/apps/new-service", register=True)
    other.add(new_project, MemoryDraft("First memory of a new project"), "server")
    qtbot.waitUntil(lambda: window.table.model.row_of(created.id) >= 0, timeout=5000)
    qtbot.waitUntil(lambda: window.projects.model.project(new_project) is not None, timeout=5000)


def test_many_writes_are_coalesced(
    qtbot: QtBot, make_window: WindowFactory, service: MemoryService, billing: str
) -> None:
    window = make_window(service, scope=billing)
    signals: list[object] = []
    window.ctx.bridge.changed.connect(signals.append)
    drafts = [MemoryDraft(f"Imported memory number {i} on topic {i * 13}") for i in range(300)]
    write_from_thread(lambda: service.import_memories(billing, drafts, "importer"))
    qtbot.waitUntil(lambda: window.table.model.total == 300)
    assert len(signals) <= 3


def test_a_change_during_the_first_page_load_is_not_lost(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A refresh requested while the first page is read must run after it (review finding)."""
    add(service, billing, "Existing memory one")
    window = make_window(service, scope=billing)
    window.ctx.bridge.stop()  # only the explicit refresh below may notice the change
    model = window.table.model
    read_done, release = threading.Event(), threading.Event()
    make_fetcher = model.make_fetcher

    def gated() -> object:
        made = make_fetcher()
        assert made is not None
        fetcher = made
        page = fetcher.page

        class Gated:
            def total(self) -> int | None:
                return fetcher.total()

            def page(self, offset: int, limit: int, last: Any | None) -> object:
                result = page(offset, limit, last)  # read before the change...
                read_done.set()
                release.wait(5)  # ...and deliver it after
                return result

        return Gated()

    monkeypatch.setattr(model, "make_fetcher", gated)
    model.reload()
    assert read_done.wait(5)
    new = add(service, billing, "Added while the first page was being read")
    model.refresh()  # the live update arrives during the load
    release.set()
    qtbot.waitUntil(lambda: model.row_of(new.id) >= 0, timeout=3000)


def test_the_bridge_is_woken_by_the_change_feed_without_its_poll_timer(
    qtbot: QtBot, make_service: ServiceFactory, service: MemoryService, runner: TaskRunner
) -> None:
    """Another process's commit reaches the bridge through ``service.changes``: its poll
    timer (an hour here) never fires in this test."""
    billing = service.resolve_scope(cwd="/srv/billing", register=True)
    bridge = ServiceBridge(service, runner, poll_ms=3_600_000)
    seen: list[ChangeSet] = []
    bridge.changed.connect(seen.append)
    bridge.start()
    try:
        qtbot.waitUntil(lambda: bridge._last_seq is not None, timeout=10_000)
        other = make_service(service.paths.data_dir)  # another process on the same database
        created = other.add(billing, MemoryDraft("Written elsewhere"), "server").memory
        qtbot.waitUntil(
            lambda: any(c.external and c.touches_memory(created.id) for c in seen),
            timeout=30_000,
        )
    finally:
        bridge.stop()
