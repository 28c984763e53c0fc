"""Two machines, one PostgreSQL database: two data dirs (each standing for a machine) and
two clones of one remote at different paths are one project, through the real console
script; a path project made before is adopted (merged, audited, verified)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from ltm_desktop.core.actors import ENV_MACHINE
from ltm_desktop.core.projects.identity import remote_project_id
from ltm_desktop.core.rules import project_id_for_cwd
from ltm_desktop.core.settings.launch import ENV_DATABASE_URL
from tests.console import CONSOLE_SCRIPT
from tests.pg_databases import PgDatabases, to_url
from tests.unit.projects.gitrepos import clone_of

SHOP = remote_project_id("github.com/acme/shop")


@pytest.fixture
def database(pg_databases: PgDatabases) -> Iterator[str]:
    conninfo = pg_databases.take()
    yield to_url(conninfo)
    pg_databases.release(conninfo)


class Machine:
    """A data dir and a machine name on the shared database."""

    def __init__(self, root: Path, name: str, url: str) -> None:
        self.data = root / name / "data"
        self.env = {k: v for k, v in os.environ.items() if k != ENV_DATABASE_URL}
        self.env.update({ENV_DATABASE_URL: url, ENV_MACHINE: name})

    def ltm(self, *args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
        extra = ["--config", str(config)] if config else []
        done = subprocess.run(
            [CONSOLE_SCRIPT, *args, "--data-dir", str(self.data), *extra],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=120,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def exported(self, cwd: Path) -> list[str]:
        done = self.ltm("export", "--cwd", str(cwd), "--format", "jsonl")
        assert done.returncode == 0, done.stderr
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        return sorted(line["content"] for line in lines if line.get("type") == "memory")


def _notes(path: Path, text: str) -> Path:
    path.write_text(f"- {text}\n", encoding="utf-8")
    return path


@pytest.mark.slow
def test_two_clones_on_two_machines_are_one_project(database: str, tmp_path: Path) -> None:
    laptop = Machine(tmp_path, "laptop", database)
    desktop = Machine(tmp_path, "desktop", database)
    a = clone_of(tmp_path / "laptop" / "work" / "shop", "git@github.com:acme/shop.git")
    b = clone_of(tmp_path / "desktop" / "code" / "shop-checkout", "https://github.com/acme/shop")
    path_config = tmp_path / "path.toml"
    path_config.write_text('[projects]\nidentity = "path"\n', encoding="utf-8")

    # before: the laptop kept its memories by path
    old = _notes(tmp_path / "old.md", "Deploys go out on Fridays")
    done = laptop.ltm("import", "--cwd", str(a), str(old), config=path_config)
    assert done.returncode == 0, done.stderr
    path_id = project_id_for_cwd(str(a))
    assert laptop.ltm("projects", "which", str(a), config=path_config).stdout.startswith(path_id)

    # then, with the default on PostgreSQL (remote): a write from the clone adopts it
    new = _notes(tmp_path / "new.md", "Use uv for the virtualenv")
    done = laptop.ltm("import", "--cwd", str(a / "."), str(new))
    assert done.returncode == 0, done.stderr
    assert laptop.ltm("projects", "which", str(a)).stdout.startswith(SHOP)

    # the other machine, another path: the same project, both memories
    assert desktop.ltm("projects", "which", str(b)).stdout.startswith(SHOP)
    assert desktop.exported(b) == ["Deploys go out on Fridays", "Use uv for the virtualenv"]
    third = _notes(tmp_path / "third.md", "The staging database is reset on Mondays")
    assert desktop.ltm("import", "--cwd", str(b), str(third)).returncode == 0
    assert "The staging database is reset on Mondays" in laptop.exported(a)

    listed = json.loads(desktop.ltm("projects", "list", "--json").stdout)
    assert listed["identity"] == "remote"
    [shop] = [p for p in listed["projects"] if p["project_id"] == SHOP]
    assert sorted((p["machine"], p["path"]) for p in shop["paths"]) == [
        ("desktop", str(b)),
        ("laptop", str(a)),
    ]
    verified = desktop.ltm("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
