"""Every write method answers success when MEMORY.md cannot be written (issue #10.1)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.core.service import MemoryService
from tests.conftest import FakeClock, ProcessEnv, ServiceFactory, make_draft

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"


def block_precis(service: MemoryService, cwd: str) -> Path:
    """Put a directory where the project's MEMORY.md goes (fails for root too)."""
    target = service.paths.precis_path(service.resolve_cwd(cwd).project_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    (target / "blocked").mkdir(parents=True)
    return target


def test_every_write_method_succeeds_with_a_blocked_memory_md(
    socket_path: Path, client: Client, service: MemoryService, clock: FakeClock
) -> None:
    target = block_precis(service, CWD)
    with Client(socket_path, client_name="watcher") as watcher:
        watcher.events_subscribe()
        added = client.call("memory.add", {"cwd": CWD, "content": "deploy on Tuesdays"})
        memory_id = added["memory"]["id"]
        calls = [
            ("memory.update", {"id": memory_id, "content": "NEVER deploy on Tuesdays"}),
            ("memory.remove", {"id": memory_id}),
            ("memory.restore", {"id": memory_id}),
        ]
        results = [added] + [client.call(method, params) for method, params in calls]
        for result in results:
            assert result["memory"]["id"] == memory_id
            assert "could not be written" in result["warning"]
            assert str(target) in result["warning"]
        actions = [watcher.next_event(timeout=10) for _ in range(4)]
        assert [a["params"]["action"] for a in actions] == [  # type: ignore[index]
            "created",
            "updated",
            "removed",
            "restored",
        ]
        client.call("memory.add", {"cwd": CWD, "content": "short lived", "ttl_days": 1})
        clock.advance(days=2)
        purged = client.call("memory.purge_expired", {"cwd": CWD})
        assert purged["purged"] == 1
        assert "could not be written" in purged["warning"]
        observed = client.call(
            "observe", {"cwd": CWD, "kind": "agent_end", "session_id": "s1", "user_text": "hi"}
        )
        assert observed["observation"]["kind"] == "agent_end"

    [project] = [p for p in client.project_list() if p["path"] == CWD]
    assert project["name"] == "shop"  # the path was registered despite the failure
    memory = client.memory_get(memory_id)
    assert memory["content"] == "NEVER deploy on Tuesdays"
    assert not memory["disabled"]
    again = client.call("memory.add", {"cwd": CWD, "content": "a different fact entirely"})
    assert again["status"] == "created"

    health = client.health()
    assert health["ok"] is True
    [problem] = health["memory_md_problems"]
    assert problem["path"] == str(target)
    assert problem["project_id"] == project["project_id"]
    assert problem["reason"]

    shutil.rmtree(target)
    client.call("memory.update", {"id": memory_id, "importance": 7})
    assert client.health()["memory_md_problems"] == []
    assert "\n\nNEVER deploy on Tuesdays" in target.read_text()


def test_writes_to_other_scopes_carry_no_warning(client: Client, service: MemoryService) -> None:
    block_precis(service, CWD)
    client.call("memory.add", {"cwd": CWD, "content": "deploy on Tuesdays"})
    other = client.call("memory.add", {"cwd": "/home/dev/src/other", "content": "fine"})
    assert "warning" not in other


def console_script() -> str:
    """The installed ``ltm-desktop`` entry point of this environment."""
    script = Path(sys.executable).with_name("ltm-desktop")
    assert script.exists(), f"install the package first ({script} is missing)"
    return str(script)


def blocked_data_dir(make_service: ServiceFactory, data_dir: Path) -> Path:
    service = make_service(data_dir)
    project = service.resolve_scope(cwd=CWD, register=True)
    service.add(project, make_draft("kept in the database"), "agent")
    target = block_precis(service, CWD)
    service.close()
    return target


def test_status_starts_with_a_blocked_memory_md_and_reports_it(
    make_service: ServiceFactory, tmp_path: Path, process_env: ProcessEnv
) -> None:
    target = blocked_data_dir(make_service, tmp_path / "data")
    done = subprocess.run(
        [console_script(), "--data-dir", str(tmp_path / "data"), "status", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=process_env(tmp_path / "data"),
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert f"({target})" in done.stderr
    assert "warning: MEMORY.md" in done.stderr
    report = json.loads(done.stdout)
    [problem] = report["memory_md_problems"]
    assert problem["path"] == str(target)


def test_serve_starts_with_a_blocked_memory_md_and_reports_it(
    make_service: ServiceFactory, tmp_path: Path, short_dir: Path, process_env: ProcessEnv
) -> None:
    target = blocked_data_dir(make_service, tmp_path / "data")
    sock = short_dir / "blocked.sock"
    process = subprocess.Popen(
        [console_script(), "--data-dir", str(tmp_path / "data"), "serve", "--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=process_env(tmp_path / "data"),
    )
    try:
        assert process.stdout is not None
        assert process.stderr is not None
        assert "serving" in process.stdout.readline()
        with Client(sock) as client:
            [problem] = client.health()["memory_md_problems"]
            assert problem["path"] == str(target)
            result = client.call("memory.add", {"cwd": CWD, "content": "added while blocked"})
            assert result["status"] == "created"
            assert "warning" in result
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        err = process.stderr.read()
        assert f"({target})" in err
        assert "Traceback" not in err
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        process.stdout.close()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]
