"""The app's own edits while the shared database cannot be reached: kept in this machine's
outbox (as an agent's writes are), counted in the status bar, and written with the
version the person saw once the server answers. Actions that need the database say so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from ltm_desktop.core.backend import MemoryStore
from ltm_desktop.core.errors import DatabaseUnreachable
from ltm_desktop.core.offline import QueuedKind
from ltm_desktop.core.records import AddResult, AddStatus, MemoryDraft
from ltm_desktop.core.service import MemoryService
from ltm_desktop.core.settings.paths import DataPaths
from ltm_desktop.gui import ops
from ltm_desktop.gui.outcome_text import bulk_text
from ltm_desktop.gui.window.main_window import MainWindow
from ltm_desktop.gui.window.navigation import TAB_ACTIVITY, TAB_MEMORIES
from ltm_desktop.outbox import DeferredStore, LocalOutbox
from tests.gui.conftest import ServiceFactory, WindowFactory, add, wait_idle
from tests.gui.test_app_undo import open_in_editor

DOWN = "cannot reach PostgreSQL at db.example:5432/ltm: connection refused"


class Server:
    """What the outbox's probe finds: the server answering (None) or why not."""

    def __init__(self) -> None:
        self.problem: str | None = None

    def probe(self) -> str | None:
        return self.problem


@pytest.fixture
def server() -> Server:
    return Server()


@pytest.fixture
def outbox(service: MemoryService, server: Server) -> Iterator[LocalOutbox]:
    """The service's outbox, its thread not started: a test marks the scopes it uses
    first, so the thread's first pass mirrors them (later passes wait 5 s)."""
    box = LocalOutbox(Path(service.paths.data_dir), server.probe, interval=0.05)
    service.offline = box
    yield box
    box.close()


def _go_offline(box: LocalOutbox, server: Server) -> None:
    server.problem = DOWN
    box.unreachable(DOWN)


def test_an_edit_saved_offline_is_queued_and_written_when_the_server_answers(
    qtbot: QtBot,
    make_window: WindowFactory,
    service: MemoryService,
    billing: str,
    outbox: LocalOutbox,
    server: Server,
) -> None:
    memory = add(service, billing, "Deploys go out on Tuesdays")
    window = make_window(service, scope=billing)  # the scope shown is mirrored
    qtbot.waitUntil(lambda: billing in {p for p, _ in outbox.mirror.scopes()})  # marked
    outbox.start(service)
    qtbot.waitUntil(lambda: outbox.cached_memory(memory.id) is not None)
    _go_offline(outbox, server)
    open_in_editor(qtbot, window, memory.id)
    content = window.editor.form.content
    content.setPlainText("Deploys go out on Thursdays")
    window.editor.save()
    qtbot.waitUntil(lambda: len(outbox.queued()) == 1)
    write = outbox.queued()[0]
    assert (write.kind, write.memory_id, write.actor) == (QueuedKind.UPDATE, memory.id, "gui")
    assert write.fields["content"] == "Deploys go out on Thursdays"
    assert write.base_version == memory.updated_at  # the version the person saw
    assert service.get(memory.id).content == "Deploys go out on Tuesdays"  # not yet
    label = window.status.offline_label
    qtbot.waitUntil(lambda: label.text().startswith("offline — 1 change waiting"))
    said = window.status.message_label.text()
    assert said.startswith("Queued “Deploys go out on Tuesdays”: the database cannot be reached")

    server.problem = None  # the server answers: the outbox replays
    qtbot.waitUntil(lambda: service.get(memory.id).content == "Deploys go out on Thursdays")
    qtbot.waitUntil(lambda: not outbox.queued())
    wait_idle(qtbot, window)


def test_a_new_memory_made_offline_keeps_its_id_and_keep_says_it_needs_the_database(
    service: MemoryService, billing: str, outbox: LocalOutbox, server: Server, qtbot: QtBot
) -> None:
    known = add(service, billing, "Staging lives on port 8080")
    outbox.seen(billing)
    outbox.start(service)
    qtbot.waitUntil(lambda: outbox.cached_memory(known.id) is not None)
    _go_offline(outbox, server)

    result: AddResult = ops.add(service, billing, MemoryDraft(content="Use pnpm, not npm"))
    assert result.status is AddStatus.QUEUED
    kept = ops.run(service, ops.writes("keep", {known.id: known.updated_at}))
    assert [m for m, _ in kept.failed] == [known.id]
    assert "needs the database" in str(kept.failed[0][1])
    removed = ops.run(service, ops.writes("remove", {known.id: known.updated_at}))
    assert [m.disabled for m in removed.done] == [True]
    assert removed.queued == 1
    assert "Queued on this machine" in bulk_text(removed, "Removed {what}.", "")
    assert [w.kind for w in outbox.queued()] == [QueuedKind.ADD, QueuedKind.REMOVE]

    server.problem = None
    qtbot.waitUntil(lambda: not outbox.queued())
    assert service.get(result.memory.id).content == "Use pnpm, not npm"  # the id it was given
    assert service.get(known.id).disabled


def test_the_list_opened_offline_shows_the_read_cache_with_the_queued_edits(
    qtbot: QtBot,
    make_window: WindowFactory,
    make_service: ServiceFactory,
    tmp_path: Path,
    server: Server,
) -> None:
    """The app started while the server is down: its list is this machine's read cache
    (mirrored while it was up), with the changes waiting applied, and an edit from it is
    queued as well."""
    data = DataPaths(tmp_path / "laptop")
    online = make_service(data.data_dir)
    project = online.resolve_scope(cwd="/home/dev/src/shop", register=True)
    kept = add(online, project, "Checkout uses Stripe", importance=8)
    gone = add(online, project, "Carts expire after a day", importance=5)
    mirror = LocalOutbox(data.data_dir, server.probe, interval=0.05)
    online.offline = mirror
    mirror.seen(project)
    mirror.start(online)
    qtbot.waitUntil(lambda: len(mirror.cached(project)) == 2)
    server.problem = DOWN
    mirror.unreachable(DOWN)
    ops.run(online, ops.writes("remove", {gone.id: gone.updated_at}))  # waits in the outbox
    mirror.close()
    online.close()

    store = DeferredStore(_never, "PostgreSQL at db.example:5432/ltm", DOWN)
    service = MemoryService(store.as_store(), data)
    box = LocalOutbox(data.data_dir, server.probe, offline=DOWN, interval=0.05)
    service.offline = box
    try:
        window = make_window(service, scope=project)
        table = window.table
        qtbot.waitUntil(lambda: table.model.row_of(kept.id) >= 0)
        assert table.model.row_of(gone.id) < 0  # its queued remove applies
        assert table.model.rowCount() == 1
        warning = window.integrity_warning  # unreachable is not a finding about the data
        qtbot.waitUntil(lambda: warning.unchecked is not None)
        assert not warning.isVisible()
        window.center.setCurrentIndex(TAB_ACTIVITY)  # reads the whole history: not offline
        qtbot.waitUntil(lambda: "cannot be reached (working offline)" in _said(window))
        assert window.ctx.errors.open_boxes() == []  # a line in the status bar, no dialog
        window.center.setCurrentIndex(TAB_MEMORIES)
        open_in_editor(qtbot, window, kept.id)
        window.editor.form.content.setPlainText("Checkout uses Stripe and Adyen")
        window.editor.save()
        qtbot.waitUntil(lambda: len(box.queued()) == 2)
        assert box.queued()[1].fields["content"] == "Checkout uses Stripe and Adyen"
        window.close()
        window.shutdown()
    finally:
        box.close()
        service.close()


def _said(window: MainWindow) -> str:
    return window.status.message_label.text()


def _never() -> MemoryStore:
    raise DatabaseUnreachable(DOWN)
