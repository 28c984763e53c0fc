"""Two machines on one PostgreSQL database, as two data dirs with their own
``machine.json`` and ``[people] name``, each with real ``ltm-desktop`` processes: an agent
writes through the laptop's ``serve``, a person imports on the desktop, and the history
(``ltm-desktop history`` and ``memory.scope_history``) names both people and machines."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL
from tests.pg_server import fresh_database

LTM = Path(sys.executable).with_name("ltm-desktop")


def machine_dir(root: Path, name: str, person: str) -> tuple[Path, Path]:
    """A data dir standing for the machine ``name`` and a config naming ``person``."""
    data = root / name
    data.mkdir(mode=0o700)
    (data / "machine.json").write_text(
        json.dumps({"id": f"id-of-{name}", "name": name}), encoding="utf-8"
    )
    config = root / f"{name}.toml"
    config.write_text(f'[people]\nname = "{person}"\n', encoding="utf-8")
    return data, config


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """Unix socket paths must be short; pytest's tmp_path can be too long."""
    path = Path(tempfile.mkdtemp(prefix="ltm-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_a_write_from_each_machine_names_both_in_the_history(
    pg_server_url: str, tmp_path: Path, short_dir: Path
) -> None:
    laptop, laptop_config = machine_dir(tmp_path, "laptop", "ana")
    desktop, desktop_config = machine_dir(tmp_path, "desktop", "ben")
    notes = tmp_path / "AGENTS.md"
    notes.write_text("# Notes\n\n- Releases are tagged from main only.\n", encoding="utf-8")
    with fresh_database(pg_server_url) as url:
        env = {**os.environ, ENV_DATABASE_URL: url}

        def ltm(data: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
            command = [str(LTM), "--data-dir", str(data), "--config", str(config), *args]
            return subprocess.run(
                command, capture_output=True, text=True, timeout=60, env=env, check=False
            )

        sock = short_dir / "laptop.sock"
        server = subprocess.Popen(
            [str(LTM), "--data-dir", str(laptop), "--config", str(laptop_config)]
            + ["serve", "--socket", str(sock)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert server.stdout is not None
            assert "serving" in server.stdout.readline()
            # the team's scope: each person's "global" is their own on a shared database
            with Client(sock, client_name="claude-code") as agent:
                agent.memory_add("Deploys go out on Thursdays", project_id="team")
            imported = ltm(desktop, desktop_config, "import", str(notes), "--project", "team")
            assert imported.returncode == 0, imported.stderr
            with Client(sock) as client:
                events = client.memory_scope_history(project_id="team")
                only_ben = client.memory_scope_history(project_id="team", person="ben@desktop")
            server.send_signal(signal.SIGTERM)
            assert server.wait(timeout=30) == 0
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()
        assert [(e["actor"], e["person"], e["machine"]) for e in events] == [
            ("import", "ben@desktop", "desktop"),
            ("claude-code", "ana@laptop", "laptop"),
        ]
        assert [e["machine_id"] for e in only_ben] == ["id-of-desktop"]
        shown = ltm(desktop, desktop_config, "history", "--project", "team")
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.splitlines()
        assert len(lines) == 2
        assert lines[0].endswith("by import · ben@desktop on desktop")
        assert lines[1].endswith("by claude-code · ana@laptop on laptop")
        verified = ltm(laptop, laptop_config, "verify")
        assert verified.returncode == 0, verified.stderr
