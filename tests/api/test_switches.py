"""``[memory] enabled`` and ``[memory] backend`` over a real socket: one documented error
for every memory method, ``health`` always answering and naming the backend."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ltm_desktop.api import protocol
from ltm_desktop.api.client import BackendNotImplementedError, Client, Disabled
from ltm_desktop.api.methods import METHODS, UNGATED
from ltm_desktop.core.errors import BackendNotImplemented
from ltm_desktop.core.records import MemoryDraft
from ltm_desktop.core.settings.config import Settings
from ltm_desktop.core.settings.switches import Switches
from tests.api.conftest import ServerFactory
from tests.conftest import ServiceFactory

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/billing-api"
LTM = Path(sys.executable).with_name("ltm-desktop")
# Valid params for the gated methods (each call would work with memory on).
CALLS: dict[str, dict[str, object]] = {
    "project.resolve": {"cwd": CWD},
    "project.list": {},
    "memory.add": {"cwd": CWD, "content": "Deploy with make deploy"},
    "memory.get": {"id": "mem_0"},
    "memory.update": {"id": "mem_0", "title": "x"},
    "memory.remove": {"id": "mem_0"},
    "memory.restore": {"id": "mem_0"},
    "memory.search": {"cwd": CWD, "query": "deploy"},
    "memory.list": {"cwd": CWD},
    "memory.history": {"id": "mem_0"},
    "memory.stale": {"cwd": CWD},
    "memory.purge_expired": {},
    "recall": {"cwd": CWD, "query": "deploy"},
    "observe": {"cwd": CWD, "kind": "agent_end", "session_id": "s1", "user_text": "hi"},
    "forget": {"cwd": CWD, "memory_ids": ["mem_0"]},
    "precis.get": {"cwd": CWD},
    "prompt.section": {"cwd": CWD},
    "stats": {"cwd": CWD},
    "events.subscribe": {},
    "extract": {"cwd": CWD, "text": "we decided to deploy on fridays"},
    "extract.runs": {},
    "inbox.list": {},
    "inbox.approve": {"id": "prop_0"},
    "inbox.reject": {"id": "prop_0"},
    "inbox.reopen": {"id": "prop_0"},
}


def gated() -> list[tuple[str, dict[str, object]]]:
    """Every method but health, hello and auth (ones added later too: the switch answers
    before any parameter is read), with valid params where known."""
    assert set(METHODS) > UNGATED
    return [(name, CALLS.get(name, {})) for name in sorted(set(METHODS) - UNGATED)]


def _serve(make_service: ServiceFactory, start_server: ServerFactory, **settings: object) -> Path:
    service = make_service(settings=Settings(**settings))  # type: ignore[arg-type]
    service.add("global", MemoryDraft(content="kept while memory is off"), "gui")
    thread = start_server(service)
    assert thread.server.endpoint is not None
    assert thread.server.endpoint.socket_path is not None
    return thread.server.endpoint.socket_path


def test_disabled_answers_one_error_and_health(
    make_service: ServiceFactory, start_server: ServerFactory
) -> None:
    path = _serve(make_service, start_server, memory_enabled=False)
    with Client(path, client_name="agent") as client:
        health = client.call("health")
        assert (health["enabled"], health["backend"]) == (False, "sqlite")
        for name, params in gated():
            with pytest.raises(Disabled) as caught:
                client.call(name, params)
            assert caught.value.code == protocol.DISABLED == -32006, name
            assert caught.value.data == {"reason": "ltm_disabled"}
            assert "long-term memory is disabled ([memory] enabled = false" in str(caught.value)
        # nothing was written while off
        assert client.call("hello", {"client": "x"})["server"] == "ltm-desktop"


def test_disabled_service_writes_nothing(
    make_service: ServiceFactory, start_server: ServerFactory
) -> None:
    service = make_service(settings=Settings(memory_enabled=False))
    thread = start_server(service)
    assert thread.server.endpoint is not None
    path = thread.server.endpoint.socket_path
    with Client(path, client_name="agent") as client, pytest.raises(Disabled):
        client.call("memory.add", CALLS["memory.add"])
    assert service.count_memories(service.resolve_scope(cwd=CWD)) == 0
    service.switches.set_enabled(True)  # the app's switch, at run time
    with Client(thread.server.endpoint.socket_path, client_name="agent") as client:
        added = client.call("memory.add", CALLS["memory.add"])
    assert added["status"] == "created"


def test_agentmemory_placeholder_refuses_everything_but_health(
    make_service: ServiceFactory, start_server: ServerFactory
) -> None:
    path = _serve(
        make_service, start_server, memory_backend="agentmemory", agentmemory_url="http://x:1"
    )
    with Client(path, client_name="agent") as client:
        health = client.call("health")
        assert (health["ok"], health["backend"], health["detail"]) == (
            False,
            "agentmemory",
            "not_implemented",
        )
        assert health["enabled"] is True
        for name, params in gated():
            with pytest.raises(BackendNotImplementedError) as caught:
                client.call(name, params)
            assert caught.value.code == protocol.NOT_IMPLEMENTED == -32007, name
            assert caught.value.data == {"backend": "agentmemory"}
            assert 'the "agentmemory" memory backend (http://x:1) is not implemented' in str(
                caught.value
            )


def test_sqlite_health_names_the_backend(client: Client) -> None:
    health = client.call("health")
    assert (health["ok"], health["enabled"], health["backend"], health["detail"]) == (
        True,
        True,
        "sqlite",
        "",
    )


def test_disabled_wins_over_the_placeholder(
    make_service: ServiceFactory, start_server: ServerFactory
) -> None:
    path = _serve(make_service, start_server, memory_enabled=False, memory_backend="agentmemory")
    with Client(path, client_name="agent") as client:
        assert client.call("health")["backend"] == "agentmemory"
        with pytest.raises(Disabled):
            client.call("stats", {"cwd": CWD})


def test_placeholder_backend_refuses_every_agent_call() -> None:
    settings = Settings(memory_backend="agentmemory", agentmemory_url="http://127.0.0.1:3111")
    switches = Switches(settings)
    assert (switches.local, switches.backend, switches.backend_problem()) == (
        False,
        "agentmemory",
        "not_implemented",
    )
    with pytest.raises(
        BackendNotImplemented, match="not implemented yet; nothing was read or written"
    ):
        switches.require_memory()


@pytest.mark.parametrize("switch", ["off", "agentmemory"])
def test_serve_starts_with_each_switch_and_a_bad_key(
    switch: str, tmp_path: Path, short_dir: Path
) -> None:
    """The real ``ltm-desktop serve``: it starts, says what is wrong with the config file,
    answers health and refuses the rest."""
    config = tmp_path / "config.toml"
    value = "enabled = false" if switch == "off" else 'backend = "agentmemory"'
    config.write_text(f"[memory]\n{value}\ncolour = 'blue'\n")
    sock = short_dir / "s.sock"
    args = [str(LTM), "--data-dir", str(tmp_path / "data"), "--config", str(config)]
    server = subprocess.Popen(
        [*args, "serve", "--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert "serving" in server.stdout.readline()
        with Client(sock, client_name="agent") as client:
            health = client.call("health")
            assert health["backend"] == ("agentmemory" if switch == "agentmemory" else "sqlite")
            assert health["enabled"] is (switch != "off")
            expected = Disabled if switch == "off" else BackendNotImplementedError
            with pytest.raises(expected):
                client.call("memory.add", {"cwd": CWD, "content": "x"})
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        assert server.stderr is not None
        errors = server.stderr.read()
        assert f"{config}: unknown key [memory] colour ignored" in errors
        assert "Traceback" not in errors
    finally:
        if server.poll() is None:
            server.kill()
        server.wait()
        server.stdout.close()  # type: ignore[union-attr]
        server.stderr.close()  # type: ignore[union-attr]
