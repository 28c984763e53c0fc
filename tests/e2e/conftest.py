"""Fixtures: the pinned agent CLIs (installed once), and one real turn per agent.

Without node/npm the tests skip, saying why, unless ``LTM_E2E_REQUIRED=1`` (CI sets it):
then a CLI that cannot be installed fails them. ``LTM_E2E_CAPTURES=DIR`` keeps what each
run saw (hook payloads, transcripts, model requests) in ``DIR/<cli>/``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import install
from tests.e2e.clis import AGENTS, COMMANDS, Cli
from tests.e2e.fake_models import FakeModels, Recorded
from tests.e2e.harness import Sandbox


@pytest.hookimpl(tryfirst=True)  # before tests/conftest.py leaves the slow ones out
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in item.nodeid.replace("\\", "/"):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)  # a real agent CLI's turn: seconds


@pytest.fixture(scope="session")
def agent_bin() -> Path:
    """The folder holding the pinned claude, codex and gemini commands."""
    try:
        return install.install()
    except (install.InstallError, OSError, subprocess.TimeoutExpired) as exc:
        reason = f"the agent CLIs are not installed: {exc}"
        if os.environ.get("LTM_E2E_REQUIRED") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


def snapshot(paths: list[Path]) -> dict[Path, bytes | None]:
    return {path: path.read_bytes() if path.exists() else None for path in paths}


@dataclass
class Run:
    """One agent's real turn, and everything observed around it."""

    cli: Cli
    models: FakeModels
    done: subprocess.CompletedProcess[str]
    mcp_list: subprocess.CompletedProcess[str]
    hook_events: list[dict[str, Any]]
    before_install: dict[Path, bytes | None]
    after_run: dict[Path, bytes | None]
    trusted: list[dict[str, Any]] = field(default_factory=list)

    def __repr__(self) -> str:  # what pytest prints for the fixture: short
        return f"Run({self.agent}, in {self.sandbox.root})"

    @property
    def agent(self) -> str:
        return self.cli.agent

    @property
    def sandbox(self) -> Sandbox:
        return self.cli.sandbox

    @property
    def requests(self) -> list[Recorded]:
        return self.models.requests


def new_cli(agent: str, root: Path, bin_dir: Path, model_url: str) -> Cli:
    """An agent's sandbox with the person's own config and one memory, not integrated."""
    sandbox = Sandbox(root, bin_dir).create(model_url)
    cli = Cli(agent, sandbox, model_url)
    cli.configure()
    sandbox.seed()
    return cli


@pytest.fixture(scope="module", params=AGENTS)
def run(
    request: pytest.FixtureRequest, agent_bin: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Run]:
    agent = str(request.param)
    models = FakeModels().start()
    try:
        cli = new_cli(agent, tmp_path_factory.mktemp(agent), agent_bin, models.url)
        before = snapshot(cli.settings_files)
        cli.integrate()
        trusted = cli.trust_hooks()
        done = cli.turn()
        hook_events = cli.sandbox.hook_events()
        after = snapshot(cli.settings_files)
        captures = os.environ.get("LTM_E2E_CAPTURES", "").strip()
        if captures:
            requests = [r.as_dict() for r in models.requests]
            cli.sandbox.save_captures(Path(captures) / COMMANDS[agent], requests, done)
        listed = cli.mcp_list()  # after the turn: `claude mcp list` fires SessionEnd too
        yield Run(cli, models, done, listed, hook_events, before, after, trusted)
    finally:
        models.stop()
