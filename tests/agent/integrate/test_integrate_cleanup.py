"""``integrate --uninstall`` takes away what ``integrate`` made, and only that: the agent's
folder it created (``~/.gemini``, ``~/.codex``...), the files only it wrote, the backups
it made of a file it gave back as it was; what the person or the agent put there stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.integrate.test_integrate import FILES, GEMINI_SETTINGS, integrate

AGENTS = ["claude-code", "codex", "gemini"]
# What each agent writes into its folder when it runs (seen with the real CLIs)
AGENT_FILES = {
    "claude-code": [".claude/projects/-tmp/0f3c.jsonl", ".claude.json.backup"],
    "codex": [".codex/auth.json", ".codex/state_5.sqlite", ".codex/log/codex-tui.log"],
    "gemini": [".gemini/installation_id", ".gemini/tmp/0f3c/logs.json"],
}


def everything(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*"))


@pytest.fixture
def empty_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.mark.parametrize("agent", AGENTS)
def test_an_install_into_a_home_without_the_agent_leaves_nothing_after_uninstall(
    agent: str, empty_home: Path
) -> None:
    assert integrate(empty_home, agent).returncode == 0
    assert integrate(empty_home, agent).returncode == 0
    assert everything(empty_home) != []

    done = integrate(empty_home, agent, "--uninstall")

    assert done.returncode == 0, done.stderr
    assert everything(empty_home) == []
    assert "removed the empty folder" in done.stdout


@pytest.mark.parametrize("agent", AGENTS)
def test_what_the_agent_wrote_into_the_folder_install_made_stays(
    agent: str, empty_home: Path
) -> None:
    assert integrate(empty_home, agent).returncode == 0
    for name in AGENT_FILES[agent]:
        (empty_home / name).parent.mkdir(parents=True, exist_ok=True)
        (empty_home / name).write_text("the agent's own\n")

    assert integrate(empty_home, agent, "--uninstall").returncode == 0

    left = [p for p in everything(empty_home) if (empty_home / p).is_file()]
    assert left == sorted(AGENT_FILES[agent])


@pytest.mark.parametrize("agent", AGENTS)
def test_a_file_given_back_as_it_was_takes_its_backups_along(agent: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    for name, text in FILES[agent].items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    assert integrate(home, agent).returncode == 0
    assert list(home.rglob("*.bak"))

    assert integrate(home, agent, "--uninstall").returncode == 0

    assert list(home.rglob("*.bak")) == []
    assert {n: (home / n).read_text() for n in FILES[agent]} == FILES[agent]


def test_backups_stay_when_the_person_changed_the_file_since(tmp_path: Path) -> None:
    """Ours are cut out of a file that is not what install made: the backups are the
    person's only copy of it as it was."""
    home = tmp_path / "home"
    settings = home / ".gemini/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(GEMINI_SETTINGS)
    assert integrate(home, "gemini").returncode == 0
    settings.write_text(settings.read_text().replace('"Dracula"', '"GitHub"'))

    assert integrate(home, "gemini", "--uninstall").returncode == 0

    assert len(list(home.rglob("settings.json.ltm-desktop-*.bak"))) == 2  # install's, ours


def test_an_agent_folder_that_was_empty_before_is_not_touched_by_an_uninstall_of_nothing(
    empty_home: Path,
) -> None:
    (empty_home / ".gemini").mkdir()
    assert integrate(empty_home, "gemini", "--uninstall").returncode == 0
    assert everything(empty_home) == [".gemini"]
