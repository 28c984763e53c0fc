"""Two people on one PostgreSQL database, each on their own machine (a data dir with its
``machine.json`` and ``[people] name``) with a real ``ltm-desktop serve``: Ana's global
memories stay hers (her searches and MEMORY.md files), the team's reach both, and Ben's
server never writes a file for Ana's scope (docs/teams.md)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ltm_desktop.api.client import Client
from ltm_desktop.core.projects.ambient import personal_scope_id
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL
from ltm_desktop.core.settings.paths import DataPaths
from tests.api.conftest import wait_until
from tests.pg_server import fresh_database

LTM = Path(sys.executable).with_name("ltm-desktop")
SHOP = "/home/dev/src/shop"  # a directory without a remote: its path project, on both


def machine_dir(root: Path, name: str, person: str) -> tuple[Path, Path]:
    """A data dir standing for the machine ``name`` and a config naming ``person`` (the
    global scope left to the engine's default: per person on PostgreSQL)."""
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


@contextmanager
def serving(data: Path, config: Path, sock: Path, env: dict[str, str]) -> Iterator[None]:
    server = subprocess.Popen(
        [str(LTM), "--data-dir", str(data), "--config", str(config)]
        + ["serve", "--socket", str(sock)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert server.stdout is not None
        assert "serving" in server.stdout.readline()
        yield
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _file(data: Path, project_id: str) -> str:
    path = DataPaths(data).precis_path(project_id)
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_each_persons_global_stays_theirs_the_teams_reaches_both(
    pg_server_url: str, tmp_path: Path, short_dir: Path
) -> None:
    laptop, laptop_config = machine_dir(tmp_path, "laptop", "ana")
    desktop, desktop_config = machine_dir(tmp_path, "desktop", "ben")
    anas, bens = personal_scope_id("ana"), personal_scope_id("ben")
    with fresh_database(pg_server_url) as url:
        env = {**os.environ, ENV_DATABASE_URL: url}
        a_sock, b_sock = short_dir / "a.sock", short_dir / "b.sock"
        with (
            serving(laptop, laptop_config, a_sock, env),
            serving(desktop, desktop_config, b_sock, env),
            Client(a_sock, client_name="claude-code") as ana,
            Client(b_sock, client_name="codex") as ben,
        ):
            project = ana.memory_add("Shop keeps its YAML tab-free", cwd=SHOP)["memory"]
            mine = ana.memory_add("Ana prefers tabs in Go code", project_id="global")["memory"]
            team = ana.memory_add("The team tags releases from main", project_id="team")
            assert mine["project_id"] == anas
            assert team["memory"]["project_id"] == "global"
            theirs = ben.memory_add("Ben prefers terse commit messages", project_id="global")
            assert theirs["memory"]["project_id"] == bens

            def found(client: Client, query: str) -> set[str]:
                return {h["memory"]["content"] for h in client.memory_search(query, cwd=SHOP)}

            assert found(ana, "tabs") >= {mine["content"]}
            assert mine["content"] not in found(ben, "tabs")
            assert found(ben, "releases") == {"The team tags releases from main"}
            assert found(ana, "terse") == set()

            # each machine's files: its person's global and the team's, never the other's
            def settled() -> bool:
                files = {
                    data: [_file(data, project["project_id"]), _file(data, "global")]
                    for data in (laptop, desktop)
                }
                return all(
                    all(text in f for f in files[data])
                    for data, text in (
                        (laptop, "tags releases"),
                        (laptop, "Ana prefers tabs"),
                        (desktop, "tags releases"),
                        (desktop, "Ben prefers terse"),
                    )
                )

            wait_until(settled, timeout=20)
            assert "Ben prefers terse" not in _file(laptop, project["project_id"])
            assert "Ben prefers terse" not in _file(laptop, "global")
            assert "Ana prefers tabs" not in _file(desktop, project["project_id"])
            assert "Ana prefers tabs" not in _file(desktop, "global")
            assert not DataPaths(desktop).precis_path(anas).exists()
            assert not DataPaths(laptop).precis_path(bens).exists()
            names = {p["project_id"]: p["name"] for p in ben.project_list()}
            assert names[anas] == "Global (ana)"  # listed in the app, not searched
