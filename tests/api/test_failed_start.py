"""A start that fails after the socket is bound leaves nothing behind: the socket file
(and its lock) would otherwise make the next start, or an agent, find a dead server."""

from __future__ import annotations

import pytest

from ltm_desktop.api import runtime
from ltm_desktop.api.runtime import socket_for
from ltm_desktop.api.server import ServerOptions
from ltm_desktop.api.server_thread import ServerThread
from ltm_desktop.core.service import MemoryService

pytestmark = pytest.mark.every_backend


def test_a_start_failing_to_publish_its_endpoint_removes_its_socket(
    service: MemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unwritable(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runtime, "publish_endpoint", unwritable)
    socket_path = socket_for(service.paths.data_dir)
    options = ServerOptions(socket_path, publish_endpoint=True)
    thread = ServerThread(service, service.paths.data_dir, options)
    assert not thread.start()
    assert thread.error is not None
    assert "No space left on device" in thread.error
    thread.stop()
    assert not socket_path.exists()
    # and a second start on the same data dir works
    monkeypatch.undo()
    again = ServerThread(service, service.paths.data_dir, ServerOptions(socket_path))
    assert again.start(), again.error
    again.stop()
