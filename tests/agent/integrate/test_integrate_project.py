"""``integrate --scope project`` writes files that teammates commit: they must not name
this user's installation by its absolute path when ``ltm-desktop`` on PATH does."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.agent.hook_process import EXECUTABLE
from tests.agent.integrate.test_integrate import integrate, our_commands_in

PROJECT_FILES = {
    "claude-code": (".claude/settings.json", ".mcp.json"),
    "codex": (".codex/config.toml", ".codex/config.toml"),
    "gemini": (".gemini/settings.json", ".gemini/settings.json"),
}


def load(path: Path) -> dict[str, Any]:
    text = path.read_text()
    loaded: dict[str, Any] = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    return loaded


def commands(project: Path, agent: str) -> tuple[list[str], str]:
    """(the hooks' command lines, the MCP server's command) in ``project``'s files."""
    hooks, mcp = (project / name for name in PROJECT_FILES[agent])
    servers = load(mcp)["mcp_servers" if agent == "codex" else "mcpServers"]
    return our_commands_in(load(hooks)), servers["ltm-desktop"]["command"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    project.mkdir()
    return project


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_the_bare_name_is_written_when_path_finds_this_installation(
    agent: str, project: Path, tmp_path: Path
) -> None:
    done = integrate(tmp_path, agent, "--scope", "project", cwd=project, on_path=EXECUTABLE.parent)

    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stdout
    hooks, server = commands(project, agent)
    assert len(hooks) == 5
    assert all(shlex.split(c)[0] == "ltm-desktop" for c in hooks)
    assert server == "ltm-desktop"
    for name in PROJECT_FILES[agent]:
        assert str(EXECUTABLE.parent) not in (project / name).read_text()
    undone = integrate(
        tmp_path, agent, "--scope", "project", "--uninstall", cwd=project, on_path=EXECUTABLE.parent
    )
    assert undone.returncode == 0, undone.stderr
    assert list(project.iterdir()) == []


@pytest.mark.parametrize("other", [False, True])
def test_the_absolute_path_is_kept_with_a_warning_when_path_finds_no_such_installation(
    project: Path, tmp_path: Path, other: bool
) -> None:
    folder = None
    if other:  # another installation first on PATH
        folder = tmp_path / "bin"
        folder.mkdir()
        (folder / "ltm-desktop").write_text("#!/bin/sh\n")
        (folder / "ltm-desktop").chmod(0o755)

    done = integrate(tmp_path, "gemini", "--scope", "project", cwd=project, on_path=folder)

    assert done.returncode == 0, done.stderr
    found = f"is {folder / 'ltm-desktop'}" if folder else "is not found"
    warning = done.stdout.splitlines()[0]
    assert warning.startswith(f"warning: `ltm-desktop` on PATH {found}, not this installation")
    assert "teammates" in warning
    hooks, server = commands(project, "gemini")
    assert server == str(EXECUTABLE)
    assert all(shlex.split(c)[0] == str(EXECUTABLE) for c in hooks)


def test_user_scope_keeps_the_absolute_path_with_it_on_path(tmp_path: Path) -> None:
    """Agents run hooks without the user's shell set-up: PATH may not have it."""
    done = integrate(tmp_path, "gemini", on_path=EXECUTABLE.parent)
    assert done.returncode == 0, done.stderr
    settings = load(tmp_path / ".gemini/settings.json")
    assert all(shlex.split(c)[0] == str(EXECUTABLE) for c in our_commands_in(settings))
    assert settings["mcpServers"]["ltm-desktop"]["command"] == str(EXECUTABLE)


def test_a_dry_run_gives_the_warning_too(project: Path, tmp_path: Path) -> None:
    """The person deciding from the diff is told what the files will name, before."""
    done = integrate(tmp_path, "gemini", "--scope", "project", "--dry-run", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("warning: `ltm-desktop` on PATH is not found")
    assert "+++" in done.stdout  # the diff, on stdout alone
    assert not (project / ".gemini").exists()  # nothing written
